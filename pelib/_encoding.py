"""The sinusoidal positional encoding of Vaswani et al. (2017), section 3.5."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _validate

LAYOUTS = ("interleaved", "concat")


def _angular_frequencies(d_model: int, base: float, dtype: DTypeLike) -> np.ndarray:
    """w_i = base ** (-2i / d_model) for i = 0 .. ceil(d_model / 2) - 1, in ``dtype``.

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

    .. math:: \omega_i = \mathrm{base}^{-2i/d_\mathrm{model}},
              \qquad i = 0, 1, \ldots, \lceil d_\mathrm{model}/2 \rceil - 1.

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

    Notes
    -----
    Each frequency is ``base ** (-2i / d_model)`` in float64. The exponent
    ``-2i / d_model`` is itself rounded unless ``d_model`` divides ``2i`` into a
    short binary fraction (a power-of-two width), which costs a relative error
    of up to :math:`|2i/d| \ln(\text{base}) \cdot 2^{-53}`: up to about five
    units in the last place for base 10000, none for widths 256 or 512.

    Raises
    ------
    TypeError
        If ``d_model`` is not an integer or ``base`` is not a real number.
    ValueError
        If ``d_model < 1`` (or so large that the result would not fit in half
        of the machine's memory), ``base`` is not finite and positive, or
        ``base`` is so small (below about 1e-308) that a frequency overflows.

    Examples
    --------
    >>> frequencies(4)
    array([1.  , 0.01])
    """
    d_model = _validate.size(d_model, "d_model", minimum=1)
    _validate.fits((d_model + 1) // 2, 8, "d_model")
    base = _validate.real(base, "base", positive=True)
    return _angular_frequencies(d_model, base, np.float64)


def wavelengths(d_model: int, base: float = 10000.0) -> np.ndarray:
    r"""Wavelengths :math:`\lambda_i = 2\pi / \omega_i` of the sinusoidal encoding.

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

    .. math:: PE_{p, 2i} = \sin(p\,\omega_i), \qquad PE_{p, 2i+1} = \cos(p\,\omega_i),

    with :math:`\omega_i` from :func:`frequencies`. Chapter 1
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
        Type of the result. The table is computed in float64 (the angles of
        the first rows and of the doubling factors in long double, see
        Notes) and rounded once to ``dtype``; a long double table is
        computed directly in long double.

    Notes
    -----
    **Accuracy.** It depends on the platform's long double. Where it has a
    64-bit mantissa (the x87 format of x86-64 Linux, on which the book is
    built), every angle carries the rounding of a long-double frequency and
    of a long-double product, about :math:`P \cdot 2^{-64}` for the largest
    position magnitude :math:`P = |\mathrm{start}| + n_\mathrm{positions}`
    of the table, and the complex multiplications of the doubling add a few
    units in the last place. Measured against the exact values (mpmath),
    the float64 error stays below :math:`6 \cdot 2^{-53} + P \cdot 2^{-63}`
    for tables of up to :math:`2^{20}` rows that start at 0 or later, and
    below :math:`8 \cdot 2^{-53} + P \cdot 2^{-63}` in every table tested
    (up to :math:`2^{26}` rows, negative starts included); these are
    measurements, not proven bounds. That is a few units in the last place
    up to position 8,192, several hundred at :math:`2^{20}` (about 200 in a
    table that starts at 0 with d = 64 or 128, about 500 with d = 1024) and
    about :math:`10^{-10}` near :math:`2^{31}`. A float32 or float16 table
    is the float64 one rounded once, so its error is the half unit of that
    rounding (:math:`2^{-25}` for float32) plus the float64 error; it can
    exceed :math:`2^{-25}` by that much where an exact value lies near the
    midpoint of two float32 numbers. Where long double is double (Windows,
    macOS on Apple silicon) the angles are no better than the direct
    formula's, whose float64 error grows like :math:`|p| \cdot 2^{-53}`.
    Chapter 7 (:doc:`/notebooks/07_precision_and_speed`) measures all of
    this.

    **Method.** The table is not computed with one sine and one cosine per
    entry. The first 16 rows are, in long double precision; the rest follow
    by repeated doubling with the shift property of chapter 3: rows
    ``t + m`` are rows ``t`` with every (sin, cos) pair turned by
    :math:`\omega_i m`, one complex multiplication per pair. ``make bench``
    measures its speed against the direct formula and against
    ``numpy.ones``. A row can differ in its last bits depending on where the
    table starts.

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
        If ``n_positions < 0``, ``d_model < 1``, the table would need more
        than half of the machine's memory, ``base`` is not finite and
        positive, ``start`` is not finite, ``layout`` is unknown, or the
        largest angle :math:`|p|\,\omega_i` overflows the floating-point range.

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
    _validate.fits(n_positions * d_model, dtype.itemsize, "n_positions and d_model")
    _check_range(abs(start) + n_positions, d_model, base, "start and n_positions")
    if dtype == np.longdouble:
        positions = np.longdouble(start) + np.arange(n_positions, dtype=np.longdouble)
        return _table(positions, d_model, base, layout, dtype)
    return _doubled_table(start, n_positions, d_model, base, layout, dtype)


def encode(
    positions: ArrayLike,
    d_model: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    r"""Sinusoidal encodings of arbitrary positions, by the direct formula.

    The encoding of :func:`sinusoidal`, for positions that need not be
    consecutive: a scalar, a list, or an array of any shape. Useful for
    looking at one slow column over a long range, or at far-away positions,
    without building every row in between. Chapter 1
    (:doc:`/notebooks/01_formula`) uses it for the slowest dimension.

    Each entry is ``sin`` or ``cos`` of the angle :math:`p\,\omega_i` formed
    in double precision (in long double when ``dtype`` is long double), so
    its error grows with the position like :math:`|p| \cdot 2^{-53}`: about
    :math:`10^{-12}` at position 8,192 and :math:`2 \cdot 10^{-9}` at
    :math:`2^{24}`. :func:`sinusoidal` is more accurate for far positions
    (see its notes), so the two can differ in the last digits there.

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
        Type of the result.

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
        If a position is not finite, the result would need more than half of
        the machine's memory, or another argument is out of range.

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
    _validate.fits(positions.size * d_model, dtype.itemsize, "positions and d_model")
    if positions.size:
        _check_range(np.max(np.abs(positions)), d_model, base, "positions")
    flat = _table(positions.reshape(-1), d_model, base, layout, dtype)
    return flat.reshape(positions.shape + (d_model,))


def _working_dtype(dtype: np.dtype) -> type:
    """Angles are formed in double precision, or long double if that is the output type."""
    return np.longdouble if dtype == np.longdouble else np.float64


def _check_range(largest_position: float, d_model: int, base: float, names: str) -> None:
    """Reject positions whose angles p * w would overflow the floating-point range."""
    omega = _angular_frequencies(d_model, base, np.float64)
    with np.errstate(over="ignore"):
        largest = np.float64(largest_position) * np.max(omega)
    if not np.isfinite(largest):
        raise ValueError(
            f"{names}: positions up to {float(largest_position)!r} with base={base!r} give angles "
            "p * w beyond the floating-point range; use smaller positions or a larger base"
        )


def _columns(layout: str, d_model: int) -> tuple[slice, slice]:
    """Where the sines and the cosines go in a table of the given layout."""
    if layout == "interleaved":
        return slice(0, None, 2), slice(1, None, 2)
    n_sin = (d_model + 1) // 2
    return slice(0, n_sin), slice(n_sin, None)


def _table(positions: np.ndarray, d_model: int, base: float, layout: str, dtype: np.dtype) -> np.ndarray:
    """The encoding of each position in the 1-D array ``positions``, directly (validated arguments)."""
    omega = _angular_frequencies(d_model, base, positions.dtype)
    angles = np.multiply.outer(positions, omega)
    table = np.empty((len(positions), d_model), dtype=dtype)
    sin_cols, cos_cols = _columns(layout, d_model)
    table[:, sin_cols] = np.sin(angles)
    table[:, cos_cols] = np.cos(angles[:, : d_model // 2])
    return table


#: Rows computed directly before the doubling takes over.
_BLOCK = 16
#: Rows per chunk when the result is not float64 pairs: chunks stay in cache while they are converted.
_CHUNK = 256


def _turn(offset: float, omega: np.ndarray) -> np.ndarray:
    """e^{-i w offset} for every frequency: the complex factor that moves a pair by ``offset`` positions."""
    theta = np.longdouble(offset) * omega
    factor = np.empty(len(omega), dtype=np.complex128)
    factor.real, factor.imag = np.cos(theta), -np.sin(theta)
    return factor


def _fill_by_doubling(z: np.ndarray, start: float, omega: np.ndarray) -> None:
    """Fill z[t, i] = sin(a) + 1j cos(a), a = w_i (start + t), for every row of ``z``."""
    n = len(z)
    block = min(n, _BLOCK)
    angles = np.multiply.outer(np.longdouble(start) + np.arange(block, dtype=np.longdouble), omega)
    z[:block].real, z[:block].imag = np.sin(angles), np.cos(angles)
    filled = block
    while filled < n:
        step = min(filled, n - filled)
        np.multiply(z[:step], _turn(filled, omega), out=z[filled : filled + step])
        filled += step


def _doubled_table(start: float, n: int, d_model: int, base: float, layout: str, dtype: np.dtype) -> np.ndarray:
    """The table of positions start .. start + n - 1 by repeated doubling with the shift property.

    Each (sin, cos) pair is held as the complex number z = sin(a) + i cos(a) = i e^{-ia}, so
    moving m positions is one multiplication, z(t + m) = z(t) e^{-i w m} (chapter 3). The first
    _BLOCK rows and every factor are computed in long double and rounded once; each doubling
    step then costs one complex multiplication per pair. The log2(n / _BLOCK) multiplications
    add a few units in the last place; what grows with the position is the error of the
    long-double angle p * w, about p * 2**-64 where long double has a 64-bit mantissa
    (chapter 7 measures both against mpmath).
    """
    n_freq = (d_model + 1) // 2
    omega = _angular_frequencies(d_model, base, np.longdouble)
    table = np.empty((n, d_model), dtype=dtype)
    if dtype == np.float64 and layout == "interleaved" and d_model % 2 == 0:
        _fill_by_doubling(table.view(np.complex128), start, omega)  # the pairs are the table
        return table

    # Otherwise: the first chunk by doubling, every later chunk as the first one turned by its
    # offset, each converted into the table while it is still in cache.
    first = np.empty((min(n, _CHUNK), n_freq), dtype=np.complex128)
    _fill_by_doubling(first, start, omega)
    chunk = np.empty_like(first)
    for begin in range(0, n, _CHUNK):
        rows = min(_CHUNK, n - begin)
        if begin:
            np.multiply(first[:rows], _turn(begin, omega), out=chunk[:rows])
        pairs = (first if begin == 0 else chunk)[:rows].view(np.float64)  # sin, cos, sin, cos, ...
        out = table[begin : begin + rows]
        if layout == "interleaved":
            out[:] = pairs[:, :d_model]
        else:
            out[:, :n_freq] = pairs[:, 0::2]
            out[:, n_freq:] = pairs[:, 1 : 2 * (d_model // 2) : 2]
    return table
