"""The sinusoidal positional encoding of Vaswani et al. (2017), section 3.5."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _validate

LAYOUTS = ("interleaved", "concat")


def _angular_frequencies(d_model: int, base: float, dtype: DTypeLike) -> np.ndarray:
    """w_k = base ** (-2k / d_model) for k = 0 .. ceil(d_model / 2) - 1, in ``dtype``.

    The arguments are already validated; a base so small that a frequency
    overflows is the one case left to reject.
    """
    k = np.arange((d_model + 1) // 2, dtype=dtype)
    with np.errstate(over="ignore"):
        omega = np.power(np.asarray(base, dtype=dtype), -2 * k / np.asarray(d_model, dtype=dtype))
    if not np.all(np.isfinite(omega)):
        raise ValueError(f"base={base!r} is too small for d_model={d_model}: its frequencies overflow")
    return omega


def frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    r"""Angular frequencies of the sinusoidal encoding.

    .. math:: \omega_k = \mathrm{base}^{-2k/d_\mathrm{model}},
              \qquad k = 0, 1, \ldots, \lceil d_\mathrm{model}/2 \rceil - 1.

    The first frequency is always 1 (wavelength :math:`2\pi`); they fall
    geometrically by a factor ``base ** (-2 / d_model)`` per step.
    Chapter 1 (:doc:`/notebooks/01_formula`) derives them from the paper's formula.

    Parameters
    ----------
    d_model : int
        Width of the encoding, at least 1. An odd width has ``(d_model + 1) // 2``
        frequencies, the last one carried by a lone sine column.
    base : float, default 10000.0
        The constant of the paper, finite and positive.

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(ceil(d_model / 2),)``.

    Raises
    ------
    TypeError
        If ``d_model`` is not an integer or ``base`` is not a real number.
    ValueError
        If ``d_model < 1``, ``base`` is not finite and positive, or ``base`` is
        so small (below about 1e-308) that a frequency overflows.

    Examples
    --------
    >>> frequencies(4)
    array([1.  , 0.01])
    """
    d_model = _validate.size(d_model, "d_model", minimum=1)
    base = _validate.real(base, "base", positive=True)
    return _angular_frequencies(d_model, base, np.float64)


def wavelengths(d_model: int, base: float = 10000.0) -> np.ndarray:
    r"""Wavelengths :math:`\lambda_k = 2\pi / \omega_k` of the sinusoidal encoding.

    They run from :math:`2\pi` up to
    :math:`2\pi\,\mathrm{base}^{2(\lceil d/2 \rceil - 1)/d}`, which for even
    ``d_model`` is :math:`2\pi\,\mathrm{base}^{(d-2)/d}`: short of the
    :math:`2\pi \cdot \mathrm{base}` that is often quoted.
    Chapter 1 (:doc:`/notebooks/01_formula`) introduces them.

    Parameters
    ----------
    d_model : int
        Width of the encoding, at least 1.
    base : float, default 10000.0
        The constant of the paper, finite and positive.

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(ceil(d_model / 2),)``, in positions per cycle.

    Examples
    --------
    >>> wavelengths(2)
    array([6.28318531])
    """
    return 2 * np.pi / frequencies(d_model, base)


def sinusoidal(
    n_positions: int,
    d_model: int,
    *,
    base: float = 10000.0,
    start: float = 0,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    r"""Table of sinusoidal positional encodings, one row per position.

    Row ``t`` encodes position :math:`p = \mathrm{start} + t`. With
    ``layout="interleaved"`` (the paper's formula)

    .. math:: PE_{p, 2k} = \sin(p\,\omega_k), \qquad PE_{p, 2k+1} = \cos(p\,\omega_k),

    with :math:`\omega_k` from :func:`frequencies`. Chapter 1
    (:doc:`/notebooks/01_formula`) explains the formula and the properties
    of the table.

    Parameters
    ----------
    n_positions : int
        Number of rows, 0 or more (0 gives an empty table).
    d_model : int
        Number of columns, at least 1. For odd ``d_model`` the last
        frequency has no cosine partner: with the interleaved layout the last
        column is its sine, as in the list-comprehension implementations
        that compute ``2 * (j // 2) / d_model`` for column ``j``.
    base : float, default 10000.0
        The constant of the paper, finite and positive.
    start : float, default 0
        Position encoded by the first row, any finite number (fractional
        positions are allowed).
    layout : {"interleaved", "concat"}, default "interleaved"
        ``"interleaved"`` alternates sine and cosine columns,
        ``sin(p w_0), cos(p w_0), sin(p w_1), ...``. ``"concat"`` puts all
        sines first and then all cosines, ``[sin | cos]``; for odd ``d_model``
        that is ``ceil(d/2)`` sine columns followed by ``floor(d/2)`` cosine
        columns. The two layouts are a column permutation of each other.
    dtype : numpy floating dtype, default numpy.float64
        Type of the result. The angles :math:`p\,\omega_k` are always formed
        in at least double precision and only the finished values are
        rounded, so a float32 table is within 1e-7 of the exact values even
        at position one million (forming the angle in float32, as many
        frameworks do, is wrong by about 1e-3 at a few thousand positions).

    Returns
    -------
    numpy.ndarray
        Array of shape ``(n_positions, d_model)`` and type ``dtype``.

    Raises
    ------
    TypeError
        If a size is not an integer (booleans included), ``base`` or
        ``start`` is not a real number, ``layout`` is not a string or
        ``dtype`` is not a floating dtype.
    ValueError
        If ``n_positions < 0``, ``d_model < 1``, ``base`` is not finite and
        positive, ``start`` is not finite, ``layout`` is unknown, or the
        largest angle :math:`|p|\,\omega_k` overflows the floating-point range.

    Examples
    --------
    >>> sinusoidal(2, 4).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.01  , 1.    ]])
    """
    n_positions = _validate.size(n_positions, "n_positions", minimum=0)
    d_model = _validate.size(d_model, "d_model", minimum=1)
    base = _validate.real(base, "base", positive=True)
    start = _validate.real(start, "start")
    layout = _validate.choice(layout, "layout", LAYOUTS)
    dtype = _validate.float_dtype(dtype)
    work = _working_dtype(dtype)
    positions = np.asarray(start, dtype=work) + np.arange(n_positions, dtype=work)
    return _table(positions, d_model, base, layout, dtype)


def encode(
    positions: ArrayLike,
    d_model: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    r"""Sinusoidal encodings of arbitrary positions.

    The same values as :func:`sinusoidal`, for positions that need not be
    consecutive: a scalar, a list, or an array of any shape. Useful for
    looking at one slow column over a long range, or at far-away positions,
    without building every row in between. Chapter 1
    (:doc:`/notebooks/01_formula`) uses it for the slowest dimension.

    Parameters
    ----------
    positions : array_like of real numbers
        Positions to encode, finite; integers and floats are accepted,
        booleans and complex numbers are not.
    d_model : int
        Width of the encoding, at least 1.
    base : float, default 10000.0
        The constant of the paper, finite and positive.
    layout : {"interleaved", "concat"}, default "interleaved"
        Column order, as in :func:`sinusoidal`.
    dtype : numpy floating dtype, default numpy.float64
        Type of the result, as in :func:`sinusoidal`.

    Returns
    -------
    numpy.ndarray
        Array of shape ``numpy.shape(positions) + (d_model,)``.

    Raises
    ------
    TypeError
        If ``positions`` is not an array of real numbers, or another argument
        has the wrong type (see :func:`sinusoidal`).
    ValueError
        If a position is not finite, or another argument is out of range.

    Examples
    --------
    >>> encode([0, 10**6], 2).round(4)
    array([[ 0.    ,  1.    ],
           [-0.35  ,  0.9368]])
    """
    d_model = _validate.size(d_model, "d_model", minimum=1)
    base = _validate.real(base, "base", positive=True)
    layout = _validate.choice(layout, "layout", LAYOUTS)
    dtype = _validate.float_dtype(dtype)
    positions = _validate.real_array(positions, "positions", dtype=_working_dtype(dtype))
    flat = _table(positions.reshape(-1), d_model, base, layout, dtype)
    return flat.reshape(positions.shape + (d_model,))


def _working_dtype(dtype: np.dtype) -> type:
    """Angles are formed in double precision, or long double if that is the output type."""
    return np.longdouble if dtype == np.longdouble else np.float64


def _table(positions: np.ndarray, d_model: int, base: float, layout: str, dtype: np.dtype) -> np.ndarray:
    """The encoding of each position in the 1-D array ``positions`` (validated arguments)."""
    omega = _angular_frequencies(d_model, base, positions.dtype)
    if positions.size:
        with np.errstate(over="ignore"):
            largest = np.max(np.abs(positions)) * np.max(omega)
        if not np.isfinite(largest):
            raise ValueError(
                f"positions up to {float(np.max(np.abs(positions)))!r} with base={base!r} give angles "
                "p * w beyond the floating-point range; use smaller positions or a larger base"
            )
    angles = np.multiply.outer(positions, omega)

    n_sin, n_cos = len(omega), d_model // 2
    table = np.empty((len(positions), d_model), dtype=dtype)
    if layout == "interleaved":
        sin_cols, cos_cols = slice(0, None, 2), slice(1, None, 2)
    else:
        sin_cols, cos_cols = slice(0, n_sin), slice(n_sin, None)
    table[:, sin_cols] = np.sin(angles)
    table[:, cos_cols] = np.cos(angles[:, :n_cos])
    return table
