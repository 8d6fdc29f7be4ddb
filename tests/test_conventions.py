"""tensor2tensor's timing signal and the all-in-one-dtype direct formula (chapter 2).

Truth: the tensor2tensor recipe rewritten with powers instead of exp/log, in plain
Python loops, and the paper's formula from reference.py.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pelib
import reference


def t2t_rows(length, channels, min_timescale=1.0, max_timescale=1.0e4, start_index=0):
    """get_timing_signal_1d, one entry at a time: [sin(p v_k) | cos(p v_k)] (+ a zero column)."""
    k_count = channels // 2
    steps = max(k_count - 1, 1)
    inv = [min_timescale * (max_timescale / min_timescale) ** (-k / steps) for k in range(k_count)]
    rows = []
    for t in range(length):
        p = start_index + t
        row = [math.sin(p * v) for v in inv] + [math.cos(p * v) for v in inv]
        rows.append(row + [0.0] * (channels % 2))
    return rows


@settings(max_examples=60, deadline=None)
@given(
    length=st.integers(0, 15),
    channels=st.integers(1, 40),
    min_timescale=st.floats(0.1, 10),
    ratio=st.floats(1.5, 1e5),
    start_index=st.integers(-100, 10**5),
)
def test_timing_signal_matches_tensor2tensor(length, channels, min_timescale, ratio, start_index):
    got = pelib.timing_signal(length, channels, min_timescale=min_timescale,
                              max_timescale=min_timescale * ratio, start_index=start_index)
    assert got.shape == (length, channels)
    expected = t2t_rows(length, channels, min_timescale, min_timescale * ratio, start_index)
    assert reference.max_abs_diff(got, expected) <= 1e-10 * max(1, abs(start_index) + length)


@pytest.mark.parametrize("channels", [1, 3, 7, 129])
def test_odd_channels_end_with_a_zero_column(channels):
    signal = pelib.timing_signal(30, channels, start_index=1)
    assert not signal[:, -1].any()
    assert reference.max_abs_diff(signal, t2t_rows(30, channels, start_index=1)) <= 1e-12


def test_timescales_of_the_defaults_and_of_min_timescale_2():
    # Channel k of the sine half at position 0.1 is sin(0.1 v_k), so the timescales 1 / v_k can be
    # read back (every 0.1 v_k here is below pi / 2).
    def timescales(**kw):
        row = pelib.timing_signal(1, 8, start_index=0.1, **kw)[0, :4]
        return [0.1 / math.asin(x) for x in row]

    assert timescales() == pytest.approx([1.0, 10000 ** (1 / 3), 10000 ** (2 / 3), 10000.0], rel=1e-9)
    # The documented range is min_timescale .. max_timescale = 2 .. 10000; the code gives 0.5 .. 2500.
    got = timescales(min_timescale=2.0)
    assert got[0] == pytest.approx(0.5, rel=1e-12) and got[-1] == pytest.approx(2500.0, rel=1e-9)


def test_two_channels_and_empty():
    # One timescale: the increment divides by max(K - 1, 1) = 1, frequency exactly min_timescale.
    expected = [0, 1, math.sin(1), math.cos(1), math.sin(2), math.cos(2)]
    assert pelib.timing_signal(3, 2).ravel().tolist() == pytest.approx(expected, abs=1e-16)
    assert pelib.timing_signal(0, 6).shape == (0, 6)


def test_timing_signal_arguments():
    with pytest.raises(ValueError, match=r"^channels must be an integer >= 1"):
        pelib.timing_signal(3, 0)
    with pytest.raises(TypeError, match=r"^length must be an integer >= 0"):
        pelib.timing_signal(3.5, 4)
    with pytest.raises(ValueError, match=r"^min_timescale must be a finite real number > 0"):
        pelib.timing_signal(3, 4, min_timescale=0)
    with pytest.raises(ValueError, match=r"^max_timescale must be a finite real number > 0"):
        pelib.timing_signal(3, 4, max_timescale=float("inf"))
    with pytest.raises(TypeError, match=r"^start_index must be a finite real number"):
        pelib.timing_signal(3, 4, start_index="2")


@pytest.mark.parametrize("d_model", [1, 6, 7, 64])
def test_direct_formula_in_float64_is_the_paper(d_model):
    got = pelib.sinusoidal_direct(60, d_model)
    assert got.dtype == np.float64
    assert reference.max_abs_diff(got, reference.table(60, d_model)) <= 1e-12


def test_direct_formula_in_float32_rounds_the_angle():
    got = pelib.sinusoidal_direct(50, 512, dtype=np.float32)
    assert got.dtype == np.float32
    error = reference.max_abs_diff(got[49:], reference.table(50, 512)[49:])
    # The angle 49 * w is rounded to 24 bits: an error of up to 49 * 2**-24 ~ 3e-6, far above float32's 6e-8.
    assert 1e-6 < error < 49 * 2.0**-23
    assert reference.max_abs_diff(pelib.sinusoidal(50, 512, dtype=np.float32)[49:],
                                  reference.table(50, 512)[49:]) <= 1e-7


def test_direct_formula_arguments():
    with pytest.raises(TypeError, match=r"^dtype must be a NumPy floating dtype"):
        pelib.sinusoidal_direct(3, 4, dtype=np.int64)
    with pytest.raises(ValueError, match=r"^n_positions must be an integer >= 0"):
        pelib.sinusoidal_direct(-1, 4)
