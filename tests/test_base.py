"""pelib's smallest rotary base and its cosine sums, checked in mpmath (oracle.base).

The brackets of :func:`pelib.smallest_base` must hold the values of an earlier,
separate search (a script outside the repository, whose two-digit roundings are Su's
table), be at most 1e-8 wide, pass at every offset at their upper end and fail at some
offset just below their lower end, in mpmath. pelib only chooses which offsets mpmath
looks at first; mpmath decides every sign.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pelib
from oracle import base as oracle

#: (dim, length): the smallest base, as certified to the digits given.
KNOWN = {
    (64, 1024): "7752.98",
    (64, 2048): "29617",
    (128, 1024): "4293.4376",
    (128, 2048): "11587.244",
    (128, 4096): "26952.339",
    (256, 1024): "2967.51",
    (256, 2048): "6563.95",
}
SLOW_KNOWN = {(128, 8192): "83763.84", (256, 4096): "17732.6"}
RNG = np.random.default_rng(20)


def _contains(bracket: pelib.BaseBracket, shown: str) -> bool:
    """Whether ``bracket`` meets the interval of numbers that round to ``shown``."""
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    half = 0.5 * 10.0**-decimals
    return bracket.lower <= float(shown) + half and bracket.upper >= float(shown) - half


def _offsets_to_check(bracket, length: int, dim: int) -> list[int]:
    """Every offset for length 1024; beyond, the 20 with the smallest float64 sums at
    the upper end and 100 drawn at random."""
    if length <= 1024:
        return list(range(length))
    sums = pelib.rope_cosine_sum(np.arange(length), dim, bracket.upper)
    lowest = np.argsort(sums)[:20]
    drawn = RNG.integers(0, length, 100)
    return sorted({int(m) for m in np.concatenate([lowest, drawn])})


def _witnesses(bracket, length: int, dim: int, below: float = 1e-9) -> list[int]:
    """Offsets by their float64 sum just below the lower end (mpmath decides)."""
    probe = bracket.lower * (1 - below)
    sums = pelib.rope_cosine_sum(np.arange(length), dim, probe)
    return [int(m) for m in np.argsort(sums)[:50]]


def _check(dim: int, length: int, shown: str) -> None:
    bracket = pelib.smallest_base(length, dim)
    assert isinstance(bracket, pelib.BaseBracket)
    assert _contains(bracket, shown), (bracket, shown)
    assert 0 < bracket.upper / bracket.lower - 1 <= 1e-8
    witness = oracle.check_bracket(
        bracket.lower,
        bracket.upper,
        length,
        dim,
        offsets=_offsets_to_check(bracket, length, dim),
        witnesses=_witnesses(bracket, length, dim),
    )
    assert 2 <= witness < length


@pytest.mark.parametrize(("dim", "length"), KNOWN, ids=str)
def test_the_bracket_holds_the_certified_base_and_checks_in_mpmath(dim, length):
    _check(dim, length, KNOWN[dim, length])


@pytest.mark.slow
@pytest.mark.parametrize(("dim", "length"), SLOW_KNOWN, ids=str)
def test_the_bracket_at_longer_lengths(dim, length):
    _check(dim, length, SLOW_KNOWN[dim, length])


@pytest.mark.parametrize(("dim", "length"), [(6, 64), (8, 100), (16, 300), (32, 200)])
def test_narrow_heads_pass_and_fail_in_mpmath_at_every_offset(dim, length):
    bracket = pelib.smallest_base(length, dim)
    assert bracket.upper / bracket.lower - 1 <= 1e-8
    oracle.check_bracket(bracket.lower, bracket.upper, length, dim)


def test_two_pairs_give_a_wider_bracket_that_is_still_right():
    # dim = 4: the sum rises so slowly through zero that float64 certifies a good
    # base only about 1e-4 above the answer (the docstring says so).
    bracket = pelib.smallest_base(64, 4)
    assert bracket.upper / bracket.lower - 1 <= 0.07
    oracle.check_bracket(bracket.lower, bracket.upper, 64, 4)


def test_every_base_below_the_lower_end_fails_in_mpmath():
    # The good bases are no interval, so sample the whole of (1, lower] (log-uniform,
    # plus the lower ends of shorter lengths, which sit next to good bases).
    dim, length = 128, 4096
    lower = pelib.smallest_base(length, dim).lower
    bases = list(np.exp(RNG.uniform(1e-6, math.log(lower), 60))) + [
        pelib.smallest_base(shorter, dim).upper for shorter in (1024, 2048)
    ]
    offsets = np.arange(length)
    for b in bases:
        order = np.argsort(pelib.rope_cosine_sum(offsets, dim, float(b)))[:20]
        found = oracle.negative_offset(float(b), dim, [int(m) for m in order], 25)
        assert found is not None, f"base {b} passes length {length} in mpmath"


def test_the_good_bases_are_no_interval():
    assert pelib.first_negative(11587.25, 128, 2048) is None
    assert pelib.first_negative(12000.0, 128, 2048) == 1554
    assert oracle.cosine_sum(1554, 128, 12000.0) < 0
    assert oracle.negative_offset(12000.0, 128, range(1554), 25) is None
    assert oracle.negative_offset(11587.25, 128, range(2048), 25) is None
    # 12000 lies between two good bases for length 2048 and fails: not an interval.
    assert 11587.25 < 12000.0 < pelib.smallest_base(4096, 128).lower


@pytest.mark.parametrize("dim", [16, 32, 64])
def test_first_negative_agrees_with_mpmath(dim):
    length = 600
    for b in np.exp(RNG.uniform(math.log(10.0), math.log(1e6), 5)):
        b = float(b)
        found = pelib.first_negative(b, dim, length)
        end = length if found is None else found
        assert oracle.negative_offset(b, dim, range(end), 25) is None, (b, found)
        if found is not None:
            assert oracle.cosine_sum(found, dim, b) < 0


def test_first_negative_refuses_a_sign_float64_cannot_decide():
    # Bisect (in float64) the base where the offset with the smallest sum at the
    # upper end crosses zero: there the float64 sum is within its bound of 0.
    dim, length = 128, 1024
    bracket = pelib.smallest_base(length, dim)
    sums = pelib.rope_cosine_sum(np.arange(length), dim, bracket.upper)
    m = int(np.argmin(sums))
    low, high = bracket.lower * (1 - 1e-6), bracket.upper
    for _ in range(80):
        middle = 0.5 * (low + high)
        if pelib.rope_cosine_sum(m, dim, middle) < 0:
            low = middle
        else:
            high = middle
    with pytest.raises(ValueError, match=f"offset m = {m} .* cannot be decided"):
        pelib.first_negative(high, dim, length)


@pytest.mark.parametrize("dim", [2, 8, 128, 1024])
@pytest.mark.parametrize("base", [1.0000001, 1.5, 10000.0, 5e5, 1e12])
def test_rope_cosine_sum_agrees_with_mpmath(dim, base):
    offsets = np.concatenate([np.arange(5), RNG.integers(5, 10**6, 6), [2**40 + 3]])
    values = pelib.rope_cosine_sum(offsets, dim, base)
    assert values.shape == offsets.shape and values[0] == dim / 2
    theta_sum = float(np.sum(np.power(base, -np.arange(dim // 2) / (dim // 2))))
    for m, value in zip(offsets, values, strict=True):
        exact = oracle.cosine_sum(int(m), dim, base)
        bound = int(m) * theta_sum * 1e-14 + dim * 1e-13
        assert abs(value - float(exact)) <= bound, (m, value, exact)


def test_rope_cosine_sum_is_relative_dot_at_integer_offsets():
    offsets = np.arange(0, 5000, 7)
    assert np.allclose(
        pelib.rope_cosine_sum(offsets, 64, 500.0),
        pelib.relative_dot(offsets, 64, 500.0),
        rtol=0,
        atol=1e-10,
    )
    assert pelib.rope_cosine_sum(np.zeros((2, 0), dtype=int), 8).shape == (2, 0)


def test_short_lengths_and_a_single_pair():
    assert pelib.smallest_base(2, 2) == pelib.BaseBracket(1.0, 1.0)
    assert pelib.smallest_base(1, 64) == (1.0, 1.0)
    assert pelib.first_negative(1.0000001, 64, 3) == 2
    with pytest.raises(ValueError, match="dim = 2 .* length = 3"):
        pelib.smallest_base(3, 2)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: pelib.smallest_base(2**20 + 1, 64), ValueError, "length .* 1048576"),
        (lambda: pelib.smallest_base(1024, 2048), ValueError, "dim .* 1024"),
        (lambda: pelib.smallest_base(2**20, 1024), ValueError, "length \\* dim / 2"),
        (lambda: pelib.smallest_base(2**16 + 2, 256), ValueError, "runs for minutes"),
        (lambda: pelib.smallest_base(1024, 63), ValueError, "dim must be an even"),
        (lambda: pelib.smallest_base(0, 64), ValueError, "length must be"),
        (lambda: pelib.smallest_base(1024.0, 64), TypeError, "length must be"),
        (lambda: pelib.smallest_base(True, 64), TypeError, "length must be"),
        (lambda: pelib.first_negative(1.0, 64, 10), ValueError, "base must be .* > 1"),
        (lambda: pelib.first_negative(math.nan, 64, 10), ValueError, "base must be"),
        (lambda: pelib.rope_cosine_sum([1.5], 64), TypeError, "m must be"),
        (lambda: pelib.rope_cosine_sum(-1, 64), ValueError, "m must be"),
        (lambda: pelib.rope_cosine_sum([0, -1], 64), ValueError, "m must be"),
        (lambda: pelib.rope_cosine_sum(2**53, 64), ValueError, "m must be"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, error, words):
    with pytest.raises(error, match=words):
        call()
