"""Quantities derived from the encoding: distances, dot products, linear fits (chapters 4 and 5)."""

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
        raise ValueError(f"d_model must be even, got {d_model}: the closed forms sum over complete (sin, cos) pairs")
    base = _validate.real(base, "base", positive=True)
    offsets = _validate.real_array(offsets, "offsets")
    omega = _angular_frequencies(d_model, base, np.float64)
    flat = offsets.reshape(-1)
    out = np.empty(flat.shape)
    for begin in range(0, len(flat), _BLOCK):
        block = flat[begin : begin + _BLOCK]
        out[begin : begin + _BLOCK] = term(np.multiply.outer(block, omega)).sum(axis=-1)
    return out.reshape(offsets.shape)


def relative_dot(offsets: ArrayLike, d_model: int, base: float = 10000.0) -> np.ndarray:
    r"""The dot product :math:`PE(t) \cdot PE(t + k) = \sum_i \cos(\omega_i k)`, for each offset ``k``.

    It does not depend on ``t``. Chapter 4 (:doc:`/notebooks/04_wavelengths`)
    derives it, plots it and checks what is said about it.

    Parameters
    ----------
    offsets : array_like of real numbers
        The offsets :math:`k` (any shape, finite).
    d_model : int
        Even width of the encoding, at least 2.
    base : float, default 10000.0
        Finite and positive.

    Returns
    -------
    numpy.ndarray
        Float64 array of the shape of ``offsets``; ``d_model / 2`` at ``k = 0``.

    Examples
    --------
    >>> relative_dot([0, 1], 2)
    array([1.        , 0.54030231])
    """
    return _pair_sums(offsets, d_model, base, np.cos)


def offset_distance(offsets: ArrayLike, d_model: int, base: float = 10000.0) -> np.ndarray:
    r"""The distance :math:`\lVert PE(t + k) - PE(t) \rVert = \sqrt{\sum_i 4 \sin^2(\omega_i k / 2)}`.

    Equal to :math:`\sqrt{d - 2 \sum_i \cos(\omega_i k)}` (chapter 1) but
    written with half-angle sines, which keeps full relative accuracy for
    offsets whose rows nearly coincide. It does not depend on ``t``.
    Chapter 4 (:doc:`/notebooks/04_wavelengths`) uses it to find the closest
    two positions among many.

    Parameters
    ----------
    offsets : array_like of real numbers
        The offsets :math:`k` (any shape, finite).
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
    #: The offset ``b`` of an affine fit (zeros for a linear one), shape ``(d_target,)``.
    offset: np.ndarray
    #: ``||fit - target|| / ||target||`` over all entries.
    residual: float
    #: The same ratio for each target column, shape ``(d_target,)``.
    column_residuals: np.ndarray


def fit_linear_map(source: ArrayLike, target: ArrayLike, *, affine: bool = False) -> LinearFit:
    r"""The least-squares map with ``target[t] ~ M @ source[t] (+ b)`` for every row ``t``.

    Chapter 5 (:doc:`/notebooks/05_sin_only`) uses it to show that sine-only
    rows have no linear shift, while (sine, cosine) rows do.

    Parameters
    ----------
    source, target : array_like
        Real arrays of shapes ``(n, d_source)`` and ``(n, d_target)``, the
        same number of rows.
    affine : bool, default False
        Fit ``M @ s + b`` instead of ``M @ s``.

    Returns
    -------
    LinearFit
        The matrix, the offset, the overall relative residual and one relative
        residual per target column (``nan`` for an all-zero column).

    Examples
    --------
    >>> s = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> fit = fit_linear_map(s, s @ np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> fit.matrix.round(12) + 0.0, round(fit.residual, 12)
    (array([[0., 1.],
           [1., 0.]]), 0.0)
    """
    source = _validate.float_array(source, "source")
    target = _validate.float_array(target, "target")
    if source.ndim != 2 or target.ndim != 2 or len(source) != len(target):
        raise ValueError(
            "source and target must be 2-D arrays with the same number of rows, "
            f"got shapes {source.shape} and {target.shape}"
        )
    if not isinstance(affine, (bool, np.bool_)):
        raise TypeError(f"affine must be True or False, got {type(affine).__name__} {affine!r}")
    design = np.hstack([source, np.ones((len(source), 1))]) if affine else source
    solution, *_ = np.linalg.lstsq(design, target, rcond=None)
    fitted = design @ solution
    error = fitted - target
    with np.errstate(invalid="ignore", divide="ignore"):
        columns = np.linalg.norm(error, axis=0) / np.linalg.norm(target, axis=0)
    total = np.linalg.norm(target)
    residual = float(np.linalg.norm(error) / total) if total > 0 else float(np.linalg.norm(error))
    matrix = solution[: source.shape[1]].T
    offset = solution[-1] if affine else np.zeros(target.shape[1])
    return LinearFit(matrix, offset, residual, columns)
