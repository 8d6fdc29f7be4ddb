r"""The smallest rotary base for a training length, with a certificate.

For rotary position embedding (RoPE) with head width :math:`d` (even), its
:math:`n = d/2` pairs and a base :math:`b > 1`, the offset-``m`` sum is
:math:`S_b(m) = \sum_{i<n} \cos(m\, b^{-i/n})` (:func:`rope_cosine_sum`). Su Jianlin
(kexue.fm/archives/10122) and Men et al. (2024, arXiv 2405.14591) ask for the smallest
base whose sums stay non-negative at every offset below a training length;
:func:`first_negative` finds where a base first fails and :func:`smallest_base`
brackets the smallest base, every float64 value carried with a rigorous error bound.
The chapter "Beyond the token axis" (:doc:`/notebooks/11_beyond_token_axis`)
explains them.

**The error model.** Every bound here rests on two stated assumptions: NumPy's
``np.power`` has a relative error of at most :data:`POWER_ERROR` (:math:`10^{-14}`)
and ``np.cos`` and ``np.sin`` an absolute error of at most :data:`TRIG_ERROR`
(:math:`10^{-13}`), for the arguments used here. Both are generous: measured worst
cases against mpmath are about :math:`10^{-16}`. Rounding of products and sums is
bounded from the IEEE rules.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import _validate

#: Assumed bound on the relative error of ``np.power`` (measured: about 1e-16).
POWER_ERROR = 1e-14
#: Assumed bound on the absolute error of ``np.cos`` and ``np.sin`` (measured: about
#: 1e-16).
TRIG_ERROR = 1e-13

_U = 2.0**-53  # unit roundoff of float64
#: The largest training length and head width accepted.
MAX_LENGTH = 2**20
MAX_DIM = 1024
#: The most angles (``length`` times ``dim / 2``) of one scan of :func:`smallest_base`:
#: the search makes many scans, and beyond this it runs for minutes (measured: about
#: 15 s at ``length = 65536``, ``dim = 128``, half the limit; 9 to 73 minutes
#: at ``length = 2**20``, where ``scripts/base_table.py`` computes chapter 11's table).
MAX_WORK = 2**23
#: Offsets of :func:`rope_cosine_sum` stay below 2**53, where float64 holds every
#: integer.
_MAX_OFFSET = 2**53
#: Angles (offsets times pairs) per block of work.
_BLOCK = 1 << 20
#: Every base in (1, _START] fails at offset 2: all angles 2 b**(-i/n) lie in
#: [2 / 1.25, 2] = [1.6, 2], where the cosine is negative.
_START = 1.25
#: The relative distance of the good probe above the certified-bad chain.
_WIDTH = 4e-9
#: The shortest step of the chain, in ln b (a shorter one would drown in rounding).
_MIN_STEP = 1e-12
#: How many offsets the chain follows between two scans of all offsets: at least this
#: many, and one in :data:`_CANDIDATE_SHARE` of the length (following more offsets
#: between scans makes long searches several times faster: at ``length = 131072``,
#: ``dim = 256``, 50 scans instead of 500 or so).
_CANDIDATES = 32
_CANDIDATE_SHARE = 256
#: The most scans of all offsets one search may make before it gives up.
_MAX_SCANS = 4000


class BaseBracket(NamedTuple):
    """Result of :func:`smallest_base`: the smallest base lies in ``[lower, upper]``."""

    #: Every base in ``(1, lower]`` fails: some offset below the length has a negative
    #: sum.
    lower: float
    #: A base whose sums are non-negative at every offset below the length.
    upper: float


@dataclass(frozen=True)
class _Pairs:
    """The frequencies of one base, with what the error bounds need of them."""

    n: int
    theta: np.ndarray  # b ** (-i / n), float64
    weight: np.ndarray  # i / n, the derivative of the exponent in ln b
    rho: float  # bound on the relative error of each theta
    theta_sum: float  # upper bound of sum(theta)
    weighted_sum: float  # upper bound of sum(weight * theta)


def _pairs(base: float, n: int) -> _Pairs:
    """The frequencies :math:`b^{-i/n}` of ``base`` and their error budget.

    The exponent ``-i / n`` is rounded (relative error ``u``), which moves the
    frequency by at most ``|ln b| u`` relatively: that joins the power's own error.
    """
    weight = np.arange(n) / n
    theta = np.power(base, -weight)
    rho = POWER_ERROR + 2 * _U * abs(math.log(base))
    slack = 1 + rho + (n + 4) * _U
    return _Pairs(
        n=n,
        theta=theta,
        weight=weight,
        rho=rho,
        theta_sum=float(theta.sum()) * slack,
        weighted_sum=float((weight * theta).sum()) * slack,
    )


def _values(pairs: _Pairs, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float64 sums at integer ``offsets`` (float64) and a bound on their error.

    Error of each angle ``m theta``: ``m theta (rho + u)``, which moves its cosine by
    as much; ``np.cos`` adds :data:`TRIG_ERROR`; summing ``n`` terms of size at most 1
    adds ``n**2 u``; ``2 n u`` covers the rounding of ``value +- bound`` by a caller,
    and the last term underflowed frequencies.
    """
    n = pairs.n
    values = np.cos(np.multiply.outer(offsets, pairs.theta)).sum(axis=-1)
    bound = (
        offsets * pairs.theta_sum * (pairs.rho + 3 * _U) * (1 + 1e-6)
        + n * TRIG_ERROR
        + (n * n + 2 * n) * _U
        + offsets * n * 1e-300
    )
    return values, bound


def _steps(pairs: _Pairs, offsets: np.ndarray) -> np.ndarray:
    r"""For each offset, a step ``h`` in ``ln b`` over which its sum stays negative
    (``-1`` where the sum is not certified negative).

    With :math:`x_i = m b^{-i/n}` and :math:`w_i = i/n`, the sum's derivatives in
    :math:`\ln b` are bounded by :math:`K = \sum w_i x_i` and
    :math:`M_2 = \sum w_i^2 (x_i^2 + x_i)`, both non-increasing in :math:`b`. So if
    :math:`A \ge S` and :math:`B \ge S'` at :math:`b`, the sum stays below
    :math:`A + \min(K t, B t + M_2 t^2 / 2)` at :math:`\ln b + t`; the step is the
    larger of the two roots, each computed without cancellation.
    """
    values, bound = _values(pairs, offsets)
    x = np.multiply.outer(offsets, pairs.theta)
    wx = x * pairs.weight
    slope = (wx * np.sin(x)).sum(axis=-1)
    lipschitz = offsets * pairs.weighted_sum * (1 + pairs.rho + 4 * _U)
    slope_error = lipschitz * (
        (1 + offsets) * (pairs.rho + _U) + TRIG_ERROR + (pairs.n + 6) * _U
    )
    curvature = ((wx * wx + pairs.weight * wx).sum(axis=-1)) * (
        1 + 3 * pairs.rho + (pairs.n + 8) * _U
    )
    a = values + bound
    b = slope + slope_error * 1.01
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        first = -a / lipschitz
        root = np.sqrt(b * b - 2 * curvature * a)
        second = np.where(b > 0, -2 * a / (b + root), (root - b) / curvature)
        step = np.fmax(first, second)
    return np.where((a < 0) & np.isfinite(step), step, -1.0)


def _blocks(length: int, n: int, start: int = 0):
    """The offsets ``start .. length - 1`` as float64 blocks of about :data:`_BLOCK`
    angles."""
    rows = max(1, _BLOCK // n)
    for begin in range(start, length, rows):
        yield np.arange(begin, min(begin + rows, length), dtype=np.float64)


def _dim(dim: Any) -> int:
    """``dim`` as an int: even, from 2 to :data:`MAX_DIM`."""
    dim = _validate.size(dim, "dim", minimum=2, maximum=MAX_DIM)
    if dim % 2:
        raise ValueError(
            f"dim must be an even integer from 2 to {MAX_DIM} (the head width: "
            f"its pairs rotate together), got {dim}"
        )
    return dim


def _base(base: Any) -> float:
    """``base`` as a finite float above 1."""
    base = _validate.real(base, "base", positive=True)
    if not base > 1:
        raise ValueError(f"base must be a finite real number > 1, got {base!r}")
    return base


def _offsets(m: Any) -> np.ndarray:
    """``m`` as an int64 array of integers from 0 to 2**53 - 1."""
    accepted = (
        "m must be a non-negative integer below 2**53 or an array of them "
        "(int or an integer dtype)"
    )
    if isinstance(m, numbers.Integral) and not isinstance(m, (bool, np.bool_)):
        m = _validate.size(m, "m", maximum=_MAX_OFFSET - 1)
    array = _validate.as_array(m, accepted)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{accepted}, got {_validate.describe(m)}")
    if array.size and (array.min() < 0 or array.max() >= _MAX_OFFSET):
        raise ValueError(f"{accepted}, got values from {array.min()} to {array.max()}")
    return array.astype(np.int64)


def rope_cosine_sum(m: ArrayLike, dim: int, base: float = 10000.0) -> np.ndarray:
    r"""The RoPE cosine sum :math:`S_b(m) = \sum_{i=0}^{n-1} \cos(m\, b^{-i/n})`,
    :math:`n = d/2`, in float64.

    It is the score a query gives a key ``m`` positions away when both are the
    all-ones vector rotated by RoPE of head width ``dim`` (and the dot product of two
    rows of the sinusoidal table ``m`` apart, :func:`relative_dot`). The chapter
    "Beyond the token axis" (:doc:`/notebooks/11_beyond_token_axis`) explains it.

    Parameters
    ----------
    m : int or array_like of int
        Offsets, non-negative integers below :math:`2^{53}` (any shape; an integer
        dtype).
    dim : int
        Head width :math:`d`, even, from 2 to 1024.
    base : float, default 10000.0
        The rotary base :math:`b`, finite and above 1.

    Returns
    -------
    numpy.ndarray
        Float64 array of the shape of ``m``; ``dim / 2`` at offset 0. Each value is
        within ``m * sum(theta) * 1e-14 + dim * 1e-13`` of the exact sum, assuming
        ``np.power`` errs by at most :math:`10^{-14}` relatively and ``np.cos`` by
        :math:`10^{-13}` (measured against mpmath: about :math:`10^{-16}`).

    Raises
    ------
    TypeError
        If ``m`` is not an integer or an array of an integer dtype, ``dim`` not an
        integer or ``base`` not a real number.
    ValueError
        If an offset is negative or from :math:`2^{53}` on, ``dim`` is odd or outside
        2 to 1024, ``base`` is not finite or not above 1, or the result would need
        more than half of the machine's memory.

    Examples
    --------
    >>> rope_cosine_sum([0, 1], 4, base=100.0).round(6)
    array([2.      , 1.535306])
    """
    offsets = _offsets(m)
    n = _dim(dim) // 2
    pairs = _pairs(_base(base), n)
    _validate.fits(offsets.size, 8, "m")
    flat = offsets.reshape(-1).astype(np.float64)
    out = np.empty(flat.shape)
    rows = max(1, _BLOCK // n)
    for begin in range(0, flat.size, rows):
        block = flat[begin : begin + rows]
        out[begin : begin + rows] = _values(pairs, block)[0]
    return out.reshape(offsets.shape)


def _first_below(pairs: _Pairs, length: int) -> int | None:
    """The first offset below ``length`` whose sum is negative, decided from the
    float64 value and its bound; raises ``ValueError`` at an offset where the bound
    cannot decide."""
    for block in _blocks(length, pairs.n):
        values, bound = _values(pairs, block)
        unsure = np.abs(values) <= bound
        negative = values < -bound
        decided = np.flatnonzero(unsure | negative)
        if decided.size:
            j = decided[0]
            if unsure[j]:
                raise ValueError(
                    f"base, dim and length: at offset m = {int(block[j])} the sum "
                    f"{values[j]:.3g} lies within its float64 error bound "
                    f"{bound[j]:.2g} of 0, so its sign cannot be decided in float64"
                )
            return int(block[j])
    return None


def first_negative(base: float, dim: int, length: int) -> int | None:
    r"""The smallest offset ``m < length`` with :math:`S_b(m) < 0`, or None.

    Men et al. (2024) call the first such offset (over all ``m``) the longest length
    :math:`L_\theta` the base supports. Each sign is decided rigorously: the float64
    sum must lie beyond its error bound (as in :func:`rope_cosine_sum`); a sum within
    its bound of zero raises a ``ValueError`` naming the offset rather than guessing
    (pelib has no exact arithmetic; mpmath, as in ``oracle.base``, decides such an
    offset). The chapter "Beyond the token axis"
    (:doc:`/notebooks/11_beyond_token_axis`) explains it.

    Parameters
    ----------
    base : float
        The rotary base :math:`b`, finite and above 1.
    dim : int
        Head width :math:`d`, even, from 2 to 1024.
    length : int
        Offsets ``0 .. length - 1`` are checked; from 1 to :math:`2^{20}`.

    Returns
    -------
    int or None
        The first offset with a negative sum, None if there is none below ``length``.

    Raises
    ------
    TypeError
        If ``dim`` or ``length`` is not an integer or ``base`` not a real number.
    ValueError
        If an argument is out of its range, or the sign at an offset cannot be
        decided in float64.

    Examples
    --------
    >>> first_negative(10000.0, 128, 4096)
    1707
    >>> first_negative(10000.0, 128, 1024) is None
    True
    """
    pairs = _pairs(_base(base), _dim(dim) // 2)
    return _first_below(
        pairs, _validate.size(length, "length", minimum=1, maximum=MAX_LENGTH)
    )


def _candidates(length: int) -> int:
    """How many offsets the chain follows between two scans (:data:`_CANDIDATES`)."""
    return max(_CANDIDATES, length // _CANDIDATE_SHARE)


def _certified_good(base: float, n: int, length: int) -> tuple[bool, np.ndarray]:
    """Whether every sum below ``length`` is certified positive at ``base``; else
    also the offsets (at most :func:`_candidates`) with the most negative sums."""
    pairs = _pairs(base, n)
    for block in _blocks(length, n):
        values, bound = _values(pairs, block)
        if np.any(values <= bound):
            order = np.argsort(values)[: _candidates(length)]
            return False, block[order]
    return True, np.empty(0)


def _scan(b: float, n: int, length: int) -> tuple[float, np.ndarray]:
    """The longest certified step at ``b`` over all offsets below ``length``, and the
    chain's candidates: the offsets with the longest steps, and those whose positive
    sums could turn negative soonest (by the Lipschitz bound)."""
    pairs = _pairs(b, n)
    values, bound = np.concatenate(
        [np.stack(_values(pairs, block)) for block in _blocks(length, n)], axis=1
    )
    offsets = np.arange(length, dtype=np.float64)
    # Time (in ln b) for which each sum keeps its sign, by the Lipschitz bound alone.
    lipschitz = np.maximum(offsets * pairs.weighted_sum, 1e-300)
    negative = np.flatnonzero(values + bound < 0)
    soon = negative[np.argsort((values + bound)[negative] / lipschitz[negative])]
    k = _candidates(length)
    steps = _steps(pairs, offsets[soon[: 4 * k]])
    best = float(steps.max()) if steps.size else -1.0
    leaders = soon[: 4 * k][np.argsort(-steps)[:k]]
    positive = np.flatnonzero(values - bound > 0)
    turning = positive[np.argsort((values - bound)[positive] / lipschitz[positive])]
    return best, offsets[np.union1d(leaders, turning[: 3 * k])]


def _ride(b: float, n: int, candidates: np.ndarray, shortest: float) -> float:
    """Walk the certified-bad chain from ``b`` using only ``candidates``, while a step
    of at least ``shortest`` (in ln b) is certified; returns the chain's end.

    A step ``h`` certifies the sum of one offset negative on ``[b, b e^h]``; the chain
    moves to ``b (1 + 0.99 h)``, below ``b e^h`` even after rounding, since
    ``h >= 1e-12``.
    """
    for _ in range(100_000):
        steps = _steps(_pairs(b, n), candidates)
        h = float(steps.max()) if steps.size else -1.0
        if not h >= max(shortest, _MIN_STEP):
            break
        following = b + b * (0.99 * h)
        if not following > b or not math.isfinite(following):
            break
        b = following
    return b


def _close(b: float, n: int, length: int) -> BaseBracket | None:
    """A base certified good just above the chain's end ``b``, or None.

    The probes are ``b (1 + _WIDTH 2**k)``: first ``k = 0, -1, ..., -29``, then, for
    sums whose slope at the answer is too small for float64 to certify them that
    close (head widths of a few pairs), ``k = 1, ..., 24``.
    """
    for k in [*range(0, -30, -1), *range(1, 25)]:
        probe = b * (1 + _WIDTH * 2.0**k)
        if probe > b and _certified_good(probe, n, length)[0]:
            return BaseBracket(lower=b, upper=probe)
    return None


def _chain(length: int, n: int) -> BaseBracket:
    """Walk the certified-bad chain up from :data:`_START` until a base just above it
    is certified good."""
    b, refuted = _START, _START
    for _ in range(_MAX_SCANS):
        best, candidates = _scan(b, n, length)
        if best < _WIDTH and b * (1 + _WIDTH) > refuted:
            good, negative = _certified_good(b * (1 + _WIDTH), n, length)
            if good:
                return BaseBracket(lower=b, upper=b * (1 + _WIDTH))
            refuted = b * (1 + _WIDTH)
            candidates = np.union1d(candidates, negative)
        following = _ride(b, n, candidates, shortest=0.05 * best)
        if following == b:
            bracket = _close(b, n, length)
            if bracket is not None:
                return bracket
            break
        b = following
    raise ValueError(
        f"length = {length} and dim = {2 * n}: the search for the smallest base "
        f"stopped at base {b!r} without a certificate (please report this)"
    )


def smallest_base(length: int, dim: int) -> BaseBracket:
    r"""The smallest RoPE base whose cosine sums stay non-negative up to ``length``.

    :math:`b^*(L, d) = \min\{b > 1 : S_b(m) \ge 0 \text{ for every integer }
    0 \le m < L\}` (Su Jianlin, kexue.fm/archives/10122; Men et al. 2024), with
    :math:`S_b` as in :func:`rope_cosine_sum`. The bases that pass do not form an
    interval (at ``dim = 128``, 11587.25 passes for ``length = 2048`` but 12000
    fails at offset 1554), so bisection is wrong: every base below the answer is
    certified to fail. The chapter "Beyond the token axis"
    (:doc:`/notebooks/11_beyond_token_axis`) explains it.

    The search works in :math:`u = \ln b`. Every base in :math:`(1, 1.25]` fails at
    offset 2. From there a chain of steps climbs: at each base, an offset whose sum
    is certified negative (float64 value plus its error bound below zero) stays
    negative over a step bounded by the sum's first and second derivatives in
    :math:`u` (bounds that shrink as :math:`b` grows), and the chain moves to the
    end of the step. The chain stops where it cannot go on, and a base at most
    :math:`4 \cdot 10^{-9}` (relatively) above its end is certified good: every
    float64 sum below ``length`` exceeds its error bound. It takes well under a
    second at ``length = 2048`` and ``dim = 128``, under a second at 8192 and about
    15 s at 65536 (measured on one core); calls that would run for minutes are refused
    (``pelib._base.MAX_WORK``).

    Parameters
    ----------
    length : int
        The training length :math:`L`: offsets ``0 .. length - 1`` must pass. From 1
        to :math:`2^{20}`.
    dim : int
        Head width :math:`d`, even, from 2 to 1024.

    Returns
    -------
    BaseBracket
        ``(lower, upper)``: every base in ``(1, lower]`` fails, ``upper`` passes, so
        :math:`b^* \in [\text{lower}, \text{upper}]`, certified under the error
        model of :func:`rope_cosine_sum` (for ``np.sin`` too). ``upper / lower - 1``
        is at most :math:`10^{-8}`, except where the sums rise so slowly through
        zero at the answer that float64 cannot certify a base that close
        (``dim = 4``, where it can reach a few per cent).
        For ``length <= 2`` every base above 1 passes and the result is
        ``(1.0, 1.0)``.

    Raises
    ------
    TypeError
        If ``length`` or ``dim`` is not an integer.
    ValueError
        If ``length`` is outside 1 to :math:`2^{20}`, ``dim`` is odd or outside 2 to
        1024, ``length * dim / 2`` exceeds ``pelib._base.MAX_WORK`` (beyond it the
        search runs for minutes), if ``dim = 2`` and
        ``length >= 3`` (the single pair's :math:`\cos m` is negative at
        :math:`m = 2` for every base), or if the search ends without a certificate.

    Examples
    --------
    >>> bracket = smallest_base(1024, 128)
    >>> round(bracket.lower, 3), round(bracket.upper, 3)
    (4293.438, 4293.438)
    """
    length = _validate.size(length, "length", minimum=1, maximum=MAX_LENGTH)
    n = _dim(dim) // 2
    if length * n > MAX_WORK:
        raise ValueError(
            f"length * dim / 2 must be at most 2**23 = {MAX_WORK:,} (beyond it the "
            f"search runs for minutes), got length = {length} and dim = {2 * n}"
        )
    if length <= 2:
        return BaseBracket(lower=1.0, upper=1.0)
    if n == 1:
        raise ValueError(
            f"dim = 2 has one pair, whose cos(m) is negative at m = 2 for every "
            f"base: no base passes length = {length} (length <= 2 would)"
        )
    return _chain(length, n)
