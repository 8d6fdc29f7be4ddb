"""Quantities derived from the encoding: distances, dot products, linear fits (chapters
4 and 5)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import _validate
from ._encoding import _angular_frequencies

# Offsets are processed in blocks so that memory stays bounded for long ranges.
_BLOCK = 1 << 15


def _pair_sums(offsets: ArrayLike, d_model: int, base: float, term) -> np.ndarray:
    d_model = _validate.size(d_model, "d_model", minimum=2)
    if d_model % 2:
        raise ValueError(
            f"d_model must be even, got {d_model}: "
            "the closed forms sum over complete (sin, cos) pairs"
        )
    _validate.fits(d_model // 2, 8, "d_model")
    base = _validate.real(base, "base", positive=True)
    offsets = _validate.real_array(offsets, "offsets")
    omega = _angular_frequencies(d_model, base, np.float64)
    flat = offsets.reshape(-1)
    out = np.empty(flat.shape)
    block_size = max(1, _BLOCK * 64 // len(omega))  # about 2**21 angles at a time
    with _validate.arithmetic("offsets and base", "the angles offset * w are"):
        for begin in range(0, len(flat), block_size):
            block = flat[begin : begin + block_size]
            out[begin : begin + block_size] = term(np.multiply.outer(block, omega)).sum(
                axis=-1
            )
    return out.reshape(offsets.shape)


def relative_dot(offsets: ArrayLike, d_model: int, base: float = 10000.0) -> np.ndarray:
    r"""The dot product :math:`PE(t) \cdot PE(t + \phi) = \sum_i \cos(\omega_i \phi)`,
    for each offset ``phi``.

    For an even width it does not depend on ``t``. Chapter 4
    (:doc:`/notebooks/04_wavelengths`) derives it, plots it and checks what
    is said about it.

    Parameters
    ----------
    offsets : array_like of real numbers
        The offsets :math:`\phi` (any shape, finite).
    d_model : int
        Even width of the encoding, at least 2.
    base : float, default 10000.0
        Finite and positive.

    Returns
    -------
    numpy.ndarray
        Float64 array of the shape of ``offsets``; ``d_model / 2`` at offset 0.

    Examples
    --------
    >>> relative_dot([0, 1], 2)
    array([1.        , 0.54030231])
    """
    return _pair_sums(offsets, d_model, base, np.cos)


def offset_distance(
    offsets: ArrayLike, d_model: int, base: float = 10000.0
) -> np.ndarray:
    r"""The distance :math:`\lVert PE(t + \phi) - PE(t) \rVert = \sqrt{\sum_i 4
    \sin^2(\omega_i \phi / 2)}`.

    Equal to :math:`\sqrt{d - 2 \sum_i \cos(\omega_i \phi)}` (chapter 1) but
    written with half-angle sines, which keeps full relative accuracy for
    offsets whose rows nearly coincide. It does not depend on ``t``.
    Chapter 4 (:doc:`/notebooks/04_wavelengths`) uses it to find the closest
    two positions among many.

    Parameters
    ----------
    offsets : array_like of real numbers
        The offsets :math:`\phi` (any shape, finite).
    d_model : int
        Even width of the encoding, at least 2.
    base : float, default 10000.0
        Finite and positive.

    Returns
    -------
    numpy.ndarray
        Float64 array of the shape of ``offsets``.

    Examples
    --------
    >>> [f"{x:.2e}" for x in offset_distance([0, 1, 710], 2)]
    ['0.00e+00', '9.59e-01', '6.03e-05']
    """
    return np.sqrt(_pair_sums(offsets, d_model, base, lambda a: 4 * np.sin(a / 2) ** 2))


class LinearFit(NamedTuple):
    """Result of :func:`fit_linear_map`."""

    #: The least-squares matrix ``M``, shape ``(d_target, d_source)``.
    matrix: np.ndarray
    #: The offset ``b`` of an affine fit (zeros for a linear one), shape
    #: ``(d_target,)``.
    offset: np.ndarray
    #: ``||fit - target|| / ||target||`` over all entries (the absolute error if the
    #: target is all zero).
    residual: float
    #: The same ratio for each target column, shape ``(d_target,)`` (absolute for an
    #: all-zero column).
    column_residuals: np.ndarray


def fit_linear_map(
    source: ArrayLike, target: ArrayLike, *, affine: bool = False
) -> LinearFit:
    r"""The least-squares map with ``target[t] ~ M @ source[t] (+ b)`` for every row
    ``t``.

    Chapter 5 (:doc:`/notebooks/05_sin_only`) uses it to show that sine-only
    rows have no linear shift, while (sine, cosine) rows do.

    Parameters
    ----------
    source, target : array_like
        Finite real arrays of shapes ``(n, d_source)`` and ``(n, d_target)``,
        with the same number ``n >= 1`` of rows and at least one column each.
        Each is scaled by a power of two before the fit, so magnitudes
        anywhere in the float range are handled.
    affine : bool, default False
        Fit ``M @ s + b`` instead of ``M @ s``.

    Returns
    -------
    LinearFit
        The matrix, the offset, the overall relative residual and one relative
        residual per target column. For an all-zero target column the fit is
        exact and its residual is 0.

    Notes
    -----
    The fit is computed in float64 (``numpy.linalg.lstsq`` with its default
    cutoff ``rcond``). When the source columns are nearly dependent (condition
    number above about 1e8) the residuals are only approximate, for two
    reasons. Rounding the source to float64 already moves the space it spans,
    so even an exact solver would return the exact least-squares residuals of
    the rounded data, never below them; and lstsq's default cutoff drops the
    directions with singular values below ``eps * max(rows, columns)`` of the
    largest, so the result is close to the exact truncated SVD of the rounded
    data, with only its last digits depending on the LAPACK build, provided no
    singular value lies within LAPACK's error (a small multiple of ``eps``
    times the largest singular value) of the cutoff; otherwise whether a
    direction is kept, and so the residual, can differ entirely between builds.
    Either cause can make the residuals several times the exact ones; for the
    sine-only columns of chapter 5 (condition number above 1e15) which of the
    two is larger depends on the column, and chapter 5 separates them with
    ``oracle.least_squares``.

    Raises
    ------
    ValueError
        If the arrays are not 2-D, are empty, have different numbers of rows,
        hold nan or infinity, or the fitted map itself is beyond the float
        range (a target of order 1e300 fitted from a source of order 1e-300).

    Examples
    --------
    >>> s = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> fit = fit_linear_map(s, s @ np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> fit.matrix.round(12) + 0.0, round(fit.residual, 12)
    (array([[0., 1.],
           [1., 0.]]), 0.0)
    """
    source = _validate.float_array(source, "source", ndim=2)
    target = _validate.float_array(target, "target", ndim=2)
    for name, array in (("source", source), ("target", target)):
        if 0 in array.shape:
            raise ValueError(
                f"{name} must have at least one row and one column, "
                f"got shape {array.shape}"
            )
    if len(source) != len(target):
        raise ValueError(
            "source and target must have the same number of rows, "
            f"got shapes {source.shape} and {target.shape}"
        )
    affine = _validate.boolean(affine, "affine")
    _validate.fits(
        source.shape[1] * target.shape[1] + source.size + target.size,
        8,
        "source and target",
    )
    source, target = source.astype(np.float64), target.astype(np.float64)
    # Powers of two bring both arrays to magnitudes near 1 without rounding.
    e_source = int(np.frexp(np.max(np.abs(source)))[1])
    e_target = int(np.frexp(np.max(np.abs(target)))[1])
    s, t = np.ldexp(source, -e_source), np.ldexp(target, -e_target)
    design = np.hstack([s, np.ones((len(s), 1))]) if affine else s
    solution, *_ = np.linalg.lstsq(design, t, rcond=None)
    error = design @ solution - t
    error_norms, target_norms = np.linalg.norm(error, axis=0), np.linalg.norm(t, axis=0)
    columns = np.where(
        target_norms > 0,
        error_norms / np.where(target_norms > 0, target_norms, 1),
        error_norms,
    )
    total = float(np.linalg.norm(t))
    residual = (
        float(np.linalg.norm(error) / total)
        if total > 0
        else float(np.linalg.norm(error))
    )
    with _validate.arithmetic("source and target", "the fitted map has entries"):
        matrix = np.ldexp(solution[: source.shape[1]].T, e_target - e_source)
        offset = (
            np.ldexp(solution[-1], e_target) if affine else np.zeros(target.shape[1])
        )
    if not (np.all(np.isfinite(matrix)) and np.all(np.isfinite(offset))):
        raise ValueError(
            "source and target: the fitted map has entries "
            "beyond the floating-point range"
        )
    return LinearFit(matrix, offset, residual, columns)
