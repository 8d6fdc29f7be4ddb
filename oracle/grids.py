"""The tables over image grids, video grids and diffusion time steps, exactly.

The 2-D table of MAE, DiT and diffusers (:func:`sincos_2d`), diffusers' 3-D table
(:func:`sincos_3d`) and the time-step embedding of diffusers, DiT and guided-diffusion
(:func:`timestep_embedding`), evaluated from their formulas in mpmath through
:func:`oracle.exact` (every angle carried :data:`oracle.GUARD_BITS` bits beyond its
integer part), each entry rounded once to float64. Nothing here imports pelib.

**Which positions.** A fractional grid position or time step is taken as an exact
number, never through a float the code would round it to:

- :func:`sincos_2d`, :func:`sincos_3d` and :func:`grid_positions` take the *exact
  rational* position of the formula, ``Fraction(i) * base_size / (n *
  interpolation_scale)`` or ``Fraction(i) / scale``, every float argument read at its
  exact binary value (``Fraction(0.1)`` is not 1/10). Code that forms these positions
  in float32 or float64 holds them rounded; a test adds that rounding to its bound, or
  hands the code's own positions to :func:`plane` and :func:`volume`.
- :func:`plane`, :func:`volume` and :func:`timestep_embedding` take the positions and
  time steps they are given, each read exactly (a float32 or float64 at its binary
  value, an int or Fraction as itself: see :func:`oracle.to_mpf`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

import mpmath
import numpy as np

from . import MIN_BITS, exact, to_mpf

__all__ = [
    "grid_positions",
    "plane",
    "sincos_1d",
    "sincos_2d",
    "sincos_3d",
    "timestep_embedding",
    "volume",
]


def _fraction(value) -> Fraction:
    """An int, float (of any NumPy width) or Fraction as the exact rational it is."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    return Fraction(float(value))  # float16/32/64 values are float64 values exactly


def grid_positions(n: int, base_size=None, interpolation_scale=1) -> list[Fraction]:
    """The exact positions of an axis of ``n`` cells: ``0, 1, ..., n - 1`` without a
    ``base_size`` (MAE, DiT), ``i * base_size / (n * interpolation_scale)`` with one
    (diffusers' ``arange(n) / (n / base_size) / interpolation_scale`` in exact
    arithmetic)."""
    if base_size is None or n == 0:
        return [Fraction(i) for i in range(n)]
    step = _fraction(base_size) / (n * _fraction(interpolation_scale))
    return [i * step for i in range(n)]


def sincos_1d(positions: Iterable, dim: int) -> list[list[mpmath.mpf]]:
    """The 1-D ``[sin | cos]`` rows of width ``dim`` (even) of the code's
    ``get_1d_sincos_pos_embed_from_grid``: frequencies ``10000 ** (-k / (dim / 2))``,
    ``k < dim / 2``, which are the paper's frequencies of width ``dim``."""
    if dim % 2:
        raise ValueError(f"dim must be even, got {dim}")
    return exact(positions, dim, layout="concat")


def plane(embed_dim: int, heights: Sequence, widths: Sequence) -> np.ndarray:
    """The 2-D table of the positions ``heights`` x ``widths`` as float64: row ``h *
    len(widths) + w`` is the 1-D table (width ``embed_dim / 2``) of ``widths[w]``, then
    that of ``heights[h]``."""
    half = embed_dim // 2
    if embed_dim % 4:
        raise ValueError(f"embed_dim must be a multiple of 4, got {embed_dim}")
    across = sincos_1d(widths, half)
    down = sincos_1d(heights, half)
    return np.array(
        [[float(v) for v in row_w + row_h] for row_h in down for row_w in across],
        dtype=np.float64,
    ).reshape(len(heights) * len(widths), embed_dim)


def sincos_2d(
    embed_dim: int,
    grid_size,
    *,
    extra_tokens: int = 0,
    base_size=None,
    interpolation_scale=1,
) -> np.ndarray:
    """The 2-D table of MAE, DiT and diffusers at the exact positions of
    :func:`grid_positions`; ``grid_size`` is ``n`` or ``(height, width)``, and
    ``extra_tokens`` zero rows come first."""
    height, width = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    table = plane(
        embed_dim,
        grid_positions(height, base_size, interpolation_scale),
        grid_positions(width, base_size, interpolation_scale),
    )
    return np.concatenate([np.zeros((extra_tokens, embed_dim)), table])


def volume(
    embed_dim: int, times: Sequence, heights: Sequence, widths: Sequence
) -> np.ndarray:
    """diffusers' 3-D table of the given positions as float64, shape ``(len(times),
    len(heights) * len(widths), embed_dim)``: the 1-D table (width ``embed_dim / 4``) of
    the time, then the :func:`plane` (width ``3 embed_dim / 4``) of the place."""
    if embed_dim % 16:
        raise ValueError(f"embed_dim must be a multiple of 16, got {embed_dim}")
    quarter = embed_dim // 4
    place = plane(3 * quarter, heights, widths)
    time = np.array(
        [[float(v) for v in row] for row in sincos_1d(times, quarter)],
        dtype=np.float64,
    ).reshape(len(times), quarter)
    table = np.empty((len(times), place.shape[0], embed_dim))
    table[:, :, :quarter] = time[:, None, :]
    table[:, :, quarter:] = place[None, :, :]
    return table


def sincos_3d(
    embed_dim: int,
    spatial_size,
    temporal_size: int,
    *,
    spatial_interpolation_scale=1,
    temporal_interpolation_scale=1,
) -> np.ndarray:
    """diffusers' 3-D table at the exact positions ``t / temporal_interpolation_scale``
    and ``h / spatial_interpolation_scale``, ``w / spatial_interpolation_scale``;
    ``spatial_size`` is ``n`` or **(width, height)**, as diffusers reads it."""
    width, height = (
        (spatial_size, spatial_size) if isinstance(spatial_size, int) else spatial_size
    )
    spatial = _fraction(spatial_interpolation_scale)
    temporal = _fraction(temporal_interpolation_scale)
    return volume(
        embed_dim,
        [Fraction(t) / temporal for t in range(temporal_size)],
        [Fraction(h) / spatial for h in range(height)],
        [Fraction(w) / spatial for w in range(width)],
    )


def timestep_embedding(
    timesteps: Iterable,
    embedding_dim: int,
    *,
    flip_sin_to_cos: bool = False,
    downscale_freq_shift=1,
    scale=1,
    max_period=10000,
) -> np.ndarray:
    """diffusers' ``get_timestep_embedding`` exactly, as float64.

    With ``K = embedding_dim // 2``, the angle of time step ``t`` and column ``k`` is
    ``scale * t * max_period ** (-k / (K - downscale_freq_shift))``; the row is ``[sin
    | cos]`` of them (``[cos | sin]`` if flipped) and a zero column for an odd width.
    ``t``, ``scale``, ``downscale_freq_shift`` and ``max_period`` are read exactly (a
    float at its binary value); the product ``scale * t`` is formed exactly.
    """
    half = embedding_dim // 2
    with mpmath.workprec(4 * MIN_BITS):
        points = [to_mpf(t) * to_mpf(scale) for t in timesteps]
        period, shift = to_mpf(max_period), to_mpf(downscale_freq_shift)
        omega = [period ** (-mpmath.mpf(k) / (half - shift)) for k in range(half)]
    table = np.zeros((len(points), embedding_dim))
    if half:
        rows = exact(points, 2 * half, layout="concat", frequencies=omega)
        table[:, : 2 * half] = [[float(v) for v in row] for row in rows]
    if flip_sin_to_cos:
        table[:, : 2 * half] = np.roll(table[:, : 2 * half], half, axis=1)
    return table
