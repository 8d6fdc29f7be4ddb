"""pelib.rope_scaling and apply_rope's frequencies: against the exact definitions, and
the code that runs them.

The truth is ``oracle.rope_scaling``: the definitions in mpmath (``linear``,
``dynamic``, ``yarn``, ``llama3``), and Hugging Face's and Meta's code transcribed in
float32 (``hf_*``, ``meta_apply_scaling``). The rotations of ``apply_rope`` are checked
against ``math.cos`` and ``math.sin`` loops.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import oracle
import pelib
from oracle import rope_scaling as exact
from pelib import _rope as rope

ULP = 2.0**-53  # float64: half the spacing of numbers near 1, the bound of one rounding
ULP32 = 2.0**-24  # float32, the same

# --- configurations -------------------------------------------------------------------

widths = st.integers(1, 128).map(lambda h: 2 * h)
bases = st.floats(100.0, 1e7)
factors = st.floats(1.0, 64.0)
originals = st.integers(64, 2**17)
betas = st.tuples(st.floats(1.0, 64.0), st.floats(0.05, 1.0)).map(
    lambda t: (t[0], t[0] * t[1])
)  # fast >= slow
bands = st.tuples(st.floats(0.25, 4.0), st.floats(0.05, 8.0)).map(
    lambda t: (t[0], t[0] + t[1])
)  # low < high
mscales = st.none() | st.just(0.0) | st.floats(0.05, 2.0)


def relative_errors(values, exact_values) -> np.ndarray:
    """|value - exact| / exact for each entry, the difference formed in mpmath (so
    errors far below 1 ulp count)."""
    with mpmath.workprec(200):
        return np.array(
            [
                float(abs(oracle.to_mpf(float(v)) - e) / abs(e))
                for v, e in zip(values, exact_values, strict=True)
            ]
        )


# --- the tolerances pelib's docstring states ------------------------------------------
# theta_i = b ** (-2i/d) in float64: the exponent -2i/d is rounded (2**-53 |2i/d|, which
# costs a relative ln(b) 2**-53 in the power), the power and every later product,
# quotient and sum round once each: (8 + ln b_eff) 2**-53 leaves room for the eight
# roundings of the longest chain (dynamic NTK's scaled base, raised to d / (d - 2) <= 2,
# then to -2i/d).


def float64_bound(base_eff: float) -> float:
    return (8 + math.log(base_eff)) * ULP


def dynamic_base(d, base, factor, original, context):
    """b' = b (s c / L - (s - 1)) ** (d / (d - 2)), c = max(context, L), in mpmath: the
    scaled base of dynamic NTK."""
    with mpmath.workprec(oracle.MIN_BITS):
        big_l = oracle.to_mpf(original)
        c = big_l if context is None else max(oracle.to_mpf(context), big_l)
        s = oracle.to_mpf(factor)
        return oracle.to_mpf(base) * (s * c / big_l - (s - 1)) ** (
            mpmath.mpf(d) / (d - 2)
        )


def turns(d, base, original):
    """r_i = L theta_i / (2 pi): how many times pair i turns in the original context,
    exactly."""
    with mpmath.workprec(oracle.MIN_BITS):
        return [
            oracle.to_mpf(original) * oracle.frequency(i, d, base) / (2 * mpmath.pi)
            for i in range(d // 2)
        ]


# --- pelib against the exact definitions ----------------------------------------------


@settings(max_examples=60, deadline=None)
@given(d=widths, base=bases, factor=factors)
def test_linear_is_every_frequency_divided_by_the_factor(d, base, factor):
    freqs, attention = pelib.rope_scaling(d, "linear", base=base, factor=factor)
    values, _ = exact.linear(d, base, factor)
    assert freqs.shape == (d // 2,) and freqs.dtype == np.float64
    assert relative_errors(freqs, values).max() <= float64_bound(base)
    thetas = [oracle.frequency(i, d, base) for i in range(d // 2)]
    assert (
        relative_errors(freqs * factor, thetas).max() <= float64_bound(base) + ULP
    )  # the definition itself
    assert attention == 1.0


@settings(max_examples=60, deadline=None)
@given(
    d=widths, base=bases, factor=factors, original=originals, ratio=st.floats(0.01, 8.0)
)
def test_dynamic_matches_the_exact_scaled_base(d, base, factor, original, ratio):
    context = max(1, round(original * ratio))
    freqs, attention = pelib.rope_scaling(
        d,
        "dynamic",
        base=base,
        factor=factor,
        original_context=original,
        context=context,
    )
    values, _ = exact.dynamic(d, base, factor, original, context)
    scaled = float(dynamic_base(d, base, factor, original, context)) if d > 2 else base
    assert relative_errors(freqs, values).max() <= float64_bound(scaled)
    assert attention == 1.0


@settings(max_examples=40, deadline=None)
@given(
    d=widths.filter(lambda d: d > 2),
    base=bases,
    factor=factors,
    original=originals,
    below=st.floats(0.001, 1.0),
    above=st.floats(1.0, 16.0),
)
def test_dynamic_is_the_default_up_to_the_original_context_and_then_grows_the_base(
    d, base, factor, original, below, above
):
    defaults = [oracle.frequency(i, d, base) for i in range(d // 2)]
    for context in (
        None,
        original * below,
        original,
    ):  # Hugging Face: max(seq_len, original)
        freqs, _ = pelib.rope_scaling(
            d,
            "dynamic",
            base=base,
            factor=factor,
            original_context=original,
            context=context,
        )
        assert relative_errors(freqs, defaults).max() <= float64_bound(base)
    context = original * above
    freqs, _ = pelib.rope_scaling(
        d,
        "dynamic",
        base=base,
        factor=factor,
        original_context=original,
        context=context,
    )
    scaled = dynamic_base(d, base, factor, original, context)
    # The frequencies are those of the base b' = b (s c / L - (s - 1)) ** (d / (d - 2)):
    # w_1 = b' ** (-2/d).
    with mpmath.workprec(200):
        recovered = oracle.to_mpf(float(freqs[1])) ** (-mpmath.mpf(d) / 2)
        assert float(abs(recovered / scaled - 1)) <= (d / 2) * 1.01 * float64_bound(
            float(scaled)
        )
    if factor > 1 and above > 1:
        wider, _ = pelib.rope_scaling(
            d,
            "dynamic",
            base=base,
            factor=factor,
            original_context=original,
            context=2 * context,
        )
        assert (
            np.all(wider[1:] < freqs[1:]) and wider[0] == freqs[0] == 1.0
        )  # a longer context, a larger base


def test_a_factor_of_one_changes_nothing_but_the_dynamic_base():
    thetas = [oracle.frequency(i, 16, 10000) for i in range(8)]
    for method, extra in [
        ("linear", {}),
        ("yarn", {"original_context": 4096}),
        ("llama3", {"original_context": 8192}),
    ]:
        freqs, attention = pelib.rope_scaling(16, method, **extra)
        assert (
            relative_errors(freqs, thetas).max() <= float64_bound(10000.0)
            and attention == 1.0
        )
    # Dynamic NTK with s = 1 is the paper's scale c / L: twice the context, the base
    # times 2 ** (d / (d - 2)).
    freqs, _ = pelib.rope_scaling(16, "dynamic", original_context=4096, context=8192)
    with mpmath.workprec(oracle.MIN_BITS):
        scaled = 10000 * mpmath.mpf(2) ** (mpmath.mpf(16) / 14)
        expected = [scaled ** (-mpmath.mpf(2 * i) / 16) for i in range(8)]
    assert relative_errors(freqs, expected).max() <= float64_bound(float(scaled))


def test_dynamic_of_width_two_is_the_single_frequency_one():
    # Hugging Face divides by d - 2; the definition's only frequency is b' ** 0 = 1 for
    # every b'.
    assert pelib.rope_scaling(
        2, "dynamic", factor=4.0, original_context=100, context=1000
    )[0].tolist() == [1.0]
    assert exact.to_floats(exact.dynamic(2, 10000, 4, 100, 1000)[0]).tolist() == [1.0]


def index_rounding(d, base, j):
    """The docstring's delta = 2**-51 (d / ln b + 2 |j|): the rounding of a computed
    correction index j(r).

    Hugging Face's j(r) = (d * log(L / (r * 2 * pi))) / (2 * log(b)) in float64: the
    quotient inside the logarithm carries three roundings (pi, the product, the
    quotient), which the logarithm turns into an absolute error of about 3 * 2**-53,
    times d / (2 ln b) in j; the logarithms, the product by d and the last quotient add
    about four relative roundings of j. delta leaves a margin of about two.
    """
    return 2.0**-51 * (d / math.log(base) + 2 * abs(j))


def near_a_jump(d, base, original, beta_fast, beta_slow, truncate):
    """Whether the configuration lies where the docstring's bound does not hold: with
    truncation, j(beta_fast) or j(beta_slow) within delta of an integer (floor or
    ceiling may differ from the exact one's); without, distinct betas whose indices lie
    within delta_l + delta_h of each other (the computed bounds may coincide, and get
    the 0.001 step, where the exact ones do not)."""
    low = exact.yarn_correction_index(beta_fast, d, base, original)
    high = exact.yarn_correction_index(beta_slow, d, base, original)
    d_low, d_high = (
        index_rounding(d, base, float(low)),
        index_rounding(d, base, float(high)),
    )
    if truncate:
        return (
            abs(low - mpmath.nint(low)) <= d_low
            or abs(high - mpmath.nint(high)) <= d_high
        )
    return 0 < abs(high - low) <= d_low + d_high


def yarn_bound(d, base, factor, original, beta_fast, beta_slow, truncate):
    """The docstring's bound for YaRN: float64_bound, plus s (dl + dh) / (h - l) without
    truncation.

    The real bounds l = j(beta_fast), h = j(beta_slow) carry absolute errors below delta
    (index_rounding), which the ramp's slope 1 / (h - l) turns into an error of the
    ramp, multiplied by up to s in the frequency near the divided end.
    """
    bound = float64_bound(base)
    if truncate:
        # the ends are whole pairs: the ramp is a quotient of exact small integers
        return bound
    low = float(exact.yarn_correction_index(beta_fast, d, base, original))
    high = float(exact.yarn_correction_index(beta_slow, d, base, original))
    width = min(high, d - 1) - max(low, 0)
    return bound + factor * (
        index_rounding(d, base, low) + index_rounding(d, base, high)
    ) / max(width, 0.001)


@settings(max_examples=80, deadline=None)
@given(
    d=widths,
    base=bases,
    factor=factors,
    original=originals,
    beta=betas,
    truncate=st.booleans(),
)
def test_yarn_matches_the_exact_definition(d, base, factor, original, beta, truncate):
    beta_fast, beta_slow = beta
    assume(
        not near_a_jump(d, base, original, beta_fast, beta_slow, truncate)
    )  # the docstring's exceptions
    freqs, attention = pelib.rope_scaling(
        d,
        "yarn",
        base=base,
        factor=factor,
        original_context=original,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    values, expected_attention = exact.yarn(
        d, base, factor, original, beta_fast, beta_slow, truncate
    )
    assert relative_errors(freqs, values).max() <= yarn_bound(
        d, base, factor, original, beta_fast, beta_slow, truncate
    )
    assert attention == pytest.approx(float(expected_attention), rel=4 * ULP)


@settings(max_examples=60, deadline=None)
@given(
    d=widths,
    base=bases,
    factor=factors,
    original=originals,
    beta=betas,
    truncate=st.booleans(),
)
def test_yarn_keeps_fast_pairs_and_divides_slow_ones(
    d, base, factor, original, beta, truncate
):
    beta_fast, beta_slow = beta
    # Hugging Face clamps the bounds to [0, d - 1]; when j(beta_fast) >= d - 1 or
    # j(beta_slow) <= 0 the clamp decides instead of the turns (see the two tests
    # below).
    assume(exact.yarn_correction_index(beta_fast, d, base, original) < d - 1)
    assume(exact.yarn_correction_index(beta_slow, d, base, original) > 0)
    assume(not near_a_jump(d, base, original, beta_fast, beta_slow, truncate))
    freqs, _ = pelib.rope_scaling(
        d,
        "yarn",
        base=base,
        factor=factor,
        original_context=original,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    bound = yarn_bound(d, base, factor, original, beta_fast, beta_slow, truncate)
    for i, (r, w) in enumerate(zip(turns(d, base, original), freqs, strict=True)):
        theta = oracle.frequency(i, d, base)
        if r > beta_fast:
            assert relative_errors([w], [theta])[0] <= bound, (i, float(r))
        elif r < beta_slow:
            assert relative_errors([w], [theta / oracle.to_mpf(factor)])[0] <= bound, (
                i,
                float(r),
            )
        else:
            assert (
                float(theta) / factor * (1 - bound) <= w <= float(theta) * (1 + bound)
            )
    assert np.all(np.diff(freqs) < 0)


def test_yarn_bounds_clamped_to_d_minus_1_cross_as_in_hugging_face():
    # L / (2 pi beta_fast) >= base ** 2: j(beta_fast) >= d, so floor(j) passes the clamp
    # min(ceil(j(1)), d - 1). Hugging Face's ramp then runs backwards and divides pairs
    # that turn more than beta_fast times; so does pelib.
    d, base, original, beta_fast = 8, 100.0, 131072, 2.0
    assert exact.yarn_correction_index(beta_fast, d, base, original) >= d
    freqs, _ = pelib.rope_scaling(
        d, "yarn", base=base, factor=4.0, original_context=original, beta_fast=beta_fast
    )
    assert (
        min(turns(d, base, original)) > beta_fast
    )  # every pair turns more than beta_fast times ...
    values, _ = exact.yarn(d, base, 4.0, original, beta_fast, 1.0)
    np.testing.assert_allclose(freqs, exact.to_floats(values), rtol=16 * ULP)
    thetas = exact.to_floats(exact.linear(d, base, 1)[0])
    np.testing.assert_allclose(
        freqs, thetas / 4.0, rtol=16 * ULP
    )  # ... and yet every pair is divided
    hf, _ = exact.hf_yarn(d, base, 4.0, original, beta_fast=beta_fast)
    np.testing.assert_allclose(freqs, hf, rtol=32 * ULP32)


@pytest.mark.parametrize("truncate", [True, False])
def test_yarn_with_every_pair_slower_than_beta_slow_keeps_pair_0_as_in_hugging_face(
    truncate,
):
    # L < 2 pi beta_slow: every pair turns fewer than beta_slow times, j(beta_slow) < 0,
    # and the lower bound is clamped to 0 above it. Hugging Face keeps pair 0
    # (truncated: the ramp starts there), or every pair (not truncated: the bounds
    # cross); so does pelib.
    d, base, original, factor = 8, 10000.0, 40, 4.0
    assert max(turns(d, base, original)) < 8.0
    freqs, _ = pelib.rope_scaling(
        d,
        "yarn",
        base=base,
        factor=factor,
        original_context=original,
        beta_fast=16.0,
        beta_slow=8.0,
        truncate=truncate,
    )
    thetas = exact.to_floats(exact.linear(d, base, 1)[0])
    kept = [True, False, False, False] if truncate else [True] * 4
    np.testing.assert_allclose(
        freqs, np.where(kept, thetas, thetas / factor), rtol=16 * ULP
    )
    values, _ = exact.yarn(d, base, factor, original, 16.0, 8.0, truncate)
    np.testing.assert_allclose(freqs, exact.to_floats(values), rtol=16 * ULP)
    hf, _ = exact.hf_yarn(
        d, base, factor, original, beta_fast=16.0, beta_slow=8.0, truncate=truncate
    )
    np.testing.assert_allclose(freqs, hf, rtol=32 * ULP32)


@pytest.mark.parametrize(
    ("end", "truncate", "side", "kept"),
    [
        # Fast end, truncated: from L >= 2 pi beta_fast b**2 (j(beta_fast) >= d) every
        # pair is divided; just below, d - 1 <= j(beta_fast) < d makes l = h = d - 1 and
        # every pair keeps its frequency.
        ("fast", True, +1, "none"),
        ("fast", True, -1, "all"),
        # Fast end, not truncated: every pair divided from L > 2 pi beta_fast
        # b**(2(d-1)/d) (j(beta_fast) > d - 1).
        ("fast", False, +1, "none"),
        ("fast", False, -1, "all"),
        # Slow end, truncated: pair 0 kept and the rest divided while L > 2 pi beta_slow
        # b**(-2/d) (j(beta_slow) > -1), every pair kept from L <= 2 pi beta_slow
        # b**(-2/d) down.
        ("slow", True, +1, "first"),
        ("slow", True, -1, "all"),
        # Slow end, not truncated: every pair kept below L = 2 pi beta_slow
        # (j(beta_slow) < 0), pair 0 only above it.
        ("slow", False, +1, "first"),
        ("slow", False, -1, "all"),
    ],
)
def test_yarn_at_the_clamp_thresholds_of_the_docstring(end, truncate, side, kept):
    # Just above (side +1) and below (-1) each threshold of the docstring's Notes, by a
    # relative 1e-6; the clamp of the bounds to [0, d - 1], not the turns, decides
    # there. pelib, the exact definition and Hugging Face's code agree.
    d, base, factor, beta = 8, 100.0, 4.0, 2.0
    with mpmath.workprec(oracle.MIN_BITS):
        if end == "fast":
            threshold = (
                2
                * mpmath.pi
                * beta
                * oracle.to_mpf(base)
                ** (2 if truncate else mpmath.mpf(2 * (d - 1)) / d)
            )
            betas = dict(beta_fast=beta, beta_slow=beta / 2)
        else:
            threshold = (
                2
                * mpmath.pi
                * beta
                * (oracle.to_mpf(base) ** (-mpmath.mpf(2) / d) if truncate else 1)
            )
            betas = dict(beta_fast=2 * beta, beta_slow=beta)
        original = float(threshold * (1 + side * mpmath.mpf(10) ** -6))
    thetas = exact.to_floats(exact.linear(d, base, 1)[0])
    expected = {
        "all": thetas,
        "none": thetas / factor,
        "first": np.r_[thetas[:1], thetas[1:] / factor],
    }[kept]
    freqs, _ = pelib.rope_scaling(
        d,
        "yarn",
        base=base,
        factor=factor,
        original_context=original,
        truncate=truncate,
        **betas,
    )
    np.testing.assert_allclose(freqs, expected, rtol=16 * ULP)
    values, _ = exact.yarn(d, base, factor, original, truncate=truncate, **betas)
    np.testing.assert_allclose(exact.to_floats(values), expected, rtol=2 * ULP)
    hf, _ = exact.hf_yarn(d, base, factor, original, truncate=truncate, **betas)
    np.testing.assert_allclose(hf, expected, rtol=32 * ULP32)


@settings(max_examples=40, deadline=None)
@given(
    d=widths.filter(lambda d: d >= 4),
    base=bases,
    factor=st.floats(1.5, 64.0),
    original=st.floats(1.0, 1e9),
    beta_fast=st.floats(0.01, 1e4),
    share=st.floats(0.01, 1.0),
    truncate=st.booleans(),
)
def test_yarn_frequencies_decrease_strictly_even_where_the_clamp_decides(
    d, base, factor, original, beta_fast, share, truncate
):
    # The docstring: the exact frequencies decrease strictly for every configuration,
    # the crossed ramps included (they keep or divide every pair); lengths from 1 to 1e9
    # and betas from 0.01 to 1e4 reach both clamps.
    beta_slow = beta_fast * share
    values, _ = exact.yarn(d, base, factor, original, beta_fast, beta_slow, truncate)
    assert all(a > b for a, b in itertools.pairwise(values))
    freqs, _ = pelib.rope_scaling(
        d,
        "yarn",
        base=base,
        factor=factor,
        original_context=original,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    assert np.all(np.diff(freqs) < 0)


@settings(max_examples=40, deadline=None)
@given(
    d=widths.filter(lambda d: d >= 4),
    base=bases,
    factor=st.floats(1.0, 64.0),
    original=st.floats(1.0, 1e9),
    band=bands,
    ratio=st.floats(0.01, 100.0),
)
def test_linear_dynamic_and_llama3_frequencies_decrease_strictly(
    d, base, factor, original, band, ratio
):
    # The docstring's claim for the other three methods, on the exact definitions and on
    # pelib's float64 values.
    low, high = band
    for method, kwargs, definition in (
        ("linear", {}, exact.linear(d, base, factor)),
        (
            "dynamic",
            dict(original_context=original, context=original * ratio),
            exact.dynamic(d, base, factor, original, original * ratio),
        ),
        (
            "llama3",
            dict(original_context=original, low_freq_factor=low, high_freq_factor=high),
            exact.llama3(d, base, factor, original, low, high),
        ),
    ):
        values = definition[0]
        assert all(a > b for a, b in itertools.pairwise(values)), method
        freqs, _ = pelib.rope_scaling(d, method, base=base, factor=factor, **kwargs)
        assert np.all(np.diff(freqs) < 0), method


# --- the jumps of YaRN's rounded correction range -------------------------------------
# floor(j) and ceil(j) jump where j(beta) crosses an integer. pelib computes j with
# Hugging Face's expression, operation for operation, so it lands on the same pair as
# Hugging Face; the exact index may lie on the other side of the integer only within
# delta of it (the docstring's exception to its bound).


@settings(max_examples=200, deadline=None)
@given(
    d=st.integers(1, 512).map(lambda h: 2 * h),
    base=st.floats(1.001, 1e9),
    original=st.floats(1.0, 1e7),
    turns=st.floats(1e-3, 1e5),
)
def test_the_correction_index_is_within_delta_of_the_exact_one(
    d, base, original, turns
):
    j = rope._correction_index(turns, "beta_fast", d, base, original)
    exact_j = exact.yarn_correction_index(turns, d, base, original)
    with mpmath.workprec(200):
        assert float(abs(oracle.to_mpf(j) - exact_j)) <= index_rounding(d, base, j)


def float_bits(x: float) -> int:
    return int(np.float64(x).view(np.int64))


def bits_float(n: int) -> float:
    return float(np.int64(n).view(np.float64))


@settings(max_examples=25, deadline=None)
@given(
    d=widths.filter(lambda d: d >= 4),
    base=bases,
    original=originals,
    pair=st.integers(1, 127),
    fast=st.booleans(),
)
def test_yarn_rounds_the_correction_range_as_hugging_face_at_its_jumps(
    d, base, original, pair, fast
):
    # The turns beta_k whose exact index j(beta_k) is the integer k; beta_fast = beta_k
    # moves the lower bound floor(j) from k - 1 to k, beta_slow = beta_k the upper bound
    # ceil(j) from k + 1 to k (k >= 1: at k = 0 the clamp to 0 hides the jump).
    # Bisection over the floats near beta_k finds where Hugging Face's transcribed code
    # (exact.hf_yarn, its expression for j) jumps; pelib must agree on both sides.
    k, factor = 1 + pair % (d // 2 - 1), 16.0
    with mpmath.workprec(oracle.MIN_BITS):
        beta_k = float(
            original / (2 * mpmath.pi * oracle.to_mpf(base) ** (mpmath.mpf(2 * k) / d))
        )

    def betas(beta):
        return (
            dict(beta_fast=beta, beta_slow=beta / 2)
            if fast
            else dict(beta_fast=2 * beta, beta_slow=beta)
        )

    def hugging_face(beta):
        return exact.hf_yarn(d, base, factor, original, **betas(beta))[0]

    # j moves by at least 1e-9 d / (2 ln b) > 1e-11 across the window, far more than its
    # rounding (delta < 1e-12)
    low, high = float_bits(beta_k * (1 - 1e-9)), float_bits(beta_k * (1 + 1e-9))
    before, after = hugging_face(bits_float(low)), hugging_face(bits_float(high))
    assert not np.array_equal(before, after)  # the window holds the jump
    for n in (
        low,
        high,
    ):  # away from the jump pelib agrees with the exact definition too
        values, _ = exact.yarn(d, base, factor, original, **betas(bits_float(n)))
        freqs, _ = pelib.rope_scaling(
            d,
            "yarn",
            base=base,
            factor=factor,
            original_context=original,
            **betas(bits_float(n)),
        )
        assert relative_errors(freqs, values).max() <= float64_bound(base)
    while (
        high - low > 1
    ):  # Hugging Face's output is constant on each side of its one jump in the window
        middle = (low + high) // 2
        if np.array_equal(hugging_face(bits_float(middle)), before):
            low = middle
        else:
            high = middle
    tolerance = hf_yarn_bound(d, base, factor, original, **betas(beta_k), truncate=True)
    assert (
        np.max(np.abs(before - after) / after) > 100 * tolerance
    )  # the two sides are far apart
    for n in range(low - 2, high + 3):
        beta = bits_float(n)
        freqs, _ = pelib.rope_scaling(
            d,
            "yarn",
            base=base,
            factor=factor,
            original_context=original,
            **betas(beta),
        )
        np.testing.assert_allclose(freqs, hugging_face(beta), rtol=tolerance, atol=0)
    # the jump lies where the docstring's bound makes its exception: j within delta of k
    for n in (low, high):
        j = exact.yarn_correction_index(bits_float(n), d, base, original)
        assert float(abs(j - k)) <= index_rounding(d, base, k)


# where pelib's former j, d (ln L - ln 2 pi - ln r) / (2 ln b), rounded to the other
# side
REVIEWED_JUMPS = [
    (
        128,
        1000.0,
        8192,
        dict(beta_fast=64.0, beta_slow=4.274005485964199),
    ),  # pair 53: ceil(j) was 53, is 54
    (128, 1000.0, 8192, dict(beta_fast=4.274005485964199, beta_slow=1.0)),
    (256, 10000.0, 32768, dict(beta_fast=45.16167765327309, beta_slow=1.0)),
    (
        128,
        10000.0,
        4096,
        dict(beta_fast=2.061632868872448, beta_slow=2.0616328688724477, truncate=False),
    ),
]


@pytest.mark.parametrize(("d", "base", "original", "kwargs"), REVIEWED_JUMPS)
def test_yarn_matches_hugging_face_where_the_former_index_rounded_differently(
    d, base, original, kwargs
):
    # The review's examples (checked there against transformers 5.23 itself): pelib now
    # picks Hugging Face's pairs.
    factor, truncate = 16.0, kwargs.get("truncate", True)
    betas = {name: kwargs[name] for name in ("beta_fast", "beta_slow")}
    assert near_a_jump(
        d, base, original, *betas.values(), truncate
    )  # all in the docstring's exception zone
    freqs, _ = pelib.rope_scaling(
        d, "yarn", base=base, factor=factor, original_context=original, **kwargs
    )
    hf, _ = exact.hf_yarn(d, base, factor, original, **kwargs)
    pairs = np.arange(d // 2)
    # Hugging Face rounds the real bounds to float32 (1e-5 here): leave out pairs that
    # close to them
    if not truncate:
        bounds = [
            float(exact.yarn_correction_index(b, d, base, original))
            for b in betas.values()
        ]
        pairs = [i for i in pairs if min(abs(i - j) for j in bounds) > 1e-4]
    tolerance = float32_bound(base) + 4 * factor * ULP32 + float64_bound(base)
    np.testing.assert_allclose(freqs[pairs], hf[pairs], rtol=tolerance, atol=0)


@pytest.mark.parametrize(
    ("changes", "outcome"),
    [
        (
            dict(method="llama3", original_context=5e-324),
            None,
        ),  # the turns L w / 2 pi underflow: every pair divided
        (dict(method="llama3", original_context=1e-300), None),
        (
            dict(factor=1e308),
            r"^base=10000\.0, factor=1e\+308, .*: the frequencies underflow",
        ),
        (
            dict(method="llama3", factor=1e308),
            r"^base=10000\.0, factor=1e\+308, .*: the frequencies underflow",
        ),
        (
            dict(method="linear", original_context=None, factor=1e308),
            r"^base=10000\.0, factor=1e\+308: the frequencies",
        ),
        (
            dict(method="dynamic", factor=1e308, context=4096),
            r"^base, factor, original_context and context: the scaled",
        ),
    ],
)
def test_rope_scaling_when_numpy_raises_on_every_floating_point_error(changes, outcome):
    # Under np.errstate(all="raise") (as under np.seterr) an underflow inside used to
    # escape as FloatingPointError. Now every step runs under pelib's own error state: a
    # harmless underflow gives the same result as NumPy's defaults, and a frequency that
    # would be 0 or subnormal is a ValueError naming the parameters.
    call = {**GOOD, **changes}
    if outcome is None:
        expected = pelib.rope_scaling(**call)
        with np.errstate(all="raise"):
            freqs, attention = pelib.rope_scaling(**call)
        np.testing.assert_array_equal(freqs, expected[0])
        assert attention == expected[1] and np.all(freqs >= np.finfo(np.float64).tiny)
        thetas = exact.to_floats(exact.linear(8, 10000.0, 1)[0])
        np.testing.assert_allclose(
            freqs, thetas / 4.0, rtol=16 * ULP
        )  # far below the band: every pair divided
    else:
        with np.errstate(all="raise"), pytest.raises(ValueError, match=outcome):
            pelib.rope_scaling(**call)


@settings(max_examples=30, deadline=None)
@given(d=widths, base=bases, factor=factors, original=originals, beta=betas)
def test_yarn_agrees_with_the_paper_on_kept_and_divided_pairs_only(
    d, base, factor, original, beta
):
    beta_fast, beta_slow = beta
    assume(exact.yarn_correction_index(beta_fast, d, base, original) < d - 1)
    assume(exact.yarn_correction_index(beta_slow, d, base, original) > 0)
    code, _ = exact.yarn(d, base, factor, original, beta_fast, beta_slow)
    paper, _ = exact.yarn_paper(
        d, base, factor, original, alpha=beta_slow, beta=beta_fast
    )
    for r, c, p in zip(turns(d, base, original), code, paper, strict=True):
        if r > beta_fast or r < beta_slow:
            assert c == p


def test_yarn_ramp_differs_from_the_paper_in_between():
    # Linear in the pair index between rounded bounds (the code) is not linear in the
    # turns (the paper).
    code, _ = exact.yarn(128, 10000, 16, 4096)
    paper, _ = exact.yarn_paper(128, 10000, 16, 4096)
    differ = [
        i
        for i, (c, p) in enumerate(zip(code, paper, strict=True))
        if abs(c / p - 1) > 1e-3
    ]
    assert differ and all(21 <= i <= 45 for i in differ)


@settings(max_examples=60, deadline=None)
@given(d=widths, base=bases, factor=factors, original=originals, band=bands)
def test_llama3_matches_the_exact_definition_and_its_bands(
    d, base, factor, original, band
):
    low, high = band
    freqs, attention = pelib.rope_scaling(
        d,
        "llama3",
        base=base,
        factor=factor,
        original_context=original,
        low_freq_factor=low,
        high_freq_factor=high,
    )
    values, _ = exact.llama3(d, base, factor, original, low, high)
    # In the band the blend's slope s h / (h - l) amplifies the rounding of theta_i
    # (through r_i = L theta_i / 2 pi).
    bound = float64_bound(base) * (1 + factor * high / (high - low))
    assert relative_errors(freqs, values).max() <= bound
    assert attention == 1.0
    for i, w in enumerate(freqs):
        theta = oracle.frequency(i, d, base)
        wavelength = 2 * mpmath.pi / theta
        if wavelength < original / high:
            assert relative_errors([w], [theta])[0] <= float64_bound(base)
        elif wavelength > original / low:
            assert relative_errors([w], [theta / oracle.to_mpf(factor)])[
                0
            ] <= float64_bound(base)
        elif factor > 1.001:
            # Between the limits the share of the unchanged frequency is linear in L /
            # wavelength.
            share = (oracle.to_mpf(float(w)) - theta / factor) / (
                theta - theta / factor
            )
            expected = (original / wavelength - low) / (high - low)
            assert float(abs(share - expected)) <= bound * factor / (factor - 1) + 1e-14
            assert -1e-12 <= float(share) <= 1 + 1e-12


# --- attention factors ----------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(factor=factors, mscale=mscales, mscale_all_dim=mscales)
def test_yarn_attention_factor_follows_hugging_faces_rule(
    factor, mscale, mscale_all_dim
):
    _, attention = pelib.rope_scaling(
        64,
        "yarn",
        factor=factor,
        original_context=4096,
        mscale=mscale,
        mscale_all_dim=mscale_all_dim,
    )
    if mscale and mscale_all_dim:
        expected = exact.mscale(factor, mscale) / exact.mscale(factor, mscale_all_dim)
    else:  # a lone or zero mscale is ignored, as Hugging Face ignores it
        expected = exact.mscale(factor)
    assert attention == pytest.approx(float(expected), rel=8 * ULP)
    hf = exact.hf_yarn(
        64, 10000.0, factor, 4096, mscale=mscale, mscale_all_dim=mscale_all_dim
    )[1]
    assert attention == pytest.approx(hf, rel=8 * ULP)


def test_attention_factors():
    # The paper's sqrt(1/t) = 0.1 ln(s) + 1, and exactly 1 at s = 1; a given factor
    # wins; other methods: 1.
    assert pelib.rope_scaling(8, "yarn", factor=1.0, original_context=512)[1] == 1.0
    assert pelib.rope_scaling(8, "yarn", factor=math.e**10, original_context=512)[
        1
    ] == pytest.approx(2.0, rel=1e-15)
    assert (
        pelib.rope_scaling(
            8,
            "yarn",
            factor=4.0,
            original_context=512,
            attention_factor=0.7,
            mscale=1.0,
            mscale_all_dim=0.5,
        )[1]
        == 0.7
    )
    equal = pelib.rope_scaling(
        64, "yarn", factor=40.0, original_context=4096, mscale=1.0, mscale_all_dim=1.0
    )
    assert equal[1] == 1.0  # mscale = mscale_all_dim: the ratio is 1
    for method, extra in [
        ("linear", {}),
        ("dynamic", {"original_context": 64, "context": 640}),
        ("llama3", {"original_context": 8192}),
    ]:
        assert pelib.rope_scaling(16, method, factor=8.0, **extra)[1] == 1.0


# --- pelib against Hugging Face's and Meta's code (float32) ---------------------------
# Hugging Face computes theta_i = base ** (2i/d) in float32: the exponent's rounding
# costs a relative ln(b) 2**-24, and each later float32 operation 2**-24; so (8 + ln
# b_eff) 2**-24 per frequency, where a ramp or band multiplies the rounding of its input
# by its slope (as for pelib in float64), and YaRN's ramp, formed and complemented in
# float32, adds up to 4 s 2**-24 near the divided end.


def float32_bound(base_eff: float, slope: float = 0.0) -> float:
    return (8 + math.log(base_eff)) * ULP32 * (1 + slope)


@settings(max_examples=40, deadline=None)
@given(d=widths, base=bases, factor=factors)
def test_linear_matches_hugging_face(d, base, factor):
    hf, hf_attention = exact.hf_linear(d, base, factor)
    freqs, attention = pelib.rope_scaling(d, "linear", base=base, factor=factor)
    np.testing.assert_allclose(freqs, hf, rtol=float32_bound(base), atol=0)
    assert attention == hf_attention


@settings(max_examples=40, deadline=None)
@given(
    d=widths.filter(lambda d: d > 2),
    base=bases,
    factor=factors,
    original=originals,
    ratio=st.floats(0.01, 8.0),
)
def test_dynamic_matches_hugging_face_at_initialisation_and_in_the_forward_pass(
    d, base, factor, original, ratio
):
    seq_len = max(1, round(original * ratio))
    scaled = float(dynamic_base(d, base, factor, original, seq_len))
    hf, _ = exact.hf_dynamic(
        d, base, factor, original, seq_len
    )  # float32 from the int64 seq_len tensor
    freqs, _ = pelib.rope_scaling(
        d,
        "dynamic",
        base=base,
        factor=factor,
        original_context=original,
        context=seq_len,
    )
    # The base's errors count up to d / (d - 2) <= 2 times, and s c / L - (s - 1)
    # cancels in float32: its rounding, up to s 2**-24 relative to 1, passes into the
    # base.
    np.testing.assert_allclose(
        freqs, hf, rtol=2 * float32_bound(scaled) + 4 * factor * ULP32, atol=0
    )
    hf_init, _ = exact.hf_dynamic(d, base, factor, original)
    init, _ = pelib.rope_scaling(
        d, "dynamic", base=base, factor=factor, original_context=original
    )
    np.testing.assert_allclose(init, hf_init, rtol=float32_bound(base), atol=0)


def test_dynamic_follows_the_longest_sequence_since_the_last_reset():
    # Hugging Face's LlamaRotaryEmbedding recomputes only when a sequence is longer than
    # any before, and goes back to the original frequencies when one is shorter than the
    # original context: `context` is that length.
    d, base, factor, original = 64, 10000.0, 4.0, 4096
    module = exact.HFDynamicRotary(d, base, factor, original)
    for longest, positions in [
        (4096, 100),
        (5000, 5000),
        (5000, 4500),
        (9000, 9000),
        (4096, 10),
        (6000, 6000),
    ]:
        inv_freq = module.forward(np.arange(positions))
        freqs, _ = pelib.rope_scaling(
            d,
            "dynamic",
            base=base,
            factor=factor,
            original_context=original,
            context=longest,
        )
        np.testing.assert_allclose(
            freqs,
            inv_freq,
            rtol=2 * float32_bound(base * factor**2) + 4 * factor * ULP32,
            atol=0,
        )


def hf_yarn_bound(d, base, factor, original, beta_fast, beta_slow, truncate):
    """float32_bound, plus the ramp formed and complemented in float32 (4 s 2**-24 near
    the divided end), plus, without truncation, the real bounds l and h rounded to
    float32 (|l| + |h|) 2**-24, which the ramp's slope s / (h - l) amplifies, plus
    pelib's own bound."""
    bound = (
        float32_bound(base)
        + 4 * factor * ULP32
        + yarn_bound(d, base, factor, original, beta_fast, beta_slow, truncate)
    )
    if not truncate:
        low = max(float(exact.yarn_correction_index(beta_fast, d, base, original)), 0.0)
        high = min(
            float(exact.yarn_correction_index(beta_slow, d, base, original)), d - 1.0
        )
        bound += (
            2
            * factor
            * (abs(low) + abs(high) + 1)
            * ULP32
            / max(abs(high - low), 0.001)
        )
    return bound


@settings(max_examples=60, deadline=None)
@given(
    d=widths,
    base=bases,
    factor=factors,
    original=originals,
    beta=betas,
    truncate=st.booleans(),
    mscale=mscales,
    mscale_all_dim=mscales,
)
def test_yarn_matches_hugging_face(
    d, base, factor, original, beta, truncate, mscale, mscale_all_dim
):
    beta_fast, beta_slow = beta
    hf, hf_attention = exact.hf_yarn(
        d,
        base,
        factor,
        original,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
        mscale=mscale,
        mscale_all_dim=mscale_all_dim,
    )
    freqs, attention = pelib.rope_scaling(
        d,
        "yarn",
        base=base,
        factor=factor,
        original_context=original,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
        mscale=mscale,
        mscale_all_dim=mscale_all_dim,
    )
    rtol = hf_yarn_bound(d, base, factor, original, beta_fast, beta_slow, truncate)
    np.testing.assert_allclose(freqs, hf, rtol=rtol, atol=0)
    assert attention == pytest.approx(hf_attention, rel=4 * ULP)


@settings(max_examples=60, deadline=None)
@given(d=widths, base=bases, factor=factors, original=originals, band=bands)
def test_llama3_matches_hugging_face(d, base, factor, original, band):
    low, high = band
    hf, _ = exact.hf_llama3(d, base, factor, low, high, original)
    freqs, _ = pelib.rope_scaling(
        d,
        "llama3",
        base=base,
        factor=factor,
        original_context=original,
        low_freq_factor=low,
        high_freq_factor=high,
    )
    np.testing.assert_allclose(
        freqs, hf, rtol=float32_bound(base, factor * high / (high - low)), atol=0
    )


@pytest.mark.parametrize("d", [64, 128])
def test_llama3_is_metas_apply_scaling(d):
    # Llama 3.1's values; Meta fixes them in apply_scaling, Hugging Face reads them from
    # the config. The two codes compute the same float32 numbers, and pelib the same
    # frequencies in float64.
    meta = exact.meta_apply_scaling(exact.meta_frequencies(d, 500000.0))
    hf, _ = exact.hf_llama3(d, 500000.0, 8, 1, 4, 8192)
    np.testing.assert_array_equal(meta, hf)
    freqs, _ = pelib.rope_scaling(
        d, "llama3", base=500000.0, factor=8.0, original_context=8192
    )
    np.testing.assert_allclose(
        freqs, meta, rtol=float32_bound(500000.0, 8 * 4 / 3), atol=0
    )


def classify(freqs, d, base, factor):
    """How many pairs keep their frequency, are divided by the factor, or lie between
    (to 1e-12, exactly)."""
    thetas = [oracle.frequency(i, d, base) for i in range(d // 2)]
    kept = int((relative_errors(freqs, thetas) < 1e-12).sum())
    divided = int(
        (
            relative_errors(freqs, [t / oracle.to_mpf(factor) for t in thetas]) < 1e-12
        ).sum()
    )
    return kept, divided, d // 2 - kept - divided


def test_pair_counts_of_llama_3_1_and_of_yarn():
    # Llama 3.1 (d = 128, base 500000, factor 8, band 1..4, L = 8192): pair i keeps its
    # frequency while its wavelength 2 pi 500000 ** (i/64) is below 8192 / 4, is divided
    # by 8 above 8192 / 1.
    freqs, _ = pelib.rope_scaling(
        128, "llama3", base=500000.0, factor=8.0, original_context=8192
    )
    kept = math.ceil(64 * math.log(2048 / (2 * math.pi)) / math.log(500000))
    divided = 64 - (
        math.floor(64 * math.log(8192 / (2 * math.pi)) / math.log(500000)) + 1
    )
    assert (
        classify(freqs, 128, 500000.0, 8.0)
        == (kept, divided, 64 - kept - divided)
        == (29, 29, 6)
    )
    assert classify(
        exact.to_floats(exact.llama3(128, 500000, 8, 8192, 1, 4)[0]), 128, 500000.0, 8.0
    ) == (29, 29, 6)
    # YaRN (d = 128, base 10000, factor 16, L = 4096, betas 32 and 1): pairs
    # 0..floor(j(32)) keep theirs, pairs from ceil(j(1)) on are divided by 16, the ramp
    # lies between.
    freqs, _ = pelib.rope_scaling(
        128, "yarn", base=10000.0, factor=16.0, original_context=4096
    )
    low = math.floor(128 * math.log(4096 / (32 * 2 * math.pi)) / (2 * math.log(10000)))
    high = math.ceil(128 * math.log(4096 / (1 * 2 * math.pi)) / (2 * math.log(10000)))
    assert (
        classify(freqs, 128, 10000.0, 16.0)
        == (low + 1, 64 - high, high - low - 1)
        == (21, 18, 25)
    )
    assert classify(
        exact.to_floats(exact.yarn(128, 10000, 16, 4096)[0]), 128, 10000.0, 16.0
    ) == (21, 18, 25)


@settings(max_examples=40, deadline=None)
@given(
    d=widths.filter(lambda d: d > 2),
    base=bases,
    factor=factors,
    original=originals,
    above=st.floats(1.0, 16.0),
)
def test_dynamic_keeps_pair_0_and_divides_the_last_pair_by_the_stretch(
    d, base, factor, original, above
):
    # The base b kappa ** (d / (d - 2)) gives w_i' = w_i kappa ** (-2i / (d - 2)): pair
    # 0 keeps w_0 = 1 and the last pair, i = d/2 - 1, is divided by exactly kappa = s c
    # / L - (s - 1). NTK-aware scaling by s' is s = 1, c = s' L.
    context = original * above
    freqs, _ = pelib.rope_scaling(
        d,
        "dynamic",
        base=base,
        factor=factor,
        original_context=original,
        context=context,
    )
    with mpmath.workprec(oracle.MIN_BITS):
        s = oracle.to_mpf(factor)
        kappa = s * oracle.to_mpf(context) / original - (s - 1)
        last = oracle.frequency(d // 2 - 1, d, base) / kappa
    assert freqs[0] == 1.0
    scaled = float(dynamic_base(d, base, factor, original, context))
    assert relative_errors([freqs[-1]], [last])[0] <= float64_bound(scaled)


@settings(max_examples=40, deadline=None)
@given(
    d=widths.filter(lambda d: d >= 4),
    base=bases,
    factor=st.floats(1.5, 64.0),
    original=originals,
    beta_fast=st.floats(1.5, 64.0),
    high=st.floats(1.5, 8.0),
)
def test_yarn_and_llama3_with_limit_one_divide_exactly_the_pairs_below_one_turn(
    d, base, factor, original, beta_fast, high
):
    # With beta_slow = 1 (YaRN) and low_freq_factor = 1 (Llama 3) a pair is divided by
    # the full factor exactly when it turns less than once in L positions, r_i = L w_i /
    # (2 pi) < 1 (chapter 9 counts them for d = 128). YaRN: r_i < 1 <=> i > j(1) <=> i
    # >= ceil(j(1)) = h, where the ramp reaches 1. Llama 3: wavelength > L / 1.
    j1 = exact.yarn_correction_index(1, d, base, original)
    assume(
        j1 > 0
        # below, every pair turns less than once and the clamp of the ramp to [0, d - 1]
        # decides
    )
    # Hugging Face clamps the ramp's upper end to d - 1 (in pair units, past the last
    # pair d / 2 - 1): from there on the two ends can cross (the faster end
    # floor(j(beta_fast)) reaching d - 1 too), and the reversed ramp divides every pair.
    # That is the published code's choice (pinned by the transcription tests), not this
    # rule.
    assume(j1 < d - 1)
    assume(
        abs(j1 - mpmath.nint(j1)) > 1e-6
    )  # no pair within a hair of one turn, where rounding could decide
    below = [i for i, r in enumerate(turns(d, base, original)) if r < 1]
    thetas = [
        oracle.frequency(i, d, base) / oracle.to_mpf(factor) for i in range(d // 2)
    ]
    for method, kwargs, bound in (
        ("yarn", dict(beta_fast=beta_fast), float64_bound(base)),
        (
            "llama3",
            dict(high_freq_factor=high),
            float64_bound(base) * (1 + factor * high / (high - 1)),
        ),
    ):
        freqs, _ = pelib.rope_scaling(
            d, method, base=base, factor=factor, original_context=original, **kwargs
        )
        divided = [
            i
            for i, error in enumerate(relative_errors(freqs, thetas))
            if error <= bound
        ]
        assert divided == below, method


@settings(max_examples=30, deadline=None)
@given(
    d=widths.filter(lambda d: d > 2),
    base=bases,
    factor=factors,
    original=originals,
    beta=betas,
    band=bands,
    ratio=st.floats(0.5, 8.0),
)
def test_the_transcriptions_agree_with_the_exact_definitions(
    d, base, factor, original, beta, band, ratio
):
    # The two halves of the oracle check each other (pelib aside): Hugging Face's
    # float32 code computes the exact definitions to float32 accuracy (with the
    # tolerances argued for above).
    (beta_fast, beta_slow), (low, high) = beta, band
    assume(
        not near_a_jump(d, base, original, beta_fast, beta_slow, True)
    )  # HF rounds its own j, not the exact one
    context = max(1, round(original * ratio))
    pairs = [
        (
            exact.hf_linear(d, base, factor)[0],
            exact.linear(d, base, factor)[0],
            float32_bound(base),
        ),
        (
            exact.hf_dynamic(d, base, factor, original, context)[0],
            exact.dynamic(d, base, factor, original, context)[0],
            2 * float32_bound(float(dynamic_base(d, base, factor, original, context)))
            + 4 * factor * ULP32,
        ),
        (
            exact.hf_yarn(
                d, base, factor, original, beta_fast=beta_fast, beta_slow=beta_slow
            )[0],
            exact.yarn(d, base, factor, original, beta_fast, beta_slow)[0],
            hf_yarn_bound(d, base, factor, original, beta_fast, beta_slow, True),
        ),
        (
            exact.hf_llama3(d, base, factor, low, high, original)[0],
            exact.llama3(d, base, factor, original, low, high)[0],
            float32_bound(base, factor * high / (high - low)),
        ),
    ]
    for hf, values, bound in pairs:
        assert relative_errors(hf, values).max() <= bound


# --- apply_rope with frequencies and an attention factor ------------------------------


def rotate(row, position, frequencies, layout, factor=1.0):
    """Each pair of ``row`` turned by position * w_i and scaled by ``factor``, in plain
    Python."""
    d = len(row)
    out = list(row)
    for i, w in enumerate(frequencies):
        a_index, b_index = (i, i + d // 2) if layout == "half" else (2 * i, 2 * i + 1)
        angle = position * w
        c, s = factor * math.cos(angle), factor * math.sin(angle)
        a, b = row[a_index], row[b_index]
        out[a_index] = a * c - b * s
        out[b_index] = a * s + b * c
    return out


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("attention_factor", [1.0, 1.2772588722239782, 0.5])
def test_apply_rope_rotates_by_the_given_frequencies(layout, attention_factor):
    rng = np.random.default_rng(11)
    x = rng.normal(size=(2, 6, 16))
    positions = np.array([0, 1, 5, 100, 4097, 20000.5])
    freqs = np.sort(rng.uniform(1e-5, 2.0, size=8))[::-1].copy()
    got = pelib.apply_rope(
        x,
        positions,
        layout=layout,
        frequencies=freqs,
        attention_factor=attention_factor,
    )
    for index in np.ndindex(2, 6):
        expected = rotate(
            x[index].tolist(),
            positions[index[-1]],
            freqs.tolist(),
            layout,
            attention_factor,
        )
        assert got[index].tolist() == pytest.approx(expected, abs=1e-12)


def test_apply_rope_with_the_frequencies_of_a_base_is_apply_rope_with_that_base():
    x = np.random.default_rng(2).normal(size=(5, 12))
    thetas = exact.to_floats([oracle.frequency(i, 12, 500) for i in range(6)])
    np.testing.assert_allclose(
        pelib.apply_rope(x, np.arange(5), frequencies=thetas),
        pelib.apply_rope(x, np.arange(5), base=500.0),
        rtol=0,
        atol=1e-14,
    )


def test_attention_factor_scales_every_score_by_its_square():
    rng = np.random.default_rng(4)
    q, k = rng.normal(size=(2, 3, 8))
    freqs, m = pelib.rope_scaling(8, "yarn", factor=8.0, original_context=256)
    plain = (
        pelib.apply_rope(q, [0, 1, 2], frequencies=freqs)
        @ pelib.apply_rope(k, [3, 4, 5], frequencies=freqs).T
    )
    scaled = (
        pelib.apply_rope(q, [0, 1, 2], frequencies=freqs, attention_factor=m)
        @ pelib.apply_rope(k, [3, 4, 5], frequencies=freqs, attention_factor=m).T
    )
    np.testing.assert_allclose(
        scaled, plain * (0.1 * math.log(8.0) + 1) ** 2, rtol=1e-13
    )


@pytest.mark.parametrize(
    "method, extra",
    [
        ("yarn", dict(factor=16.0, original_context=4096)),
        ("llama3", dict(base=500000.0, factor=8.0, original_context=8192)),
        ("dynamic", dict(factor=4.0, original_context=2048, context=6000)),
    ],
)
def test_apply_rope_is_hugging_faces_rotary_embedding(method, extra):
    # Hugging Face's forward pass in float32 with its own frequencies and
    # attention_scaling; pelib with its float64 frequencies on float32 input. Angles up
    # to 2e4 rad in float32 are off by up to |p| 2**-24.
    rng = np.random.default_rng(7)
    x = rng.normal(size=(3, 6, 32)).astype(np.float32)
    positions = np.array([0, 1, 17, 300, 4095, 20000])
    base = extra.get("base", 10000.0)
    if method == "yarn":
        inv_freq, scaling = exact.hf_yarn(32, base, 16.0, 4096)
    elif method == "llama3":
        inv_freq, scaling = exact.hf_llama3(32, base, 8.0, 1.0, 4.0, 8192)
    else:
        inv_freq, scaling = exact.hf_dynamic(32, base, 4.0, 2048, 6000)
    hf = exact.hf_rotary(x, positions, inv_freq, scaling)
    freqs, m = pelib.rope_scaling(32, method, **extra)
    got = pelib.apply_rope(x, positions, frequencies=freqs, attention_factor=m)
    assert got.dtype == np.float32
    # Pair i of row p differs by the angle error p |w_hf - w| (the frequencies' own
    # difference, bounded by the tests above) plus Hugging Face's float32 angle p w
    # (2**-24 p w) and cos and sin (2**-24), times the pair's length; the factors differ
    # by |m_hf - m|; and each output is rounded to float32 (2**-24 m |pair|).
    a, b = x[..., :16].astype(np.float64), x[..., 16:].astype(np.float64)
    length = np.abs(a) + np.abs(b)
    p = positions[:, None].astype(np.float64)
    angle = p * np.abs(inv_freq.astype(np.float64) - freqs) + 2 * ULP32 * (
        p * freqs + 1
    )
    bound = length * (m * angle + abs(scaling - m) + 4 * ULP32 * m)
    error = np.abs(got.astype(np.float64) - hf)
    assert np.all(error[..., :16] <= bound) and np.all(error[..., 16:] <= bound)


# --- bad input ------------------------------------------------------------------------

GOOD = dict(d=8, method="yarn", base=10000.0, factor=4.0, original_context=2048)

BAD_SCALING = [
    (dict(d=7), ValueError, r"^d must be even"),
    (dict(d=0), ValueError, r"^d must be an integer >= 2"),
    (dict(d=8.0), TypeError, r"^d must be an integer"),
    (dict(d=True), TypeError, r"^d must be an integer"),
    (dict(d=10**30), ValueError, r"^d "),
    (
        dict(method="ntk"),
        ValueError,
        r"^method must be one of 'linear', 'dynamic', 'yarn', 'llama3'",
    ),
    (dict(method="longrope"), ValueError, r"^method must be one of"),
    (dict(method=None), TypeError, r"^method must be one of"),
    (dict(base=1.0), ValueError, r"^base must be a finite real number > 1"),
    (dict(base=0.5), ValueError, r"^base must be a finite real number > 1"),
    (dict(base=-10.0), ValueError, r"^base must be a finite real number > 1"),
    (dict(base=math.nan), ValueError, r"^base must be a finite"),
    (dict(base=math.inf), ValueError, r"^base must be a finite"),
    (dict(base="10000"), TypeError, r"^base must be a finite"),
    (dict(base=None), TypeError, r"^base must be a finite"),
    (dict(factor=0.5), ValueError, r"^factor must be a finite real number >= 1"),
    (dict(factor=math.nan), ValueError, r"^factor must be a finite real number >= 1"),
    (dict(factor=10**400), ValueError, r"^factor must be a finite real number >= 1"),
    (dict(factor="4"), TypeError, r"^factor must be"),
    (dict(factor=1j), TypeError, r"^factor must be"),
    (dict(original_context=None), ValueError, r"^method 'yarn' needs original_context"),
    (
        dict(method="llama3", original_context=None),
        ValueError,
        r"^method 'llama3' needs original_context",
    ),
    (
        dict(method="dynamic", original_context=None),
        ValueError,
        r"^method 'dynamic' needs original_context",
    ),
    (
        dict(method="linear"),
        ValueError,
        r"^original_context is read only by methods 'dynamic', 'yarn', 'llama3', "
        r"not by 'linear'",
    ),
    (
        dict(original_context=0),
        ValueError,
        r"^original_context must be a finite real number > 0",
    ),
    (dict(original_context=-4096), ValueError, r"^original_context must be"),
    (dict(original_context=math.inf), ValueError, r"^original_context must be"),
    (dict(original_context="4096"), TypeError, r"^original_context must be"),
    (
        dict(context=8192),
        ValueError,
        r"^context is read only by method 'dynamic', not by 'yarn'",
    ),
    (
        dict(method="dynamic", context=0),
        ValueError,
        r"^context must be a finite real number > 0",
    ),
    (dict(method="dynamic", context=math.nan), ValueError, r"^context must be"),
    (dict(method="dynamic", context=[4096]), TypeError, r"^context must be"),
    (dict(beta_fast=0.0), ValueError, r"^beta_fast must be a finite real number > 0"),
    (dict(beta_slow=-1.0), ValueError, r"^beta_slow must be a finite real number > 0"),
    (dict(beta_slow=math.inf), ValueError, r"^beta_slow must be"),
    (dict(beta_fast="32"), TypeError, r"^beta_fast must be"),
    (
        dict(beta_fast=1.0, beta_slow=2.0),
        ValueError,
        r"^beta_fast must be >= beta_slow",
    ),
    (
        dict(method="llama3", beta_fast=16.0),
        ValueError,
        r"^beta_fast is read only by method 'yarn'",
    ),
    (dict(truncate=1), TypeError, r"^truncate must be True or False"),
    (dict(truncate=None), TypeError, r"^truncate must be True or False"),
    (
        dict(method="linear", original_context=None, truncate=False),
        ValueError,
        r"^truncate is read only by",
    ),
    (dict(mscale=-0.5), ValueError, r"^mscale must be a finite real number >= 0"),
    (dict(mscale_all_dim=math.nan), ValueError, r"^mscale_all_dim must be"),
    (dict(mscale="1"), TypeError, r"^mscale must be"),
    (
        dict(method="llama3", mscale=1.0),
        ValueError,
        r"^mscale is read only by method 'yarn'",
    ),
    (
        dict(factor=1e10, mscale=1.7e308, mscale_all_dim=1.0),
        ValueError,
        r"^mscale=1\.7e\+308, mscale_all_dim=1\.0 and factor=10000000000\.0: "
        r"the attention factor .* overflows or "
        r"underflows float64 \(got inf\)",
    ),
    # the denominator overflows to inf, the attention factor to 0 (review of chapter 9,
    # finding 9a)
    (
        dict(factor=1e10, mscale=1e-300, mscale_all_dim=1.7e308),
        ValueError,
        r"^mscale=1e-300, mscale_all_dim=1\.7e\+308 and factor=10000000000\.0: "
        r"the attention factor .* \(got 0\.0\)",
    ),
    (
        dict(factor=1e10, mscale=1.7e308, mscale_all_dim=1.7e308),
        ValueError,
        r"^mscale=.*: the attention factor .* nan",
    ),
    (
        dict(attention_factor=0.0),
        ValueError,
        r"^attention_factor must be a finite real number > 0",
    ),
    (dict(attention_factor=-1.0), ValueError, r"^attention_factor must be"),
    (dict(attention_factor=True), TypeError, r"^attention_factor must be"),
    (
        dict(method="linear", original_context=None, attention_factor=1.2),
        ValueError,
        r"^attention_factor is read only by method 'yarn'",
    ),
    (
        dict(method="llama3", low_freq_factor=4.0, high_freq_factor=4.0),
        ValueError,
        r"^low_freq_factor must be < high_freq_factor",
    ),
    (
        dict(method="llama3", low_freq_factor=5.0),
        ValueError,
        r"^low_freq_factor must be < high_freq_factor",
    ),
    (
        dict(method="llama3", low_freq_factor=0.0),
        ValueError,
        r"^low_freq_factor must be a finite real number > 0",
    ),
    (
        dict(method="llama3", high_freq_factor=math.inf),
        ValueError,
        r"^high_freq_factor must be",
    ),
    (
        dict(method="llama3", high_freq_factor="4"),
        TypeError,
        r"^high_freq_factor must be",
    ),
    (
        dict(high_freq_factor=8.0),
        ValueError,
        r"^high_freq_factor is read only by method 'llama3'",
    ),
    (
        dict(method="linear", original_context=None, base=1e300, factor=1e308),
        ValueError,
        r"^base=1e\+300, factor=1e\+308: "
        r"the frequencies underflow to 0 or to subnormal numbers",
    ),
    # frequencies of about 1e-311: subnormal, with about 41 significant bits (finding
    # 9c)
    (
        dict(factor=1e308),
        ValueError,
        r"^base=10000\.0, factor=1e\+308, original_context=2048\.0, beta_fast=32\.0, "
        r"beta_slow=1\.0: the frequencies underflow to 0 or to subnormal numbers",
    ),
    (
        dict(method="linear", original_context=None, factor=1e308),
        ValueError,
        r"^base=10000\.0, factor=1e\+308: the frequencies underflow",
    ),
    (
        dict(method="llama3", factor=1e308),
        ValueError,
        r"^base=10000\.0, factor=1e\+308, original_context=2048\.0, "
        r"low_freq_factor=1\.0, high_freq_factor=4\.0: the frequencies",
    ),
    (
        dict(method="linear", original_context=None, base=1.7e308, d=2**14),
        ValueError,
        r"^base=1\.7e\+308, factor=4\.0: the frequencies underflow",
    ),
    (
        dict(method="dynamic", d=2**14, base=1e300, factor=1e3, context=2048 * 100001),
        ValueError,
        r"^base=1e\+300, factor=1000\.0, original_context=2048\.0, "
        r"context=204802048\.0: the frequencies underflow",
    ),
    # L / (2 pi beta) must be a normal float64: Hugging Face's expression would take
    # log(0) or log(inf)
    (
        dict(beta_fast=1.7e308),
        ValueError,
        r"^original_context=2048\.0 and beta_fast=1\.7e\+308: L / \(2 pi beta_fast\)",
    ),
    (
        dict(beta_slow=5e-324),
        ValueError,
        r"^original_context=2048\.0 and beta_slow=5e-324: L / \(2 pi beta_slow\)",
    ),
    (
        dict(original_context=5e-324),
        ValueError,
        r"^original_context=5e-324 and beta_fast=32\.0: L / \(2 pi beta_fast\)",
    ),
    (
        dict(original_context=1.7e308, beta_slow=1e-10),
        ValueError,
        r"^original_context=1\.7e\+308 and beta_slow=1e-10: "
        r"L / \(2 pi beta_slow\) .* got inf",
    ),
    (
        dict(method="dynamic", original_context=1e-300, context=1e308),
        ValueError,
        r"^base, factor, original_context and context: "
        r"the scaled base is beyond the floating-point range",
    ),
]


@pytest.mark.parametrize(
    ("changes", "error", "message"), BAD_SCALING, ids=lambda v: repr(v)[:60]
)
def test_rope_scaling_refuses_bad_input_by_name(changes, error, message):
    with pytest.raises(error, match=message):
        pelib.rope_scaling(**{**GOOD, **changes})


def test_the_good_call_of_the_bad_input_table_works():
    freqs, attention = pelib.rope_scaling(**GOOD)
    assert freqs.shape == (4,) and np.all(np.isfinite(freqs)) and attention > 1


ROWS = np.random.default_rng(0).normal(size=(3, 8))

BAD_ROPE = [
    (
        dict(frequencies=[1.0, 0.1, 0.01]),
        ValueError,
        r"^frequencies must hold one frequency per pair, d // 2 = 4",
    ),
    (
        dict(frequencies=np.ones((2, 4))),
        ValueError,
        r"^frequencies must be a 1-D array",
    ),
    (
        dict(frequencies=[1.0, 0.1, 0.0, 0.01]),
        ValueError,
        r"^frequencies must be positive, got 0.0",
    ),
    (
        dict(frequencies=[1.0, -0.1, 0.01, 0.001]),
        ValueError,
        r"^frequencies must be positive",
    ),
    (
        dict(frequencies=[1.0, math.nan, 0.01, 0.001]),
        ValueError,
        r"^frequencies must be a 1-D array of finite",
    ),
    (dict(frequencies=[1.0, 1j, 0.01, 0.001]), TypeError, r"^frequencies must be"),
    (dict(frequencies="1, 2, 3, 4"), TypeError, r"^frequencies must be"),
    (dict(frequencies=[1, [2, 3], 4, 5]), TypeError, r"^frequencies must be"),
    (
        dict(frequencies=[1.0, 0.1, 0.01, 0.001], base=500.0),
        ValueError,
        r"^give base or frequencies, not both",
    ),
    (
        dict(frequencies=[1.0, 0.1, 0.01, 0.001], base=10000.0),
        ValueError,
        r"^give base or frequencies, not both",
    ),
    (
        dict(attention_factor=0.0),
        ValueError,
        r"^attention_factor must be a finite real number > 0",
    ),
    (dict(attention_factor=-2.0), ValueError, r"^attention_factor must be"),
    (dict(attention_factor=math.inf), ValueError, r"^attention_factor must be"),
    (dict(attention_factor=None), TypeError, r"^attention_factor must be"),
    (dict(attention_factor="2"), TypeError, r"^attention_factor must be"),
    (dict(attention_factor=np.bool_(True)), TypeError, r"^attention_factor must be"),
    (
        dict(attention_factor=1e308, x=ROWS * 10),
        ValueError,
        r"^x and attention_factor: "
        r"the rotated values are beyond the floating-point range",
    ),
    (
        dict(attention_factor=1e5, x=ROWS.astype(np.float16)),
        ValueError,
        r"^attention_factor: cos and sin times attention_factor in float16 are beyond",
    ),
    (
        dict(frequencies=[1e308, 1.0, 0.1, 0.01], positions=[0, 1e10, 2]),
        ValueError,
        r"^positions and frequencies: "
        r"the angles p \* w are beyond the floating-point range",
    ),
]


@pytest.mark.parametrize(
    ("changes", "error", "message"), BAD_ROPE, ids=lambda v: repr(v)[:60]
)
def test_apply_rope_refuses_bad_frequencies_and_attention_factors_by_name(
    changes, error, message
):
    with pytest.raises(error, match=message):
        pelib.apply_rope(**{"x": ROWS, "positions": [0, 1, 2], **changes})
