"""The sine-cosine tables beyond one token axis: image grids, video grids, time steps.

:func:`sincos_2d` is the 2-D table of MAE, DiT and diffusers (one 1-D ``[sin | cos]``
table per axis, side by side), :func:`sincos_3d` diffusers' 3-D table of CogVideoX (a
1-D table of the frame beside a 2-D table of the place), and :func:`timestep_embedding`
the embedding of a diffusion time step of diffusers, DiT and guided-diffusion; each in
float64, with the layout of the code it names. The chapter "Beyond the token axis"
(:doc:`/notebooks/11_beyond_token_axis`) explains them.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import _validate
from ._encoding import encode


def _pair(value: Any, name: str, order: str) -> tuple[int, int]:
    """``value`` as two sizes: an int ``n`` is ``(n, n)``, a tuple or list of two
    ints is taken in ``order`` as it is."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        n = _validate.size(value, name)
        return n, n
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(
            f"{name} must be an integer >= 0 or a pair {order} of them "
            f"(a tuple or list of two), got {_validate.describe(value)}"
        )
    return _validate.size(value[0], f"{name}[0]"), _validate.size(
        value[1], f"{name}[1]"
    )


def _embed_dim(value: Any, multiple: int) -> int:
    """``embed_dim`` as an int, a positive multiple of ``multiple``."""
    embed_dim = _validate.size(value, "embed_dim", minimum=multiple)
    if embed_dim % multiple:
        raise ValueError(
            f"embed_dim must be a positive multiple of {multiple}, got {embed_dim}"
        )
    return embed_dim


def _axis(n: int, divisor: float, names: str) -> np.ndarray:
    """The positions ``arange(n) / divisor`` in float64 (``divisor`` already
    rounded to float64, as the code divides)."""
    with _validate.arithmetic(names, "the grid positions are"):
        return np.arange(n, dtype=np.float64) / divisor


def _plane(embed_dim: int, heights: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """The 2-D table of the positions ``heights`` x ``widths``: row ``h * W + w``
    holds the 1-D table of ``widths[w]``, then that of ``heights[h]``."""
    half = embed_dim // 2
    table = np.empty((heights.size, widths.size, embed_dim))
    table[:, :, :half] = encode(widths, half, layout="concat")[None, :, :]
    table[:, :, half:] = encode(heights, half, layout="concat")[:, None, :]
    return table.reshape(-1, embed_dim)


def sincos_2d(
    embed_dim: int,
    grid_size: int | tuple[int, int],
    *,
    extra_tokens: int = 0,
    base_size: float | None = None,
    interpolation_scale: float = 1.0,
) -> np.ndarray:
    r"""The 2-D sine-cosine table of MAE, DiT and diffusers, in float64.

    Each axis gets a 1-D table of width :math:`D/2` (:math:`D` = ``embed_dim``),
    ``[sin | cos]`` with the frequencies :math:`10000^{-k/(D/4)}`,
    :math:`k = 0, \ldots, D/4 - 1`. Row ``h * width + w`` (row-major over the
    grid) holds the table of the **width** index ``w`` in its first :math:`D/2`
    columns and that of the **height** index ``h`` in the last :math:`D/2`: the
    code calls the first half ``emb_h``, but ``np.meshgrid(grid_w, grid_h)`` puts
    the width coordinate there (facebookresearch/mae#18). ``extra_tokens`` zero
    rows come first.

    It reproduces ``get_2d_sincos_pos_embed`` of ``facebookresearch/mae``
    (``util/pos_embed.py``; ``cls_token=True`` is ``extra_tokens=1``) and of
    ``facebookresearch/DiT`` (``models.py``; zero rows only when ``cls_token``
    is true *and* ``extra_tokens > 0``), both with ``base_size=None``, and
    ``get_2d_sincos_pos_embed`` of ``huggingface/diffusers``
    (``src/diffusers/models/embeddings.py``), which always has a ``base_size``
    (default 16). Those codes form the grid in float32 (exact for integers below
    :math:`2^{24}`, rounded for diffusers' fractional positions) and the angles
    in float64; see ``oracle.transcriptions``.

    Parameters
    ----------
    embed_dim : int
        Number of columns :math:`D`, a positive multiple of 4.
    grid_size : int or (int, int)
        ``n`` for an ``n`` x ``n`` grid, or the pair ``(height, width)``, in the
        order of diffusers' 2-D function (:func:`sincos_3d` reads its pair the
        other way round). Sizes 0 or more.
    extra_tokens : int, default 0
        Number of zero rows before the grid (a class token), 0 or more.
    base_size : float or None, default None
        None: the positions along an axis of ``n`` cells are the integers
        :math:`0, \ldots, n - 1` (MAE, DiT). A finite positive number: they are
        diffusers' ``arange(n) / (n / base_size) / interpolation_scale``, formed
        in float64 in that order, so every axis spans
        :math:`[0, \text{base\_size} / \text{interpolation\_scale})` whatever
        its length.
    interpolation_scale : float, default 1.0
        Finite and positive; used only with a ``base_size``, as in diffusers.

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(extra_tokens + height * width, embed_dim)``.
        Each entry is within :math:`5 \cdot 10^{-16}` of the sine or cosine of
        its float64 position (:func:`encode`, positions below :math:`2^{31}`),
        and so, for integer positions, of the exact value.

    Raises
    ------
    TypeError
        If ``embed_dim``, ``grid_size`` or ``extra_tokens`` is not an integer
        (``grid_size`` nor a pair of them), or ``base_size`` or
        ``interpolation_scale`` is not a real number (``base_size`` nor None).
    ValueError
        If ``embed_dim`` is not a positive multiple of 4, a size is negative,
        ``base_size`` or ``interpolation_scale`` is not finite and positive,
        a position overflows, or the result would need more than half of the
        machine's memory.

    Examples
    --------
    >>> sincos_2d(4, (1, 2)).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.    , 1.    ]])
    """
    embed_dim = _embed_dim(embed_dim, 4)
    height, width = _pair(grid_size, "grid_size", "(height, width)")
    extra_tokens = _validate.size(extra_tokens, "extra_tokens")
    if base_size is not None:
        base_size = _validate.real(base_size, "base_size", positive=True)
    scale = _validate.real(interpolation_scale, "interpolation_scale", positive=True)
    rows = extra_tokens + height * width
    _validate.fits(
        rows * embed_dim + (height + width) * embed_dim,
        8,
        "embed_dim, grid_size and extra_tokens",
    )
    names = "grid_size, base_size and interpolation_scale"

    def positions(n: int) -> np.ndarray:
        if base_size is None:
            return np.arange(n, dtype=np.float64)
        return _axis(n, n / base_size, names) / scale

    with _validate.arithmetic(names, "the grid positions are"):
        heights, widths = positions(height), positions(width)
    table = np.zeros((rows, embed_dim))
    table[extra_tokens:] = _plane(embed_dim, heights, widths)
    return table


def sincos_3d(
    embed_dim: int,
    spatial_size: int | tuple[int, int],
    temporal_size: int,
    *,
    spatial_interpolation_scale: float = 1.0,
    temporal_interpolation_scale: float = 1.0,
) -> np.ndarray:
    r"""diffusers' 3-D sine-cosine table (CogVideoX), in float64.

    For frame ``t`` and grid cell ``h * width + w``, the first :math:`D/4`
    columns (:math:`D` = ``embed_dim``) are the 1-D ``[sin | cos]`` table of
    width :math:`D/4` (frequencies :math:`10000^{-k/(D/8)}`) of the position
    ``t / temporal_interpolation_scale``, and the last :math:`3D/4` the table of
    :func:`sincos_2d` of width :math:`3D/4` (the width index first, then the
    height index, frequencies :math:`10000^{-k/(3D/16)}`) of the positions
    ``w / spatial_interpolation_scale`` and ``h / spatial_interpolation_scale``.

    It reproduces ``get_3d_sincos_pos_embed`` of ``huggingface/diffusers``
    (``src/diffusers/models/embeddings.py``; its NumPy path
    ``_get_3d_sincos_pos_embed_np`` and its PyTorch path compute the same).
    The code forms the positions in float32 and the angles in float64.

    .. warning::

       ``spatial_size`` is **(width, height)**, the order in which diffusers'
       3-D function reads it (``grid_h = arange(spatial_size[1])``, and
       CogVideoX passes ``(post_patch_width, post_patch_height)``), the
       reverse of ``grid_size`` in :func:`sincos_2d` and diffusers' 2-D
       function, which is (height, width).

    Parameters
    ----------
    embed_dim : int
        Number of columns :math:`D`, a positive multiple of 16 (so that
        :math:`3D/4` is a multiple of 4 and :math:`D/4` is even).
    spatial_size : int or (int, int)
        ``n`` for an ``n`` x ``n`` grid, or the pair **(width, height)**. Sizes
        0 or more.
    temporal_size : int
        Number of frames, 0 or more.
    spatial_interpolation_scale, temporal_interpolation_scale : float, default 1.0
        Finite and positive: the positions along the grid and the frame
        indices are divided by them (in float64, once).

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(temporal_size, height * width, embed_dim)``.
        Each entry is within :math:`5 \cdot 10^{-16}` of the sine or cosine of
        its float64 position (:func:`encode`, positions below :math:`2^{31}`).

    Raises
    ------
    TypeError
        If ``embed_dim``, ``spatial_size`` or ``temporal_size`` is not an
        integer (``spatial_size`` nor a pair of them), or a scale is not a real
        number.
    ValueError
        If ``embed_dim`` is not a positive multiple of 16, a size is negative, a
        scale is not finite and positive, a position overflows, or the result
        would need more than half of the machine's memory.

    Examples
    --------
    >>> table = sincos_3d(16, (3, 2), 4)  # 3 wide, 2 high, 4 frames
    >>> table.shape
    (4, 6, 16)
    """
    embed_dim = _embed_dim(embed_dim, 16)
    width, height = _pair(spatial_size, "spatial_size", "(width, height)")
    frames = _validate.size(temporal_size, "temporal_size")
    spatial = _validate.real(
        spatial_interpolation_scale, "spatial_interpolation_scale", positive=True
    )
    temporal = _validate.real(
        temporal_interpolation_scale, "temporal_interpolation_scale", positive=True
    )
    cells = height * width
    _validate.fits(
        (frames * cells + frames + cells + height + width) * embed_dim,
        8,
        "embed_dim, spatial_size and temporal_size",
    )
    names = "spatial_size and spatial_interpolation_scale"
    quarter = embed_dim // 4
    place = _plane(
        3 * quarter, _axis(height, spatial, names), _axis(width, spatial, names)
    )
    times = _axis(frames, temporal, "temporal_size and temporal_interpolation_scale")
    table = np.empty((frames, cells, embed_dim))
    table[:, :, :quarter] = encode(times, quarter, layout="concat")[:, None, :]
    table[:, :, quarter:] = place[None, :, :]
    return table


def _timestep_frequencies(half: int, shift: float, max_period: float) -> np.ndarray:
    """``max_period ** (-k / (half - shift))``, ``k < half``, in float64 (inside the
    caller's ``arithmetic`` block, which turns an overflow into a ValueError)."""
    exponent = -math.log(max_period) * (
        np.arange(half, dtype=np.float64) / (half - shift)
    )
    with np.errstate(under="ignore"):
        return np.exp(exponent)


def timestep_embedding(
    timesteps: ArrayLike,
    embedding_dim: int,
    *,
    flip_sin_to_cos: bool = False,
    downscale_freq_shift: float = 1.0,
    scale: float = 1.0,
    max_period: float = 10000.0,
) -> np.ndarray:
    r"""diffusers' ``get_timestep_embedding``, in float64.

    With :math:`K` = ``embedding_dim // 2`` and :math:`s` =
    ``downscale_freq_shift``, frequency :math:`k` is
    :math:`\omega_k = \text{max\_period}^{-k/(K - s)}`,
    :math:`k = 0, \ldots, K - 1`; row ``r`` holds the angles
    :math:`\text{scale} \cdot t_r\,\omega_k`, as ``[sin | cos]``, or
    ``[cos | sin]`` if ``flip_sin_to_cos``, and a zero last column when
    ``embedding_dim`` is odd. The default :math:`s = 1` is tensor2tensor's
    grid of frequencies (:func:`timing_signal`); :math:`s = 0` with an even
    width is the paper's :math:`\text{max\_period}^{-2k/d}`.

    It reproduces ``get_timestep_embedding`` of ``huggingface/diffusers``
    (``src/diffusers/models/embeddings.py``). ``timestep_embedding(t, dim,
    max_period)`` of ``facebookresearch/DiT`` (``models.py``,
    ``TimestepEmbedder``) and of ``openai/guided-diffusion``
    (``guided_diffusion/nn.py``) is ``flip_sin_to_cos=True,
    downscale_freq_shift=0``. Those codes compute in float32; this function
    forms every step in float64: the frequencies as
    ``exp(-log(max_period) * (k / (K - s)))``, then ``scale * (t * w)``, so an
    angle :math:`\theta` is off by a relative error of a few :math:`2^{-53}`
    (growing with the argument of ``exp``), an entry by about
    :math:`|\theta| \cdot 2^{-50}` plus a unit in the last place.

    Parameters
    ----------
    timesteps : array_like of real numbers
        A 1-D array of finite time steps; fractional ones are allowed (taken as
        float64).
    embedding_dim : int
        Number of columns, at least 1 (1 gives a zero column only).
    flip_sin_to_cos : bool, default False
        ``[cos | sin]`` instead of ``[sin | cos]``.
    downscale_freq_shift : float, default 1.0
        :math:`s`, finite and below :math:`K` (at :math:`s = K` the code divides
        by zero, above it the frequencies grow instead of falling). With
        ``embedding_dim`` 1 there is no frequency and any finite :math:`s` is
        accepted.
    scale : float, default 1.0
        Finite; multiplies every angle.
    max_period : float, default 10000.0
        Finite and positive.

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(len(timesteps), embedding_dim)``.

    Raises
    ------
    TypeError
        If ``timesteps`` is not an array of real numbers, ``embedding_dim`` not
        an integer, ``flip_sin_to_cos`` not a bool, or another argument not a
        real number.
    ValueError
        If ``timesteps`` is not 1-D or holds nan or infinity,
        ``embedding_dim < 1``, ``downscale_freq_shift`` is not below
        ``embedding_dim // 2``, ``max_period`` is not positive, an angle
        overflows, or the result would need more than half of the machine's
        memory.

    Examples
    --------
    >>> timestep_embedding([0, 1], 5, flip_sin_to_cos=True, downscale_freq_shift=0)
    array([[1.        , 1.        , 0.        , 0.        , 0.        ],
           [0.54030231, 0.99995   , 0.84147098, 0.00999983, 0.        ]])
    """
    timesteps = _validate.real_array(timesteps, "timesteps", ndim=1)
    dim = _validate.size(embedding_dim, "embedding_dim", minimum=1)
    flip = _validate.boolean(flip_sin_to_cos, "flip_sin_to_cos")
    shift = _validate.real(downscale_freq_shift, "downscale_freq_shift")
    scale = _validate.real(scale, "scale")
    max_period = _validate.real(max_period, "max_period", positive=True)
    _validate.fits((timesteps.size + 1) * dim, 8, "timesteps and embedding_dim")
    half = dim // 2
    if half and not shift < half:
        raise ValueError(
            f"downscale_freq_shift must be below embedding_dim // 2 = {half} "
            f"(the frequencies divide by embedding_dim // 2 - downscale_freq_shift), "
            f"got {shift!r}"
        )
    names = "timesteps, scale, max_period and downscale_freq_shift"
    with _validate.arithmetic(names, "the angles scale * t * frequency are"):
        omega = _timestep_frequencies(half, shift, max_period)
        angles = scale * (timesteps[:, None] * omega[None, :])
    table = np.zeros((timesteps.size, dim))
    first, second = (np.cos, np.sin) if flip else (np.sin, np.cos)
    table[:, :half] = first(angles)
    table[:, half : 2 * half] = second(angles)
    return table
