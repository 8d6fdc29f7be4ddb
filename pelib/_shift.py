"""The linear shift of the sinusoidal encoding: PE(t + phi) = T(phi) PE(t).

Each (sin, cos) pair of a row is a point on the unit circle; moving the position by phi
turns it by w_i phi (clockwise, read in (sin, cos) coordinates). ``shift`` does that in
one pass; ``shift_loop``, ``shift_matmul``, ``shift_packed`` and ``shift_swap`` are the
four ways of writing the same map that chapter 3 compares.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _validate
from ._encoding import _angular_frequencies, _split_multiply

_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _even_width(d_model: int, name: str) -> None:
    if d_model % 2:
        raise ValueError(
            f"{name} must be even to shift, got {d_model}: "
            "with an odd width the last column is a "
            "lone sine with no cosine partner to rotate with"
        )


def _prepare(pe: ArrayLike, phi: float, base: float) -> tuple[np.ndarray, np.ndarray]:
    """Validate the arguments; return the rows as a float array and the angles w_i *
    phi."""
    pe = _validate.float_array(pe, "pe")
    if pe.ndim == 0 or pe.shape[-1] == 0:
        raise ValueError(
            f"pe must have shape (..., d_model) with d_model >= 2, got shape {pe.shape}"
        )
    _even_width(pe.shape[-1], "the last axis of pe (d_model)")
    return pe, _angles(phi, pe.shape[-1], base)


def _angles(phi: float, d_model: int, base: float) -> np.ndarray:
    """The rotation angles w_i * phi of a shift by ``phi`` at an even width
    ``d_model``."""
    d_model = _validate.size(d_model, "d_model", minimum=2)
    _even_width(d_model, "d_model")
    _validate.fits(d_model, 8, "d_model")
    phi = _validate.real(phi, "phi")
    base = _validate.real(base, "base", positive=True)
    with _validate.arithmetic("phi and base", "the angles phi * w are"):
        return phi * _angular_frequencies(d_model, base, np.float64)


def shift_matrix(phi: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    r"""The block-diagonal matrix :math:`T(\phi)` with :math:`T(\phi)\,PE(t) = PE(t +
    \phi)`.

    Block :math:`i` is the rotation acting on the pair
    :math:`(\sin \omega_i t, \cos \omega_i t)`,

    .. math:: M(i, \phi) = \begin{pmatrix} \cos \omega_i\phi & \sin \omega_i\phi \\
              -\sin \omega_i\phi & \cos \omega_i\phi \end{pmatrix},

    for the interleaved layout of :func:`sinusoidal`. :math:`T(\phi)` is
    orthogonal, has determinant 1, and :math:`T(a)\,T(b) = T(a + b)`.
    Chapter 3 (:doc:`/notebooks/03_shift_property`) proves it.

    Parameters
    ----------
    phi : float
        The offset, any finite real number (negative and fractional too).
    d_model : int
        Width of the encoding, even and at least 2.
    base : float, default 10000.0
        The constant of the paper, finite and positive.

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(d_model, d_model)``.

    Raises
    ------
    ValueError
        If ``d_model`` is odd: a lone sine column has no partner to rotate with.

    Examples
    --------
    >>> import pelib
    >>> t = shift_matrix(0.5, 4)
    >>> row = pelib.sinusoidal(1, 4, start=1)[0]
    >>> later = pelib.sinusoidal(1, 4, start=1.5)[0]
    >>> bool(np.allclose(t @ row, later))
    True
    """
    theta = _angles(phi, d_model, base)
    _validate.fits(len(theta) ** 2 * 4, 8, "d_model")
    return _block_matrix(theta)


def _block_matrix(theta: np.ndarray) -> np.ndarray:
    cos, sin = np.cos(theta), np.sin(theta)
    d_model = 2 * len(theta)
    matrix = np.zeros((d_model, d_model))
    k = np.arange(len(theta))
    matrix[2 * k, 2 * k], matrix[2 * k, 2 * k + 1] = cos, sin
    matrix[2 * k + 1, 2 * k], matrix[2 * k + 1, 2 * k + 1] = -sin, cos
    return matrix


def shift(pe: ArrayLike, phi: float, base: float = 10000.0) -> np.ndarray:
    r"""Rows of an interleaved encoding moved by ``phi`` positions: ``PE(t) -> PE(t +
    phi)``.

    Equivalent to ``pe @ shift_matrix(phi, d_model, base).T`` but in one
    pass over the data: each (sin, cos) pair is read as one complex number
    :math:`s + ic = i e^{-i\omega t}` and multiplied by :math:`e^{-i\omega\phi}`.
    Chapter 3 (:doc:`/notebooks/03_shift_property`) derives it and compares
    it with the four approaches :func:`shift_loop`, :func:`shift_matmul`,
    :func:`shift_packed` and :func:`shift_swap`.

    Parameters
    ----------
    pe : array_like
        Rows of shape ``(..., d_model)`` in the interleaved layout, ``d_model``
        even. Any leading (batch) axes are kept.
    phi : float
        The offset, any finite real number (negative and fractional too).
    base : float, default 10000.0
        The constant the rows were made with.

    Returns
    -------
    numpy.ndarray
        A new array of the shape of ``pe``; its type is that of ``pe``
        (float64 for integer input).

    Raises
    ------
    TypeError
        If ``pe`` is not a real array, or ``phi``/``base`` not real numbers.
    ValueError
        If ``d_model`` (the last axis) is odd or zero, ``phi`` is not finite or
        ``base`` is not finite and positive.

    Examples
    --------
    >>> import pelib
    >>> shifted = shift(pelib.sinusoidal(3, 8), 100)
    >>> bool(np.allclose(shifted, pelib.sinusoidal(3, 8, start=100)))
    True
    """
    pe, theta = _prepare(pe, phi, base)
    complex_type = _COMPLEX.get(pe.dtype)
    if complex_type is None:  # float16 and long double have no matching complex view
        return shift_swap(pe, phi, base)
    pe = np.ascontiguousarray(pe)
    out = np.empty_like(pe)
    factor = np.exp(-1j * theta).astype(complex_type)
    with _validate.arithmetic("pe", "the shifted values are"):
        _split_multiply(pe.view(complex_type), factor, out.view(complex_type))
    return out


def shift_loop(pe: ArrayLike, phi: float, base: float = 10000.0) -> np.ndarray:
    """Approach 1: a 2 x 2 rotation per pair, in Python loops over rows and pairs.

    The literal reading of the pairwise formula, and the slowest:
    O(n d) Python-level steps. Same arguments and result as :func:`shift`.
    Chapter 3 (:doc:`/notebooks/03_shift_property`).
    """
    pe, theta = _prepare(pe, phi, base)
    out = np.empty_like(pe)
    with _validate.arithmetic("pe", "the shifted values are"):
        for index in np.ndindex(pe.shape[:-1]):
            row = pe[index]
            for i, angle in enumerate(theta):
                rotation = np.array(
                    [[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]]
                )
                out[index][2 * i : 2 * i + 2] = rotation @ row[2 * i : 2 * i + 2]
    return out


def shift_matmul(pe: ArrayLike, phi: float, base: float = 10000.0) -> np.ndarray:
    """Approach 2: multiply every row by the d x d block-diagonal matrix T(phi).

    O(n d^2) work, almost all of it multiplying zeros. Same arguments and
    result as :func:`shift`. Chapter 3 (:doc:`/notebooks/03_shift_property`).
    """
    pe, theta = _prepare(pe, phi, base)
    _validate.fits(len(theta) ** 2 * 4, 8, "pe")
    with _validate.arithmetic("pe", "the shifted values are"):
        return pe @ _block_matrix(theta).astype(pe.dtype, copy=False).T


def packed_matrices(
    phi: float, d_model: int, base: float = 10000.0
) -> tuple[np.ndarray, np.ndarray]:
    r"""The two 2 x d/2 matrices of approach 3: ``M1 = [cos; sin]`` and ``M2 = [-sin;
    cos]`` of w_i phi.

    With a row packed as ``f = [sines; cosines]`` (shape 2 x d/2), the shifted
    sines are ``(M1 * f).sum(axis=0)`` and the shifted cosines
    ``(M2 * f).sum(axis=0)``. Chapter 3 (:doc:`/notebooks/03_shift_property`).

    Returns
    -------
    tuple of numpy.ndarray
        ``(M1, M2)``, each float64 of shape ``(2, d_model // 2)``.
    """
    return _packed(_angles(phi, d_model, base))


def _packed(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.stack([np.cos(theta), np.sin(theta)]), np.stack(
        [-np.sin(theta), np.cos(theta)]
    )


def shift_packed(pe: ArrayLike, phi: float, base: float = 10000.0) -> np.ndarray:
    """Approach 3: pack each row as a 2 x d/2 array and combine it with two 2 x d/2
    matrices.

    ``M1 = [cos; sin]`` gives the new sines and ``M2 = [-sin; cos]`` the new
    cosines (see :func:`packed_matrices`), by element-wise products summed
    over the two rows. O(n d). Same arguments and result as :func:`shift`.
    Chapter 3 (:doc:`/notebooks/03_shift_property`).
    """
    pe, theta = _prepare(pe, phi, base)
    m1, m2 = (m.astype(pe.dtype, copy=False) for m in _packed(theta))
    packed = np.stack([pe[..., 0::2], pe[..., 1::2]], axis=-2)  # (..., 2, d/2)
    out = np.empty_like(pe)
    with _validate.arithmetic("pe", "the shifted values are"):
        out[..., 0::2] = (m1 * packed).sum(axis=-2)
        out[..., 1::2] = (m2 * packed).sum(axis=-2)
    return out


def swap_vectors(
    phi: float, d_model: int, base: float = 10000.0
) -> tuple[np.ndarray, np.ndarray]:
    """The vectors ``a`` and ``b`` of approach 4, with ``PE(t + phi) = a * PE(t) + b *
    swapped``.

    ``a = [cos w_0 phi, cos w_0 phi, cos w_1 phi, ...]`` and
    ``b = [sin w_0 phi, -sin w_0 phi, sin w_1 phi, ...]``; ``swapped`` is the
    row with its even and odd entries exchanged.
    Chapter 3 (:doc:`/notebooks/03_shift_property`).

    Returns
    -------
    tuple of numpy.ndarray
        ``(a, b)``, each float64 of shape ``(d_model,)``.
    """
    return _swap(_angles(phi, d_model, base))


def _swap(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    b = np.empty(2 * len(theta))
    b[0::2], b[1::2] = np.sin(theta), -np.sin(theta)
    return np.repeat(np.cos(theta), 2), b


def shift_swap(pe: ArrayLike, phi: float, base: float = 10000.0) -> np.ndarray:
    """Approach 4: ``a * pe + b * swapped``, with the even and odd entries of each row
    swapped.

    The vectors ``a`` and ``b`` come from :func:`swap_vectors`. O(n d), no
    matrix. Same arguments and result as :func:`shift`.
    Chapter 3 (:doc:`/notebooks/03_shift_property`).
    """
    pe, theta = _prepare(pe, phi, base)
    a, b = (v.astype(pe.dtype, copy=False) for v in _swap(theta))
    swapped = np.empty_like(pe)
    swapped[..., 0::2], swapped[..., 1::2] = pe[..., 1::2], pe[..., 0::2]
    with _validate.arithmetic("pe", "the shifted values are"):
        return a * pe + b * swapped
