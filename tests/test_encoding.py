"""pelib.frequencies, pelib.wavelengths, pelib.sinusoidal and pelib.encode against the exact values.

The truth is the oracle (``oracle/``): the paper's formula evaluated in mpmath, or in
plain Python one entry at a time (chapter 1, eq. pe-sin/pe-cos). The bounds are those
the docstrings state (``bounds.py``).
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bounds
import oracle
import pelib

sizes = st.integers(min_value=1, max_value=48)
bases = st.floats(min_value=1.5, max_value=1e6)
starts = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
layouts = st.sampled_from(["interleaved", "concat"])


# --- frequencies and wavelengths ---------------------------------------------------------


@pytest.mark.parametrize("d_model", [1, 2, 3, 4, 7, 16, 128, 512, 513])
@pytest.mark.parametrize("base", [10000.0, 100.0, 500000.0])
def test_frequencies_follow_the_definition(d_model, base):
    got = pelib.frequencies(d_model, base)
    assert got.dtype == np.float64
    assert got.shape == (math.ceil(d_model / 2),)
    for i, g in enumerate(got):
        # base ** x with the exponent x = -2i/d rounded to float64: the rounding of x costs a relative
        # |x| ln(base) 2**-53, the power itself about one more half unit (pelib.frequencies, Notes).
        x = 2 * i / d_model
        bound = (1.5 + x * abs(math.log(base))) * 2.0**-53
        assert g == pytest.approx(float(oracle.frequency(i, d_model, base)), rel=bound, abs=0)


def test_frequency_known_values():
    # d = 4: w_0 = 1, w_1 = 10000 ** (-1/2) = 1/100.
    assert list(pelib.frequencies(4)) == pytest.approx([1.0, 0.01], rel=1e-15)
    # d = 8, base 16: 16 ** (-2k/8) = 2 ** -k.
    assert list(pelib.frequencies(8, base=16)) == pytest.approx([1, 0.5, 0.25, 0.125], rel=1e-15)


@given(d_model=sizes, base=bases)
def test_frequencies_are_a_geometric_progression_from_one(d_model, base):
    w = pelib.frequencies(d_model, base)
    assert w[0] == 1.0
    ratio = base ** (-2 / d_model)
    for a, b in zip(w[:-1], w[1:]):
        assert b / a == pytest.approx(ratio, rel=1e-12)


@pytest.mark.parametrize("d_model", [2, 5, 64, 512])
def test_wavelengths_are_two_pi_over_frequencies(d_model):
    got = pelib.wavelengths(d_model)
    assert got.shape == (math.ceil(d_model / 2),)
    for i, g in enumerate(got):
        assert g == pytest.approx(float(oracle.wavelength(i, d_model)), rel=2.0**-51, abs=0)
    # The longest wavelength is 2*pi*10000**((d-2)/d) for even d, never 2*pi*10000.
    if d_model % 2 == 0:
        assert got[-1] == pytest.approx(2 * math.pi * 10000.0 ** ((d_model - 2) / d_model), rel=1e-14)
        assert got[-1] < 2 * math.pi * 10000.0


# --- the table against the formula ------------------------------------------------------


@pytest.mark.parametrize(
    ("n_positions", "d_model", "base", "start"),
    [(1, 1, 10000.0, 0), (5, 2, 10000.0, 0), (10, 6, 10000.0, 0), (50, 16, 10000.0, 3),
     (20, 9, 100.0, 0), (7, 33, 10000.0, -4), (12, 64, 500000.0, 1000), (3, 8, 10000.0, 0.5)],
)
@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_table_matches_the_formula(n_positions, d_model, base, start, layout):
    got = pelib.sinusoidal(n_positions, d_model, base=base, start=start, layout=layout)
    assert got.shape == (n_positions, d_model)
    assert got.dtype == np.float64
    positions = [start + t for t in range(n_positions)]
    assert oracle.error(got, positions, d_model, base=base, layout=layout).max() <= bounds.sinusoidal(
        abs(start) + n_positions)
    # The plain-Python formula agrees too, within the rounding of its own angle.
    plain = oracle.formula_table(n_positions, d_model, base, start, layout)
    assert np.abs(got - np.array(plain).reshape(got.shape)).max() <= 1e-13


@settings(max_examples=60, deadline=None)
@given(n_positions=st.integers(0, 12), d_model=sizes, base=bases, start=starts, layout=layouts)
def test_table_matches_the_formula_anywhere(n_positions, d_model, base, start, layout):
    got = pelib.sinusoidal(n_positions, d_model, base=base, start=start, layout=layout)
    positions = [start + t for t in range(n_positions)]
    error = oracle.error(got, positions, d_model, base=base, layout=layout)
    assert error.size == 0 or error.max() <= bounds.sinusoidal(abs(start) + n_positions)


def test_position_zero_is_zeros_and_ones():
    # sin(0) = 0 in every even column, cos(0) = 1 in every odd one: exactly.
    assert pelib.sinusoidal(1, 8)[0].tolist() == [0, 1, 0, 1, 0, 1, 0, 1]
    assert pelib.sinusoidal(1, 7)[0].tolist() == [0, 1, 0, 1, 0, 1, 0]
    assert pelib.sinusoidal(1, 7, layout="concat")[0].tolist() == [0, 0, 0, 0, 1, 1, 1]


def test_position_one_known_values():
    # Column 0 has frequency 1 at every width: sin(1) and cos(1).
    row = pelib.sinusoidal(2, 4)[1]
    assert row[0] == pytest.approx(0.8414709848078965, abs=1e-16)
    assert row[1] == pytest.approx(0.5403023058681398, abs=1e-16)
    assert row[2] == pytest.approx(math.sin(0.01), abs=1e-17)
    assert row[3] == pytest.approx(math.cos(0.01), abs=1e-16)


@settings(deadline=None)
@given(n_positions=st.integers(0, 20), d_model=sizes, start=starts, layout=layouts)
def test_bounded(n_positions, d_model, start, layout):
    table = pelib.sinusoidal(n_positions, d_model, start=start, layout=layout)
    assert np.all(np.abs(table) <= 1.0)


@settings(deadline=None)
@given(n_positions=st.integers(1, 20), d_model=sizes, base=bases, start=starts)
def test_each_pair_is_on_the_unit_circle(n_positions, d_model, base, start):
    table = pelib.sinusoidal(n_positions, d_model, base=base, start=start)
    for row in table.tolist():
        for k in range(d_model // 2):
            assert row[2 * k] ** 2 + row[2 * k + 1] ** 2 == pytest.approx(1.0, abs=1e-15)


@settings(deadline=None)
@given(n_positions=st.integers(0, 10), d_model=sizes, base=bases, start=starts)
def test_layouts_are_a_column_permutation(n_positions, d_model, base, start):
    n_sin = (d_model + 1) // 2
    # Interleaved column j is the sine (j even) or cosine (j odd) of frequency j // 2.
    perm = [j // 2 if j % 2 == 0 else n_sin + j // 2 for j in range(d_model)]
    inter = pelib.sinusoidal(n_positions, d_model, base=base, start=start)
    concat = pelib.sinusoidal(n_positions, d_model, base=base, start=start, layout="concat")
    assert np.array_equal(concat[:, perm], inter)


@pytest.mark.parametrize("d_model", [1, 3, 5, 129])
def test_odd_width_ends_with_a_lone_sine(d_model):
    positions = [0, 1, 17, 4000]
    last_w = 10000.0 ** (-(d_model - 1) / d_model)  # frequency index (d - 1) / 2
    inter = pelib.sinusoidal(4001, d_model)
    concat = pelib.sinusoidal(4001, d_model, layout="concat")
    n_sin = (d_model + 1) // 2
    for p in positions:
        assert inter[p, -1] == pytest.approx(math.sin(p * last_w), abs=1e-12)
        assert concat[p, n_sin - 1] == pytest.approx(math.sin(p * last_w), abs=1e-12)
    assert concat.shape == (4001, d_model)


def test_empty_table():
    for layout in ("interleaved", "concat"):
        table = pelib.sinusoidal(0, 16, layout=layout)
        assert table.shape == (0, 16)
        assert table.dtype == np.float64


@pytest.mark.parametrize("cast", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64])
def test_numpy_integers_are_sizes(cast):
    table = pelib.sinusoidal(cast(3), cast(6), start=cast(2))
    assert oracle.error(table, [2, 3, 4], 6).max() <= bounds.sinusoidal(5)
    assert pelib.frequencies(cast(6)).shape == (3,)


def test_a_longer_table_starts_with_a_shorter_one():
    # The encoding of a position does not depend on how long the sequence is: a prefix is the same
    # bits (the doubling of a longer table starts with the same rows), and both match the oracle.
    short, long = pelib.sinusoidal(10, 32), pelib.sinusoidal(500, 32)
    assert np.array_equal(short, long[:10])
    assert oracle.error(long[::50], range(0, 500, 50), 32).max() <= bounds.sinusoidal(500)
    # A table that starts elsewhere is doubled from other rows: the same values to within the bound.
    assert np.abs(pelib.sinusoidal(5, 32, start=7) - long[7:12]).max() <= 2 * bounds.sinusoidal(12)


# --- precision ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(start=st.integers(0, 2**31 - 32), d_model=st.integers(1, 64), layout=layouts)
def test_float32_is_the_exact_value_rounded_at_every_position_below_2_to_31(start, d_model, layout):
    table = pelib.sinusoidal(32, d_model, start=start, dtype=np.float32, layout=layout)
    assert table.dtype == np.float32
    error = oracle.error(table, range(start, start + 32), d_model, layout=layout)
    assert error.max() <= bounds.sinusoidal(start + 32, np.float32)


@pytest.mark.skipif(not bounds.EXTENDED, reason="the bound needs a long double with a 64-bit mantissa")
@pytest.mark.parametrize("start", [10**6 - 199, 2**24, 2**31 - 200])
def test_float32_is_the_float64_table_rounded_far_out(start):
    # Half a float32 unit plus the float64 error (pelib.sinusoidal, Notes), on every row. Where an exact value
    # lies near the midpoint of two float32 numbers, the float64 error can push it past 2**-25 (it does, five
    # times, in the last table), so 2**-25 alone is not the bound.
    table = pelib.sinusoidal(200, 512, start=start, dtype=np.float32)
    error = oracle.error(table, range(start, start + 200), 512)
    assert error.max() <= bounds.sinusoidal(start + 200, np.float32)
    assert np.array_equal(table, pelib.sinusoidal(200, 512, start=start).astype(np.float32))


def test_the_float32_check_catches_float32_angles():
    # The same check fails for the common implementation that forms p * w in float32,
    # so the tests above do discriminate.
    p = np.arange(10**6 - 32, 10**6, dtype=np.float32)[:, None]
    w = pelib.frequencies(64).astype(np.float32)
    naive = np.empty((32, 64), dtype=np.float32)
    naive[:, 0::2], naive[:, 1::2] = np.sin(p * w), np.cos(p * w)
    assert oracle.error(naive, range(10**6 - 32, 10**6), 64).max() > 1e-3


def test_float16_and_longdouble():
    half = pelib.sinusoidal(100, 16, dtype=np.float16)
    assert half.dtype == np.float16
    assert oracle.error(half, range(100), 16).max() <= bounds.sinusoidal(100, np.float16)
    long = pelib.sinusoidal(100, 16, dtype=np.longdouble)
    assert long.dtype == np.longdouble
    assert oracle.error(long, range(100), 16).max() <= bounds.sinusoidal(100, np.longdouble)


@pytest.mark.skipif(not bounds.EXTENDED, reason="the numbers are those of a long double with a 64-bit mantissa")
def test_float64_error_grows_as_the_docstring_says():
    # "a few units in the last place up to position 8,192, several hundred at 2**20 ... and about 1e-10
    # near 2**31" (pelib.sinusoidal, Notes), for d = 1024 (tables of 16 rows starting there).
    def ulps(start):
        table = pelib.sinusoidal(16, 1024, start=start)
        return oracle.error(table, range(start, start + 16), 1024).max() / bounds.ULP

    assert ulps(8192 - 16) <= 8
    assert 100 <= ulps(2**20) <= 1000
    assert 3e-11 <= ulps(2**31 - 16) * bounds.ULP <= 3e-10


@pytest.mark.skipif(not bounds.EXTENDED, reason="the bound needs a long double with a 64-bit mantissa")
@pytest.mark.parametrize(("start", "d_model", "layout"), [
    (2**20, 1024, "interleaved"), (2**24, 7, "concat"), (10**8, 256, "interleaved"), (2**31 - 16, 33, "concat"),
    (-(2**30), 64, "interleaved"), (-100_001, 64, "interleaved"),
])
def test_float64_within_the_bound_far_out(start, d_model, layout):
    table = pelib.sinusoidal(16, d_model, start=start, layout=layout)
    error = oracle.error(table, range(start, start + 16), d_model, layout=layout)
    assert error.max() <= bounds.sinusoidal(abs(start) + 16)


@pytest.mark.parametrize("dtype", ["float32", np.dtype("float32"), "f8", float])
def test_dtype_spellings(dtype):
    assert pelib.sinusoidal(2, 4, dtype=dtype).dtype == np.dtype(dtype)


# --- arbitrary positions -----------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(positions=st.lists(starts, max_size=10), d_model=sizes, base=bases, layout=layouts)
def test_encode_matches_the_formula(positions, d_model, base, layout):
    got = pelib.encode(positions, d_model, base=base, layout=layout)
    assert got.shape == (len(positions), d_model)
    if positions:
        error = oracle.error(got, positions, d_model, base=base, layout=layout)
        for p, row in zip(positions, error):
            assert row.max() <= bounds.encode(p)


def test_encode_error_grows_with_the_position_as_the_docstring_says():
    # "about 1e-12 at position 8,192 and 2e-9 at 2**24" (pelib.encode), here for d = 256.
    for p, low, high in [(8192, 3e-13, 3e-12), (2**24, 7e-10, 4e-9)]:
        rows = np.arange(p - 15, p + 1)
        error = oracle.error(pelib.encode(rows, 256), rows, 256).max()
        assert low <= error <= high


def test_encode_keeps_the_shape_of_its_positions():
    assert pelib.encode(7, 6).shape == (6,)
    assert pelib.encode(np.arange(12).reshape(3, 4), 6).shape == (3, 4, 6)
    grid = pelib.encode(np.arange(12).reshape(3, 4), 6)
    assert oracle.error(grid[2], [8, 9, 10, 11], 6).max() <= bounds.encode(11)
    assert pelib.encode([], 6).shape == (0, 6)


def test_encode_of_far_apart_positions():
    # One slow column over a long range without the rows in between.
    positions = [0, 1000, 58_469, 10**6]
    got = pelib.encode(positions, 256, dtype=np.float32)
    assert got.dtype == np.float32
    assert oracle.error(got, positions, 256).max() <= bounds.encode(10**6, np.float32)


# --- the doubling behind long tables -----------------------------------------------------


@pytest.mark.parametrize(("n_positions", "d_model", "start", "layout", "dtype"), [
    (8192, 1024, 0, "interleaved", np.float64), (5000, 33, 12345, "interleaved", np.float64),
    (3000, 64, -700, "concat", np.float64), (4097, 16, 10**6, "interleaved", np.float32),
    (1000, 7, 0.5, "concat", np.float16),
])
def test_long_tables_match_the_formula_row_by_row(n_positions, d_model, start, layout, dtype):
    table = pelib.sinusoidal(n_positions, d_model, start=start, layout=layout, dtype=dtype)
    assert table.shape == (n_positions, d_model) and table.dtype == dtype
    rows = sorted({0, 1, 15, 16, 17, 31, 32, 1023, 1024, n_positions - 1} & set(range(n_positions)))
    error = oracle.error(table[rows], [start + t for t in rows], d_model, layout=layout)
    assert error.max() <= bounds.sinusoidal(abs(start) + n_positions, dtype)


def test_long_tables_are_more_accurate_than_the_direct_formula():
    # Against the exact values, on every 64th row of 8192 x 256: the table built by doubling
    # (long-double angles) is more accurate than np.sin / np.cos of float64 angles.
    n, d = 8192, 256
    rows = np.arange(0, n, 64)
    doubled = oracle.error(pelib.sinusoidal(n, d)[rows], rows, d).max()
    direct = oracle.error(pelib.sinusoidal_direct(n, d)[rows], rows, d).max()
    assert doubled <= bounds.sinusoidal(n)
    if bounds.EXTENDED:
        assert doubled < direct / 100


@pytest.mark.skipif(not bounds.EXTENDED, reason="the bound needs a long double with a 64-bit mantissa")
def test_the_bound_follows_the_start_not_the_position():
    # A table that starts at -100,001 reaches position 0 with the angle error of its start: its rows near 0 are
    # off by tens of units in the last place, not by the 6 of a table that starts at 0 (pelib.sinusoidal, Notes).
    table = pelib.sinusoidal(100_017, 64, start=-100_001)  # positions -100,001 .. 15
    error = oracle.error(table[100_001:], range(16), 64).max()
    assert 6 * bounds.ULP < error <= bounds.sinusoidal(100_001 + 100_017)
