"""What a floating-point format does to positions and angles (chapter 10).

The formats and exact rounding to them are in :mod:`pelib._formats`.
:func:`angle_limit` finds the first position at which an angle ``t * w_i`` formed in a
format strays further than a given tolerance from the exact one, with exact arithmetic
(see its Notes).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import DTypeLike

from . import _validate
from ._encoding import _frequency_table
from ._formats import _Format, _format, round_to_format

#: The widest table :func:`angle_limit` examines (most pairs are dismissed by one
#: evaluation of a bound; the few that are not are examined position by position,
#: vectorised, from where the bound first exceeds the tolerance).
MAX_WIDTH = 2**16
#: The search of :func:`angle_limit` ends at this position: every integer up to it is a
#: float64 number.
SEARCH_END = 2**53


def _round_fraction(x: Fraction, fmt: _Format) -> Fraction | float:
    """A non-negative exact number rounded to the nearest number of ``fmt`` (ties to
    even); inf beyond its range."""
    if x == 0:
        return Fraction(0)
    exponent = (
        x.numerator.bit_length() - x.denominator.bit_length()
    )  # floor(log2 x) or one more
    if Fraction(2) ** exponent > x:
        exponent -= 1
    quantum = Fraction(2) ** (max(exponent, fmt.min_exp) - fmt.bits + 1)
    rounded = (
        round(x / quantum) * quantum
    )  # round() of a Fraction: to nearest, ties to even
    return math.inf if rounded > fmt.largest else rounded


def _round_near(hi: float, lo: float, fmt: _Format) -> float | None:
    """hi + lo (|lo| <= 2**-52 |hi|, 0 < hi <= 1) rounded to ``fmt`` as
    :func:`_round_fraction` does, or None when hi lies within 2**-30 of a spacing of a
    midpoint (or of a binade's edge), or lo is at least hi's distance to the nearest
    midpoint (in float64, whose midpoints lie half a unit from hi, any lo of half a unit
    or more), where only the exact rounding decides. Elsewhere lo cannot move hi across
    a midpoint, and rounding hi scales it by a power of two, takes ``numpy.rint`` of a
    float with at most 53 bits and scales back: all exact.
    """
    if not 0.0 < hi <= 1.0 or abs(lo) > 2.0**-52 * hi:
        return None
    mantissa, exponent = math.frexp(
        hi
    )  # hi = mantissa 2**exponent, 1/2 <= mantissa < 1
    if mantissa == 0.5 or mantissa > 1 - 2.0**-30:
        return None
    quantum = max(exponent - 1, fmt.min_exp) - fmt.bits + 1
    scaled = math.ldexp(hi, -quantum)
    fraction = scaled - math.floor(scaled)
    if abs(fraction - 0.5) < 2.0**-30 or abs(lo) >= math.ldexp(
        abs(fraction - 0.5), quantum
    ):
        return None
    return math.ldexp(float(np.rint(scaled)), quantum)


class _Pair:
    """One frequency: ``omega`` (exact to about 2**-100 relative), ``rounded`` (its
    number in the format, a float64), ``delta = rounded - omega`` as a Fraction and as
    hi + lo floats (delta = delta_hi + delta_lo exactly where the fast route of
    :func:`_pair` made them), and the odd integer ``mantissa`` with rounded = mantissa *
    2**k. The Fractions are made only when asked for: most pairs are dismissed with the
    floats alone."""

    __slots__ = (
        "omega_hi",
        "omega_lo",
        "rounded",
        "delta_hi",
        "delta_lo",
        "mantissa",
        "_omega",
        "_delta",
    )

    def __init__(
        self,
        omega_hi,
        omega_lo,
        rounded,
        delta_hi,
        delta_lo,
        mantissa,
        omega=None,
        delta=None,
    ):
        self.omega_hi, self.omega_lo, self.rounded, self.mantissa = (
            omega_hi,
            omega_lo,
            rounded,
            mantissa,
        )
        self.delta_hi, self.delta_lo, self._omega, self._delta = (
            delta_hi,
            delta_lo,
            omega,
            delta,
        )

    @property
    def omega(self) -> Fraction:
        if self._omega is None:
            self._omega = Fraction(self.omega_hi) + Fraction(self.omega_lo)
        return self._omega

    @property
    def delta(self) -> Fraction:
        if self._delta is None:
            self._delta = Fraction(self.delta_hi) + Fraction(self.delta_lo)
        return self._delta


def _pair(omega_hi: float, omega_lo: float, fmt: _Format) -> _Pair:
    near = _round_near(omega_hi, omega_lo, fmt)
    if near is not None:
        # rounded - hi is exact (the two lie within a factor 2, or rounded is 0), and so
        # is the sum of it and -lo split by Knuth's TwoSum into delta_hi + delta_lo.
        difference = near - omega_hi
        delta_hi = difference - omega_lo
        virtual = delta_hi - difference
        delta_lo = (difference - (delta_hi - virtual)) + (-omega_lo - virtual)
        mantissa = near.as_integer_ratio()[0] if near else 0
        return _Pair(omega_hi, omega_lo, near, delta_hi, delta_lo, mantissa)
    omega = Fraction(omega_hi) + Fraction(omega_lo)
    rounded = _round_fraction(omega, fmt)
    if (
        rounded == math.inf
    ):  # cannot happen for the bases accepted (>= 1), whose frequencies are at most 1
        raise ValueError("a frequency rounds to infinity in the format")
    delta = rounded - omega
    delta_hi = float(delta)
    mantissa = (
        rounded.numerator if rounded else 0
    )  # rounded = numerator / 2**k: the numerator is odd (or 1)
    return _Pair(
        omega_hi,
        omega_lo,
        float(rounded),
        delta_hi,
        float(delta - Fraction(delta_hi)),
        mantissa,
        omega,
        delta,
    )


def _bound(t: int, pair: _Pair, fmt: _Format) -> Fraction | float:
    """An upper bound, non-decreasing in t, of the angle error |fl(fl(p) w^) - p w| over
    the positions p <= t.

    Three terms: the position's rounding (none up to 2**p, at most half its spacing
    beyond) times w^; p |w^ - w|; and the product's rounding, none while p^ m <= 2**p
    (the product is then an integer of at most p bits times the power of two of w^),
    else at most half the spacing at the largest angle.
    """
    if t == 0:
        return Fraction(0)
    if t >= fmt.overflow:
        return math.inf
    half_spacing = (
        Fraction(2) ** (t.bit_length() - 1 - fmt.bits)
        if t > 2**fmt.bits
        else Fraction(0)
    )
    largest_position = t + half_spacing
    angle = largest_position * Fraction(pair.rounded)
    if angle >= fmt.overflow:
        return math.inf
    product = Fraction(0)
    if largest_position * pair.mantissa > 2**fmt.bits:
        exponent = angle.numerator.bit_length() - angle.denominator.bit_length()
        if Fraction(2) ** exponent > angle:
            exponent -= 1
        product = Fraction(2) ** (max(exponent, fmt.min_exp) - fmt.bits)
    return half_spacing * Fraction(pair.rounded) + t * abs(pair.delta) + product


def _bound_below(t: int, pair: _Pair, fmt: _Format, tolerance: float) -> bool:
    """True if ``_bound(t, pair, fmt)`` is certainly at most ``tolerance`` (False:
    undecided, or above).

    The same three terms in float64 (each a product of powers of two and floats, or t
    |delta|: within a few units of 2**-53 relative), compared with a margin of 2**-40
    relative; the exponent of the largest angle is taken one too high, which can only
    raise the product's term.
    """
    if t == 0:
        return True
    if t >= fmt.overflow:
        return False
    half_spacing = (
        1 << (t.bit_length() - 1 - fmt.bits) if t > 2**fmt.bits else 0
    )  # an integer
    largest_position = t + half_spacing
    angle = float(largest_position) * pair.rounded
    if angle >= 2.0 ** min(fmt.max_exp, 1023):
        return False
    product = 0.0
    if largest_position * pair.mantissa > 2**fmt.bits:  # integers: exact
        product = 2.0 ** (max(math.frexp(angle)[1], fmt.min_exp) - fmt.bits)
    drift = float(t) * (abs(pair.delta_hi) + abs(pair.delta_lo))
    bound = half_spacing * pair.rounded + drift + product
    return bound <= tolerance * (1 - 2.0**-40)


def _first_unsafe(pair: _Pair, fmt: _Format, tolerance: Fraction, end: int) -> int:
    """The least position t <= end whose bound exceeds the tolerance (end + 1 if none):
    all before it are safe."""
    if _bound(end, pair, fmt) <= tolerance:
        return end + 1
    low, high = 0, end  # bound(low) <= tolerance < bound(high)
    while high - low > 1:
        middle = (low + high) // 2
        if _bound(middle, pair, fmt) <= tolerance:
            low = middle
        else:
            high = middle
    return high


def _two_product_error(a: np.ndarray, b: float) -> np.ndarray:
    """a * b - fl(a * b) exactly, for integers 0 <= a <= 2**53 and 0 < b < 1 (Dekker's
    product, Veltkamp's splits)."""
    product = a * b
    a_big = a * 134217729.0  # 2**27 + 1
    a1 = a_big - (a_big - a)
    a2 = a - a1
    b_big = b * 134217729.0
    b1 = b_big - (b_big - b)
    b2 = b - b1
    return ((a1 * b1 - product) + a1 * b2 + a2 * b1) + a2 * b2


def _errors(t: np.ndarray, pair: _Pair, fmt: _Format) -> tuple[np.ndarray, np.ndarray]:
    """The angle errors fl(fl(t) w^) - t w at integer positions t (float64, exact
    integers), and their uncertainty.

    For p <= 26 every step is exact in float64: the rounded position and frequency have
    at most 26 bits, so their product is exact and its rounding is exact
    (``round_to_format``); the difference between the rounded and the exact product is a
    number of at most p bits. For float64 (p = 53) the positions are exact and the
    product's error comes from Dekker's exact product. Only t (w^ - w) = t delta is
    rounded, by a relative 2**-52 at most, and w itself is known to about 2**-100
    relative: the returned uncertainty covers both.
    """
    w = pair.rounded
    with np.errstate(over="ignore", invalid="ignore"):
        if fmt.bits <= 26:
            position = round_to_format(t, fmt)
            product = position * w
            angle = round_to_format(product, fmt)
            exact_part = (angle - product) + (
                position - t
            ) * w  # each exact; their sum rounded (covered below)
        else:
            angle = t * w
            exact_part = -_two_product_error(t, w)
        drift = t * pair.delta_hi + t * pair.delta_lo
        error = exact_part + drift
        if pair.delta == 0:
            # An exact frequency: no drift, and for p <= 26 exact_part is exact (its two
            # terms are multiples of the frequency's quantum below 2**48 of it), so the
            # error is known exactly.
            uncertainty = (
                np.zeros_like(error)
                if fmt.bits <= 26
                else 2.0**-48 * np.abs(exact_part)
            )
        else:
            uncertainty = 2.0**-48 * (np.abs(exact_part) + np.abs(drift)) + t * 2.0**-98
        overflowed = ~np.isfinite(angle)
        error = np.where(overflowed, np.inf, error)
    return error, np.where(overflowed, 0.0, uncertainty)


def _exact_error(t: int, pair: _Pair, fmt: _Format) -> Fraction | float:
    """|fl(fl(t) w^) - t w| in exact arithmetic (w to about 2**-100 relative), for an
    undecided position."""
    position = _round_fraction(Fraction(t), fmt)
    if position == math.inf:
        return math.inf
    angle = _round_fraction(position * Fraction(pair.rounded), fmt)
    return math.inf if angle == math.inf else abs(angle - t * pair.omega)


def _first_failure_power_of_two(w: Fraction, fmt: _Format, tolerance: Fraction) -> int:
    """The least position whose angle error exceeds the tolerance, for an exact
    frequency w = 2**-j (normal).

    The product fl(t) w is then an exact scaling, so the error is |fl(t) - t| w: none up
    to 2**p; in a binade [2**k, 2**(k+1)) with k >= p, of spacing s = 2**(k-p+1), the
    position 2**k + j rounds to 2**k for j < s/2 (error j w), and 2**k + s/2, a tie,
    rounds to the even 2**k too (error s/2 w), the largest error of the binade. From
    ``fmt.overflow`` on the position is infinite.
    """
    k = fmt.bits
    while 2**k < fmt.overflow:
        half = 2 ** (k - fmt.bits)
        if (
            half * w > tolerance
        ):  # the first binade whose largest error exceeds the tolerance
            return min(2**k + min(int(tolerance / w) + 1, half), fmt.overflow)
        k += 1
    return fmt.overflow


def _first_failure(pair: _Pair, fmt: _Format, tolerance: Fraction, end: int) -> int:
    """The least position t <= end whose angle error exceeds the tolerance (end + 1 if
    none)."""
    rounded = Fraction(pair.rounded)
    if pair.delta == 0 and pair.mantissa == 1 and rounded >= Fraction(2) ** fmt.min_exp:
        return min(_first_failure_power_of_two(rounded, fmt, tolerance), end + 1)
    t = _first_unsafe(pair, fmt, tolerance, end)
    if fmt.bits == 53:
        return _first_failure_float64(t, pair, tolerance, end)
    tol = float(tolerance)
    chunk = 1 << 10
    while t <= end:
        if t > 2**fmt.bits:
            return _first_failure_rounded_positions(t, pair, fmt, tolerance, end)
        positions = np.arange(t, min(end, t + chunk - 1) + 1, dtype=np.float64)
        error, uncertainty = _errors(positions, pair, fmt)
        magnitude = np.abs(error)
        over = magnitude > tol + uncertainty
        unsure = (
            ~over & (magnitude >= tol - uncertainty) & (uncertainty > 0)
        )  # uncertainty 0: the error is exact
        for index in np.flatnonzero(over | unsure):
            if over[index] or _exact_error(t + int(index), pair, fmt) > tolerance:
                return t + int(index)
        t += len(positions)
        chunk = min(chunk * 2, 1 << 20)
    return end + 1


def _first_failure_rounded_positions(
    t: int, pair: _Pair, fmt: _Format, tolerance: Fraction, end: int
) -> int:
    """``_first_failure`` from a position t > 2**p on, for p <= 26, by the pieces of
    constant fl(t).

    Beyond 2**p the positions are rounded: between two consecutive ties (midpoints of
    the format's spacing, integers there) every position rounds to the same number P, so
    the angle A = fl(P w^) is the same and the error A - t w falls linearly with t. A
    piece therefore holds a failure only if one of its two ends fails; the first is its
    start, or else the least t > (A + tol) / w. The ties themselves are single
    positions. So each piece costs two evaluations, and a binade of positions 2**(p - 1)
    pieces, not 2**(k - 1) positions.
    """
    tol = float(tolerance)
    while t <= end:
        k = t.bit_length() - 1
        spacing = 1 << (
            k - fmt.bits + 1
        )  # of the positions in [2**k, 2**(k+1)): at least 2
        # The ties of this binade at or after t, at most 2**20 of them at a time.
        j0 = max(0, -(-(2 * (t - 2**k) - spacing) // (2 * spacing)))
        j1 = min(2 ** (fmt.bits - 1) - 1, j0 + (1 << 20) - 1)
        if j0 > j1:
            # past the binade's last tie: the piece runs to the first tie of the next
            # binade
            ties = np.array([2 ** (k + 1) + spacing], dtype=np.float64)
        else:
            ties = (
                2**k + (np.arange(j0, j1 + 1, dtype=np.float64) + 0.5) * spacing
            )  # exact integers
        piece_ends = np.minimum(ties - 1, end)
        piece_starts = np.maximum(np.concatenate(([t], ties[:-1] + 1)), t)
        points = np.stack(
            [piece_starts, piece_ends, np.minimum(ties, end)], axis=1
        ).ravel()
        errors, uncertainty = _errors(points, pair, fmt)
        flagged = (
            np.abs(errors) >= tol - uncertainty
        )  # failures and undecided: checked exactly below
        for index in np.flatnonzero(flagged):
            position, kind = int(points[index]), index % 3
            if kind == 0 or kind == 2:  # a piece's start, or a tie
                if position >= t and _exact_error(position, pair, fmt) > tolerance:
                    return position
                continue
            start = int(
                points[index - 1]
            )  # the piece's start passed: the failure is at its end
            angle = _round_fraction(
                _round_fraction(Fraction(start), fmt) * Fraction(pair.rounded), fmt
            )
            if angle == math.inf:
                return start
            first = max(start, math.floor((angle + tolerance) / pair.omega) + 1)
            if first <= position and _exact_error(first, pair, fmt) > tolerance:
                return first
        last_tie = int(ties[-1])
        if last_tie >= end:
            return end + 1
        t = last_tie + 1
    return end + 1


def _floor_sum(n: int, m: int, a: int, b: int) -> int:
    """The sum of floor((a i + b) / m) over i = 0 .. n - 1, for integers n >= 0 and m >
    0.

    Euclid-like (the floor sum of AtCoder's library): each round reduces a and b modulo
    m and swaps the roles of a and m, so it takes O(log m) rounds of exact integer
    arithmetic.
    """
    total = 0
    while n > 0:
        q, a = divmod(
            a, m
        )  # a, b reduced to 0 .. m - 1 (Python's divmod: floor, for any sign)
        total += q * (n * (n - 1) // 2)
        q, b = divmod(b, m)
        total += q * n
        top = a * n + b
        if top < m:
            break
        n, b = divmod(top, m)
        m, a = a, m
    return total


def _first_exceeding(
    first: int,
    last: int,
    numerator: int,
    modulus: int,
    omega: Fraction,
    spacing: Fraction,
    tolerance: Fraction,
) -> int | None:
    """The least t in first .. last with ``spacing * q(t) - t * omega > tolerance``, or
    None (see below).

    q(t) = floor((2 W t + M) / (2 M)) is t W / M rounded to the nearest integer, ties up
    (W = ``numerator``, M = ``modulus``). The caller guarantees that over the range q(t)
    - floor(g(t)), g(t) = (tolerance + t omega) / spacing, is 0 or 1: it is 1 exactly
    where t exceeds. So the number of such t in first .. x is a difference of two floor
    sums, and the least one is found by bisection on x: about 2 log2(last - first) floor
    sums.
    """
    slope, offset = omega / spacing, tolerance / spacing
    common = (
        slope.denominator
        * offset.denominator
        // math.gcd(slope.denominator, offset.denominator)
    )
    g1, g0 = (
        slope.numerator * (common // slope.denominator),
        offset.numerator * (common // offset.denominator),
    )

    def count(x: int) -> int:  # how many t in first .. x exceed
        n = x - first + 1
        rounded = _floor_sum(
            n, 2 * modulus, 2 * numerator, 2 * numerator * first + modulus
        )
        return rounded - _floor_sum(n, common, g1, g1 * first + g0)

    if count(last) == 0:
        return None
    low, high = first - 1, last  # count(low) == 0 < count(high)
    while high - low > 1:
        middle = (low + high) // 2
        if count(middle) > 0:
            high = middle
        else:
            low = middle
    return high


def _first_failure_in_binade(
    first: int,
    last: int,
    pair: _Pair,
    sign: int,
    modulus: int,
    spacing: Fraction,
    tolerance: Fraction,
) -> int | None:
    """The least t in first .. last (one binade of the angle) with sign * (fl(t w^) - t
    w) > tolerance, or None.

    With W -> sign W, w -> sign w and d = sign (w^ - w) the error is r(t) + t d, r the
    rounding, |r| <= s/2 (s the spacing). It cannot exceed the tolerance where t d <=
    tol - s/2; it does wherever t d >= tol + s/2 but at a tie rounded the other way (so
    of two consecutive positions, one); in between, ``_first_exceeding`` counts exactly
    with ties rounded towards failure, so its candidates are failures or ties rounded
    away. A tie rounded away at t is followed, at t + M, by a tie rounded towards
    failure (W is odd, so the even neighbour alternates), which fails too unless t d has
    left the band: a false candidate is never followed by a second one in the same band.
    """
    d = sign * pair.delta
    half = spacing / 2

    def positions_where(
        bound: Fraction, strict: bool
    ) -> tuple[int, int]:  # t d > bound (or >=)
        if d == 0:
            return (
                (first, last)
                if (bound < 0 if strict else bound <= 0)
                else (last + 1, last)
            )
        edge = bound / d
        if d > 0:
            return max(first, math.floor(edge) + 1 if strict else math.ceil(edge)), last
        return first, min(last, math.ceil(edge) - 1 if strict else math.floor(edge))

    possible = positions_where(tolerance - half, strict=True)
    certain = positions_where(tolerance + half, strict=False)
    candidates = []
    low, high = possible
    if low <= high:
        # The band where t d lies strictly between tol - s/2 and tol + s/2, on either
        # side of the certain part.
        pieces = (
            [(low, high)]
            if certain[0] > certain[1]
            else [(low, certain[0] - 1), (certain[1] + 1, high)]
        )
        for a, b in pieces:
            while a <= b:
                hit = _first_exceeding(
                    a,
                    b,
                    sign * pair.mantissa,
                    modulus,
                    sign * pair.omega,
                    spacing,
                    tolerance,
                )
                if hit is None:
                    break
                if _exact_error(hit, pair, _FLOAT64) > tolerance:
                    candidates.append(hit)
                    break
                a = hit + 1
    if certain[0] <= certain[1]:
        for t in range(certain[0], min(certain[1], certain[0] + 1) + 1):
            if _exact_error(t, pair, _FLOAT64) > tolerance:
                candidates.append(t)
                break
    return min(candidates) if candidates else None


def _first_failure_float64(t: int, pair: _Pair, tolerance: Fraction, end: int) -> int:
    """``_first_failure`` in float64, where positions up to 2**53 are exact, without a
    scan.

    In a binade [2**k, 2**(k+1)) of the angle the product t w^ = t W 2**-j (W odd) is
    rounded to a multiple of s = 2**(k-52): to s q(t), q(t) the integer nearest t W / M,
    M = s 2**j. The error s q(t) - t w is above the tolerance for the positions counted
    by ``_first_failure_in_binade`` (sign +1) and below minus the tolerance for those
    with sign -1; the least is checked exactly. Each binade costs a few hundred floor
    sums of integers of a few hundred bits, whatever the width, tolerance or base:
    milliseconds.
    """
    w = Fraction(pair.rounded)
    if w == 0:
        drift = abs(pair.delta)
        first = tolerance // drift + 1
        return int(first) if first <= end else end + 1
    denominator = w.denominator  # w^ = W / 2**j
    delta = pair.delta
    while t <= end:
        angle = t * w
        k = angle.numerator.bit_length() - angle.denominator.bit_length()
        if Fraction(2) ** k > angle:
            k -= 1
        spacing = Fraction(2) ** (k - 52)
        binade_end = min(
            end, -(-(Fraction(2) ** (k + 1)) // w) - 1
        )  # the last t whose product lies below 2**(k+1)
        steps = (
            spacing * denominator
        )  # s / 2**-j: the product is exact when this is at most 1
        if steps <= 1:  # no rounding in this binade: the error is t delta
            if delta:
                first = tolerance // abs(delta) + 1
                if first <= binade_end:
                    return max(t, int(first))
            t = binade_end + 1
            continue
        hits = [
            _first_failure_in_binade(
                t, binade_end, pair, sign, int(steps), spacing, tolerance
            )
            for sign in (1, -1)
        ]
        hits = [h for h in hits if h is not None]
        if hits:
            return min(hits)
        t = binade_end + 1
    return end + 1


_FLOAT64 = _Format("float64", 53, -1022, 1023)


def angle_limit(
    d_model: int,
    *,
    dtype: DTypeLike,
    tolerance: float,
    base: float = 10000.0,
    pair: int | None = None,
) -> int:
    r"""The largest position up to which the angles :math:`t\,\omega_i` formed in
    ``dtype`` stay within ``tolerance``.

    The angles are formed as framework code forms them in a low-precision type: the
    position :math:`t` and the frequency :math:`\omega_i = \mathrm{base}^{-2i/d}` are
    each rounded to ``dtype`` (to nearest, ties to even), and so is their product,
    :math:`\hat a = \mathrm{fl}(\mathrm{fl}(t)\,\mathrm{fl}(\omega_i))`. (PyTorch
    computes a float16 or bfloat16 product in float32 and rounds it: the same number, as
    the product of two such numbers is exact in float32.) The result is the largest
    :math:`T` such that :math:`|\hat a - t\,\omega_i| \le` ``tolerance`` radians at
    every integer position :math:`0 \le t \le T`, for pair ``pair`` or, with
    ``pair=None``, for every pair of a table of width ``d_model`` (or a rotary embedding
    of head width ``d_model``). Chapter 10 (:doc:`/notebooks/10_precision_and_speed`)
    derives and uses it.

    Parameters
    ----------
    d_model : int
        Width of the table (or of a rotary head), from 1 to ``MAX_WIDTH`` :math:`=
        2^{16}`; its pairs are :math:`i = 0 \ldots \lceil d/2 \rceil - 1`.
    dtype : float16, ml_dtypes.bfloat16, float32 or float64
        The type the angles are formed in. A long double of more than 53 bits
        is refused.
    tolerance : float
        The largest phase error allowed, in radians: finite and positive.
    base : float, default 10000.0
        Finite and at least 1 (so that every frequency is at most 1).
    pair : int or None, default None
        One pair :math:`i` (0 is the fastest, :math:`\omega_0 = 1`), or None
        for every pair.

    Returns
    -------
    int
        :math:`T`, at most ``SEARCH_END`` :math:`= 2^{53}`: the search
        ends there, so :math:`2^{53}` means that no position up to it strays
        further. Otherwise position :math:`T + 1` is the first that does.

    Notes
    -----
    **Exact.** For each pair, :math:`\omega_i` is known to about :math:`2^{-100}`
    relative (the double-double of :func:`frequencies`) and rounded to ``dtype`` in
    exact rational arithmetic. Up to the first position where a bound on the error
    exceeds the tolerance, found by bisection, no position can fail: the bound adds the
    rounding of the position (none up to :math:`2^p`, :math:`p` the significant bits),
    the rounding of the frequency times :math:`t`, and the rounding of the product (none
    while the product has at most :math:`p` bits). From there, in float16, bfloat16 and
    float32, the positions are examined one by one, with arithmetic that is exact in
    float64 but for the term :math:`t\,(\hat\omega_i - \omega_i)`, whose rounding is
    accounted for; a position too close to the tolerance to decide is decided in
    rational arithmetic. So the result is exact, but for frequencies within
    :math:`2^{-100}` relative of a midpoint of the format, or errors within about
    :math:`2^{-48}` relative of the tolerance, which the rational arithmetic decides
    with :math:`\omega_i` to :math:`2^{-100}`.

    A frequency that is exact in the format (a power of two, as :math:`\omega_0 = 1`)
    needs no search: the product is an exact scaling, the error is the position's
    rounding times :math:`\omega_i`, and the first position where it exceeds the
    tolerance follows from the spacing of the positions, binade by binade (ties go to
    the even neighbour).

    The fastest pair has :math:`\omega_0 = 1`, exact in every format: its
    angle is the rounded position, exact up to :math:`2^p`, and
    :math:`2^p + 1` rounds to :math:`2^p` (ties to even), an error of 1. So
    for a tolerance below 1 its limit is :math:`2^p`: 2,048 in float16, 256
    in bfloat16, :math:`2^{24}` in float32 and :math:`2^{53}` in float64.

    In float64 the positions are not examined one by one: within a binade of the angle
    the product is rounded to the nearest multiple of its spacing, so the number of
    positions up to a given one whose error exceeds the tolerance is a difference of two
    floor sums (sums of :math:`\lfloor (a t + b) / m \rfloor`, computed exactly in a
    logarithmic number of steps), and the first such position is found by bisection on
    that count, then checked in rational arithmetic. Ties of the rounding are counted as
    failing; a tie rounded the other way (to even) is a false candidate, and at most one
    follows another, so the checks are few.

    Past :math:`2^p` in float16, bfloat16 and float32 the positions are rounded, and
    between two consecutive ties of that rounding the error is linear in :math:`t`: the
    search examines the two ends of each such piece, :math:`2^{p-1}` pieces per binade
    of positions, not every position.

    **Cost.** In float64, per pair, a few hundred floor sums per binade of the angle
    (about 60 binades), whatever the tolerance: milliseconds; most pairs are dismissed
    by one evaluation of the bound, and a call takes about a second at :math:`d =
    2^{16}`, the widest accepted. Float16 and bfloat16 calls take under a second.
    Float32 calls whose limit lies past :math:`2^{24}` (tolerances of about 1 radian and
    more) examine up to :math:`2^{23}` pieces per binade of positions: up to about ten
    seconds (measured on a shared 2-core machine). ``tests/test_low_precision.py`` runs
    adversarial calls under a time limit.

    Raises
    ------
    TypeError
        If ``d_model`` or ``pair`` is not an integer (or None, for
        ``pair``), ``tolerance`` or ``base`` is not a real number, or
        ``dtype`` is not one of the types above.
    ValueError
        If ``d_model`` is outside ``1 .. 2**16``, ``pair`` is outside ``0 .. ceil(d/2) -
        1``, ``tolerance`` is not finite and positive, ``base`` is below 1 or not
        finite, or ``dtype`` is a long double of more than 53 bits.

    Examples
    --------
    >>> import numpy as np
    >>> angle_limit(128, dtype=np.float16, tolerance=0.1, pair=0)
    2048
    >>> angle_limit(32, dtype=np.float16, tolerance=0.1) < 1857
    True
    """
    d_model = _validate.size(d_model, "d_model", minimum=1, maximum=MAX_WIDTH)
    dtype = _validate.float_dtype(dtype)
    tolerance = _validate.real(tolerance, "tolerance", positive=True)
    base = _validate.real(base, "base", minimum=1)
    count = (d_model + 1) // 2
    if pair is not None:
        pair = _validate.size(pair, "pair", minimum=0, maximum=count - 1)
    fmt = _format(dtype)
    if fmt.bits > 53:
        raise ValueError(
            "dtype must have at most 53 significant bits (float64), "
            f"got {dtype.name} with {fmt.bits}"
        )
    table = _frequency_table(d_model, base)
    exact_tolerance = Fraction(tolerance)
    indices = range(count) if pair is None else [pair]
    pairs = [
        _pair(float(table.omega[i]), float(table.omega_lo[i]), fmt) for i in indices
    ]
    # Equal frequencies (base 1) fail together.
    pairs = list({(p.rounded, p.delta_hi, p.delta_lo): p for p in pairs}.values())

    # Every pair must hold. Visit first the pairs whose rounding suggests an early
    # failure (about tolerance / (|delta| + w 2**-p)), so that most of the others are
    # dismissed by one evaluation of their bound at the best limit found so far.
    def estimate(p: _Pair) -> float:
        return float(exact_tolerance) / (
            abs(p.delta_hi) + p.rounded * 2.0**-fmt.bits + 2.0**-1074
        )

    end = SEARCH_END
    for p in sorted(pairs, key=estimate):
        if _bound_below(end, p, fmt, float(exact_tolerance)):
            continue
        if _bound(end, p, fmt) > exact_tolerance:
            end = min(end, _first_failure(p, fmt, exact_tolerance, end) - 1)
    return end
