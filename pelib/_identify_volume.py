"""diffusers' 3-D sine-cosine table (CogVideoX, :func:`pelib.sincos_3d`) for
:func:`pelib.identify` (issue 20): a frame's 1-D table beside a 2-D grid table. Chapter
8 (:doc:`/notebooks/08_which_encoding`) explains :func:`pelib.identify`; the chapter
"Beyond the token axis" (:doc:`/notebooks/11_beyond_token_axis`) explains these tables.

:func:`identify_volume` reads a table of shape ``(frames, height * width, D)``, or the
same flattened to ``(frames * height * width, D)``: the first ``D/4`` columns constant
within the rows of a frame, the last ``3D/4`` a 2-D grid table (read as
:mod:`pelib._identify_grid` reads one) repeated in every frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._grids import sincos_3d
from ._identify_grid import (
    _Grid,
    _number,
    _positions,
    _read,
    _shortest,
    _storage_eps,
    _structure,
)


@dataclass(frozen=True)
class VolumeIdentification:
    """What :func:`pelib.identify` found in diffusers' 3-D table
    (:func:`pelib.sincos_3d`, CogVideoX). ``str()`` reads as a sentence.

    Attributes
    ----------
    embed_dim : int
        The width :math:`D`: the first :math:`D/4` columns are the 1-D ``[sin |
        cos]`` table of the frame (frequencies :math:`10000^{-k/(D/8)}`), the last
        :math:`3D/4` the 2-D table of the cell (the width index first).
    frames, height, width : int
        Frame ``t``, cell ``(h, w)`` is row ``h * width + w`` of ``table[t]`` (row
        ``t * height * width + h * width + w`` of a flattened table).
    spatial_interpolation_scale, temporal_interpolation_scale : float
        The positions are ``w / spatial``, ``h / spatial`` and ``t / temporal``:
        each scale is determined by the table (unlike the 2-D table's
        ``base_size``), rounded to the fewest significant digits that reproduce the
        positions; nan for an axis of one cell (or one frame), whose only position 0
        does not depend on it.
    max_error : float
        The largest ``|table - sincos_3d(...)|`` with these parameters (diffusers
        rounds its positions to float32: up to about position * 2**-24 apart).
    position_error : float
        The largest distance between a position read off the table and ``i /
        scale``.
    """

    embed_dim: int
    frames: int
    height: int
    width: int
    spatial_interpolation_scale: float
    temporal_interpolation_scale: float
    max_error: float
    position_error: float

    def __str__(self) -> str:
        spatial = _scale_text(self.spatial_interpolation_scale)
        temporal = _scale_text(self.temporal_interpolation_scale)
        q = self.embed_dim // 4
        return (
            f"3-D video table, {self.frames} frames of {self.height} x {self.width} "
            f"cells (frame t, row h * {self.width} + w): [sin | cos] of the frame "
            f"in the first {q} columns, then the 2-D table of w and h in {3 * q}; "
            "diffusers' get_3d_sincos_pos_embed (CogVideoX) with spatial_size "
            f"({self.width}, {self.height}), temporal_size {self.frames}, "
            f"spatial_interpolation_scale {spatial}, temporal_interpolation_scale "
            f"{temporal}; max error {self.max_error:.2g}"
        )


def _scale_text(scale: float) -> str:
    return "undetermined (one cell)" if math.isnan(scale) else _number(scale)


def _split(data: np.ndarray, cells: int | None) -> tuple[int, int] | None:
    """The number of frames and of cells per frame of a flattened table (``cells``
    given for a 3-D input), or None if the rows are not so arranged."""
    n, d = data.shape
    q = d // 4
    if d % 16 or n == 0:
        return None
    temporal, spatial = data[:, :q], data[:, q:]
    if cells is None:
        changes = np.nonzero((temporal != temporal[0]).any(axis=1))[0]
        cells = int(changes[0]) if len(changes) else n
    if cells == 0 or n % cells:
        return None
    frames = n // cells
    blocks = temporal.reshape(frames, cells, q)
    cycles = spatial.reshape(frames, cells, d - q)
    if np.array_equal(
        blocks, np.broadcast_to(blocks[:, :1], blocks.shape)
    ) and np.array_equal(cycles, np.broadcast_to(cycles[:1], cycles.shape)):
        return frames, cells
    return None


def _scale(positions: np.ndarray, tolerance: float) -> float | None:
    """The scale ``s`` with ``positions[i] = i / s`` within ``tolerance``, with the
    fewest significant digits; nan for a single position; None if none fits."""
    if abs(positions[0]) > tolerance:
        return None
    if len(positions) == 1:
        return math.nan
    index = np.arange(len(positions), dtype=np.float64)
    fitted = float(index @ index / (index @ positions))
    return _shortest(fitted, lambda v: np.abs(positions - index / v).max() <= tolerance)


def identify_volume(array: np.ndarray) -> VolumeIdentification | None:
    """diffusers' 3-D table in ``array`` (3-D, or flattened to 2-D with at least 2
    frames), or None."""
    if array.size == 0 or array.shape[-1] % 16:
        return None  # no 3-D table (an empty one says nothing)
    cells = array.shape[1] if array.ndim == 3 else None
    data = array.astype(np.float64).reshape(-1, array.shape[-1])
    if np.abs(data).max() > 1.01:
        return None
    split = _split(data, cells)
    if split is None or (cells is None and split[0] < 2):
        return None
    frames, cells = split
    q = data.shape[1] // 4
    grid = _structure(data[:cells, q:])
    if grid is None or grid.extra or grid.first_half != "width":
        return None
    eps = _storage_eps(array)
    read = _read(grid, eps)
    times = _positions(data[::cells, :q], eps, "t")
    if isinstance(read, str) or isinstance(times, str):
        return None
    return _volume(data, grid, read, times, frames, eps)


def _volume(
    data: np.ndarray, grid: _Grid, read, times: np.ndarray, frames: int, eps: float
) -> VolumeIdentification | None:
    """The identification from the positions read off the table, or None if they are
    not ``i / scale`` with one spatial scale."""
    scales = []
    for positions in (read.p_h, read.p_w, times):
        tolerance = 16 * eps + float(np.abs(positions).max()) * 2.0**-23
        scale = _scale(positions, tolerance)
        if scale is None:
            return None
        scales.append(scale)
    spatial = [s for s in scales[:2] if not math.isnan(s)]
    if len(spatial) == 2 and spatial[0] != spatial[1]:
        return None
    spatial_scale = spatial[0] if spatial else math.nan
    rebuilt = sincos_3d(
        data.shape[1],
        (grid.width, grid.height),
        frames,
        spatial_interpolation_scale=1.0 if not spatial else spatial_scale,
        temporal_interpolation_scale=1.0 if math.isnan(scales[2]) else scales[2],
    ).reshape(data.shape)
    ideal = [
        np.arange(len(p)) / (1.0 if math.isnan(s) else s)
        for p, s in zip((read.p_h, read.p_w, times), scales, strict=True)
    ]
    return VolumeIdentification(
        embed_dim=data.shape[1],
        frames=frames,
        height=grid.height,
        width=grid.width,
        spatial_interpolation_scale=spatial_scale,
        temporal_interpolation_scale=scales[2],
        max_error=float(np.abs(rebuilt - data).max()),
        position_error=float(
            max(
                np.abs(p - i).max()
                for p, i in zip((read.p_h, read.p_w, times), ideal, strict=True)
            )
        ),
    )
