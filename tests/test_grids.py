"""The tables over image grids, video grids and time steps: pelib.sincos_2d, sincos_3d
and timestep_embedding.

Truth: the exact tables of ``oracle.grids`` (mpmath, every entry rounded once to
float64) and the code of MAE, DiT, guided-diffusion and diffusers as transcribed in
``oracle.transcriptions`` (cited there by repository, commit, path and lines). The
oracle takes every position exactly: the exact rational position of the formula for
``sincos_2d``/``sincos_3d`` (the floats given read at their binary value), the float64
time steps as given for ``timestep_embedding``; the bounds below add the roundings of
the positions that pelib or the code makes. Every bound is entry by entry, from each
entry's own angle ``|p| * w``.
"""

import math
from decimal import Decimal
from fractions import Fraction

import bounds
import numpy as np
import pytest

import oracle
import pelib
from oracle import grids, transcriptions

U = 2.0**-53  # unit roundoff of float64; spacing of float64 numbers in [1/2, 1)
F24 = 2.0**-24  # unit roundoff of float32
SIN_1 = float(Decimal("0.84147098480789650665250232163029899962256306079837"))
COS_1 = float(Decimal("0.54030230586813971740093660744297660373231042061792"))


# --- the angles of each entry, for the bounds -----------------------------------------


def omega_1d(dim):
    """The frequencies ``10000 ** (-k / (dim / 2))`` of a 1-D table of width ``dim``,
    once per column of ``[sin | cos]``."""
    w = 10000.0 ** (-np.arange(dim // 2) / (dim / 2))
    return np.concatenate([w, w])


def angles_2d(embed_dim, heights, widths):
    """``|p| * w`` of every entry of a 2-D table (rows ``h * W + w``)."""
    w = omega_1d(embed_dim // 2)
    across = np.abs(np.asarray(widths, dtype=np.float64))[:, None] * w
    down = np.abs(np.asarray(heights, dtype=np.float64))[:, None] * w
    return np.concatenate(
        [
            np.broadcast_to(across[None], (len(down), len(across), w.size)),
            np.broadcast_to(down[:, None], (len(down), len(across), w.size)),
        ],
        axis=2,
    ).reshape(-1, embed_dim)


def angles_3d(embed_dim, times, heights, widths):
    """``|p| * w`` of every entry of a 3-D table."""
    quarter = embed_dim // 4
    time = np.abs(np.asarray(times, dtype=np.float64))[:, None] * omega_1d(quarter)
    place = angles_2d(3 * quarter, heights, widths)
    out = np.empty((len(times), place.shape[0], embed_dim))
    out[:, :, :quarter] = time[:, None]
    out[:, :, quarter:] = place[None]
    return out


def assert_within(table, expected, bound):
    table = np.asarray(table, dtype=np.float64)
    assert table.shape == expected.shape
    if not table.size:
        return
    excess = np.abs(table - expected) / bound
    worst = np.unravel_index(excess.argmax(), excess.shape)
    assert excess.max() <= 1, (
        f"worst entry at {worst}: {excess.max():.3g} times the bound"
    )


def positions(n, base_size=None, scale=1.0):
    """The exact positions of an axis as floats (for the bounds only)."""
    return [float(p) for p in grids.grid_positions(n, base_size, scale)]


# --- pelib against the oracle ---------------------------------------------------------

GRIDS_2D = [
    # embed_dim, grid_size, extra_tokens, base_size, interpolation_scale
    (8, 4, 0, None, 1.0),
    (32, 5, 1, None, 1.0),  # MAE's cls_token
    (64, (3, 7), 0, None, 1.0),
    (16, (7, 3), 2, None, 1.0),
    (32, (4, 6), 0, 16, 1.0),  # diffusers' default base_size
    (48, (6, 4), 1, 8, 1.875),
    (16, 9, 0, 3.5, 0.3),
    (8, (1, 5), 0, 2, 1.0),
    (8, (0, 5), 3, 2, 1.0),
]


@pytest.mark.parametrize("dim, size, extra, base_size, scale", GRIDS_2D)
def test_sincos_2d_is_the_exact_table(dim, size, extra, base_size, scale):
    table = pelib.sincos_2d(
        dim, size, extra_tokens=extra, base_size=base_size, interpolation_scale=scale
    )
    height, width = (size, size) if isinstance(size, int) else size
    assert table.dtype == np.float64 and table.shape == (extra + height * width, dim)
    expected = grids.sincos_2d(
        dim, size, extra_tokens=extra, base_size=base_size, interpolation_scale=scale
    )
    # pelib forms each position in float64 as arange(n) / (n / base_size) / scale:
    # three roundings, |p~ - p| <= 3.01 * 2**-53 |p|, which moves a sine or cosine by at
    # most that times w (integer positions: none). encode then promises 5e-16 at the
    # float64 position (tests/bounds.py; positions here are far below 2**31).
    roundings = 0 if base_size is None else 3.01
    angle = angles_2d(
        dim, positions(height, base_size, scale), positions(width, base_size, scale)
    )
    bound = np.concatenate(
        [np.full((extra, dim), 1e-300), bounds.encode(0) + roundings * U * angle]
    )
    assert_within(table, expected, bound)
    assert not table[:extra].any()  # the zero rows, exactly


@pytest.mark.parametrize(
    "dim, spatial_size, frames, spatial_scale, temporal_scale",
    [
        (16, 3, 2, 1.0, 1.0),
        (32, (5, 3), 4, 1.0, 1.0),  # (width, height): 5 wide, 3 high
        (64, (3, 5), 3, 1.875, 1.0),  # CogVideoX's spatial scale
        (48, (4, 2), 5, 0.7, 2.5),
        (16, (0, 3), 2, 1.0, 1.0),
    ],
)
def test_sincos_3d_is_the_exact_table(
    dim, spatial_size, frames, spatial_scale, temporal_scale
):
    table = pelib.sincos_3d(
        dim,
        spatial_size,
        frames,
        spatial_interpolation_scale=spatial_scale,
        temporal_interpolation_scale=temporal_scale,
    )
    width, height = (
        (spatial_size, spatial_size) if isinstance(spatial_size, int) else spatial_size
    )
    assert table.dtype == np.float64 and table.shape == (frames, height * width, dim)
    expected = grids.sincos_3d(
        dim,
        spatial_size,
        frames,
        spatial_interpolation_scale=spatial_scale,
        temporal_interpolation_scale=temporal_scale,
    )
    # Each position is arange(n) / scale in float64, one rounding: |p~ - p| <=
    # 2**-53 |p| (none for a scale of 1), plus encode's 5e-16.
    angle = angles_3d(
        dim,
        [t / temporal_scale for t in range(frames)],
        [h / spatial_scale for h in range(height)],
        [w / spatial_scale for w in range(width)],
    )
    assert_within(table, expected, bounds.encode(0) + 1.01 * U * angle)


def timestep_bound(timesteps, dim, shift, scale, max_period):
    """pelib's float64 ``timestep_embedding`` against the exact table.

    The argument of exp, x = -log(P) * (k / (K - s)): log within 2 units (a relative
    2u), K - s, the quotient and the product one rounding each: relative 5u, so the
    frequency exp(x) is off by a relative 5u |x| from its argument and 4u from exp (2
    units). t * w and scale * (t w) add 2u: the angle theta is off by a relative (5 |x|
    + 6) u, an entry by theta times that, plus 4 units of sin/cos (NumPy's vectorised
    loops are within 4) and half a unit for the oracle's rounding.
    """
    half = dim // 2
    x = math.log(max_period) * np.arange(half) / (half - shift)
    w = np.exp(-x)
    theta = abs(scale) * np.abs(np.asarray(timesteps, dtype=np.float64))[:, None] * w
    per = theta * (5 * x + 6) * U + 4.5 * U
    return np.pad(
        np.concatenate([per, per], axis=1),
        ((0, 0), (0, dim % 2)),
        constant_values=1e-300,
    )


TIMESTEP_CASES = [
    # embedding_dim, flip_sin_to_cos, downscale_freq_shift, scale, max_period, timesteps
    (16, False, 1, 1, 10000, np.arange(1000)),  # diffusers' defaults
    (17, False, 1, 1, 10000, np.arange(1000)),  # odd: a zero column
    (256, True, 0, 1, 10000, np.arange(1000)),  # DiT's frequency_embedding_size
    (33, True, 0, 1, 10000, np.arange(0, 1000, 7)),
    (32, True, 0, 1000, 10000, np.arange(301) / 256),  # fractional, scaled
    (24, False, 0.5, 1, 5000, np.arange(300) / 7 - 20),  # fractional, negative
    (20, True, 9.5, 2.5, 10000, np.arange(50) * 0.3),  # shift close to K = 10
    (12, False, -3, 1, 1.5, np.arange(40)),
    (1, False, 7, 1, 10000, np.arange(5)),  # no frequency: one zero column
]


@pytest.mark.parametrize(
    "dim, flip, shift, scale, max_period, timesteps", TIMESTEP_CASES
)
def test_timestep_embedding_is_the_exact_table(
    dim, flip, shift, scale, max_period, timesteps
):
    kwargs = dict(
        flip_sin_to_cos=flip,
        downscale_freq_shift=shift,
        scale=scale,
        max_period=max_period,
    )
    table = pelib.timestep_embedding(timesteps, dim, **kwargs)
    assert table.dtype == np.float64 and table.shape == (len(timesteps), dim)
    expected = grids.timestep_embedding(timesteps, dim, **kwargs)
    bound = timestep_bound(timesteps, dim, shift, scale, max_period)
    assert_within(table, expected, bound)
    if dim % 2:
        assert not table[:, -1].any()


# --- pelib against the code -----------------------------------------------------------


def float64_code(angle):
    """The float64 code of MAE, DiT and diffusers against the exact table at the
    positions it holds.

    Its frequency 1 / 10000 ** e: e = k / (D / 2) one rounding, which ln(10000) = 9.22
    amplifies (e <= 1), pow 1 unit (2u), the reciprocal u: a relative 12.3u; the angle
    one more: theta * 13.3u, plus 4 units of sin/cos and half a unit of the oracle.
    """
    return angle * 13.3 * U + 4.5 * U


@pytest.mark.parametrize("grid_size", [1, 4, 7])
@pytest.mark.parametrize("embed_dim", [8, 32, 64])
def test_mae_and_dit_are_sincos_2d_of_the_integer_grid(grid_size, embed_dim):
    mae = transcriptions.mae_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=True)
    dit = transcriptions.dit_2d_sincos_pos_embed(embed_dim, grid_size)
    assert mae.dtype == dit.dtype == np.float64
    assert np.array_equal(mae[1:], dit)  # the same arithmetic, token for token
    assert not mae[0].any()  # cls_token: one zero row first
    ours = pelib.sincos_2d(embed_dim, grid_size, extra_tokens=1)
    angle = angles_2d(embed_dim, range(grid_size), range(grid_size))
    # The code's error (float64_code) plus pelib's 5e-16 (tests/bounds.py).
    assert_within(mae[1:], ours[1:], float64_code(angle) + bounds.encode(0))
    assert_within(
        dit, grids.sincos_2d(embed_dim, grid_size), float64_code(angle)
    )  # the code against the exact table itself


def test_dit_adds_zero_rows_only_with_cls_token_and_extra_tokens():
    plain = transcriptions.dit_2d_sincos_pos_embed(16, 3)
    assert transcriptions.dit_2d_sincos_pos_embed(16, 3, cls_token=True).shape == (
        9,
        16,
    )
    assert transcriptions.dit_2d_sincos_pos_embed(16, 3, extra_tokens=2).shape == (
        9,
        16,
    )
    both = transcriptions.dit_2d_sincos_pos_embed(16, 3, cls_token=True, extra_tokens=2)
    assert both.shape == (11, 16) and not both[:2].any()
    assert np.array_equal(both[2:], plain)
    mae = transcriptions.mae_2d_sincos_pos_embed(16, 3, cls_token=True)
    assert mae.shape == (10, 16)  # MAE's cls_token alone adds one row


def test_the_half_called_emb_h_encodes_the_width_index():
    # MAE issue facebookresearch/mae#18: meshgrid(grid_w, grid_h) puts w in grid[0].
    n, dim = 5, 16
    mae = transcriptions.mae_2d_sincos_pos_embed(dim, n).reshape(n, n, dim)
    first, second = mae[..., : dim // 2], mae[..., dim // 2 :]
    assert np.array_equal(first, np.broadcast_to(first[:1], first.shape))  # not on h
    assert np.array_equal(second, np.broadcast_to(second[:, :1], second.shape))
    assert mae[0, 1, 0] != 0 and mae[1, 0, 0] == 0  # w = 1 moves the first sine
    ours = pelib.sincos_2d(dim, (3, 5)).reshape(3, 5, dim)
    one_d = pelib.encode(np.arange(5), dim // 2, layout="concat")
    assert np.array_equal(ours[2, :, : dim // 2], one_d)  # width index, first half
    assert np.array_equal(ours[:, 0, dim // 2 :], one_d[:3])  # height index, second


DIFFUSERS_2D = [
    # embed_dim, grid_size, cls_token, extra_tokens, interpolation_scale, base_size
    (32, 4, False, 0, 1.0, 16),
    (32, (3, 5), False, 0, 1.0, 16),
    (64, (5, 3), True, 1, 1.875, 8),
    (16, (6, 2), True, 3, 0.5, 2),
    (48, 8, False, 2, 2.0, 8),  # extra_tokens without cls_token: no zero rows
]


@pytest.mark.parametrize("dim, size, cls_token, extra, scale, base", DIFFUSERS_2D)
def test_diffusers_2d_is_sincos_2d_with_float32_positions(
    dim, size, cls_token, extra, scale, base
):
    code = transcriptions.diffusers_2d_sincos_pos_embed(
        dim, size, cls_token, extra, interpolation_scale=scale, base_size=base
    )
    rows = extra if cls_token else 0
    ours = pelib.sincos_2d(
        dim, size, extra_tokens=rows, base_size=base, interpolation_scale=scale
    )
    height, width = (size, size) if isinstance(size, int) else size
    assert code.dtype == np.float64 and code.shape == ours.shape
    assert code.shape == (rows + height * width, dim)
    assert not code[:rows].any()
    angle = angles_2d(
        dim, positions(height, base, scale), positions(width, base, scale)
    )
    # The code's positions are float32: n / base_size rounded to float64 then float32,
    # the quotient, scale to float32 and the second quotient: |p32 - p| <= 4.01 *
    # 2**-24 |p|. pelib's are within 3.01 * 2**-53 |p|. Then the float64 code's
    # arithmetic (float64_code) and pelib's 5e-16.
    bound = angle * (4.01 * F24 + 3.01 * U) + float64_code(angle) + bounds.encode(0)
    assert_within(code[rows:], ours[rows:], bound)
    # The code's own float32 positions in the exact formula: only float64 arithmetic.
    held_h = np.arange(height, dtype=np.float32) / (height / base) / scale
    held_w = np.arange(width, dtype=np.float32) / (width / base) / scale
    assert held_h.dtype == np.float32
    assert_within(
        code[rows:], grids.plane(dim, list(held_h), list(held_w)), float64_code(angle)
    )


def test_diffusers_rounds_fractional_grid_positions_to_float32():
    # base_size 16 over 3 cells: position 16/3 is held as a float32, about 1e-7 off,
    # so the fastest sine is off by far more than float64 rounding.
    code = transcriptions.diffusers_2d_sincos_pos_embed(32, 3)
    exact = grids.sincos_2d(32, 3, base_size=16)
    assert np.abs(code - exact).max() > 1e-8
    assert np.abs(pelib.sincos_2d(32, 3, base_size=16) - exact).max() < 1e-14


@pytest.mark.parametrize(
    "dim, spatial_size, frames, spatial_scale, temporal_scale",
    [
        (16, 4, 3, 1.0, 1.0),
        (32, (5, 3), 4, 1.0, 1.0),
        (64, (3, 5), 2, 1.875, 1.0),  # CogVideoX
        (48, (2, 6), 5, 0.7, 2.5),
    ],
)
def test_diffusers_3d_is_sincos_3d(
    dim, spatial_size, frames, spatial_scale, temporal_scale
):
    code = transcriptions.diffusers_3d_sincos_pos_embed(
        dim, spatial_size, frames, spatial_scale, temporal_scale
    )
    ours = pelib.sincos_3d(
        dim,
        spatial_size,
        frames,
        spatial_interpolation_scale=spatial_scale,
        temporal_interpolation_scale=temporal_scale,
    )
    assert code.dtype == np.float64 and code.shape == ours.shape
    width, height = (
        (spatial_size, spatial_size) if isinstance(spatial_size, int) else spatial_size
    )
    angle = angles_3d(
        dim,
        [t / temporal_scale for t in range(frames)],
        [h / spatial_scale for h in range(height)],
        [w / spatial_scale for w in range(width)],
    )
    # float32 positions i / scale: the scale rounded to float32 and the quotient,
    # 2.01 * 2**-24 |p|; pelib's float64 quotient 2**-53 |p|; then as above.
    bound = angle * (2.01 * F24 + U) + float64_code(angle) + bounds.encode(0)
    assert_within(code, ours, bound)


def test_diffusers_3d_reads_spatial_size_as_width_then_height():
    dim, width, height, frames = 32, 5, 3, 2
    code = transcriptions.diffusers_3d_sincos_pos_embed(dim, (width, height), frames)
    assert code.shape == (frames, height * width, dim)
    quarter = dim // 4
    place = code[:, :, quarter:].reshape(frames, height, width, 3 * quarter)
    half = 3 * quarter // 2
    # The first spatial half varies along the axis of length 5, the second along 3.
    first, second = place[..., :half], place[..., half:]
    assert np.array_equal(first, np.broadcast_to(first[:, :1], first.shape))
    assert np.array_equal(second, np.broadcast_to(second[:, :, :1], second.shape))
    assert not np.array_equal(first[:, :, :1], first)
    # pelib: the same pair, and its spatial part is sincos_2d of (height, width).
    ours = pelib.sincos_3d(dim, (width, height), frames)
    assert np.array_equal(ours[1, :, quarter:], pelib.sincos_2d(3 * quarter, (3, 5)))
    assert np.abs(ours - code).max() < 1e-13
    # The 2-D function reads the same pair the other way round: 5 high and 3 wide, its
    # first half constant along the axis of length 5.
    flat = transcriptions.diffusers_2d_sincos_pos_embed(3 * quarter, (width, height))
    flat = flat.reshape(width, height, 3 * quarter)[..., :half]
    assert np.array_equal(flat, np.broadcast_to(flat[:1], flat.shape))
    assert not np.array_equal(flat[:, :1], flat)
    # The time columns: frame t, the same in every cell.
    one_d = pelib.encode(np.arange(frames), quarter, layout="concat")
    assert np.abs(ours[:, :, :quarter] - one_d[:, None]).max() == 0


def float32_timesteps(timesteps, dim, max_period, fractional):
    """DiT's and guided-diffusion's float32 code against the exact table.

    The argument of exp, -log(P) * k / K: -log(P) rounded to float32, the product and
    the quotient: three roundings, a relative 3 * 2**-24 of |x| <= log(P); float32
    exp within 3 units (3 * 2**-23 relative); t * w one rounding (two for fractional
    t, rounded to float32 first). sin/cos within 1.2 units of 2**-24 and the rounding
    of the oracle: 4 * 2**-24 (as in tests/test_transcriptions.py).
    """
    half = dim // 2
    w = max_period ** (-np.arange(half) / half)
    theta = np.abs(np.asarray(timesteps, dtype=np.float64))[:, None] * w
    relative = (
        3 * math.log(max_period) * F24 + 3 * 2.0**-23 + (2 if fractional else 1) * F24
    )
    per = theta * relative + 4 * F24
    return np.pad(
        np.concatenate([per, per], axis=1),
        ((0, 0), (0, dim % 2)),
        constant_values=1e-300,
    )


@pytest.mark.parametrize(
    "code",
    [
        transcriptions.dit_timestep_embedding,
        transcriptions.guided_diffusion_timestep_embedding,
    ],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize(
    "dim, max_period, timesteps, fractional",
    [
        (256, 10000, np.arange(1000), False),
        (33, 10000, np.arange(0, 1000, 3), False),
        (64, 500, np.arange(301) / 7, True),
    ],
)
def test_dit_and_guided_diffusion_are_flip_true_shift_zero(
    code, dim, max_period, timesteps, fractional
):
    table = code(timesteps, dim, max_period)
    assert table.dtype == np.float32 and table.shape == (len(timesteps), dim)
    # Step for step diffusers' code with flip_sin_to_cos=True, downscale_freq_shift=0.
    diffusers = transcriptions.diffusers_timestep_embedding(
        timesteps,
        dim,
        flip_sin_to_cos=True,
        downscale_freq_shift=0,
        max_period=max_period,
    )
    assert np.array_equal(table, diffusers)
    ours = pelib.timestep_embedding(
        timesteps,
        dim,
        flip_sin_to_cos=True,
        downscale_freq_shift=0,
        max_period=max_period,
    )
    # The float32 code against the exact table, plus pelib's float64 error.
    bound = float32_timesteps(timesteps, dim, max_period, fractional)
    bound += timestep_bound(timesteps, dim, 0, 1, max_period)
    assert_within(table, ours, bound)
    half = dim // 2
    assert np.array_equal(table[0, :half], np.ones(half))  # t = 0: cosines first
    if dim % 2:
        assert not table[:, -1].any()


@pytest.mark.parametrize(
    "dim, flip, shift, scale, max_period, timesteps", TIMESTEP_CASES[:6]
)
def test_diffusers_timestep_embedding_is_pelibs_in_float32(
    dim, flip, shift, scale, max_period, timesteps
):
    kwargs = dict(
        flip_sin_to_cos=flip,
        downscale_freq_shift=shift,
        scale=scale,
        max_period=max_period,
    )
    code = transcriptions.diffusers_timestep_embedding(timesteps, dim, **kwargs)
    ours = pelib.timestep_embedding(timesteps, dim, **kwargs)
    half = dim // 2
    x = math.log(max_period) * np.arange(half) / (half - shift)
    w = np.exp(-x) * abs(scale)
    theta = np.abs(np.asarray(timesteps, dtype=np.float64))[:, None] * w
    # float32: -log(P), the product with k, the quotient by K - s: three roundings of
    # the argument |x| (a relative 3 * 2**-24); exp 3 units; t rounded to float32
    # (fractional), t * w and scale * (t w): three more; sin/cos 4 * 2**-24 as above.
    per = theta * (3 * x * F24 + 3 * 2.0**-23 + 3 * F24) + 4 * F24
    bound = np.pad(
        np.concatenate([per, per], axis=1),
        ((0, 0), (0, dim % 2)),
        constant_values=1e-300,
    )
    bound += timestep_bound(timesteps, dim, shift, scale, max_period)
    assert_within(code, ours, bound)


# --- the oracle itself, in closed form ------------------------------------------------


def test_oracle_2d_first_rows_are_known():
    dim = 16
    table = grids.sincos_2d(dim, (2, 3), extra_tokens=1)
    quarter = dim // 4
    zeros_ones = [0.0] * quarter + [1.0] * quarter
    assert table[0].tolist() == [0.0] * dim  # the extra token
    assert table[1].tolist() == zeros_ones + zeros_ones  # h = w = 0
    # h = 0, w = 1: the first frequency is 1, so sin(1) and cos(1) (correctly rounded);
    # the height half is still that of 0.
    assert table[2, 0] == SIN_1 and table[2, quarter] == COS_1
    assert table[2, dim // 2 :].tolist() == zeros_ones
    # h = 1, w = 0 is row 1 + 3: the height half moves.
    assert table[4, dim // 2] == SIN_1 and table[4, : dim // 2].tolist() == zeros_ones


def test_oracle_grid_positions_are_exact_rationals():
    assert grids.grid_positions(4, 16, 2) == [0, 2, 4, 6]
    assert grids.grid_positions(3, 16) == [0, Fraction(16, 3), Fraction(32, 3)]
    assert grids.grid_positions(3) == [0, 1, 2]
    # A float scale is read at its binary value: 0.1 is not 1/10.
    assert grids.grid_positions(2, 1, 0.1)[1] == 1 / (2 * Fraction(0.1))


def test_oracle_3d_time_and_place():
    table = grids.sincos_3d(16, (3, 2), 3, temporal_interpolation_scale=2)
    assert table.shape == (3, 6, 16)
    # Frame 2 at scale 2 is time 1: sin(1) in the first column of every cell.
    assert table[2, :, 0].tolist() == [SIN_1] * 6
    assert table[0, :, :4].tolist() == [[0.0, 0.0, 1.0, 1.0]] * 6
    assert np.array_equal(table[1, :, 4:], grids.sincos_2d(12, (2, 3)))


def test_oracle_timestep_rows_are_known():
    table = grids.timestep_embedding([0, 1], 9, downscale_freq_shift=0)
    assert table[0].tolist() == [0.0] * 4 + [1.0] * 4 + [0.0]
    assert table[1, 0] == SIN_1 and table[1, 4] == COS_1 and table[1, 8] == 0
    flipped = grids.timestep_embedding([0, 1], 9, flip_sin_to_cos=True)
    assert flipped[0].tolist() == [1.0] * 4 + [0.0] * 4 + [0.0]
    assert flipped[1, 0] == COS_1 and flipped[1, 4] == SIN_1
    # Shift 0 and an even width: the paper's frequencies in [sin | cos].
    t = [0, 1, 7.25, 999]
    paper = oracle.encoding(t, 16, layout="concat")
    shift0 = grids.timestep_embedding(t, 16, downscale_freq_shift=0)
    assert np.abs(shift0 - paper).max() <= U  # two roundings of the same number
    # scale multiplies the angle: scale 2 at t is t = 2 at scale 1.
    assert np.array_equal(
        grids.timestep_embedding([3.5], 8, scale=2), grids.timestep_embedding([7], 8)
    )


def test_oracle_2d_is_the_1d_table_of_each_axis():
    table = grids.sincos_2d(8, (2, 3)).reshape(2, 3, 8)
    one_d = oracle.encoding(range(3), 4, layout="concat")
    assert np.array_equal(table[1, :, :4], one_d)
    assert np.array_equal(table[:, 2, 4:], one_d[:2])


# --- arguments ------------------------------------------------------------------------


def test_grid_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="embed_dim must be a positive multiple of 4"):
        pelib.sincos_2d(6, 3)
    with pytest.raises(ValueError, match="embed_dim must be a positive multiple of 16"):
        pelib.sincos_3d(24, 3, 2)
    with pytest.raises(TypeError, match="grid_size"):
        pelib.sincos_2d(8, (2, 3, 4))
    with pytest.raises(TypeError, match="grid_size"):
        pelib.sincos_2d(8, 2.0)
    with pytest.raises(ValueError, match=r"spatial_size\[1\]"):
        pelib.sincos_3d(16, (2, -1), 2)
    with pytest.raises(ValueError, match="interpolation_scale"):
        pelib.sincos_2d(8, 3, base_size=16, interpolation_scale=0)
    with pytest.raises(ValueError, match="base_size"):
        pelib.sincos_2d(8, 3, base_size=-1)
    with pytest.raises(ValueError, match="interpolation_scale"):
        pelib.sincos_2d(8, 3, base_size=1e300, interpolation_scale=1e-300)
    with pytest.raises(ValueError, match="memory"):
        pelib.sincos_2d(8, 10**9)


def test_timestep_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="downscale_freq_shift must be below"):
        pelib.timestep_embedding([1], 2)  # K = 1, shift 1: diffusers divides by zero
    with pytest.raises(ValueError, match="downscale_freq_shift"):
        pelib.timestep_embedding([1], 8, downscale_freq_shift=5)
    with pytest.raises(ValueError, match="timesteps must be a 1-D"):
        pelib.timestep_embedding([[1, 2]], 8)
    with pytest.raises(ValueError, match="scale"):
        pelib.timestep_embedding([1e300], 8, scale=1e300)
    with pytest.raises(TypeError, match="flip_sin_to_cos"):
        pelib.timestep_embedding([1], 8, flip_sin_to_cos=1)
    # Where the code gives nan (K = 1 and shift 1), pelib refuses; shift 0 works.
    assert pelib.timestep_embedding([1], 3, downscale_freq_shift=0)[0, 0] == SIN_1
