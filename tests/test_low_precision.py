"""bfloat16 tables and pelib.angle_limit against independent truth (chapter 10).

The truth: the oracle (mpmath) for the exact values; exact rational arithmetic
(Fraction) for rounding to a format; and for the angles formed in low precision, the
arithmetic of NumPy's float16 and ml_dtypes' bfloat16 (each operation computed in
float32 and rounded, as PyTorch does), which pelib does not use for them.
"""

import math
import subprocess
import sys
from fractions import Fraction

import bounds
import ml_dtypes
import mpmath
import numpy as np
import pytest

import oracle
import pelib
from pelib import _precision

BF16 = np.dtype(ml_dtypes.bfloat16)


def round_bits(x: Fraction, bits: int, min_exp: int = -1022) -> Fraction:
    """x rounded to ``bits`` significant bits, to nearest, ties to even; below
    2**min_exp on the subnormal grid (no overflow: the values here are far from it)."""
    if x == 0:
        return Fraction(0)
    sign = 1 if x > 0 else -1
    x = abs(x)
    exponent = math.floor(math.log2(x))
    while Fraction(2) ** exponent > x:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= x:
        exponent += 1
    quantum = Fraction(2) ** (max(exponent, min_exp) - bits + 1)
    return sign * round(x / quantum) * quantum


def exact_rows(positions, d_model, layout="interleaved"):
    return oracle.exact([Fraction(p) for p in positions], d_model, layout=layout)


# --- bfloat16 tables ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "n", "d_model", "layout"),
    [
        (0, 40, 64, "interleaved"),
        (1000, 17, 33, "concat"),
        (2**31 - 9, 9, 16, "interleaved"),
        (-123.25, 12, 8, "concat"),
        (2**20, 2000, 4, "interleaved"),
    ],
)
def test_bfloat16_table_is_the_exact_table_rounded_once(start, n, d_model, layout):
    # pelib.sinusoidal, Notes: a bfloat16 table is the float64 one rounded once, within
    # 2**-9 + 5e-16.
    table = pelib.sinusoidal(
        n, d_model, start=start, layout=layout, dtype=ml_dtypes.bfloat16
    )
    assert table.dtype == BF16 and table.shape == (n, d_model)
    rows = np.unique(np.r_[0, n - 1, np.arange(0, n, max(1, n // 25))])
    positions = [Fraction(start) + int(r) for r in rows]
    exact = oracle.exact(positions, d_model, layout=layout)
    with mpmath.workprec(200):
        for r, exact_row in zip(rows, exact, strict=True):
            for got, value in zip(table[r].astype(np.float64), exact_row, strict=True):
                assert abs(mpmath.mpf(float(got)) - value) <= bounds.sinusoidal(
                    abs(float(start)) + n, BF16
                )
                # and it is the exact value correctly rounded, unless that lies within
                # 5e-16 of a midpoint
                nearest = round_bits(Fraction(float(value)), 8)
                if float(got) != nearest:
                    midpoint = (Fraction(float(got)) + nearest) / 2
                    assert (
                        abs(
                            mpmath.mpf(midpoint.numerator) / midpoint.denominator
                            - value
                        )
                        <= 5e-16
                    )


def test_bfloat16_encode_and_sinusoidal_agree_with_the_oracle():
    positions = [0, 1, 0.5, -7.75, 255, 257, 65536, 10**6, 2**31 - 1]
    got = pelib.encode(positions, 12, dtype=ml_dtypes.bfloat16)
    assert got.dtype == BF16 and got.shape == (len(positions), 12)
    error = oracle.error(got.astype(np.float32), [Fraction(p) for p in positions], 12)
    assert error.max() <= bounds.encode(2**31, BF16)


def test_bfloat16_rounds_once_where_ml_dtypes_cast_rounds_twice():
    # ml_dtypes (0.6.0) casts float64 to bfloat16 through float32: 1 + 2**-8 + 2**-30
    # becomes 1, not 1 + 2**-7.
    x = np.array([1 + 2.0**-8 + 2.0**-30])
    assert (
        x.astype(BF16).astype(np.float64)[0] == 1.0
    )  # the double rounding pelib avoids
    # In a table: entries whose float64 value lies just above a bfloat16 midpoint,
    # within the float32 rounding.
    table64 = pelib.sinusoidal(4096, 64)
    table16 = pelib.sinusoidal(4096, 64, dtype=ml_dtypes.bfloat16).astype(np.float64)
    cast = table64.astype(BF16).astype(np.float64)
    differ = np.argwhere(table16 != cast)
    assert len(differ) > 0  # such entries exist in this table
    for r, c in differ[:20]:
        exact = Fraction(float(table64[r, c]))  # within 5e-16 of the exact value
        assert Fraction(float(table16[r, c])) == round_bits(
            exact, 8
        )  # pelib's is the correct rounding


def test_the_other_extension_types_are_refused():
    for dtype in (
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float4_e2m1fn,
    ):
        for call in (
            lambda dtype=dtype: pelib.sinusoidal(2, 4, dtype=dtype),
            lambda dtype=dtype: pelib.encode([1], 4, dtype=dtype),
            lambda dtype=dtype: pelib.sinusoidal_direct(2, 4, dtype=dtype),
        ):
            with pytest.raises(
                TypeError, match=r"^dtype must be .*only bfloat16 is accepted"
            ):
                call()


def test_importing_pelib_does_not_import_ml_dtypes():
    code = (
        "import sys, pelib; pelib.sinusoidal(3, 4); "
        "pelib.angle_limit(8, dtype='float16', tolerance=0.1); "
        "print('ml_dtypes' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


# --- the direct formula in bfloat16 ---------------------------------------------------


def test_direct_formula_in_bfloat16_is_every_step_in_bfloat16():
    # Each step rounded to 8 bits: position, frequency (the exact one rounded), product;
    # then the float32 sine of the bfloat16 angle, rounded to bfloat16 (ml_dtypes' and
    # PyTorch's sin of a bfloat16 number).
    n, d = 300, 16
    table = pelib.sinusoidal_direct(n, d, start=100, dtype=ml_dtypes.bfloat16).astype(
        np.float64
    )
    for t in (100, 101, 255, 256, 257, 258, 399):
        for i in range(d // 2):
            w = round_bits(Fraction(float(oracle.frequency(i, d))), 8)
            angle = round_bits(round_bits(Fraction(t), 8) * w, 8)
            a32 = np.float32(float(angle))  # exact
            for column, f in ((2 * i, np.sin), (2 * i + 1, np.cos)):
                expected = float(round_bits(Fraction(float(f(a32))), 8))
                assert table[t - 100, column] == expected, (t, column)


def test_direct_bfloat16_positions_share_rows_from_256_on():
    table = pelib.sinusoidal_direct(
        4, 8, start=256, dtype=ml_dtypes.bfloat16
    )  # 256 .. 259
    assert np.array_equal(table[0], table[1])  # 257 rounds to 256 (ties to even)
    assert not np.array_equal(table[1], table[2])  # 258 is a bfloat16 number
    assert (
        oracle.error(table[1:2].astype(np.float32), [257], 8).max() > 0.5
    )  # so the row of 257 is wrong


# --- angle_limit ----------------------------------------------------------------------

FORMATS = {
    np.dtype(np.float16): 11,
    BF16: 8,
    np.dtype(np.float32): 24,
    np.dtype(np.float64): 53,
}
MIN_EXP = {
    np.dtype(np.float16): -14,
    BF16: -126,
    np.dtype(np.float32): -126,
    np.dtype(np.float64): -1022,
}


@pytest.mark.parametrize("dtype", list(FORMATS))
@pytest.mark.parametrize("tolerance", [1e-3, 0.1, 0.99])
def test_the_fastest_pair_holds_up_to_2_to_the_p(dtype, tolerance):
    # w_0 = 1: the angle is the rounded position, exact up to 2**p; 2**p + 1 rounds to
    # 2**p (ties to even).
    p = FORMATS[dtype]
    assert pelib.angle_limit(64, dtype=dtype, tolerance=tolerance, pair=0) == 2**p
    if dtype != np.float64:
        assert (
            np.array([2**p + 1], dtype=np.float64).astype(dtype).astype(np.float64)[0]
            == 2**p
        )


def low_precision_errors(dtype, positions, d_model, base, tolerance=None):
    """|angle formed in dtype - exact angle| for every position and pair, with NumPy
    float16 or ml_dtypes bfloat16 arithmetic (the exact angle from mpmath rounded to
    float64, within 2**-40 here; entries within 1e-9 of ``tolerance`` are formed in
    mpmath, so that their comparison with it is exact)."""
    omega = [
        float(oracle.frequency(i, d_model, base)) for i in range((d_model + 1) // 2)
    ]
    fmt = np.dtype(dtype)
    w = np.array(
        [float(round_bits(Fraction(x), FORMATS[fmt], MIN_EXP[fmt])) for x in omega]
    ).astype(dtype)
    with np.errstate(
        over="ignore"
    ):  # float16 positions from 65,520 on are infinite, as in framework code
        t = np.asarray(positions, dtype=np.float32).astype(
            dtype
        )  # exact below 2**24, then rounded once
        for r, p in enumerate(
            positions
        ):  # beyond 2**24 the cast through float32 would round twice
            if p > 2**24:
                t[r] = np.float32(
                    float(round_bits(Fraction(int(p)), FORMATS[fmt], MIN_EXP[fmt]))
                )
        angle = (t[:, None] * w[None, :]).astype(np.float64)
    with mpmath.workprec(120):
        exact = np.array(
            [
                [
                    float(mpmath.mpf(int(p)) * oracle.frequency(i, d_model, base))
                    for i in range(len(omega))
                ]
                for p in positions
            ]
        )
    with np.errstate(invalid="ignore"):
        errors = np.where(np.isfinite(angle), np.abs(angle - exact), np.inf)
    if tolerance is not None:
        with mpmath.workprec(200):
            for r, i in np.argwhere(np.abs(errors - tolerance) < 1e-9):
                exact_error = abs(
                    mpmath.mpf(angle[r, i])
                    - int(positions[r]) * oracle.frequency(i, d_model, base)
                )
                # put on the side of the tolerance that the exact comparison gives
                errors[r, i] = tolerance + (
                    1e-12 if exact_error > tolerance else -1e-12
                )
    return errors


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize(
    ("d_model", "base"), [(32, 10000.0), (128, 500000.0), (9, 100.0)]
)
# 1.9, 29.7: limits past 2**p. Not 2.0: at d 32, pair 12 (w = 1/1000) has the error |298
# - 300000 w| = 2 exactly, which the 200-bit w of low_precision_errors puts just above
# 2.
@pytest.mark.parametrize("tolerance", [1e-3, 0.03, 0.1, 0.4, 1.9])
def test_angle_limit_in_16_bits_against_its_arithmetic(dtype, d_model, base, tolerance):
    check_angle_limit_in_16_bits(dtype, d_model, base, tolerance)


# Far past 2**p: the reference loop is slow there (minutes in float16 at d 128), so two
# cases.
@pytest.mark.parametrize(("d_model", "base"), [(9, 100.0), (32, 10000.0)])
def test_angle_limit_in_16_bits_far_past_2_to_the_p(d_model, base):
    check_angle_limit_in_16_bits(ml_dtypes.bfloat16, d_model, base, 29.7)


def check_angle_limit_in_16_bits(dtype, d_model, base, tolerance):
    limit = pelib.angle_limit(d_model, dtype=dtype, tolerance=tolerance, base=base)
    positions = np.arange(0, limit + 2)
    errors = low_precision_errors(dtype, positions, d_model, base, tolerance)
    assert (
        errors[: limit + 1].max() <= tolerance
    )  # every position up to the limit holds
    assert errors[limit + 1].max() > tolerance  # and the next one does not
    for i in range(0, (d_model + 1) // 2, 3):  # pair by pair too
        one = pelib.angle_limit(
            d_model, dtype=dtype, tolerance=tolerance, base=base, pair=i
        )
        assert one >= limit
        if one < limit + 1:
            continue
        errs = low_precision_errors(dtype, [one, one + 1], d_model, base, tolerance)[
            :, i
        ]
        assert errs[0] <= tolerance < errs[1]


def test_angle_limit_of_the_gpt_neox_incident():
    # gpt-neox#1003: float16, width 32: position 1857, pair 1 is off by 0.73; the limit
    # at tolerance 0.5 lies below.
    limit = pelib.angle_limit(32, dtype=np.float16, tolerance=0.5)
    assert limit < 1857
    assert low_precision_errors(np.float16, [1857], 32, 10000.0)[0, 1] > 0.7


def test_angle_limit_in_float32_against_float32_arithmetic():
    d, tolerance = 16, 2e-3
    limit = pelib.angle_limit(d, dtype=np.float32, tolerance=tolerance)
    omega = np.array([float(oracle.frequency(i, d)) for i in range(d // 2)])
    w32 = omega.astype(
        np.float32
    )  # correctly rounded: float64 values within 2**-53 relative, no tie nearby
    t = np.arange(0, limit + 2)
    angle = (t.astype(np.float32)[:, None] * w32).astype(np.float64)
    errors = np.abs(
        angle - t[:, None] * omega
    )  # the float64 reference is within t 2**-52, below 1e-11 here
    assert errors[: limit + 1].max() <= tolerance - 1e-10
    assert errors[limit + 1].max() > tolerance + 1e-10
    with mpmath.workprec(150):  # the decisive entry, exactly
        i = int(errors[limit + 1].argmax())
        assert (
            abs(
                mpmath.mpf(float(angle[limit + 1, i]))
                - (limit + 1) * oracle.frequency(i, d)
            )
            > tolerance
        )


def test_angle_limit_in_float64_against_exact_products():
    d, tolerance = 8, 1e-12
    limit = pelib.angle_limit(d, dtype=np.float64, tolerance=tolerance)
    omega = [float(oracle.frequency(i, d)) for i in range(d // 2)]
    exact_omega = [oracle.frequency(i, d) for i in range(d // 2)]
    assert 1000 < limit < 100000
    with mpmath.workprec(200):
        worst = []
        for t in range(limit - 2000, limit + 2):
            worst.append(
                max(
                    abs(mpmath.mpf(float(t) * w) - t * x)
                    for w, x in zip(omega, exact_omega, strict=True)
                )
            )
        assert max(worst[:-1]) <= tolerance < worst[-1]


@pytest.mark.parametrize(
    ("dtype", "tolerance", "d_model", "base"),
    [
        (np.float32, 0.1, 128, 500000.0),
        (np.float64, 1e-3, 128, 10000.0),
        (np.float64, 0.1, 512, 500000.0),
    ],
)
def test_angle_limit_at_long_context_holds_at_its_end(dtype, tolerance, d_model, base):
    # Far positions: every pair holds at the limit, one fails just after it (formed with
    # NumPy, checked in mpmath).
    limit = pelib.angle_limit(d_model, dtype=dtype, tolerance=tolerance, base=base)
    omega = [oracle.frequency(i, d_model, base) for i in range(d_model // 2)]
    w = np.array([float(x) for x in omega]).astype(dtype)
    with mpmath.workprec(200):

        def worst(t):
            angles = (
                np.array([float(t)], dtype=np.float64).astype(dtype) * w
            )  # IEEE products in dtype
            return max(
                abs(mpmath.mpf(float(a)) - t * x)
                for a, x in zip(angles, omega, strict=True)
            )

        assert worst(limit) <= tolerance < worst(limit + 1)


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        (dict(d_model=0), ValueError, "d_model"),
        (dict(d_model=2**16 + 1), ValueError, "d_model"),
        (dict(d_model=8.0), TypeError, "d_model"),
        (dict(tolerance=0.0), ValueError, "tolerance"),
        (dict(tolerance=math.nan), ValueError, "tolerance"),
        (dict(tolerance="0.1"), TypeError, "tolerance"),
        (dict(base=0.5), ValueError, "base"),
        (dict(base=math.inf), ValueError, "base"),
        (dict(pair=4), ValueError, "pair"),
        (dict(pair=-1), ValueError, "pair"),
        (dict(pair=1.0), TypeError, "pair"),
        (dict(dtype=np.int32), TypeError, "dtype"),
        (dict(dtype=ml_dtypes.float8_e4m3fn), TypeError, "dtype"),
    ],
)
def test_angle_limit_refuses_bad_input(kwargs, error, name):
    arguments = dict(d_model=8, dtype=np.float16, tolerance=0.1) | kwargs
    with pytest.raises(error, match=rf"^{name}"):
        pelib.angle_limit(**arguments)


@pytest.mark.skipif(
    np.finfo(np.longdouble).nmant <= 52, reason="long double is float64 here"
)
def test_angle_limit_refuses_a_wide_long_double():
    with pytest.raises(ValueError, match=r"^dtype must have at most 53"):
        pelib.angle_limit(8, dtype=np.longdouble, tolerance=0.1)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize(
    ("d_model", "base", "pair", "w"),
    [(2, 10000.0, 0, 1.0), (4, 4.0, 1, 0.5), (8, 1.0, None, 1.0)],
)
@pytest.mark.parametrize("tolerance", [0.25, 1.0, 2.0, 3.0, 7.5, 16.0])
def test_angle_limit_of_an_exact_frequency_against_every_position(
    dtype, d_model, base, pair, w, tolerance
):
    # A power-of-two frequency (w_0 = 1; w_1 = 1/2 at base 4, d = 4; every pair at base
    # 1) is exact, and errors equal to the tolerance are common (they once sent every
    # such position to rational arithmetic). Every position up to 2**17 (past float16's
    # overflow; bfloat16 up to its first failure, well below 2**17 here), with NumPy
    # float16 / ml_dtypes bfloat16 arithmetic: positions exact in float32, one rounding
    # to dtype.
    limit = pelib.angle_limit(
        d_model, dtype=dtype, tolerance=tolerance, base=base, pair=pair
    )
    t = np.arange(2**17)
    with np.errstate(over="ignore", invalid="ignore"):
        angle = (
            t.astype(np.float32).astype(dtype) * np.array([w], dtype=dtype)
        ).astype(np.float64)
        error = np.where(
            np.isfinite(angle), np.abs(angle - t * w), np.inf
        )  # exact: integers times 1 or 1/2
    first = int(np.argmax(error > tolerance))
    assert error[first] > tolerance and limit == first - 1


@pytest.mark.parametrize(
    ("d_model", "tolerance", "base", "expected_binade", "offset"),
    [(2, 1.0, 10000.0, 25, 1), (8, 2.0, 1.0, 26, 2), (1, 100.0, 10000.0, 31, 100)],
)
def test_angle_limit_of_an_exact_frequency_in_float32(
    d_model, tolerance, base, expected_binade, offset
):
    # w = 1: the error is the float32 rounding of the position; half the spacing, 2**(k
    # - 24) in [2**k, 2**(k+1)), first exceeds the tolerance in the binade
    # expected_binade, at the offset floor(tolerance) + 1 (or the tie).
    limit = pelib.angle_limit(d_model, dtype=np.float32, tolerance=tolerance, base=base)
    assert limit == 2**expected_binade + offset
    for k in range(
        24, expected_binade + 1
    ):  # each binade up to it, around its start and its first tie
        half = 2 ** (k - 24)
        t = np.r_[
            2**k : 2**k + half + 2, 2 ** (k + 1) - half - 2 : 2 ** (k + 1)
        ].astype(np.int64)
        t = t[t <= limit + 1]
        error = np.abs(
            t.astype(np.float64).astype(np.float32).astype(np.float64) - t
        )  # one rounding, exact diff
        assert error[t <= limit].max() <= tolerance
    assert float(round_bits(Fraction(limit + 1), 24)) == limit + 1 - (
        offset + 1
    )  # T + 1 rounds down: error > tol


def test_floor_sum_against_a_loop():
    # angle_limit's float64 search counts failures with floor sums: checked term by
    # term.
    rng = np.random.default_rng(5)
    for n, m, a, b in rng.integers(
        [0, 1, -300, -300], [40, 60, 300, 300], size=(2000, 4)
    ):
        n, m, a, b = int(n), int(m), int(a), int(b)
        assert _precision._floor_sum(n, m, a, b) == sum(
            (a * i + b) // m for i in range(n)
        )
    big = 2**200 + 12345  # the search's integers have hundreds of bits
    assert _precision._floor_sum(7, big, 3 * big + 5, -big) == sum(
        (3 * i - 1) for i in range(7)
    )


@pytest.mark.parametrize(
    ("d_model", "base", "pair", "tolerance"),
    [
        (
            4,
            16 / 9,
            1,
            0.3,
            # w^ = 0.75, three bits: the rounding has ties (M = 2) in the first rounded
            # binade
        ),
        (
            8,
            10000.0,
            1,
            0.1,
        ),  # w = 1/10: errors of exactly 0.1 at a fifth of the positions (once minutes)
        (8, 10000.0, 2, 1e-14),
    ],
)
def test_angle_limit_in_float64_around_its_limit(d_model, base, pair, tolerance):
    # The positions before the limit hold and the next one fails, in mpmath against
    # NumPy's float64 product.
    limit = pelib.angle_limit(
        d_model, dtype=np.float64, tolerance=tolerance, base=base, pair=pair
    )
    omega = oracle.frequency(pair, d_model, base)
    w = float(omega)
    with mpmath.workprec(200):

        def error(t):
            return abs(mpmath.mpf(float(t) * w) - t * omega)

        start = max(0, limit - 3000)
        assert max(error(t) for t in range(start, limit + 1)) <= tolerance
        if limit < _precision.SEARCH_END:
            assert error(limit + 1) > tolerance
    if (d_model, pair, tolerance) == (8, 1, 0.1):
        # w = 1/10 and w^ = 1/10 + 2**-57.4: errors are k/40 plus a drift t (w^ - w) <
        # 0.0625 up to 2**53, and the first multiple of 1/40 above 0.1, 0.125, needs a
        # drift of 0.0625 (half the spacing 1/8): none.
        assert limit == _precision.SEARCH_END


SLOW_CALLS = """
import itertools, time, ml_dtypes, numpy as np, pelib
worst = 0.0
for dtype, d, tolerance, base in itertools.product(
        [np.float64, np.float32, np.float16, ml_dtypes.bfloat16], [1, 3, 8, 65],
        [1e-300, 1e-3, 0.1, 3.0, 1e8, 1e300], [1.0, 1.5, 1e4]):
    start = time.process_time()
    pelib.angle_limit(d, dtype=dtype, tolerance=tolerance, base=base)
    worst = max(worst, time.process_time() - start)
for tolerance in [1e-12, 0.1, 1e3]:  # float64 at the widest width accepted
    start = time.process_time()
    pelib.angle_limit(2**16, dtype=np.float64, tolerance=tolerance)
    worst = max(worst, time.process_time() - start)
print(worst)
"""


def test_precision_functions_never_run_for_minutes():
    # angle_limit(8, float64, tolerance=0.1) once ran for minutes. Adversarial calls:
    # every dtype, small widths, tolerances 1e-300 .. 1e300, bases 1 .. 1e4 (288 calls),
    # and float64 at the widest width: each call must take under 20 s of CPU (about 7 s
    # seen for float32 at tolerance 1e8), the whole run under 600 s.
    result = subprocess.run(
        [sys.executable, "-c", SLOW_CALLS],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert float(result.stdout) < 20.0


@pytest.mark.parametrize("units", [0.25, 0.5, 1.0, 2.0])
def test_round_near_never_answers_when_lo_can_cross_a_midpoint(units):
    """_round_near rounds hi + lo (|lo| <= 2**-52 hi) without the exact sum only where
    lo cannot move hi across a midpoint of the format: checked against Fraction
    arithmetic."""
    from fractions import Fraction

    from pelib import _formats, _precision

    for fmt in (_precision._FLOAT64, _formats._Format("float32", 24, -126, 127)):
        for hi in (0.7, 0.3 + 2**-40, 1 / 3, 0.999):
            for sign in (1, -1):
                lo = sign * units * math.ulp(hi)
                got = _precision._round_near(hi, lo, fmt)
                exact = Fraction(hi) + Fraction(lo)
                if got is not None:
                    assert Fraction(got) == _precision._round_fraction(exact, fmt)
    # float64: a lo of a whole unit moves hi to its neighbour, so no fast answer
    assert _precision._round_near(0.7, math.ulp(0.7), _precision._FLOAT64) is None
