"""``pelib.at_most`` and ``pelib.shown``: the text a page prints is what was checked,
and only that."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import pelib

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
positive = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False)


@given(st.lists(finite, min_size=1, max_size=5), positive)
def test_at_most_passes_exactly_when_every_entry_meets_the_bound(values, bound):
    largest = max(abs(v) for v in values)
    if largest <= bound:
        text = pelib.at_most(values, bound)
        assert text.startswith("≤ ")
        assert float(text[2:]) >= float(
            repr(bound)
        )  # never tighter than what was checked
    else:
        with pytest.raises(ValueError, match="exceeds its bound"):
            pelib.at_most(values, bound)


@given(positive)
def test_the_bound_is_rounded_up_to_two_significant_digits(bound):
    shown = float(pelib.at_most(0.0, bound)[2:])
    exact = float(repr(bound))
    assert (
        exact <= shown <= exact * (1 + 0.1 + 1e-12)
    )  # at most one unit of the second digit above
    assert len(f"{shown:.1e}".split("e")[0].replace(".", "").rstrip("0")) <= 2


@pytest.mark.parametrize(
    ("bound", "text"),
    [
        (5e-16, "≤ 5e-16"),
        (4.44e-13, "≤ 4.5e-13"),
        (2.0**-24, "≤ 6e-08"),
        (1e-13, "≤ 1e-13"),
        (0.06, "≤ 0.06"),
        (2.0**-53, "≤ 1.2e-16"),
    ],
)
def test_bound_texts(bound, text):
    assert pelib.at_most(bound, bound) == text


def test_mpmath_values_are_read_exactly_enough():
    assert (
        pelib.at_most([mpmath.mpf("3e-58"), mpmath.mpf("-1e-60")], 1e-57) == "≤ 1e-57"
    )
    with pytest.raises(ValueError, match="exceeds"):
        pelib.at_most(mpmath.mpf("2e-57"), 1e-57)


def test_nan_meets_no_bound():
    with pytest.raises(ValueError, match="nan"):
        pelib.at_most(np.array([0.0, np.nan]), 1.0)


@given(
    finite,
    st.sampled_from([".2f", ".4f", ".3g", ".1e", ".0f"]),
    st.floats(min_value=0, max_value=1e3),
)
def test_shown_refuses_exactly_when_a_neighbour_reads_differently(value, spec, slack):
    texts = {
        format(value - slack, spec),
        format(value, spec),
        format(value + slack, spec),
    }
    if len(texts) == 1:
        assert pelib.shown(value, spec, slack) == format(value, spec)
    else:
        with pytest.raises(ValueError, match="print fewer digits"):
            pelib.shown(value, spec, slack)


def test_shown_near_a_boundary():
    assert pelib.shown(0.1234, ".3f", 1e-6) == "0.123"
    with pytest.raises(ValueError, match="fewer digits"):
        pelib.shown(
            0.1235, ".3f", 1e-6
        )  # 0.1235 - 1e-6 reads 0.123, 0.1235 + 1e-6 reads 0.124
    assert pelib.shown(mpmath.mpf(math.pi), ".5f", 1e-12) == "3.14159"


@given(
    st.floats(min_value=-1e6, max_value=1e6),
    st.integers(0, 6),
    st.floats(min_value=0, max_value=1e-3),
    st.sampled_from(["down", "up"]),
)
def test_rounded_keeps_a_one_sided_claim_true_for_every_value_within_slack(
    value, decimals, slack, direction
):
    try:
        text = pelib.rounded(value, decimals, slack, direction)
    except ValueError as error:
        assert "print fewer digits" in str(error)
        return
    printed = Fraction(text)
    sign = -1 if direction == "down" else 1
    step = math.floor if direction == "down" else math.ceil
    for exact in (Fraction(value) - Fraction(slack), Fraction(value) + Fraction(slack)):
        assert printed <= exact if direction == "down" else printed >= exact
    # Another machine's value lies within 2 slack of this one; it prints its value moved
    # by slack away from the claim, rounded the same way: the same text.
    for other in (
        Fraction(value) - 2 * Fraction(slack),
        Fraction(value) + 2 * Fraction(slack),
    ):
        assert (
            Fraction(
                step((other + sign * Fraction(slack)) * 10**decimals), 10**decimals
            )
            == printed
        )


def test_rounded_examples():
    assert (
        pelib.rounded(0.153385, 3, 1e-12, "up") == "0.154"
    )  # "|sin| <= 0.154", not 0.153
    assert pelib.rounded(0.99891, 3, 1e-12, "down") == "0.998"
    with pytest.raises(ValueError, match="print fewer digits"):
        pelib.rounded(0.2, 1, 1e-3, "up")
