"""Rotary position embedding (RoPE, Su et al. 2021): the shift property applied to queries and keys."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _validate
from ._encoding import _angular_frequencies

ROPE_LAYOUTS = ("half", "interleaved")


def apply_rope(x: ArrayLike, positions: ArrayLike, *, base: float = 10000.0, layout: str = "half") -> np.ndarray:
    r"""Rotate the pairs of ``x`` by position times frequency: rotary position embedding.

    For the row of position :math:`p` and pair :math:`i` with entries
    :math:`(a, b)`, the result is the counter-clockwise rotation by
    :math:`p\,\omega_i`, with the paper's frequencies
    :math:`\omega_i = \text{base}^{-2i/d}`:

    .. math:: (a, b) \mapsto (a \cos p\omega_i - b \sin p\omega_i,\;
              a \sin p\omega_i + b \cos p\omega_i).

    Chapter 6 (:doc:`/notebooks/06_rope`) derives it from the shift property
    and checks what it preserves.

    Parameters
    ----------
    x : array_like
        Real array of shape ``(..., n, d)``, ``d`` even: ``n`` rows (tokens)
        of width ``d``, with any leading axes. ``d`` is the width of one
        attention head (``head_dim``), not ``d_model``: each head is rotated
        on its own.
    positions : array_like
        The position of each of the ``n`` rows: shape ``(n,)``, or any shape
        that broadcasts to ``x.shape[:-1]`` without adding axes. Any finite
        real numbers.
    base : float, default 10000.0
        Finite and positive.
    layout : {"half", "interleaved"}, default "half"
        Which columns form a pair. ``"half"`` pairs column ``i`` with
        ``i + d/2`` (the ``rotate_half`` form of Llama in Hugging Face
        transformers); ``"interleaved"`` pairs ``2i`` with ``2i + 1`` (the
        RoFormer paper and Hugging Face's RoFormer).

    Returns
    -------
    numpy.ndarray
        Float array of the shape and type of ``x`` (float64 for integer ``x``).

    Raises
    ------
    TypeError
        If ``x`` or ``positions`` is not real, or ``layout`` is not a string.
    ValueError
        If ``d`` is odd or zero, a position is not finite, ``positions`` does
        not broadcast to ``x.shape[:-1]``, ``layout`` is unknown, or the
        angles or the rotated values overflow the floating-point range.

    Examples
    --------
    >>> apply_rope([[1.0, 0.0]], [np.pi / 2]).round(12) + 0.0
    array([[0., 1.]])
    """
    x = _validate.float_array(x, "x")
    if x.ndim < 2 or x.shape[-1] == 0:
        raise ValueError(f"x must have shape (..., n, d) with d >= 2, got shape {x.shape}")
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"the last axis of x (d) must be even to form pairs, got {d}")
    positions = _validate.real_array(positions, "positions")
    base = _validate.real(base, "base", positive=True)
    layout = _validate.choice(layout, "layout", ROPE_LAYOUTS)
    try:
        shape = np.broadcast_shapes(positions.shape, x.shape[:-1])
    except ValueError:
        raise ValueError(
            f"positions of shape {positions.shape} do not broadcast against x.shape[:-1] = {x.shape[:-1]}"
        ) from None
    if shape != x.shape[:-1]:
        raise ValueError(f"positions of shape {positions.shape} would add axes to x of shape {x.shape}")
    _validate.fits(x.size, 8, "x")
    omega = _angular_frequencies(d, base, np.float64)
    with _validate.arithmetic("positions and base", "the angles p * w are"):
        angles = np.multiply.outer(np.broadcast_to(positions, x.shape[:-1]), omega)
    cos, sin = np.cos(angles).astype(x.dtype, copy=False), np.sin(angles).astype(x.dtype, copy=False)
    first, second = (slice(0, d // 2), slice(d // 2, d)) if layout == "half" else (slice(0, d, 2), slice(1, d, 2))
    a, b = x[..., first], x[..., second]
    out = np.empty_like(x)
    with _validate.arithmetic("x", "the rotated values are"):
        out[..., first] = a * cos - b * sin
        out[..., second] = a * sin + b * cos
    return out


def rope_permutation(d: int) -> np.ndarray:
    """The column order ``p = [0, h, 1, h + 1, ...]`` (``h = d / 2``) that turns the "half" layout into "interleaved".

    ``apply_rope(x[..., p], pos, layout="interleaved") == apply_rope(x, pos, layout="half")[..., p]``:
    a vector laid out for the half layout, with its columns taken in the
    order ``p``, is the same vector laid out for the interleaved layout.
    The inverse order ``numpy.argsort(p) = [0, 2, 4, ..., 1, 3, 5, ...]``
    goes the other way, from interleaved to half. Converting the query and
    key weights of a checkpoint permutes the output rows *within each
    head* (``d`` is the head width): from Meta's interleaved Llama to
    Hugging Face's half layout with ``argsort(p)``, back with ``p``.
    Chapter 6 (:doc:`/notebooks/06_rope`) checks both directions on
    attention scores.

    Examples
    --------
    >>> rope_permutation(6)
    array([0, 3, 1, 4, 2, 5])
    >>> np.argsort(rope_permutation(6))
    array([0, 2, 4, 1, 3, 5])
    """
    d = _validate.size(d, "d", minimum=2)
    if d % 2:
        raise ValueError(f"d must be even to form pairs, got {d}")
    _validate.fits(d, 8, "d")
    h = d // 2
    return np.ravel(np.column_stack([np.arange(h), h + np.arange(h)]))
