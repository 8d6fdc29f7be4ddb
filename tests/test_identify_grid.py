"""pelib.identify on tables beyond the token axis (issue 20): diffusion time-step tables
(read through ``Identification.as_timestep``) and 2-D image-grid tables (a
``GridIdentification``), from pelib and from the transcriptions of the real code.

Each reading is checked by rebuilding the table from the parameters it names, with
pelib's constructors, and comparing with the input.
"""

from __future__ import annotations

import numpy as np
import pytest

import pelib
from oracle import transcriptions

F32 = np.float32


# --- time-step tables ----------------------------------------------------------------


def check_readings(table, reading, steps, tolerance):
    """Every (shift, max_period) of ``reading`` rebuilds ``table`` with pelib."""
    assert reading.readings
    for shift, period in reading.readings:
        rebuilt = pelib.timestep_embedding(
            steps,
            reading.embedding_dim,
            flip_sin_to_cos=reading.flip_sin_to_cos,
            downscale_freq_shift=shift,
            scale=reading.scale,
            max_period=period,
        )
        assert np.abs(rebuilt - table).max() <= tolerance, (shift, period)


@pytest.mark.parametrize("dim", [16, 64, 255, 256])
@pytest.mark.parametrize("flip", [False, True])
@pytest.mark.parametrize("shift", [0, 1])
@pytest.mark.parametrize("source", ["pelib", "diffusers"])
def test_timestep_tables_name_flip_shift_and_period(dim, flip, shift, source):
    steps = np.arange(60)
    if source == "pelib":
        table = pelib.timestep_embedding(
            steps, dim, flip_sin_to_cos=flip, downscale_freq_shift=shift
        )
    else:  # float32 throughout, as the code computes
        table = transcriptions.diffusers_timestep_embedding(steps, dim, flip, shift)
    ident = pelib.identify(table)
    assert isinstance(ident, pelib.Identification)
    reading = ident.as_timestep()
    assert reading.embedding_dim == dim
    assert reading.flip_sin_to_cos is flip
    assert reading.first_timestep == 0
    assert reading.scale == 1.0
    assert (float(shift), 10000.0) in reading.readings
    # the other shift (0 or 1) is listed too, with the max_period that fits it
    assert {s for s, _ in reading.readings} >= {0.0, 1.0}
    # max_period is reported to 9 digits: the rebuilt angles move by ~1e-9 * t
    check_readings(table, reading, steps, 1e-8 if source == "pelib" else 2e-5)
    if flip and shift == 0:
        assert "DiT" in reading.codes and "guided-diffusion" in reading.codes
    elif not flip and shift == 1:
        assert "defaults" in reading.codes
    text = str(reading)
    assert f"flip_sin_to_cos={flip}" in text
    assert f"downscale_freq_shift={shift} with max_period=10000" in text
    assert "trade off" in text


@pytest.mark.parametrize(
    "make",
    [
        transcriptions.dit_timestep_embedding,
        transcriptions.guided_diffusion_timestep_embedding,
    ],
)
@pytest.mark.parametrize("dim", [256, 255])
def test_dit_and_guided_diffusion_in_float32(make, dim):
    table = make(np.arange(1000), dim).astype(F32)
    reading = pelib.identify(table).as_timestep()
    assert reading.flip_sin_to_cos is True
    assert reading.readings[0] == (0.0, 10000.0)
    assert "DiT" in reading.codes
    check_readings(table, reading, np.arange(1000), 2e-4)


@pytest.mark.parametrize(
    ("kwargs", "first", "scale"),
    [
        (dict(downscale_freq_shift=0.5), (0.5, 10000.0), 1.0),
        (dict(scale=0.5), (1.0, 5000.0), 0.5),
        (dict(max_period=1000, downscale_freq_shift=0), (0.0, 1000.0), 1.0),
    ],
)
def test_other_shifts_scales_and_periods(kwargs, first, scale):
    steps = np.arange(50)
    table = pelib.timestep_embedding(steps, 32, **kwargs)
    reading = pelib.identify(table).as_timestep()
    assert reading.scale == scale
    assert reading.codes == ""
    check_readings(table, reading, steps, 1e-7)  # max_period to 9 digits
    # a scale of 0.5 reads as min_timescale 0.5 with max_timescale 5000, which is
    # scale 0.5 with max_period 5000 at shift 1; the others name their own reading
    if scale == 1.0:
        assert reading.readings[0] == first


def test_timestep_reading_starts_later():
    table = pelib.timestep_embedding(np.arange(7, 47), 16, downscale_freq_shift=0)
    reading = pelib.identify(table).as_timestep()
    assert reading.first_timestep == 7
    assert "time step r + 7 in row r" in str(reading)


def test_single_frequency_has_no_shift_or_period():
    reading = pelib.identify(
        pelib.timestep_embedding(np.arange(20), 2, downscale_freq_shift=0)
    ).as_timestep()
    assert reading.readings == ()
    assert "single frequency" in str(reading)


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        (pelib.sinusoidal(40, 16), "interleaved"),
        (pelib.sinusoidal(40, 7, layout="concat"), "one more sine"),
        (
            np.vstack([np.zeros((1, 16)), pelib.timestep_embedding(range(1, 40), 16)]),
            "zero rows",
        ),
    ],
)
def test_not_a_timestep_table(table, reason):
    ident = pelib.identify(table)
    with pytest.raises(ValueError, match=reason):
        ident.as_timestep()


def test_scale_beyond_one_radian_per_step_is_still_refused():
    # scale 1000 turns the fast pairs by more than pi per step: consecutive rows
    # cannot tell such a frequency from its aliases, and identify refuses the table
    table = pelib.timestep_embedding(np.arange(50), 64, scale=1000)
    with pytest.raises(ValueError, match="not a sinusoidal encoding"):
        pelib.identify(table)


# --- 2-D grid tables -----------------------------------------------------------------


def check_grid(table, ident, shape, extra, tolerance):
    assert isinstance(ident, pelib.GridIdentification)
    assert (ident.height, ident.width) == shape
    assert ident.extra_tokens == extra
    assert ident.embed_dim == table.shape[1]
    assert ident.first_half == "width"
    assert ident.max_error <= tolerance
    # the reading rebuilds the table with pelib
    base_size = (
        None if ident.steps[0] in (1.0,) and ident.steps[1] in (1.0,) else (ident.span)
    )
    rebuilt = pelib.sincos_2d(
        ident.embed_dim, shape, extra_tokens=extra, base_size=base_size
    )
    assert np.abs(rebuilt - table).max() <= tolerance


@pytest.mark.parametrize("shape", [(5, 7), (7, 5), (6, 6), (2, 2), (3, 16)])
@pytest.mark.parametrize("extra", [0, 1, 3])
def test_pelib_integer_grids(shape, extra):
    table = pelib.sincos_2d(32, shape, extra_tokens=extra)
    ident = pelib.identify(table)
    check_grid(table, ident, shape, extra, 1e-15)
    assert ident.steps == (1.0, 1.0)
    text = str(ident)
    assert f"{shape[0]} x {shape[1]} cells" in text
    if shape[0] == shape[1]:
        assert "MAE's and DiT's get_2d_sincos_pos_embed" in ident.convention
    else:
        assert "square grids only" in ident.convention
    if extra:
        assert f"{extra} zero row" in text


@pytest.mark.parametrize("shape", [(5, 7), (8, 8), (32, 24)])
@pytest.mark.parametrize("base_size", [16, 10, 3.5])
def test_pelib_base_size_grids(shape, base_size):
    table = pelib.sincos_2d(48, shape, base_size=base_size, extra_tokens=1)
    ident = pelib.identify(table)
    assert ident.span == base_size
    assert ident.steps[0] == pytest.approx(base_size / shape[0], rel=1e-7)
    assert ident.steps[1] == pytest.approx(base_size / shape[1], rel=1e-7)
    check_grid(table, ident, shape, 1, 1e-13)
    assert "only that ratio is determined" in ident.convention


@pytest.mark.parametrize("dtype", [np.float64, F32])
def test_mae_and_dit_transcriptions(dtype):
    table = transcriptions.mae_2d_sincos_pos_embed(64, 14, cls_token=True).astype(dtype)
    ident = pelib.identify(table)
    check_grid(table, ident, (14, 14), 1, 1e-15 if dtype == np.float64 else 1e-7)
    assert "cls_token=True" in ident.convention
    table = transcriptions.dit_2d_sincos_pos_embed(256, 16).astype(dtype)
    ident = pelib.identify(table)
    check_grid(table, ident, (16, 16), 0, 1e-14 if dtype == np.float64 else 1e-7)


@pytest.mark.parametrize("dtype", [np.float64, F32])
@pytest.mark.parametrize(
    ("grid_size", "interpolation_scale", "base_size", "span"),
    [
        ((32, 24), 1.0, 16, 16.0),
        (12, 2.0, 16, 8.0),
        ((9, 20), 1.5, 24, 16.0),
        (32, 2.0, 64, 32.0),  # step 1: read as the integer grid
    ],
)
def test_diffusers_transcription(
    dtype, grid_size, interpolation_scale, base_size, span
):
    table = transcriptions.diffusers_2d_sincos_pos_embed(
        64, grid_size, True, 2, interpolation_scale, base_size
    ).astype(dtype)
    shape = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    ident = pelib.identify(table)
    # diffusers rounds its positions to float32: within span * 2**-23 of exact
    check_grid(table, ident, shape, 2, span * 2.0**-22)
    assert ident.span == span
    assert ident.position_error <= span * 2.0**-22
    if ident.steps != (1.0, 1.0):
        assert "diffusers' get_2d_sincos_pos_embed" in ident.convention


def test_height_in_first_half_is_refused_with_the_reason():
    table = pelib.sincos_2d(32, (5, 7))
    swapped = np.hstack([table[:, 16:], table[:, :16]])
    with pytest.raises(ValueError, match=r"5 x 7 grid.*swap the two halves"):
        pelib.identify(swapped)


def test_grid_with_another_base_is_refused_with_the_grid_in_the_reason():
    positions = np.arange(7.0)
    half = pelib.encode(positions, 16, base=100.0, layout="concat")
    heights = pelib.encode(np.arange(5.0), 16, base=100.0, layout="concat")
    table = np.hstack([np.tile(half, (5, 1)), np.repeat(heights, 7, axis=0)])
    with pytest.raises(ValueError, match=r"arranged as a 5 x 7 grid.*10000"):
        pelib.identify(table)


def test_uneven_grid_positions_are_refused():
    table = pelib.sincos_2d(32, (5, 7))
    ragged = pelib.encode(np.array([0.0, 1, 2, 3, 4.5]), 16, layout="concat")
    table[:, 16:] = np.repeat(ragged, 7, axis=0)
    with pytest.raises(ValueError, match="not evenly spaced"):
        pelib.identify(table)


def test_tables_without_grid_rows_keep_their_refusal():
    rng = np.random.default_rng(0)
    table = rng.uniform(-1, 1, size=(40, 16))
    with pytest.raises(ValueError, match="not a sinusoidal encoding") as info:
        pelib.identify(table)
    assert "grid" not in str(info.value)
    # a grid table with one entry off loses the exact row structure: refused as 1-D
    table = pelib.sincos_2d(32, (5, 7))
    table[3, 3] += 1e-3
    with pytest.raises(ValueError, match="not a sinusoidal encoding"):
        pelib.identify(table)


def test_one_dimensional_tables_are_still_identifications():
    for table in (pelib.sinusoidal(40, 16), pelib.timing_signal(40, 16)):
        assert isinstance(pelib.identify(table), pelib.Identification)


# --- 3-D video tables ----------------------------------------------------------------


@pytest.mark.parametrize("flat", [False, True])
@pytest.mark.parametrize(
    ("spatial_size", "frames", "spatial", "temporal"),
    [((6, 4), 5, 1.0, 1.0), ((5, 5), 3, 1.875, 2.0), ((9, 2), 4, 0.5, 1.5)],
)
def test_pelib_volumes(flat, spatial_size, frames, spatial, temporal):
    table = pelib.sincos_3d(
        64,
        spatial_size,
        frames,
        spatial_interpolation_scale=spatial,
        temporal_interpolation_scale=temporal,
    )
    ident = pelib.identify(table.reshape(-1, 64) if flat else table)
    assert isinstance(ident, pelib.VolumeIdentification)
    width, height = spatial_size
    assert (ident.frames, ident.height, ident.width) == (frames, height, width)
    assert ident.spatial_interpolation_scale == spatial
    assert ident.temporal_interpolation_scale == temporal
    assert ident.max_error <= 1e-15
    assert f"spatial_size ({width}, {height})" in str(ident)


@pytest.mark.parametrize("dtype", [np.float64, F32])
def test_diffusers_volume_transcription(dtype):
    table = transcriptions.diffusers_3d_sincos_pos_embed(
        128, (9, 6), 13, 1.875, 1.0
    ).astype(dtype)
    ident = pelib.identify(table)
    assert isinstance(ident, pelib.VolumeIdentification)
    assert (ident.frames, ident.height, ident.width) == (13, 6, 9)
    assert ident.spatial_interpolation_scale == 1.875
    assert ident.temporal_interpolation_scale == 1.0
    # positions rounded to float32 by the code: up to 12 * 2**-24 off
    rebuilt = pelib.sincos_3d(128, (9, 6), 13, spatial_interpolation_scale=1.875)
    assert ident.max_error == np.abs(rebuilt - table).max()
    assert ident.max_error <= 12 * 2.0**-23


def test_three_dimensional_arrays_that_are_not_volumes_keep_their_refusal():
    rng = np.random.default_rng(1)
    with pytest.raises(ValueError, match="must be a 2-D array"):
        pelib.identify(rng.uniform(-1, 1, (3, 10, 16)))
    with pytest.raises(ValueError, match="pass table"):  # one frame: a batch of one
        pelib.identify(pelib.sincos_3d(64, (6, 4), 1))
    grid = pelib.sincos_2d(48, (4, 6))  # a 2-D grid repeated is no 3-D table
    with pytest.raises(ValueError, match="must be a 2-D array"):
        pelib.identify(np.stack([grid, grid]))
