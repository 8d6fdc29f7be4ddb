"""tensor2tensor's timing signal, the all-in-one-dtype direct formula, and the
conventions of widely used code (chapter 2).

Truth: the exact values of each formula (the oracle, mpmath), the float32 code of
tensor2tensor and of the other code bases as transcribed in ``oracle.transcriptions``
(each cited there by repository, commit and path), and closed forms.
"""

import math

import bounds
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
import pelib
from oracle import transcriptions

FLOAT32 = 2.0**-24


@settings(max_examples=60, deadline=None)
@given(
    length=st.integers(0, 15),
    channels=st.integers(1, 40),
    min_timescale=st.floats(0.1, 10),
    ratio=st.floats(1.5, 1e5),
    start_index=st.integers(-100, 10**5),
)
def test_timing_signal_matches_tensor2tensor(
    length, channels, min_timescale, ratio, start_index
):
    got = pelib.timing_signal(
        length,
        channels,
        min_timescale=min_timescale,
        max_timescale=min_timescale * ratio,
        start_index=start_index,
    )
    assert got.shape == (length, channels)
    exact = oracle.timing_signal(
        range(start_index, start_index + length),
        channels,
        min_timescale=min_timescale,
        max_timescale=min_timescale * ratio,
    )
    # The float64 angle p * nu_i is off by a few units in its last place: about |p| *
    # min_timescale * 2**-50.
    largest = max(1, abs(start_index) + length) * min_timescale
    assert np.abs(got - exact).max(initial=0) <= bounds.ULP * 16 * largest


@pytest.mark.parametrize("channels", [1, 3, 7, 129])
def test_odd_channels_end_with_a_zero_column(channels):
    signal = pelib.timing_signal(30, channels, start_index=1)
    assert not signal[:, -1].any()
    assert np.abs(signal - oracle.timing_signal(range(1, 31), channels)).max() <= 1e-13


@pytest.mark.parametrize("channels", [4, 7, 16, 129, 512])
def test_timing_signal_is_tensor2tensors_float32_code_in_float64(channels):
    # The code quoted in the notes, transcribed step by step in float32: its angles p *
    # nu are rounded to 24 bits twice (nu, then p * nu), so it is within about 2 p
    # 2**-24 of pelib's float64 table.
    verbatim = transcriptions.tensor2tensor(300, channels, start_index=5)[0]
    got = pelib.timing_signal(300, channels, start_index=5)
    positions = np.arange(5, 305)[:, None]
    assert np.all(np.abs(verbatim - got) <= 4 * positions * FLOAT32 + FLOAT32)


def test_timescales_of_the_defaults_and_of_min_timescale_2():
    # Channel k of the sine half at position 0.1 is sin(0.1 v_k), so the timescales 1 /
    # v_k can be read back (every 0.1 v_k here is below pi / 2).
    def timescales(**kw):
        row = pelib.timing_signal(1, 8, start_index=0.1, **kw)[0, :4]
        return [0.1 / math.asin(x) for x in row]

    assert timescales() == pytest.approx(
        [1.0, 10000 ** (1 / 3), 10000 ** (2 / 3), 10000.0], rel=1e-9
    )
    # The documented range is min_timescale .. max_timescale = 2 .. 10000; the code
    # gives 0.5 .. 2500.
    got = timescales(min_timescale=2.0)
    assert got[0] == pytest.approx(0.5, rel=1e-12) and got[-1] == pytest.approx(
        2500.0, rel=1e-9
    )


def test_two_channels_and_empty():
    # One timescale: the increment divides by max(K - 1, 1) = 1, frequency exactly
    # min_timescale.
    expected = [0, 1, math.sin(1), math.cos(1), math.sin(2), math.cos(2)]
    assert pelib.timing_signal(3, 2).ravel().tolist() == pytest.approx(
        expected, abs=1e-16
    )
    assert pelib.timing_signal(0, 6).shape == (0, 6)


def test_timing_signal_arguments():
    with pytest.raises(ValueError, match=r"^channels must be an integer >= 1"):
        pelib.timing_signal(3, 0)
    with pytest.raises(TypeError, match=r"^length must be an integer >= 0"):
        pelib.timing_signal(3.5, 4)
    with pytest.raises(
        ValueError, match=r"^min_timescale must be a finite real number > 0"
    ):
        pelib.timing_signal(3, 4, min_timescale=0)
    with pytest.raises(
        ValueError, match=r"^max_timescale must be a finite real number > 0"
    ):
        pelib.timing_signal(3, 4, max_timescale=float("inf"))
    with pytest.raises(TypeError, match=r"^start_index must be a finite real number"):
        pelib.timing_signal(3, 4, start_index="2")


@pytest.mark.parametrize("d_model", [1, 6, 7, 64])
def test_direct_formula_in_float64_is_the_paper(d_model):
    got = pelib.sinusoidal_direct(60, d_model)
    assert got.dtype == np.float64
    assert oracle.error(got, range(60), d_model).max() <= bounds.direct(60)


def test_direct_formula_in_float32_rounds_the_angle():
    got = pelib.sinusoidal_direct(50, 512, dtype=np.float32)
    assert got.dtype == np.float32
    error = oracle.error(got[49:], [49], 512).max()
    # The angle 49 * w is rounded to 24 bits: an error of up to 2 * 49 * 2**-24 ~ 6e-6,
    # far above float32's 3e-8.
    assert 1e-6 < error < 2 * 49 * FLOAT32
    assert (
        oracle.error(pelib.sinusoidal(50, 512, dtype=np.float32)[49:], [49], 512).max()
        <= 2.0**-25 * 1.0001
    )


def test_direct_formula_errors_are_those_of_the_docstring():
    # "about 3e-6 at position 49, 4e-4 at 8,191 and 1e-3 by position 20,000" (d = 1024).
    table = pelib.sinusoidal_direct(20_001, 1024, dtype=np.float32)
    error = {
        p: oracle.error(table[p : p + 1], [p], 1024).max() for p in (49, 8191, 20_000)
    }
    assert 2e-6 <= error[49] <= 4e-6
    assert 3e-4 <= error[8191] <= 5e-4
    assert error[20_000] > 1e-3


def test_direct_float16_refuses_positions_that_round_to_infinity():
    # 65,505 to 65,519 round to 65,504, the largest float16 (a repeated row); 65,520
    # rounds to infinity.
    rows = pelib.sinusoidal_direct(20, 8, start=65_500, dtype=np.float16)
    assert np.all(np.isfinite(rows)) and np.array_equal(rows[4], rows[19])
    with pytest.raises(
        ValueError,
        match=r"^start and n_positions: position 65520 rounds to infinity in float16",
    ):
        pelib.sinusoidal_direct(21, 8, start=65_500, dtype=np.float16)


# --- the conventions of widely used code (chapter 2's table) --------------------------


def test_fairseq_is_the_timing_signal_read_from_padding_idx_plus_one():
    table = transcriptions.fairseq_embedding(40, 16, padding_idx=1)
    rows = transcriptions.fairseq_positions([[1, 1, 9, 9, 9]], padding_idx=1)[
        0
    ]  # two pads, then tokens
    assert rows.tolist() == [1, 1, 2, 3, 4]
    assert not table[1].any()  # pads read the zeroed row
    ours = pelib.timing_signal(3, 16, start_index=2)
    assert np.abs(table[rows[2:]] - ours).max() <= 4 * 4 * FLOAT32


def test_marian_is_the_paper_in_sin_cos_layout():
    for d in (16, 17):
        assert (
            np.abs(
                transcriptions.marian_weight(100, d)
                - pelib.sinusoidal(100, d, layout="concat")
            ).max()
            <= 2.0**-24
        )


def test_musicgen_is_the_timing_signal_with_its_halves_swapped():
    for d in (16, 17):
        k = d // 2
        ours = pelib.timing_signal(100, d)
        swapped = np.concatenate(
            [ours[:, k : 2 * k], ours[:, :k], ours[:, 2 * k :]], axis=1
        )
        assert (
            np.abs(transcriptions.musicgen_embedding(100, d) - swapped).max()
            <= 4 * 100 * FLOAT32
        )


def test_positional_encodings_rounds_an_odd_width_up():
    for d in (16, 17):
        rounded = d + d % 2
        ours = pelib.sinusoidal(100, rounded)[:, :d]
        assert (
            np.abs(transcriptions.positional_encodings_1d(100, d) - ours).max()
            <= 4 * 100 * FLOAT32
        )


@pytest.mark.parametrize(
    "code",
    [
        transcriptions.pytorch_tutorial,
        transcriptions.annotated_transformer,
        transcriptions.d2l,
    ],
    ids=lambda f: f.__name__,
)
def test_float32_tutorials_are_the_direct_formula_in_float32(code):
    ours = pelib.sinusoidal_direct(200, 64, dtype=np.float32)
    theirs = code(200, 64)
    # Same formula, same precision; the float32 frequencies are computed differently
    # (exp against pow, multiplication against division), so the angles differ by a
    # rounding or two of p * w.
    assert np.abs(theirs - ours).max() <= 4 * 200 * FLOAT32
    exact = oracle.error(theirs[::20], range(0, 200, 20), 64).max()
    assert exact <= 4 * 200 * FLOAT32


def test_direct_formula_arguments():
    with pytest.raises(TypeError, match=r"^dtype must be a NumPy floating dtype"):
        pelib.sinusoidal_direct(3, 4, dtype=np.int64)
    with pytest.raises(ValueError, match=r"^n_positions must be an integer >= 0"):
        pelib.sinusoidal_direct(-1, 4)
