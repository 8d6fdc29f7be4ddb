"""One attention head in NumPy: scores, softmax, a head built from the shift T(phi), and
a tiny trainer.

Chapter 6 (:doc:`/notebooks/06_attention`) asks whether attention can use the linear
shift of chapter 3, ``PE(t + phi) = T(phi) PE(t)``. This module holds what it needs:

- :func:`softmax`, :func:`scores` and :func:`head`: scaled dot-product attention for one
  head, with the book's row vectors (``q = x @ w_q``), optionally causal and optionally
  with rotary embeddings (:func:`pelib.apply_rope`) on queries and keys;
- :func:`relative_head`: the query and key weights, built from :math:`T(\\phi)` on
  chosen pairs, of a head whose position-only scores peak at the key ``offset``
  positions back;
- :func:`block_rotations`: how much of a learned bilinear form ``w_q @ w_k.T`` is a
  rotation in each pair, the only part of it that reads sinusoidal encodings relatively;
- :func:`copy_back`, :func:`previous_occurrence` and :func:`train`: two tasks that need
  relative position and a deterministic trainer (manual gradients, Adam) of one causal
  attention layer with sinusoidal, learned, rotary or no position information.

It needs NumPy only and is imported on its own: ``from pelib import attention``.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import _validate
from ._encoding import sinusoidal
from ._rope import apply_rope
from ._shift import _angles

__all__ = [
    "ENCODINGS",
    "Batch",
    "BlockRotations",
    "Evaluation",
    "Forward",
    "Head",
    "Model",
    "Task",
    "block_rotations",
    "copy_back",
    "head",
    "previous_occurrence",
    "relative_head",
    "scores",
    "softmax",
    "train",
]

#: The position information :func:`train` knows: added sinusoidal table, added learned
#: table, rotary embeddings of queries and keys, and none.
ENCODINGS = ("sinusoidal", "learned", "rope", "none")

#: Adam's constants in :func:`train` (Kingma and Ba's defaults).
_BETA1, _BETA2, _EPSILON = 0.9, 0.999, 1e-8
#: Bounds that keep a call of the trainer or a task within seconds and memory.
_MAX_WIDTH = 1024
_MAX_LENGTH = 1 << 14
_MAX_STEPS = 100_000
_MAX_VOCAB = 4096


# --- argument checks of this module ---------------------------------------------------


def _matrix(value: Any, name: str) -> np.ndarray:
    array = _validate.float_array(value, name, ndim=2)
    if 0 in array.shape:
        raise ValueError(
            f"{name} must be a 2-D array with at least one row and one column, got "
            f"shape {array.shape}"
        )
    return array


def _token_array(value: Any, name: str, vocab: int) -> np.ndarray:
    """``value`` as a 2-D int64 array of token ids in [0, vocab)."""
    accepted = f"{name} must be a 2-D array of integer token ids in [0, {vocab})"
    array = _validate.as_array(value, accepted, "not a rectangular array")
    if array.dtype.kind not in "iu":
        raise TypeError(f"{accepted}, got an array of dtype {array.dtype}")
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(
            f"{accepted} of shape (batch, length), both at least 1, got shape "
            f"{array.shape}"
        )
    if array.min() < 0 or array.max() >= vocab:
        raise ValueError(f"{accepted}, got values from {array.min()} to {array.max()}")
    return array.astype(np.int64)


def _scale(scale: Any, d_k: int) -> float:
    if scale is None:
        return 1.0 / math.sqrt(d_k)
    return _validate.real(scale, "scale", positive=True)


# --- attention ------------------------------------------------------------------------


def softmax(x: ArrayLike, axis: int = -1) -> np.ndarray:
    r"""The softmax of ``x`` along ``axis``, computed stably: :math:`e^{x_j - \max x} /
    \sum e^{x - \max x}`.

    Subtracting the maximum first keeps every exponential in :math:`(0, 1]`, so no input
    overflows and the largest entry's exponential is exactly 1. Chapter 6
    (:doc:`/notebooks/06_attention`) uses it for attention weights.

    Parameters
    ----------
    x : array_like
        Finite real numbers, at least 1-D, with at least one entry along ``axis``.
    axis : int, default -1
        The axis whose entries sum to 1.

    Returns
    -------
    numpy.ndarray
        Non-negative floats of the shape and type of ``x`` (float64 for integers),
        summing to 1 along ``axis`` up to rounding.

    Raises
    ------
    TypeError
        If ``x`` is not an array of real numbers or ``axis`` not an integer.
    ValueError
        If ``x`` holds nan or infinity, is 0-D or empty along ``axis``, or ``axis`` is
        out of range.

    Examples
    --------
    >>> softmax([0.0, 0.0, math.log(2.0)])
    array([0.25, 0.25, 0.5 ])
    >>> softmax([1000.0, 0.0])       # no overflow
    array([1., 0.])
    """
    x = _validate.float_array(x, "x")
    if x.ndim == 0:
        raise ValueError("x must be at least 1-D, got a 0-D array")
    axis = _axis(axis, x.ndim)
    if x.shape[axis] == 0:
        raise ValueError(
            f"x must have at least one entry along axis {axis}, got shape {x.shape}"
        )
    return _softmax(x, axis)


def _axis(axis: Any, ndim: int) -> int:
    if _validate._is_bool(axis) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis must be an integer, got {_validate.describe(axis)}")
    if not -ndim <= int(axis) < ndim:
        raise ValueError(
            f"axis must be in [-{ndim}, {ndim - 1}] for an array of {ndim} axes, got "
            f"{_validate.describe(axis)}"
        )
    return int(axis) % ndim


def _softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Softmax of a validated array; entries of -inf (masked) get weight 0."""
    with np.errstate(
        over="ignore", invalid="ignore"
    ):  # x - max may fall below the float range: exp gives 0
        z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def scores(q: ArrayLike, k: ArrayLike, *, scale: float | None = None) -> np.ndarray:
    r"""Scaled dot-product scores :math:`s_{ts} = q_t \cdot k_s \cdot \text{scale}`, the
    paper's :math:`QK^\top/\sqrt{d_k}`.

    Rows are vectors, as in the paper: ``q`` holds one query per row and ``k`` one key
    per row. No mask is applied (a masked score would be :math:`-\infty`, which pelib
    never returns); :func:`head` applies the causal mask to the weights. Chapter 6
    (:doc:`/notebooks/06_attention`).

    Parameters
    ----------
    q : array_like
        Queries, shape ``(..., n, d_k)``, finite real numbers.
    k : array_like
        Keys, shape ``(..., m, d_k)``; the leading axes broadcast against those of
        ``q``.
    scale : float, optional
        Finite and positive; default :math:`1/\sqrt{d_k}`.

    Returns
    -------
    numpy.ndarray
        Float array of shape ``(..., n, m)``.

    Raises
    ------
    TypeError
        If ``q`` or ``k`` is not an array of real numbers or ``scale`` not a real
        number.
    ValueError
        If ``q`` or ``k`` has fewer than 2 axes or no columns, their widths differ,
        their leading axes do not broadcast, ``scale`` is not finite and positive, or a
        score overflows.

    Examples
    --------
    >>> scores([[1.0, 0.0], [0.0, 2.0]], [[3.0, 4.0]], scale=1.0)
    array([[3.],
           [8.]])
    """
    q, k = _vectors(q, "q"), _vectors(k, "k")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must have the same width d_k (last axis), got {q.shape[-1]} and "
            f"{k.shape[-1]}"
        )
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading axes of q {q.shape} and k {k.shape} do not broadcast"
        ) from None
    scale = _scale(scale, q.shape[-1])
    _validate.fits(
        math.prod(np.broadcast_shapes(q.shape[:-2], k.shape[:-2]))
        * q.shape[-2]
        * k.shape[-2],
        8,
        "q and k",
    )
    with _validate.arithmetic("q, k and scale", "the scores are"):
        return (q @ np.swapaxes(k, -1, -2)) * scale


def _vectors(value: Any, name: str) -> np.ndarray:
    array = _validate.float_array(value, name)
    if array.ndim < 2 or array.shape[-1] == 0:
        raise ValueError(
            f"{name} must have shape (..., n, d_k) with d_k >= 1, got shape "
            f"{array.shape}"
        )
    return array


class Head(NamedTuple):
    """What :func:`head` computes: ``scores`` (unmasked, scaled), ``weights`` (softmax,
    masked) and ``output``."""

    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray


def head(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike | None = None,
    *,
    positions: ArrayLike | None = None,
    rope: bool = False,
    base: float | None = None,
    frequencies: ArrayLike | None = None,
    causal: bool = False,
    scale: float | None = None,
) -> Head:
    r"""One attention head on the rows of ``x``: :math:`\mathrm{softmax}(QK^\top \cdot
    \text{scale})\,V`.

    With the paper's row vectors, :math:`Q = x W^Q`, :math:`K = x W^K`, :math:`V = x
    W^V` (section 3.2.2 of Vaswani et al. 2017; ``w_v=None`` means :math:`V = x`). With
    ``rope=True`` the rows of :math:`Q` and :math:`K` are first turned by
    :func:`pelib.apply_rope` (interleaved pairs) at ``positions``, so that a score
    depends on the positions only through their difference. With ``causal=True`` the
    query in row ``t`` sees the keys ``0 .. t`` only. Chapter 6
    (:doc:`/notebooks/06_attention`) builds heads by hand and checks them.

    Parameters
    ----------
    x : array_like
        Input rows, shape ``(..., n, d_model)``, finite real numbers.
    w_q, w_k : array_like
        Query and key weights, shape ``(d_model, d_k)`` each.
    w_v : array_like, optional
        Value weights, shape ``(d_model, d_v)``; default the identity (values are the
        rows of ``x``).
    positions : array_like, optional
        With ``rope`` only: the position of each row, shape ``(n,)``; default ``0 .. n -
        1``.
    rope : bool, default False
        Rotate queries and keys as rotary embeddings do; ``d_k`` must be even.
    base, frequencies : optional
        With ``rope`` only: passed to :func:`pelib.apply_rope` (default base 10000).
    causal : bool, default False
        Mask the keys after each query (``n`` queries and ``n`` keys, aligned at the
        start).
    scale : float, optional
        Finite and positive; default :math:`1/\sqrt{d_k}`.

    Returns
    -------
    Head
        ``scores`` of shape ``(..., n, n)`` (scaled, before the mask), ``weights`` of
        the same shape (each row sums to 1; exactly 0 on masked keys) and ``output`` of
        shape ``(..., n, d_v)``.

    Raises
    ------
    TypeError
        If an array is not real, ``rope`` or ``causal`` is not a bool, or ``scale`` not
        a real number.
    ValueError
        If the shapes do not fit together, ``positions``, ``base`` or ``frequencies`` is
        given without ``rope``, or a value overflows.

    Examples
    --------
    >>> x = np.eye(3)
    >>> h = head(x, np.eye(3) * 50, np.eye(3), causal=True)
    >>> h.weights.round(3)
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    x = _validate.float_array(x, "x")
    if x.ndim < 2 or 0 in x.shape[-2:]:
        raise ValueError(
            "x must have shape (..., n, d_model) with n, d_model >= 1, got shape "
            f"{x.shape}"
        )
    d_model = x.shape[-1]
    w_q, w_k = _matrix(w_q, "w_q"), _matrix(w_k, "w_k")
    _check_rows("w_q", w_q, d_model)
    _check_rows("w_k", w_k, d_model)
    if w_q.shape != w_k.shape:
        raise ValueError(
            f"w_q and w_k must have the same shape (d_model, d_k), got {w_q.shape} and "
            f"{w_k.shape}"
        )
    if w_v is not None:
        w_v = _matrix(w_v, "w_v")
        _check_rows("w_v", w_v, d_model)
    rope = _validate.boolean(rope, "rope")
    causal = _validate.boolean(causal, "causal")
    d_k = w_q.shape[1]
    rotary = _rotary(rope, d_k, positions, base, frequencies)
    scale = _scale(scale, d_k)
    n = x.shape[-2]
    _validate.fits(
        math.prod(x.shape[:-1])
        * max(n, d_k, 1 if w_v is None else w_v.shape[1], d_model),
        8,
        "x",
    )
    q, k = _queries_and_keys(x, w_q, w_k, rotary)
    with _validate.arithmetic("x, w_q, w_k and scale", "the scores are"):
        s = (q @ np.swapaxes(k, -1, -2)) * scale
    masked = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf) if causal else s
    weights = _softmax(masked)
    with _validate.arithmetic("x and w_v", "the values are"):
        values = x if w_v is None else x @ w_v
        return Head(s, weights, weights @ values)


def _check_rows(name: str, w: np.ndarray, d_model: int) -> None:
    """Refuse a weight matrix of :func:`head` whose rows do not match the width of
    x."""
    if w.shape[0] != d_model:
        raise ValueError(
            f"{name} must have d_model = {d_model} rows (the width of x), got shape "
            f"{w.shape}"
        )


class _Rotary(NamedTuple):
    """How :func:`head` turns queries and keys: :func:`pelib.apply_rope`'s positions
    (None: the row indices), base and frequencies."""

    positions: ArrayLike | None
    base: float | None
    frequencies: ArrayLike | None


def _rotary(
    rope: bool,
    d_k: int,
    positions: ArrayLike | None,
    base: float | None,
    frequencies: ArrayLike | None,
) -> _Rotary | None:
    """The rotation of queries and keys that :func:`head`'s arguments ask for (None
    without ``rope``); rotary options without ``rope``, or an odd ``d_k`` with it, are
    refused."""
    if not rope:
        for name, value in (
            ("positions", positions),
            ("base", base),
            ("frequencies", frequencies),
        ):
            if value is not None:
                raise ValueError(
                    f"{name} is used only with rope=True; got {name} and rope=False"
                )
        return None
    if d_k % 2:
        raise ValueError(
            f"w_q and w_k must have an even number of columns (d_k) for rope, got {d_k}"
        )
    return _Rotary(positions, base, frequencies)


def _queries_and_keys(
    x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, rotary: _Rotary | None
) -> tuple[np.ndarray, np.ndarray]:
    """The queries ``x @ w_q`` and keys ``x @ w_k``, each turned by ``rotary`` if
    given."""
    with _validate.arithmetic("x, w_q and w_k", "the queries and keys are"):
        q, k = x @ w_q, x @ w_k
    if rotary is None:
        return q, k
    positions = rotary.positions
    if positions is None:
        positions = np.arange(x.shape[-2], dtype=np.float64)
    return tuple(
        apply_rope(
            vectors,
            positions,
            base=rotary.base,
            layout="interleaved",
            frequencies=rotary.frequencies,
        )
        for vectors in (q, k)
    )


# --- a head built from the shift ------------------------------------------------------


def relative_head(
    d_model: int,
    offset: float,
    *,
    pairs: ArrayLike | None = None,
    sharpness: float = 10.0,
    base: float = 10000.0,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Query and key weights of a head whose position-only scores peak ``offset``
    positions back.

    With :math:`J` the :math:`d_\text{model} \times d_k` matrix that picks the columns
    :math:`2i, 2i + 1` of the chosen pairs :math:`i \in S` (:math:`d_k = 2|S|`), the
    weights are

    .. math:: W^K = J, \qquad W^Q = c\,T(\phi)\,J,
              \qquad c = \text{sharpness}\,\sqrt{d_k}/|S|,

    with :math:`\phi` = ``offset`` and :math:`T(\phi)` the shift of chapter 3
    (:func:`pelib.shift_matrix`). Since :math:`PE(t)^\top T(\phi) = PE(t - \phi)^\top`,
    the score of :func:`scores` (scale :math:`1/\sqrt{d_k}`) of the encodings of
    positions :math:`t` and :math:`s` alone is

    .. math:: \text{sharpness} \cdot \frac{1}{|S|}
              \sum_{i \in S} \cos\bigl(\omega_i (t - \phi - s)\bigr):

    exactly ``sharpness`` at the key :math:`s = t - \phi` and less wherever some chosen
    pair tells :math:`s` from :math:`t - \phi`. A head of width :math:`d_k` holds at
    most :math:`d_k / 2` pairs this way. Chapter 6 (:doc:`/notebooks/06_attention`)
    builds it, measures how sharp it is and adds token embeddings to its input.

    Parameters
    ----------
    d_model : int
        Width of the (interleaved) encoding, even and at least 2.
    offset : float
        How many positions back the head looks; any finite real number (negative looks
        ahead).
    pairs : array_like of int, optional
        The pairs :math:`S` the head holds: distinct indices in ``[0, d_model / 2)``, in
        the order of the head's columns. Default: all pairs (:math:`d_k =
        d_\text{model}`).
    sharpness : float, default 10.0
        The score at the target key, finite and positive.
    base : float, default 10000.0
        The base of the encoding, finite and positive.

    Returns
    -------
    tuple of numpy.ndarray
        ``(w_q, w_k)``, float64 arrays of shape ``(d_model, 2 * len(pairs))``.

    Raises
    ------
    TypeError
        If an argument is of the wrong kind (``pairs`` must hold integers).
    ValueError
        If ``d_model`` is odd or below 2, ``pairs`` is empty, repeats a pair or names
        one outside ``[0, d_model / 2)``, or a number is out of range.

    Examples
    --------
    >>> import pelib
    >>> w_q, w_k = relative_head(8, 2, pairs=[0, 1], sharpness=1.0)
    >>> pe = pelib.sinusoidal(6, 8)
    >>> s = scores(pe @ w_q, pe @ w_k)
    >>> int(s[5].argmax()), float(s[5, 3].round(12))
    (3, 1.0)
    """
    offset = _validate.real(offset, "offset")
    theta = _angles(offset, d_model, base)  # validates d_model (even, >= 2) and base
    d_model = len(theta) * 2
    chosen = _pairs(pairs, d_model)
    sharpness = _validate.real(sharpness, "sharpness", positive=True)
    d_k = 2 * len(chosen)
    _validate.fits(d_model * d_k, 8, "d_model and pairs")
    c = sharpness * math.sqrt(d_k) / len(chosen)
    if not math.isfinite(c):
        raise ValueError(
            "sharpness: the weights sharpness * sqrt(d_k) / len(pairs) are beyond the "
            f"floating-point range, got sharpness={sharpness!r}"
        )
    cos, sin = c * np.cos(theta[chosen]), c * np.sin(theta[chosen])
    w_q, w_k = np.zeros((d_model, d_k)), np.zeros((d_model, d_k))
    rows, cols = 2 * chosen, 2 * np.arange(len(chosen))
    w_k[rows, cols], w_k[rows + 1, cols + 1] = 1.0, 1.0
    # block i of T(phi) (pelib.shift_matrix) is [[cos, sin], [-sin, cos]] of w_i phi
    w_q[rows, cols], w_q[rows, cols + 1] = cos, sin
    w_q[rows + 1, cols], w_q[rows + 1, cols + 1] = -sin, cos
    return w_q, w_k


def _pairs(pairs: Any, d_model: int) -> np.ndarray:
    half = d_model // 2
    if pairs is None:
        return np.arange(half)
    accepted = (
        f"pairs must be a 1-D array of distinct integers in [0, d_model / 2 = {half}) "
        "(pair indices)"
    )
    array = _validate.as_array(
        pairs, accepted, "not a rectangular array"
    )  # None was handled above
    if array.dtype.kind not in "iu":
        raise TypeError(f"{accepted}, got an array of dtype {array.dtype}")
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{accepted}, at least one, got shape {array.shape}")
    if array.min() < 0 or array.max() >= half or len(np.unique(array)) != array.size:
        raise ValueError(
            f"{accepted}, got {array.tolist()[:8]}{' ...' if array.size > 8 else ''}"
        )
    return array.astype(np.int64)


class BlockRotations(NamedTuple):
    """The rotation part of each diagonal 2 x 2 block of a matrix (see
    :func:`block_rotations`)."""

    amplitudes: np.ndarray
    angles: np.ndarray
    share: float


def block_rotations(matrix: ArrayLike) -> BlockRotations:
    r"""How much of a bilinear form on interleaved (sin, cos) pairs reads positions
    relatively.

    For a :math:`d \times d` matrix :math:`M` (such as a head's :math:`W^Q (W^K)^\top`)
    and the interleaved encoding, the position-only score :math:`PE(t)^\top M\,PE(s)` is
    a sum over the 2 x 2 blocks :math:`B_{ij}` (rows of pair :math:`i`, columns of pair
    :math:`j`). Writing :math:`B_{ii} = \begin{pmatrix} a & b \\ c & e \end{pmatrix}`,

    .. math::

       \begin{aligned}
       (\sin\alpha, \cos\alpha)\,B_{ii}\,(\sin\beta, \cos\beta)^\top
       &= \rho_i \cos(\alpha - \beta - \theta_i) \\
       &\quad + \tfrac{e - a}{2}\cos(\alpha + \beta)
       + \tfrac{b + c}{2}\sin(\alpha + \beta),
       \end{aligned}

    with :math:`\rho_i\cos\theta_i = (a + e)/2` and :math:`\rho_i\sin\theta_i = (b -
    c)/2`. With :math:`\alpha = \omega_i t`, :math:`\beta = \omega_i s`, only the first
    term depends on :math:`t - s` alone; the other terms, and every off-diagonal block,
    depend on where the two positions are. The rotation parts :math:`\rho_i
    \bigl(\begin{smallmatrix} \cos\theta_i & \sin\theta_i \\ -\sin\theta_i &
    \cos\theta_i \end{smallmatrix}\bigr)` are orthogonal (in the Frobenius inner
    product) to everything else in :math:`M`, so ``share`` :math:`= \sum_i 2\rho_i^2 /
    \lVert M \rVert_F^2` is the fraction of :math:`\lVert M \rVert_F^2` that reads
    positions relatively. For the head of :func:`relative_head`, :math:`\theta_i =
    \omega_i\phi` on the chosen pairs and the share is 1. Chapter 6
    (:doc:`/notebooks/06_attention`) applies it to learned heads.

    Parameters
    ----------
    matrix : array_like
        A square matrix of finite real numbers with an even number of rows, at least 2.

    Returns
    -------
    BlockRotations
        ``amplitudes`` :math:`\rho_i \ge 0` and ``angles`` :math:`\theta_i \in (-\pi,
        \pi]` (float64, one per pair; the angle of a zero block is 0), and ``share`` in
        [0, 1] (0 for the zero matrix).

    Raises
    ------
    TypeError
        If ``matrix`` is not an array of real numbers.
    ValueError
        If it is not square with an even number (at least 2) of rows, holds nan or
        infinity, or an amplitude is beyond the floating-point range (possible for
        entries above about 1.2e308).

    Examples
    --------
    >>> r = block_rotations([[0.0, 2.0], [-2.0, 0.0]])
    >>> float(r.amplitudes[0]), float(r.angles[0]), r.share
    (2.0, 1.5707963267948966, 1.0)
    """
    m = _validate.float_array(matrix, "matrix", ndim=2).astype(np.float64)
    if m.shape[0] != m.shape[1] or m.shape[0] % 2 or m.shape[0] == 0:
        raise ValueError(
            "matrix must be square with an even number of rows (at least 2), got "
            f"shape {m.shape}"
        )
    largest = float(np.abs(m).max())
    if largest == 0.0:
        half = m.shape[0] // 2
        return BlockRotations(np.zeros(half), np.zeros(half), 0.0)
    unit = m / largest  # scale-free: squares of entries near 1e308 would overflow
    a, b = np.diagonal(unit)[0::2], np.diagonal(unit, 1)[0::2]
    c, e = np.diagonal(unit, -1)[0::2], np.diagonal(unit)[1::2]
    cos_part, sin_part = (a + e) / 2, (b - c) / 2
    amplitudes = np.hypot(cos_part, sin_part)
    angles = np.arctan2(sin_part, cos_part)
    share = float(2 * np.sum(amplitudes**2) / np.sum(unit**2))
    with _validate.arithmetic(
        "matrix", "the rotation amplitudes are"
    ):  # up to sqrt(2) times the largest entry
        amplitudes = amplitudes * largest
    return BlockRotations(amplitudes, angles, min(share, 1.0))


# --- tasks ----------------------------------------------------------------------------


class Batch(NamedTuple):
    """A batch of a task: ``tokens`` (batch, length), the ``targets`` to predict at each
    position, the position of the key holding the answer (``sources``, -1 where there is
    none) and the ``mask`` of positions that count (those with a source)."""

    tokens: np.ndarray
    targets: np.ndarray
    sources: np.ndarray
    mask: np.ndarray


class Task(NamedTuple):
    """A task of :func:`copy_back` or :func:`previous_occurrence`: token ids in ``[0,
    vocab)``, answers in ``[0, outputs)``."""

    name: str
    vocab: int
    outputs: int
    lag: int
    keys: int
    values: int

    def sample(self, batch: int, length: int, seed: int = 0) -> Batch:
        """``batch`` random sequences of ``length`` tokens, their targets and sources,
        from ``numpy.random.default_rng(seed)``.

        Parameters
        ----------
        batch : int
            Number of sequences, 1 to 4096.
        length : int
            Tokens per sequence, 1 to 16384.
        seed : int, default 0
            Any integer >= 0.

        Examples
        --------
        >>> copy_back(2).sample(1, 5, seed=3).sources
        array([[-1, -1,  0,  1,  2]])
        """
        _check_task(self)
        batch = _validate.size(batch, "batch", minimum=1, maximum=4096)
        length = _validate.size(length, "length", minimum=1, maximum=_MAX_LENGTH)
        seed = _validate.size(seed, "seed")
        _validate.fits(batch * length * max(self.keys, 4), 8, "batch and length")
        return _sample(self, np.random.default_rng(seed), batch, length)


def _check_task(task: Any) -> Task:
    if not isinstance(task, Task):
        raise TypeError(
            "task must be a Task (from copy_back or previous_occurrence), got "
            f"{_validate.describe(task)}"
        )
    if task.name == "copy_back":
        rebuilt = copy_back(task.lag, vocab=task.vocab)
    elif task.name == "previous_occurrence":
        rebuilt = previous_occurrence(keys=task.keys, values=task.values)
    else:
        raise ValueError(
            "task must be a Task of copy_back or previous_occurrence, got name "
            f"{task.name!r}"
        )
    if rebuilt != task:
        raise ValueError(
            f"task is inconsistent: {task!r} is not what its constructor makes, "
            f"{rebuilt!r}"
        )
    return task


def copy_back(lag: int, *, vocab: int = 16) -> Task:
    """The task of predicting, at position ``t``, the token at ``t - lag``.

    Tokens are uniform on ``[0, vocab)``; positions ``t < lag`` have no answer and do
    not count. One attention head solves it by attending exactly ``lag`` positions back,
    and only position tells that key from the others. Chapter 6
    (:doc:`/notebooks/06_attention`).

    Parameters
    ----------
    lag : int
        How far back to copy from, 1 to 16384.
    vocab : int, default 16
        Number of token ids, 2 to 4096.

    Returns
    -------
    Task

    Examples
    --------
    >>> b = copy_back(1, vocab=4).sample(1, 6, seed=0)
    >>> bool((b.targets[0, 1:] == b.tokens[0, :-1]).all())
    True
    """
    lag = _validate.size(lag, "lag", minimum=1, maximum=_MAX_LENGTH)
    vocab = _validate.size(vocab, "vocab", minimum=2, maximum=_MAX_VOCAB)
    return Task("copy_back", vocab, vocab, lag, 0, 0)


def previous_occurrence(*, keys: int = 4, values: int = 8) -> Task:
    """The task of recalling, at position ``t``, the value that came with the previous
    occurrence of ``t``'s key.

    Each token is a (key, value) pair, id ``key * values + value``, uniform over the
    ``keys * values`` ids. The answer at ``t`` is the value of the token at the largest
    ``s < t`` whose key equals that of ``t``; positions whose key has not occurred
    before do not count. One head solves it by matching keys (content) and preferring
    the most recent match (relative position): an earlier occurrence of the same key
    carries, in general, another value. Chapter 6 (:doc:`/notebooks/06_attention`).

    Parameters
    ----------
    keys : int, default 4
        Number of keys, 1 to 256.
    values : int, default 8
        Number of values (the answers), 2 to 256.

    Returns
    -------
    Task

    Examples
    --------
    >>> task = previous_occurrence(keys=2, values=3)
    >>> b = task.sample(1, 6, seed=1)
    >>> b.tokens // 3, b.sources
    (array([[0, 1, 1, 1, 0, 0]]), array([[-1, -1,  1,  2,  0,  4]]))
    """
    keys = _validate.size(keys, "keys", minimum=1, maximum=256)
    values = _validate.size(values, "values", minimum=2, maximum=256)
    return Task("previous_occurrence", keys * values, values, 0, keys, values)


def _sample(task: Task, rng: np.random.Generator, batch: int, length: int) -> Batch:
    tokens = rng.integers(0, task.vocab, size=(batch, length))
    positions = np.arange(length)
    if task.name == "copy_back":
        sources = np.broadcast_to(
            np.where(positions >= task.lag, positions - task.lag, -1), (batch, length)
        ).copy()
    else:
        keys = tokens // task.values
        # the latest position < t of each key: running maximum of the positions where it
        # occurs, moved by one
        seen = np.where(keys[..., None] == np.arange(task.keys), positions[:, None], -1)
        latest = np.maximum.accumulate(seen, axis=1)
        before = np.concatenate(
            [np.full((batch, 1, task.keys), -1), latest[:, :-1]], axis=1
        )
        sources = np.take_along_axis(before, keys[..., None], axis=2)[..., 0]
    mask = sources >= 0
    answers = np.take_along_axis(tokens, np.maximum(sources, 0), axis=1)
    targets = np.where(mask, answers % task.outputs, 0)
    return Batch(tokens, targets, sources, mask)


# --- one causal attention layer, its gradients and its training -----------------------


class Forward(NamedTuple):
    """What :meth:`Model.forward` computes: ``logits`` (batch, length, outputs) and
    attention ``weights`` (batch, length, length)."""

    logits: np.ndarray
    weights: np.ndarray


class Evaluation(NamedTuple):
    """What :meth:`Model.evaluate` measures over the counted queries: the fraction whose
    prediction is right (``accuracy``), the fraction whose largest attention weight is
    on the source key (``attention``), and how many queries were counted (``queries``).
    A win must beat every rival by more than 1e-9 x max(1, its size): a tie counts as a
    miss."""

    accuracy: float
    attention: float
    queries: int


class Model(NamedTuple):
    """One causal attention layer trained by :func:`train`: its task, encoding, base,
    parameters and loss history.

    :meth:`forward` and :meth:`evaluate` check the model first, so a hand-built one with
    an unknown encoding, non-finite parameters or shapes that do not fit is refused by
    name.
    """

    task: Task
    encoding: str
    base: float
    params: dict[str, np.ndarray]
    losses: np.ndarray

    def forward(self, tokens: ArrayLike) -> Forward:
        """Logits and attention weights of the layer on ``tokens`` (batch, length).

        ``length`` may exceed the training length; with the learned encoding it is at
        most the rows of its table (``max_length`` of :func:`train`), of which those
        beyond the training length were never trained and keep their random initial
        values.

        Raises
        ------
        TypeError
            If ``tokens`` is not an array of integers, or the model (when built by hand)
            has parameters that are not arrays of real numbers or an encoding that is
            not a string.
        ValueError
            If a token is outside ``[0, vocab)``, the length exceeds a learned table, or
            the model's encoding, base or parameters are not those of a layer of its
            task (unknown encoding, nan or infinity, shapes that do not fit), or an
            activation overflows.

        Examples
        --------
        >>> model = train(
        ...     copy_back(1, vocab=4), "rope", steps=2, d_model=4, batch=2, length=8
        ... )
        >>> model.forward([[0, 1, 2, 3]]).weights.shape
        (1, 4, 4)
        """
        params = _check_model(self)
        tokens = _token_array(tokens, "tokens", self.task.vocab)
        _check_length(params, self.encoding, tokens.shape[1], "tokens")
        _validate.fits(tokens.shape[0] * tokens.shape[1] ** 2 * 4, 8, "tokens")
        cache = _run(params, tokens, self.encoding, self.base)
        return Forward(cache["logits"], cache["weights"])

    def evaluate(
        self, length: int, *, seed: int = 0, batch: int = 4, start: int = 0
    ) -> Evaluation:
        """Accuracy on ``batch`` fresh sequences of ``length`` tokens
        (``Task.sample(batch, length, seed)``).

        Only queries at positions ``start`` or later that have an answer count. Chapter
        6 (:doc:`/notebooks/06_attention`) evaluates inside the training length and
        beyond it (``start`` = the training length).

        Raises
        ------
        TypeError, ValueError
            As :meth:`forward` for the model; ``ValueError`` also if ``length``,
            ``seed``, ``batch`` or ``start`` is out of range or no counted query has an
            answer.

        Examples
        --------
        >>> model = train(
        ...     copy_back(1, vocab=4), "none", steps=2, d_model=4, batch=2, length=8
        ... )
        >>> model.evaluate(8, start=4).queries
        16
        """
        params = _check_model(self)
        length = _validate.size(length, "length", minimum=1, maximum=_MAX_LENGTH)
        _check_length(params, self.encoding, length, "length")
        seed = _validate.size(seed, "seed")
        batch = _validate.size(batch, "batch", minimum=1, maximum=4096)
        start = _validate.size(start, "start")
        if start >= length:
            raise ValueError(
                f"start must be below length, got start={start} and length={length}"
            )
        _validate.fits(batch * length**2 * 4, 8, "batch and length")
        data = _sample(self.task, np.random.default_rng(seed), batch, length)
        counted = data.mask.copy()
        counted[:, :start] = False
        if not counted.any():
            raise ValueError(
                f"no query at or after start={start} has an answer in sequences of "
                f"length={length}"
            )
        cache = _run(params, data.tokens, self.encoding, self.base)
        right = _wins(cache["logits"], data.targets)
        attended = _wins(cache["weights"], data.sources)
        return Evaluation(
            float(right[counted].mean()),
            float(attended[counted].mean()),
            int(counted.sum()),
        )


def _wins(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Where ``values[..., index]`` beats every other entry of its row by more than 1e-9
    x max(1, its size).

    A tie is no win: without positions, keys that hold the same token get exactly equal
    weights, and ``argmax`` would credit the earliest of them, which measures its tie
    rule, not attention. The margin also keeps every count the same on every machine,
    whose rounding moves these values by far less (chapter 6).
    """
    index = np.where(index < 0, 0, index)[
        ..., None
    ]  # queries without an answer are not counted
    picked = np.take_along_axis(values, index, axis=-1)[..., 0]
    others = values.copy()
    np.put_along_axis(others, index, -np.inf, axis=-1)
    return picked - others.max(axis=-1) > 1e-9 * np.maximum(1.0, np.abs(picked))


def _check_length(
    params: dict[str, np.ndarray], encoding: str, length: int, name: str
) -> None:
    if encoding == "learned" and length > len(params["positions"]):
        raise ValueError(
            f"{name}: the learned encoding has {len(params['positions'])} rows, "
            f"fewer than the length {length}"
        )


def _check_model(model: Model) -> dict[str, np.ndarray]:
    """The parameters of ``model`` as float64 arrays, after checking that they make a
    layer of its task.

    A Model is a public NamedTuple, so one can be built by hand: its encoding, base and
    every parameter are checked here (kind, finiteness, and shapes that fit together and
    fit the task).
    """
    task = _check_task(model.task)
    encoding = _validate.choice(model.encoding, "model.encoding", ENCODINGS)
    base = _validate.real(model.base, "model.base", minimum=1.0)
    if base == 1.0:
        raise ValueError("model.base must be greater than 1, got 1.0")
    names = ["embedding", "w_q", "w_k", "w_v", "w_o"] + (
        ["positions"] if encoding == "learned" else []
    )
    if not isinstance(model.params, dict):
        raise TypeError(
            f"model.params must be a dict of the arrays {names}, got "
            f"{_validate.describe(model.params)}"
        )
    if sorted(model.params) != sorted(names):
        raise ValueError(
            f"model.params must hold exactly the arrays {names} for encoding "
            f"{encoding!r}, got {sorted(map(str, model.params))}"
        )
    params = {
        name: _matrix(model.params[name], f"model.params['{name}']").astype(np.float64)
        for name in names
    }
    d_model, d_k = params["w_q"].shape
    d_v = params["w_v"].shape[1]
    expected = {
        "embedding": (task.vocab, d_model),
        "w_k": (d_model, d_k),
        "w_v": (d_model, d_v),
        "w_o": (d_v, task.outputs),
        "positions": (len(params.get("positions", ())), d_model),
    }
    for name in names[:1] + names[2:]:
        if params[name].shape != expected[name]:
            raise ValueError(
                f"model.params['{name}'] must have shape {expected[name]} (vocab "
                f"{task.vocab}, d_model {d_model} and d_k {d_k} from w_q, d_v {d_v} "
                f"from w_v, {task.outputs} answers), got {params[name].shape}"
            )
    if encoding == "rope" and d_k % 2:
        raise ValueError(
            "model.params['w_q'] must have an even number of columns (d_k) for rope, "
            f"got {d_k}"
        )
    if encoding == "sinusoidal" and d_model % 2:
        raise ValueError(
            "model.params['w_q'] must have an even number of rows (d_model) for the "
            f"sinusoidal table, got {d_model}"
        )
    return params


def _run(
    params: dict[str, np.ndarray], tokens: np.ndarray, encoding: str, base: float
) -> dict[str, Any]:
    """:func:`_forward` on checked parameters, refusing activations beyond the
    floating-point range."""
    with _validate.arithmetic("model.params", "the layer's scores or outputs are"):
        return _forward(params, tokens, encoding, base)


def _init(
    task: Task, encoding: str, d_model: int, d_k: int, max_length: int, seed: int
) -> dict[str, np.ndarray]:
    """Initial parameters: the same for every encoding at the same seed (the learned
    table is drawn last)."""
    rng = np.random.default_rng([seed, 0])
    params = {
        # unit-variance entries: the paper's embedding times sqrt(d_model), for an
        # embedding of variance 1/d_model
        "embedding": rng.normal(0.0, 1.0, (task.vocab, d_model)),
        "w_q": rng.normal(0.0, d_model**-0.5, (d_model, d_k)),
        "w_k": rng.normal(0.0, d_model**-0.5, (d_model, d_k)),
        "w_v": rng.normal(0.0, d_model**-0.5, (d_model, d_k)),
        "w_o": rng.normal(0.0, d_k**-0.5, (d_k, task.outputs)),
    }
    if encoding == "learned":
        # variance 1/2, that of a sinusoidal entry averaged over positions
        params["positions"] = rng.normal(0.0, 0.5**0.5, (max_length, d_model))
    return params


class _Scratch:
    """Float64 arrays by name, kept from one training step to the next and overwritten
    in place.

    A step of :func:`train` (batch 16, length 64) makes some forty arrays of 128 KB to
    512 KB. Fresh arrays of that size come straight from the operating system, which
    maps and zeroes their pages again at every step; that took about half the time of a
    step. Reusing the same arrays (``out=`` in NumPy) keeps the memory mapped. A new
    ``_Scratch()`` allocates afresh, so one-off calls (``Model.forward``) need no care.
    """

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}

    def __call__(self, name: str, *shape: int) -> np.ndarray:
        array = self._arrays.get(name)
        if array is None or array.shape != shape:
            array = self._arrays[name] = np.empty(shape)
        return array


@functools.lru_cache(maxsize=16)
def _above_diagonal(n: int) -> np.ndarray:
    """The (n, n) mask of the keys a causal query may not see (s > t), read-only."""
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    mask.flags.writeable = False
    return mask


@functools.lru_cache(maxsize=16)
def _table(n: int, d_model: int, base: float) -> np.ndarray:
    """pelib.sinusoidal(n, d_model, base), built once per shape for all the steps that
    add it, read-only."""
    table = sinusoidal(n, d_model, base=base)
    table.flags.writeable = False
    return table


def _project(x: np.ndarray, w: np.ndarray, out: np.ndarray) -> np.ndarray:
    """x @ w for x of shape (batch, length, d), written into out.

    NumPy multiplies each sequence on its own; one (batch * length) x d product would go
    to a multithreaded BLAS call, which is slow on a busy machine for these small sizes.
    """
    return np.matmul(x, w, out=out)


def _forward(
    params: dict[str, np.ndarray],
    tokens: np.ndarray,
    encoding: str,
    base: float,
    scratch: _Scratch | None = None,
    offset: int = 0,
    rows: int = 0,
) -> dict[str, Any]:
    """The layer on validated tokens, keeping what the backward pass needs.

    x = E[tokens] (+ P), q = x W_Q, k = x W_K, v = x W_V (q, k rotated for rope),
    weights = causal softmax(q k^T / sqrt(d_k)), logits = weights v W_O. The tokens sit
    at positions ``offset .. offset + length - 1``: the rows of the tables (sinusoidal,
    learned, rotary angles) read there. ``rows`` (at least ``offset + length``) is the
    size of the sinusoidal and rotary tables built and cached for that, so that one
    table serves every offset of a training run; 0 means ``offset + length``. The arrays
    are those of ``scratch`` (new ones without it), overwritten at the next call.
    """
    buf = _Scratch() if scratch is None else scratch
    b, n = tokens.shape
    rows = max(rows, offset + n)
    d_model, d_k = params["w_q"].shape
    x = np.take(params["embedding"], tokens, axis=0, out=buf("x", b, n, d_model))
    if encoding == "sinusoidal":
        x += _table(rows, d_model, base)[offset : offset + n]
    elif encoding == "learned":
        x += params["positions"][offset : offset + n]
    q, k = (
        _project(x, params["w_q"], buf("q", b, n, d_k)),
        _project(x, params["w_k"], buf("k", b, n, d_k)),
    )
    v = _project(x, params["w_v"], buf("v", b, n, params["w_v"].shape[1]))
    turns = None
    if encoding == "rope":
        turns = tuple(table[offset : offset + n] for table in _turns(rows, d_k, base))
        q, k = (
            _rotate(q, *turns, out=buf("q_turned", b, n, d_k)),
            _rotate(k, *turns, out=buf("k_turned", b, n, d_k)),
        )
    # the causal softmax of the scores, in place: masked keys get -inf, whose
    # exponential is exactly 0
    weights = np.matmul(q, np.swapaxes(k, 1, 2), out=buf("weights", b, n, n))
    weights /= math.sqrt(d_k)
    np.copyto(weights, -np.inf, where=_above_diagonal(n))
    weights -= weights.max(axis=-1, keepdims=True)
    np.exp(weights, out=weights)
    weights /= weights.sum(axis=-1, keepdims=True)
    attended = np.matmul(weights, v, out=buf("attended", b, n, v.shape[2]))
    logits = _project(
        attended, params["w_o"], buf("logits", b, n, params["w_o"].shape[1])
    )
    return dict(
        x=x,
        q=q,
        k=k,
        v=v,
        weights=weights,
        attended=attended,
        logits=logits,
        turns=turns,
    )


@functools.lru_cache(maxsize=16)
def _turns(n: int, d_k: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of t * w_i (t = 0 .. n - 1, i = 0 .. d_k/2 - 1), read off
    pelib.apply_rope applied to (1, 0) pairs.

    The trainer rotates with these tables (``_rotate``) instead of calling apply_rope on
    every batch, which would evaluate the same angles once per sequence; they are built
    once per shape and read-only.
    """
    unit = np.zeros((n, d_k))
    unit[:, 0::2] = 1.0
    turned = apply_rope(
        unit, np.arange(n, dtype=np.float64), base=base, layout="interleaved"
    )
    cos, sin = turned[:, 0::2].copy(), turned[:, 1::2].copy()
    cos.flags.writeable, sin.flags.writeable = False, False
    return cos, sin


def _rotate(
    x: np.ndarray, cos: np.ndarray, sin: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """apply_rope's rotation of the interleaved pairs of x (..., n, d_k) by the angles
    whose cos and sin are given."""
    out = np.empty_like(x) if out is None else out
    a, b = x[..., 0::2], x[..., 1::2]
    out[..., 0::2], out[..., 1::2] = a * cos - b * sin, a * sin + b * cos
    return out


def _loss_and_gradients(
    params: dict[str, np.ndarray],
    batch: Batch,
    encoding: str,
    base: float,
    scratch: _Scratch | None = None,
    offset: int = 0,
    rows: int = 0,
) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy over the counted positions of ``batch`` and its gradient for
    every parameter.

    The backward pass written out: the softmax's Jacobian row by row, ds = w * (dw -
    sum(dw * w)); rotary embedding is orthogonal, so its backward is the rotation by
    minus the position; each embedding row collects the gradients of the tokens that
    read it. The gradients are new arrays; the intermediate ones are those of
    ``scratch``. ``offset`` and ``rows`` are those of :func:`_forward`.
    """
    buf = _Scratch() if scratch is None else scratch
    tokens = batch.tokens
    b, n = tokens.shape
    cache = _forward(params, tokens, encoding, base, buf, offset, rows)
    loss, d_logits = _cross_entropy(cache["logits"], batch.targets, batch.mask)
    d_model = params["w_q"].shape[0]
    grads = {"w_o": _outer_sum(cache["attended"], d_logits, buf)}
    d_attended = _project(
        d_logits, params["w_o"].T, buf("d_attended", b, n, cache["v"].shape[2])
    )
    d_q, d_k_, d_v = _attention_backward(cache, d_attended, encoding, buf)
    x = cache["x"]
    grads["w_q"], grads["w_k"], grads["w_v"] = (
        _outer_sum(x, d_q, buf),
        _outer_sum(x, d_k_, buf),
        _outer_sum(x, d_v, buf),
    )
    d_x = _project(d_q, params["w_q"].T, buf("d_x", b, n, d_model))
    d_x += _project(d_k_, params["w_k"].T, buf("d_x_part", b, n, d_model))
    d_x += _project(d_v, params["w_v"].T, buf("d_x_part", b, n, d_model))
    vocab = params["embedding"].shape[0]
    one_hot = buf("one_hot", b, n, vocab)
    np.equal(
        tokens[..., None], np.arange(vocab), out=one_hot, casting="unsafe"
    )  # 1.0 where token == row
    grads["embedding"] = _outer_sum(one_hot, d_x, buf)
    if encoding == "learned":
        grads["positions"] = np.zeros_like(params["positions"])
        grads["positions"][offset : offset + n] = d_x.sum(axis=0)
    return loss, grads


def _cross_entropy(
    logits: np.ndarray, targets: np.ndarray, mask: np.ndarray
) -> tuple[float, np.ndarray]:
    """The mean cross-entropy of the logits at the counted positions ``mask``, and its
    gradient with respect to the logits."""
    z = logits - logits.max(axis=-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    count = mask.sum()
    loss = float(
        -np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0][mask].sum()
        / count
    )
    d_logits = np.exp(log_p)  # softmax of the logits, minus 1 at the target
    np.put_along_axis(
        d_logits,
        targets[..., None],
        np.take_along_axis(d_logits, targets[..., None], -1) - 1,
        -1,
    )
    d_logits *= mask[..., None] / count
    return loss, d_logits


def _attention_backward(
    cache: dict[str, Any], d_attended: np.ndarray, encoding: str, buf: _Scratch
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gradients of the queries, keys and values (before rotation) from that of
    the attended values, through the causal softmax of :func:`_forward` (``cache``)."""
    weights, v = cache["weights"], cache["v"]
    b, n = weights.shape[:2]
    d_k = cache["q"].shape[2]
    d_v = np.matmul(
        np.swapaxes(weights, 1, 2), d_attended, out=buf("d_v", b, n, v.shape[2])
    )
    d_s = np.matmul(
        d_attended, np.swapaxes(v, 1, 2), out=buf("d_scores", b, n, n)
    )  # d loss / d weights, then:
    d_s -= np.multiply(d_s, weights, out=buf("product", b, n, n)).sum(
        axis=-1, keepdims=True
    )
    d_s *= weights  # d loss / d scores (0 on masked keys) ...
    d_s /= math.sqrt(d_k)  # ... and through the scale
    d_q = np.matmul(d_s, cache["k"], out=buf("d_q", b, n, d_k))
    d_k_ = np.matmul(np.swapaxes(d_s, 1, 2), cache["q"], out=buf("d_k", b, n, d_k))
    if encoding == "rope":
        # the transpose of a rotation turns back: the angles negated, sin changes sign
        cos, sin = cache["turns"]
        d_q = _rotate(d_q, cos, -sin, out=buf("d_q_turned", b, n, d_k))
        d_k_ = _rotate(d_k_, cos, -sin, out=buf("d_k_turned", b, n, d_k))
    return d_q, d_k_, d_v


def _outer_sum(a: np.ndarray, b: np.ndarray, scratch: _Scratch) -> np.ndarray:
    """sum over batch and positions of a[..., :, None] * b[..., None, :], as small
    per-sequence products.

    One (batch * length) x d product would go to a multithreaded BLAS call, which is
    slow on a busy machine for these small sizes; per-sequence products stay
    single-threaded.
    """
    products = scratch(
        f"outer {a.shape[2]} x {b.shape[2]}", a.shape[0], a.shape[2], b.shape[2]
    )  # one per shape
    return np.matmul(np.swapaxes(a, 1, 2), b, out=products).sum(axis=0)


def train(
    task: Task,
    encoding: str,
    *,
    steps: int = 200,
    seed: int = 0,
    d_model: int = 32,
    d_k: int | None = None,
    batch: int = 32,
    length: int = 64,
    learning_rate: float = 0.01,
    max_length: int = 1024,
    base: float = 10000.0,
    max_offset: int = 0,
) -> Model:
    r"""Train one causal attention layer on ``task``, deterministically, with Adam.

    The layer: token embeddings :math:`E` (vocab x d_model); the position information of
    ``encoding`` ("sinusoidal": the paper's table added, "learned": a trained table
    added, "rope": queries and keys rotated with :func:`pelib.apply_rope`, interleaved,
    base ``base``, "none"); one head of width ``d_k`` (default ``d_model``) with
    :math:`W^Q`, :math:`W^K`, :math:`W^V` and the causal softmax of
    :math:`QK^\top/\sqrt{d_k}`; and a linear read-out :math:`W^O` to the task's answers,
    trained on the mean cross-entropy of the positions that have an answer. No residual
    path, no normalisation: the answer must come through the attention. Initial values:
    :math:`E` of variance 1 (the paper's embedding times :math:`\sqrt{d_\text{model}}`
    for an embedding of variance :math:`1/d_\text{model}`), :math:`W^Q, W^K, W^V` of
    variance :math:`1/d_\text{model}`, :math:`W^O` of variance :math:`1/d_k`, a learned
    table of variance 1/2 (that of a sinusoidal entry); all drawn from
    ``numpy.random.default_rng([seed, 0])``, so every encoding starts from the same
    weights. Each step draws ``batch`` fresh sequences of ``length`` tokens from
    ``numpy.random.default_rng([seed, 1])`` (the same data for every encoding) and takes
    one Adam step (:math:`\beta_1 = 0.9`, :math:`\beta_2 = 0.999`, :math:`\epsilon =
    10^{-8}`). The gradients are written out by hand (the tests compare them with finite
    differences, and two whole steps with a loss, complex-step gradients and Adam
    written from this description). Everything is float64 and seeded: the same call
    gives the same numbers on the same machine. The learned table has ``max_length``
    rows; those beyond ``length`` get no gradient and keep their initial values. With
    ``max_offset`` > 0, every step instead places its sequences at positions ``o .. o +
    length - 1``, with ``o`` drawn uniformly from ``0 .. max_offset`` (the same ``o``
    for the whole batch) by ``numpy.random.default_rng([seed, 2])``, a third stream that
    leaves the initial weights and the token data as they are: the sinusoidal and
    learned rows and the rotary angles are read there, so the layer is trained on
    windows of positions at random offsets; the learned rows it reaches are those below
    ``max_offset + length``. Chapter 6 (:doc:`/notebooks/06_attention`) trains it with
    every encoding.

    Parameters
    ----------
    task : Task
        From :func:`copy_back` or :func:`previous_occurrence`.
    encoding : {"sinusoidal", "learned", "rope", "none"}
    steps : int, default 200
        Adam steps, 1 to 100,000.
    seed : int, default 0
        Any integer >= 0.
    d_model, d_k : int, default 32 and d_model
        Widths, even, 2 to 1024.
    batch, length : int, default 32 and 64
        Sequences per step (1 to 4096) and tokens per sequence (2 to ``max_length``).
    learning_rate : float, default 0.01
        Adam's step size, finite, positive and at most 1.
    max_length : int, default 1024
        Rows of the learned table, ``length`` to 16384; with any encoding it also bounds
        ``max_offset`` (at most ``max_length - length``).
    base : float, default 10000.0
        The base of the sinusoidal table and of rotary embedding, finite and > 1.
    max_offset : int, default 0
        The largest offset of a step's positions, 0 to ``max_length - length`` (0: every
        step uses positions ``0 .. length - 1``).

    Returns
    -------
    Model
        With ``params`` (``embedding``, ``w_q``, ``w_k``, ``w_v``, ``w_o`` and, for
        "learned", ``positions``) and ``losses``, the training loss of every step.

    Examples
    --------
    >>> model = train(
    ...     copy_back(1, vocab=4), "sinusoidal", steps=3, d_model=4, batch=2, length=8
    ... )
    >>> model.losses.shape, sorted(model.params)
    ((3,), ['embedding', 'w_k', 'w_o', 'w_q', 'w_v'])
    """
    task = _check_task(task)
    encoding = _validate.choice(encoding, "encoding", ENCODINGS)
    steps = _validate.size(steps, "steps", minimum=1, maximum=_MAX_STEPS)
    seed = _validate.size(seed, "seed")
    d_model = _even(d_model, "d_model")
    d_k = d_model if d_k is None else _even(d_k, "d_k")
    batch = _validate.size(batch, "batch", minimum=1, maximum=4096)
    max_length = _validate.size(
        max_length, "max_length", minimum=2, maximum=_MAX_LENGTH
    )
    length = _validate.size(length, "length", minimum=2, maximum=_MAX_LENGTH)
    if length > max_length:
        raise ValueError(
            "length must be at most max_length (the rows of a learned table), got "
            f"length={length} and max_length={max_length}"
        )
    learning_rate = _validate.real(
        learning_rate, "learning_rate", positive=True, maximum=1.0
    )
    base = _validate.real(base, "base", minimum=1.0)
    if base == 1.0:
        raise ValueError("base must be greater than 1, got 1.0")
    if task.lag >= length:
        raise ValueError(
            f"length must exceed the task's lag {task.lag}, or no position has an "
            f"answer; got {length}"
        )
    max_offset = _validate.size(max_offset, "max_offset")
    if max_offset + length > max_length:
        raise ValueError(
            f"max_offset must be at most max_length - length = "
            f"{max_length - length} (the positions reached), "
            f"got max_offset={max_offset}"
        )
    _validate.fits(
        batch * length * max(length, d_model, task.keys) * 8, 8, "batch and length"
    )
    _validate.fits(max_length * d_model * 4, 8, "max_length and d_model")
    params = _init(task, encoding, d_model, d_k, max_length, seed)
    first = {name: np.zeros_like(value) for name, value in params.items()}
    second = {name: np.zeros_like(value) for name, value in params.items()}
    data = np.random.default_rng([seed, 1])
    losses = np.empty(steps)
    scratch = _Scratch()
    offsets = np.random.default_rng([seed, 2])  # drawn only if max_offset > 0
    for step in range(1, steps + 1):
        sample = _sample(task, data, batch, length)
        while (
            not sample.mask.any()
        ):  # a batch with no answer (possible only for tiny lengths): draw again
            sample = _sample(task, data, batch, length)
        offset = int(offsets.integers(0, max_offset + 1)) if max_offset else 0
        losses[step - 1], grads = _loss_and_gradients(
            params, sample, encoding, base, scratch, offset, max_offset + length
        )
        _adam(params, grads, first, second, step, learning_rate)
    return Model(task, encoding, base, params, losses)


def _even(value: Any, name: str) -> int:
    value = _validate.size(value, name, minimum=2, maximum=_MAX_WIDTH)
    if value % 2:
        raise ValueError(
            f"{name} must be even (the encodings come in (sin, cos) pairs), got {value}"
        )
    return value


def _adam(
    params: dict[str, np.ndarray],
    grads: dict[str, np.ndarray],
    first: dict[str, np.ndarray],
    second: dict[str, np.ndarray],
    step: int,
    learning_rate: float,
) -> None:
    """One Adam step in place (Kingma and Ba 2015, algorithm 1)."""
    correction1, correction2 = 1 - _BETA1**step, 1 - _BETA2**step
    for name, grad in grads.items():
        first[name] = _BETA1 * first[name] + (1 - _BETA1) * grad
        second[name] = _BETA2 * second[name] + (1 - _BETA2) * grad**2
        params[name] -= (
            learning_rate
            * (first[name] / correction1)
            / (np.sqrt(second[name] / correction2) + _EPSILON)
        )
