"""Tables beyond the token axis for :func:`pelib.identify`: diffusion time-step tables
and 2-D image-grid tables (issue 20). Chapter 8 (:doc:`/notebooks/08_which_encoding`)
explains :func:`pelib.identify`; the chapter "Beyond the token axis"
(:doc:`/notebooks/11_beyond_token_axis`) explains these tables.

Two readings, kept apart from the 1-D analysis of :mod:`pelib._identify`:

- :func:`timestep_reading` reads an :class:`~pelib.Identification` of a ``[sin | cos]``
  or ``[cos | sin]`` table as diffusers' ``get_timestep_embedding`` (and DiT's and
  guided-diffusion's ``timestep_embedding``) of the time steps ``0 .. n - 1``
  (:meth:`Identification.as_timestep <pelib.Identification.as_timestep>`). It adds no
  measurement: the 1-D analysis has already pinned the layout, the frequencies and the
  offset, and the time-step parameters are those facts renamed.
- :func:`identify_grid` recognises the 2-D table of MAE, DiT and diffusers
  (:func:`pelib.sincos_2d`) when the 1-D analysis refuses a table: it finds the grid
  from the rows (one half periodic along the rows, the other constant within blocks),
  reads each cell's positions off the angles, rebuilds the table and compares.

This module imports nothing from :mod:`pelib._identify` (which imports it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ._encoding import encode
from ._validate import is_extension_float

#: The base of the 2-D tables' frequencies (MAE, DiT and diffusers fix it).
GRID_BASE = 10000.0


def _number(value: float, digits: int = 9) -> str:
    """``value`` to ``digits`` significant digits, without a trailing ``.0``."""
    text = repr(float(f"{value:.{digits}g}"))
    return text[:-2] if text.endswith(".0") else text


# --- time-step tables ----------------------------------------------------------------


@dataclass(frozen=True)
class TimestepReading:
    """A table read as a diffusion time-step embedding: diffusers'
    ``get_timestep_embedding(timesteps, embedding_dim, flip_sin_to_cos,
    downscale_freq_shift, scale, max_period)`` of consecutive integer time steps
    (:func:`pelib.timestep_embedding`). ``str()`` reads as a sentence.

    Attributes
    ----------
    embedding_dim : int
        The table's width (an odd one ends with a zero column).
    flip_sin_to_cos : bool
        True for ``[cos | sin]`` (DiT, guided-diffusion, Stable Diffusion), False for
        ``[sin | cos]`` (diffusers' default).
    first_timestep : int
        Row ``r`` holds time step ``r + first_timestep``.
    scale : float
        diffusers' ``scale``, which multiplies every frequency: the first frequency
        (a tensor2tensor ``min_timescale``). 1.0 unless the table says otherwise.
    readings : tuple of (float, float)
        Pairs ``(downscale_freq_shift, max_period)`` that give the table's
        frequencies :math:`\\text{max\\_period}^{-k/(K - s)}`. They trade off: the
        table determines only the ratio of neighbouring frequencies,
        ``max_period ** (-1 / (K - s))``, so every shift ``s < K`` fits with its own
        ``max_period``. Listed: the reading the 1-D analysis found first (its base
        with the fewest digits), then shift 0 (the paper's grid) and shift 1
        (tensor2tensor's) where they differ from it. Empty for a single frequency,
        which does not depend on either.
    codes : str
        The code whose defaults give the table (the first reading with ``scale`` 1
        and ``max_period`` 10000), or "".
    angle_dtype, max_error
        As in :class:`~pelib.Identification`.
    """

    embedding_dim: int
    flip_sin_to_cos: bool
    first_timestep: int
    scale: float
    readings: tuple[tuple[float, float], ...]
    codes: str
    angle_dtype: str
    max_error: float

    def __str__(self) -> str:
        steps = (
            "time step r in row r"
            if self.first_timestep == 0
            else f"time step r + {self.first_timestep} in row r"
            if self.first_timestep > 0
            else f"time step r - {-self.first_timestep} in row r"
        )
        layout = "[cos | sin]" if self.flip_sin_to_cos else "[sin | cos]"
        parts = [
            "diffusers' get_timestep_embedding of "
            f"{steps}: embedding_dim {self.embedding_dim}, flip_sin_to_cos="
            f"{self.flip_sin_to_cos} ({layout}), scale {_number(self.scale)}"
        ]
        k = self.embedding_dim // 2
        if self.readings:
            shift, period = self.readings[0]
            ratio = float(period) ** (-1 / (k - shift))
            options = " or ".join(
                f"downscale_freq_shift={_number(s)} with max_period={_number(p)}"
                for s, p in self.readings
            )
            parts.append(
                f"{options} (the table fixes only max_period**(-1/({k} - shift)) = "
                f"{_number(ratio, 12)}: shift and max_period trade off)"
            )
        else:
            parts.append("a single frequency: no shift or max_period to read")
        if self.codes:
            parts.append(f"as {self.codes}")
        angles = _TIMESTEP_ANGLES.get(self.angle_dtype, self.angle_dtype)
        parts.append(f"{angles}, max error {self.max_error:.2g}")
        return "; ".join(parts)


_TIMESTEP_ANGLES = {
    "float64": "angles in float64",
    "float32": "angles in float32 (as the three codes compute them)",
    "either": "angles in float64 or float32 (the stored numbers cannot tell)",
    "neither": "angles neither float64's nor float32's",
}


def _timestep_refusal(ident: Any) -> str:
    """Why ``ident`` is not a time-step table, or ""."""
    if ident.layout == "interleaved" and ident.n_frequencies > 1:
        # (a single pair, sin then cos, is [sin | cos] too)
        return (
            "its pairs are interleaved (sin, cos, sin, cos, ...), but a time-step "
            "embedding puts all sines then all cosines ([sin | cos] or [cos | sin])"
        )
    if ident.zero_rows:
        return (
            f"it has zero rows {ident.zero_rows[:6]}, but every time step has a "
            "non-zero row (its cosines at t = 0 are 1)"
        )
    core = ident.width - len(ident.zero_columns)
    if core % 2:
        return (
            "it has one more sine than cosines; a time-step embedding has as many of "
            "each (and a zero last column at an odd width)"
        )
    if ident.width % 2 == 0 and ident.zero_columns:
        return f"it has zero columns {ident.zero_columns} at an even width"
    if ident.width % 2 and ident.zero_columns != (ident.width - 1,):
        return (
            "at an odd width a time-step embedding has exactly one zero column, the "
            f"last, and this table has zero columns {ident.zero_columns}"
        )
    return ""


def timestep_reading(ident: Any) -> TimestepReading:
    """The time-step reading of an :class:`~pelib.Identification` (see
    :class:`TimestepReading`), or ValueError saying why there is none."""
    why = _timestep_refusal(ident)
    if why:
        raise ValueError(f"table is not a time-step embedding: {why}")
    k = ident.n_frequencies
    if ident.frequencies == "paper":
        # base**(-2j/d) = base**(-j/(K - s)) with s = K - d/2
        log_ratio = 2 * math.log(ident.base) / ident.d_model
        found = (k - ident.d_model / 2, float(ident.base))
    else:
        # min_timescale * (max_timescale / min_timescale)**(-j/(K - 1)): diffusers'
        # scale * max_period**(-j/(K - 1)) with shift 1
        period = ident.base / ident.min_timescale
        log_ratio = math.log(period) / (ident.d_model // 2 - 1)
        found = (1.0, float(f"{period:.9g}"))
    readings: list[tuple[float, float]] = []
    if k > 1:
        readings.append(found)
        for shift in (0.0, 1.0):
            if shift < k and shift != found[0]:
                period = float(f"{math.exp(log_ratio * (k - shift)):.9g}")
                readings.append((shift, period))
    return TimestepReading(
        embedding_dim=ident.width,
        flip_sin_to_cos=ident.layout == "concat_cos_first",
        first_timestep=ident.offset,
        scale=float(ident.min_timescale),
        readings=tuple(readings),
        codes=_timestep_codes(ident, readings),
        angle_dtype=ident.angle_dtype,
        max_error=ident.max_error,
    )


def _timestep_codes(ident: Any, readings: list[tuple[float, float]]) -> str:
    """The code whose defaults give these parameters, or ""."""
    if ident.min_timescale != 1.0:
        return ""
    flip = ident.layout == "concat_cos_first"
    for shift, period in readings:
        if period != 10000.0:
            continue
        if flip and shift == 0:
            return (
                "DiT's and guided-diffusion's timestep_embedding (diffusers' "
                "Timesteps(dim, True, 0) of Stable Diffusion)"
            )
        if not flip and shift == 1:
            return "diffusers' get_timestep_embedding with its defaults"
    return ""


# --- 2-D grid tables -----------------------------------------------------------------


@dataclass(frozen=True)
class GridIdentification:
    """What :func:`pelib.identify` found in a 2-D grid table (:func:`pelib.sincos_2d`:
    MAE, DiT, diffusers). ``str()`` reads as a sentence.

    Attributes
    ----------
    embed_dim : int
        The table's width :math:`D`; each half is a 1-D ``[sin | cos]`` table of width
        :math:`D/2` with the frequencies :math:`10000^{-k/(D/4)}`.
    height, width : int
        The grid: row ``extra_tokens + h * width + w`` holds cell ``(h, w)``.
    first_half : str
        ``"width"``: the first :math:`D/2` columns encode the width index ``w`` (MAE,
        DiT and diffusers, whose first half is named ``emb_h``). A table with the
        height index first is no known code's and is refused, with that reason.
    extra_tokens : int
        Zero rows before the grid (a class token).
    steps : (float, float)
        The step between neighbouring positions along the height and the width axis
        (1.0 for the integer grid of MAE and DiT), rounded to the fewest significant
        digits that reproduce the positions; nan for an axis of one cell, whose only
        position 0 has no step.
    span : float or None
        diffusers' ``base_size / interpolation_scale`` when both axes have the span
        ``step * n`` of diffusers' positions ``i * base_size / (n *
        interpolation_scale)``, else None (unequal spans are no diffusers table).
        Only the ratio is determined: ``base_size`` 16 with ``interpolation_scale`` 1
        and 32 with 2 give the same table.
    convention : str
        The code that gives the table, in words.
    max_error : float
        The largest ``|table - rebuilt|``, the rebuilt table being the formula at the
        positions ``i * step`` of each axis, exactly as ``pelib.sincos_2d(embed_dim,
        (height, width), extra_tokens=extra_tokens)`` (integer grid) or with
        ``base_size=span`` computes it. Code that rounds its positions to float32
        (diffusers) is off from it by up to about ``span * 2**-24``.
    position_error : float
        The largest distance between a position read off the table and ``i * step``.

    Notes
    -----
    The positions are read from the angles (slowest pair first, each faster pair
    refining the position within its winding), then checked to step evenly from 0
    within the storage's rounding plus float32's rounding of the positions (which the
    three codes form in float32). With an axis of one cell the other half is
    constant, and the table cannot tell which half is which: it is read as MAE's
    (first half the width index, ``height`` or ``width`` 1).
    """

    embed_dim: int
    height: int
    width: int
    first_half: str
    extra_tokens: int
    steps: tuple[float, float]
    span: float | None
    convention: str
    max_error: float
    position_error: float

    def __str__(self) -> str:
        halves = (
            "the width index w, then the height index h"
            if self.first_half == "width"
            else "the height index h, then the width index w"
        )
        parts = [
            f"2-D grid table, {self.height} x {self.width} cells (row "
            f"{'r' if not self.extra_tokens else f'{self.extra_tokens} + r'} for "
            f"r = h * {self.width} + w): [sin | cos] of {halves}, "
            f"{self.embed_dim // 2} columns each, frequencies 10000**(-k/"
            f"{self.embed_dim // 4})",
            _steps_text(self.steps),
        ]
        if self.extra_tokens:
            rows = "row" if self.extra_tokens == 1 else "rows"
            parts.append(f"{self.extra_tokens} zero {rows} first (extra tokens)")
        parts.append(self.convention)
        parts.append(f"max error {self.max_error:.2g}")
        return "; ".join(parts)


def _steps_text(steps: tuple[float, float]) -> str:
    """The positions of each axis in words."""
    words = []
    for axis, step in zip(("h", "w"), steps, strict=True):
        if math.isnan(step):
            words.append(f"{axis} one cell (position 0)")
        elif step == 1.0:
            words.append(f"{axis} at integer positions")
        else:
            words.append(f"{axis} at positions i * {_number(step)}")
    return "positions " + ", ".join(words)


class _Grid:
    """The row structure of a grid table: the two halves, the grid's shape, and which
    half is periodic along the rows."""

    def __init__(self, data: np.ndarray, extra: int, first_half: str, shape: tuple):
        half = data.shape[1] // 2
        self.data, self.extra, self.first_half = data, extra, first_half
        self.height, self.width = shape
        body = data[extra:]
        widths, heights = body[:, :half], body[:, half:]
        if first_half == "height":
            widths, heights = heights, widths
        self.w_rows = widths[: self.width]  # the table of w = 0 .. width - 1
        self.h_rows = heights[:: self.width]  # the table of h = 0 .. height - 1


def _structure(data: np.ndarray) -> _Grid | None:
    """The grid structure of ``data`` (leading zero rows, then one half periodic along
    the rows with period W and the other constant within blocks of W rows), or
    None."""
    n, d = data.shape
    if d % 4 or d == 0:
        return None
    zero = ~data.any(axis=1)
    extra = int(np.argmin(zero)) if not zero.all() else n
    body = data[extra:]
    if len(body) < 2 or zero[extra:].any():
        return None
    half = d // 2
    for first_half, periodic, blocked in (
        ("width", body[:, :half], body[:, half:]),
        ("height", body[:, half:], body[:, :half]),
    ):
        changes = np.nonzero((blocked != blocked[0]).any(axis=1))[0]
        period = int(changes[0]) if len(changes) else len(body)
        if len(body) % period:
            continue
        count = len(body) // period
        blocks = blocked.reshape(count, period, half)
        cycles = periodic.reshape(count, period, half)
        if np.array_equal(blocks, np.broadcast_to(blocks[:, :1], blocks.shape)) and (
            np.array_equal(cycles, np.broadcast_to(cycles[:1], cycles.shape))
        ):
            return _Grid(data, extra, first_half, (count, period))
    return None


def _storage_eps(array: np.ndarray) -> float:
    """The unit roundoff of the numbers the table is stored in."""
    if is_extension_float(array.dtype):
        return 2.0**-8
    data = array.astype(np.float64)
    for bits, dtype in ((11, np.float16), (24, np.float32)):
        with np.errstate(over="ignore"):
            if np.array_equal(data.astype(dtype).astype(np.float64), data):
                return 2.0**-bits
    return 2.0**-53


def _omega(half: int) -> np.ndarray:
    """The frequencies of a 1-D half of width ``half``: ``10000**(-k/(half/2))``."""
    k = half // 2
    return GRID_BASE ** (-np.arange(k, dtype=np.float64) / k)


def _positions(rows: np.ndarray, eps: float, axis: str) -> np.ndarray | str:
    """The position of each row of a 1-D ``[sin | cos]`` half, read off its angles
    (the slowest pair first, each faster pair refining it), or why not."""
    k = rows.shape[1] // 2
    sin, cos = rows[:, :k], rows[:, k:]
    off = float(np.abs(sin * sin + cos * cos - 1).max())
    if off > max(16 * eps, 2.0**-16):
        return (
            f"the half that encodes {axis} is not a [sin | cos] table: its columns j "
            f"and j + {k} are off the unit circle by up to {off:.2g}"
        )
    theta = np.mod(np.arctan2(sin, cos), 2 * np.pi)
    omega = _omega(2 * k)
    position = theta[:, -1] / omega[-1]
    for j in range(k - 2, -1, -1):
        turns = np.round((position * omega[j] - theta[:, j]) / (2 * np.pi))
        position = (theta[:, j] + 2 * np.pi * turns) / omega[j]
    return position


def _shortest(fitted: float, fits) -> float | None:
    """``fitted`` rounded to the fewest significant digits (1 to 17) for which
    ``fits`` holds, or None if none does (17 digits give ``fitted`` itself)."""
    for digits in range(1, 18):
        value = float(f"{fitted:.{digits}g}")
        if fits(value):
            return value
    return None


def _step(positions: np.ndarray, tolerance: float, axis: str) -> float | str:
    """The step of evenly spaced ``positions`` from 0, with the fewest significant
    digits that keeps every position within ``tolerance``; nan for a single cell; or
    why not."""
    if abs(positions[0]) > tolerance:
        return f"the positions along {axis} start at {positions[0]:.6g}, not 0"
    if len(positions) == 1:
        return math.nan
    index = np.arange(len(positions), dtype=np.float64)
    fitted = float(index @ positions / (index @ index))
    step = _shortest(fitted, lambda v: np.abs(positions - index * v).max() <= tolerance)
    if step is not None:
        return step
    miss = float(np.abs(positions - index * fitted).max())
    return (
        f"the positions along {axis} are not evenly spaced from 0 (step about "
        f"{fitted:.6g}, off by up to {miss:.2g})"
    )


def identify_grid(array: np.ndarray) -> GridIdentification | str | None:
    """The grid reading of a 2-D table: a :class:`GridIdentification`; a sentence
    saying why a table with the rows of a grid (at least 2 x 2 cells) is not one of
    these grid tables; or None when the rows are not arranged as a grid."""
    data = array.astype(np.float64)
    if data.size == 0 or np.abs(data).max() > 1.01:
        return None  # no sines and cosines (the 1-D refusal says so)
    grid = _structure(data)
    if grid is None:
        return None
    if grid.first_half == "height":
        return _grid_refusal(
            grid,
            "its first half encodes the height index h (it is constant within "
            "blocks of rows) and its second the width index w, but MAE, DiT and "
            "diffusers put w first (their first half, named emb_h, holds the width "
            "coordinate); swap the two halves and ask again",
        )
    read = _read(grid, _storage_eps(array))
    if isinstance(read, str):
        return _grid_refusal(grid, read)
    p_h, p_w, step_h, step_w = read
    span = _span(step_h * grid.height, step_w * grid.width)
    ideal = [
        _ideal(n, step, span)
        for n, step in ((grid.height, step_h), (grid.width, step_w))
    ]
    return GridIdentification(
        embed_dim=data.shape[1],
        height=grid.height,
        width=grid.width,
        first_half=grid.first_half,
        extra_tokens=grid.extra,
        steps=(step_h, step_w),
        span=span,
        convention=_grid_convention(grid, step_h, step_w, span),
        max_error=float(np.abs(_rebuild(grid, *ideal) - data).max()),
        position_error=float(
            max(np.abs(p_h - ideal[0]).max(), np.abs(p_w - ideal[1]).max())
        ),
    )


class _Reading(NamedTuple):
    """The positions read off a grid table and the step of each axis."""

    p_h: np.ndarray
    p_w: np.ndarray
    step_h: float
    step_w: float


def _read(grid: _Grid, eps: float) -> _Reading | str:
    """The positions of the grid's cells read off its angles, checked by rebuilding the
    table at them, and the step of each axis; or why not (``eps``: the storage's unit
    roundoff)."""
    read = []
    for axis, rows in (("h", grid.h_rows), ("w", grid.w_rows)):
        positions = _positions(rows, eps, axis)
        if isinstance(positions, str):
            return positions
        read.append(positions)
    p_h, p_w = read
    data = grid.data
    fit = float(np.abs(_rebuild(grid, p_h, p_w) - data).max())
    if fit > 16 * eps + 2.0**-40:
        return (
            f"the table differs from the 2-D sine-cosine table at the positions read "
            f"off it by up to {fit:.2g}: its frequencies are not 10000**(-k/"
            f"{data.shape[1] // 4}) in both halves"
        )
    steps = []
    for axis, positions in (("h", p_h), ("w", p_w)):
        # the storage's rounding, and float32's rounding of positions made in float32
        tolerance = 16 * eps + float(np.abs(positions).max()) * 2.0**-23
        step = _step(positions, tolerance, axis)
        if isinstance(step, str):
            return step
        steps.append(step)
    return _Reading(p_h, p_w, steps[0], steps[1])


def _ideal(n: int, step: float, span: float | None) -> np.ndarray:
    """The positions of an axis of ``n`` cells as the convention computes them:
    integers, diffusers' ``arange(n) / (n / span)``, or ``arange(n) * step``."""
    if math.isnan(step) or step == 1.0:
        return np.arange(n, dtype=np.float64)
    if span is not None:
        return np.arange(n, dtype=np.float64) / (n / span)
    return np.arange(n, dtype=np.float64) * step


def _span(span_h: float, span_w: float) -> float | None:
    """diffusers' ``base_size / interpolation_scale`` from the spans ``step * n`` of
    the two axes (nan for an axis of one cell), or None if they differ."""
    spans = [s for s in (span_h, span_w) if not math.isnan(s)]
    if not spans or abs(spans[0] - spans[-1]) > 1e-6 * spans[0]:
        return None
    return float(f"{spans[0]:.7g}")


def _rebuild(grid: _Grid, heights: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """The grid table at the positions ``heights`` and ``widths``, in the input's
    layout (zero rows first)."""
    d = grid.data.shape[1]
    half = d // 2
    first, second = (
        (widths, heights)
        if grid.first_half == "width"
        else (
            heights,
            widths,
        )
    )
    table = np.zeros_like(grid.data)
    body = table[grid.extra :].reshape(grid.height, grid.width, d)
    ones = np.ones((grid.height, grid.width))
    h_index = (np.arange(grid.height)[:, None] * ones).astype(int)
    w_index = (np.arange(grid.width)[None, :] * ones).astype(int)
    by_first = h_index if grid.first_half == "height" else w_index
    by_second = w_index if grid.first_half == "height" else h_index
    body[:, :, :half] = encode(first, half, layout="concat")[by_first]
    body[:, :, half:] = encode(second, half, layout="concat")[by_second]
    return table


def _grid_convention(grid: _Grid, step_h: float, step_w: float, span) -> str:
    """The code that gives the grid table, in words."""
    unit = all(math.isnan(s) or s == 1.0 for s in (step_h, step_w))
    square = grid.height == grid.width
    if unit and square:
        tokens = (
            ""
            if not grid.extra
            else " (the zero rows: MAE's cls_token=True for 1, DiT's and diffusers' "
            f"cls_token=True with extra_tokens={grid.extra})"
        )
        return (
            f"MAE's and DiT's get_2d_sincos_pos_embed(embed_dim, {grid.height})"
            f"{tokens}, or diffusers' with base_size / interpolation_scale = "
            f"{grid.height}"
        )
    if span is not None:
        scale = _number(16 / span)
        return (
            "diffusers' get_2d_sincos_pos_embed with base_size / "
            f"interpolation_scale = {_number(span)} (only that ratio is determined: "
            f"base_size 16, its default, with interpolation_scale {scale}, say)"
        )
    if unit:
        return (
            "an integer grid as MAE's and DiT's, which make square grids only "
            "(pelib.sincos_2d makes this one)"
        )
    return (
        "positions scaled by a different step per axis, which no known code does "
        "(diffusers' make step * cells equal on both axes)"
    )


def _grid_refusal(grid: _Grid, why: str) -> str | None:
    """The sentence for a table with the rows of a grid of at least 2 x 2 cells that
    is not a grid table; None for smaller grids (the 1-D refusal stands alone)."""
    if grid.height < 2 or grid.width < 2:
        return None
    return (
        f"Its rows are arranged as a {grid.height} x {grid.width} grid (one half "
        f"repeats every {grid.width} rows, the other is constant within blocks of "
        f"{grid.width} rows), but it is not a 2-D sine-cosine table: {why}."
    )
