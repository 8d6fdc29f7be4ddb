"""What a floating-point format does to positions and angles (chapter 10).

The formats are the binary ones of IEEE 754 (float16, float32, float64) and bfloat16 (8
significant bits and float32's exponents), described by three integers: the significant
bits p (the leading one included), the least normal exponent and the greatest exponent.
bfloat16 is recognised by its dtype, so nothing here imports ``ml_dtypes``.

:func:`round_to_format` rounds float64 numbers to such a format exactly (to nearest, ties
to even), which NumPy's casts do not always do for bfloat16: ``ml_dtypes`` (0.6.0) casts a
float64 to float32 first and then to bfloat16, rounding twice. :func:`angle_limit` finds
the first position at which an angle ``t * w_i`` formed in a format strays further than a
given tolerance from the exact one, with exact arithmetic (see its Notes).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numpy.typing import DTypeLike

from . import _validate

#: The widest table :func:`angle_limit` examines (most pairs are dismissed by one evaluation of a bound; the
#: few that are not are examined position by position, vectorised, from where the bound first exceeds the
#: tolerance).
MAX_WIDTH = 2**16
#: The search of :func:`angle_limit` ends at this position: every integer up to it is a float64 number.
SEARCH_END = 2**53


class _Format(NamedTuple):
    """A binary floating-point format: ``bits`` significant bits, normal exponents ``min_exp .. max_exp``."""

    name: str
    bits: int
    min_exp: int
    max_exp: int

    @property
    def largest(self) -> int:
        """The largest finite number, (2 - 2**(1 - p)) 2**max_exp (65,504 for float16)."""
        return (2**self.bits - 1) * 2 ** (self.max_exp - self.bits + 1)

    @property
    def overflow(self) -> int:
        """The least number that rounds to infinity: the largest plus half its spacing."""
        return (2 ** (self.bits + 1) - 1) * 2 ** (self.max_exp - self.bits)


def _format(dtype: np.dtype) -> _Format:
    """The format of a validated dtype (float16, bfloat16, float32, float64, or a long double of 53 bits)."""
    if _validate.is_bfloat16(dtype):
        return _Format("bfloat16", 8, -126, 127)
    info = np.finfo(dtype)
    return _Format(dtype.name, info.nmant + 1, info.minexp, info.maxexp - 1)


def round_to_format(x: np.ndarray, fmt: _Format) -> np.ndarray:
    """Float64 numbers rounded to the nearest number of ``fmt`` (ties to even), as float64; beyond its range +-inf.

    Exact: the number is scaled by a power of two so that the bits to keep are its integer
    part, and ``numpy.rint`` rounds that to the nearest integer, ties to even. Subnormal
    numbers of the format keep the spacing of its least normal binade.
    """
    x = np.asarray(x, dtype=np.float64)
    _, exponent = np.frexp(x)  # |x| = m 2**exponent with 1/2 <= m < 1; 0 for x = 0
    quantum = np.maximum(exponent - 1, fmt.min_exp) - fmt.bits + 1  # the spacing of x's binade is 2**quantum
    rounded = np.ldexp(np.rint(np.ldexp(x, -quantum)), quantum)
    with np.errstate(over="ignore"):
        return np.where(np.abs(rounded) > fmt.largest, np.copysign(np.inf, x), rounded)


def to_dtype(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Float64 ``x`` in ``dtype``, each number rounded once to nearest (a bfloat16 through :func:`round_to_format`)."""
    if _validate.is_bfloat16(dtype):
        # The correctly rounded value is a bfloat16 number, hence a float32 one: both casts below are exact.
        return round_to_format(x, _format(dtype)).astype(np.float32).astype(dtype)
    return np.asarray(x, dtype=np.float64).astype(dtype)


def _round_fraction(x: Fraction, fmt: _Format) -> Fraction | float:
    """A non-negative exact number rounded to the nearest number of ``fmt`` (ties to even); inf beyond its range."""
    if x == 0:
        return Fraction(0)
    exponent = x.numerator.bit_length() - x.denominator.bit_length()  # floor(log2 x) or one more
    if Fraction(2) ** exponent > x:
        exponent -= 1
    quantum = Fraction(2) ** (max(exponent, fmt.min_exp) - fmt.bits + 1)
    rounded = round(x / quantum) * quantum  # round() of a Fraction: to nearest, ties to even
    return math.inf if rounded > fmt.largest else rounded


class _Pair(NamedTuple):
    """One frequency: ``omega`` (exact to about 2**-100 relative), ``rounded`` (its number in the format,
    a float64), ``delta = rounded - omega`` as a Fraction and as hi + lo floats, and the odd integer
    ``mantissa`` with rounded = mantissa * 2**k."""

    omega: Fraction
    rounded: float
    delta: Fraction
    delta_hi: float
    delta_lo: float
    mantissa: int


def _pair(omega_hi: float, omega_lo: float, fmt: _Format) -> _Pair:
    omega = Fraction(omega_hi) + Fraction(omega_lo)
    rounded = _round_fraction(omega, fmt)
    if rounded == math.inf:  # cannot happen for the bases accepted (>= 1), whose frequencies are at most 1
        raise ValueError("a frequency rounds to infinity in the format")
    delta = rounded - omega
    delta_hi = float(delta)
    mantissa = rounded.numerator if rounded else 0  # rounded = numerator / 2**k: the numerator is odd (or 1)
    return _Pair(omega, float(rounded), delta, delta_hi, float(delta - Fraction(delta_hi)), mantissa)


def _bound(t: int, pair: _Pair, fmt: _Format) -> Fraction | float:
    """An upper bound, non-decreasing in t, of the angle error |fl(fl(p) w^) - p w| over the positions p <= t.

    Three terms: the position's rounding (none up to 2**p, at most half its spacing beyond)
    times w^; p |w^ - w|; and the product's rounding, none while p^ m <= 2**p (the product is
    then an integer of at most p bits times the power of two of w^), else at most half the
    spacing at the largest angle.
    """
    if t == 0:
        return Fraction(0)
    if t >= fmt.overflow:
        return math.inf
    half_spacing = Fraction(2) ** (t.bit_length() - 1 - fmt.bits) if t > 2**fmt.bits else Fraction(0)
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


def _first_unsafe(pair: _Pair, fmt: _Format, tolerance: Fraction, end: int) -> int:
    """The least position t <= end whose bound exceeds the tolerance (end + 1 if none): all before it are safe."""
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
    """a * b - fl(a * b) exactly, for integers 0 <= a <= 2**53 and 0 < b < 1 (Dekker's product, Veltkamp's splits)."""
    product = a * b
    a_big = a * 134217729.0  # 2**27 + 1
    a1 = a_big - (a_big - a)
    a2 = a - a1
    b_big = b * 134217729.0
    b1 = b_big - (b_big - b)
    b2 = b - b1
    return ((a1 * b1 - product) + a1 * b2 + a2 * b1) + a2 * b2


def _errors(t: np.ndarray, pair: _Pair, fmt: _Format) -> tuple[np.ndarray, np.ndarray]:
    """The angle errors fl(fl(t) w^) - t w at integer positions t (float64, exact integers), and their uncertainty.

    For p <= 26 every step is exact in float64: the rounded position and frequency have at
    most 26 bits, so their product is exact and its rounding is exact (``round_to_format``);
    the difference between the rounded and the exact product is a number of at most p bits.
    For float64 (p = 53) the positions are exact and the product's error comes from Dekker's
    exact product. Only t (w^ - w) = t delta is rounded, by a relative 2**-52 at most, and w
    itself is known to about 2**-100 relative: the returned uncertainty covers both.
    """
    w = pair.rounded
    with np.errstate(over="ignore", invalid="ignore"):
        if fmt.bits <= 26:
            position = round_to_format(t, fmt)
            product = position * w
            angle = round_to_format(product, fmt)
            exact_part = (angle - product) + (position - t) * w  # each exact; their sum rounded (covered below)
        else:
            angle = t * w
            exact_part = -_two_product_error(t, w)
        drift = t * pair.delta_hi + t * pair.delta_lo
        error = exact_part + drift
        if pair.delta == 0:
            # An exact frequency: no drift, and for p <= 26 exact_part is exact (its two terms are multiples of
            # the frequency's quantum below 2**48 of it), so the error is known exactly.
            uncertainty = np.zeros_like(error) if fmt.bits <= 26 else 2.0**-48 * np.abs(exact_part)
        else:
            uncertainty = 2.0**-48 * (np.abs(exact_part) + np.abs(drift)) + t * 2.0**-98
        overflowed = ~np.isfinite(angle)
        error = np.where(overflowed, np.inf, error)
    return error, np.where(overflowed, 0.0, uncertainty)


def _exact_error(t: int, pair: _Pair, fmt: _Format) -> Fraction | float:
    """|fl(fl(t) w^) - t w| in exact arithmetic (w to about 2**-100 relative), for an undecided position."""
    position = _round_fraction(Fraction(t), fmt)
    if position == math.inf:
        return math.inf
    angle = _round_fraction(position * Fraction(pair.rounded), fmt)
    return math.inf if angle == math.inf else abs(angle - t * pair.omega)


def _first_failure_power_of_two(w: Fraction, fmt: _Format, tolerance: Fraction) -> int:
    """The least position whose angle error exceeds the tolerance, for an exact frequency w = 2**-j (normal).

    The product fl(t) w is then an exact scaling, so the error is |fl(t) - t| w: none up to
    2**p; in a binade [2**k, 2**(k+1)) with k >= p, of spacing s = 2**(k-p+1), the position
    2**k + j rounds to 2**k for j < s/2 (error j w), and 2**k + s/2, a tie, rounds to the
    even 2**k too (error s/2 w), the largest error of the binade. From ``fmt.overflow`` on
    the position is infinite.
    """
    k = fmt.bits
    while 2**k < fmt.overflow:
        half = 2 ** (k - fmt.bits)
        if half * w > tolerance:  # the first binade whose largest error exceeds the tolerance
            return min(2**k + min(int(tolerance / w) + 1, half), fmt.overflow)
        k += 1
    return fmt.overflow


def _first_failure(pair: _Pair, fmt: _Format, tolerance: Fraction, end: int) -> int:
    """The least position t <= end whose angle error exceeds the tolerance (end + 1 if none)."""
    rounded = Fraction(pair.rounded)
    if pair.delta == 0 and pair.mantissa == 1 and rounded >= Fraction(2) ** fmt.min_exp:
        return min(_first_failure_power_of_two(rounded, fmt, tolerance), end + 1)
    t = _first_unsafe(pair, fmt, tolerance, end)
    if fmt.bits == 53:
        return _first_failure_float64(t, pair, tolerance, end)
    tol = float(tolerance)
    chunk = 1 << 10
    while t <= end:
        positions = np.arange(t, min(end, t + chunk - 1) + 1, dtype=np.float64)
        error, uncertainty = _errors(positions, pair, fmt)
        magnitude = np.abs(error)
        over = magnitude > tol + uncertainty
        unsure = ~over & (magnitude >= tol - uncertainty) & (uncertainty > 0)  # uncertainty 0: the error is exact
        for index in np.flatnonzero(over | unsure):
            if over[index] or _exact_error(t + int(index), pair, fmt) > tolerance:
                return t + int(index)
        t += len(positions)
        chunk = min(chunk * 2, 1 << 20)
    return end + 1


def _first_residue(a: int, m: int, lo: int, hi: int) -> int | None:
    """The least x >= 0 with lo <= (a x) mod m <= hi (0 <= lo <= hi < m), or None if there is none.

    If no multiple of a lies in [lo, hi], x wraps around m some y >= 1 times, and the least
    such y solves the same problem modulo a: a multiple of a in [lo + m y, hi + m y] means
    (m y) mod a in [a - hi mod a, a - lo mod a]. The moduli fall as in Euclid's algorithm.
    """
    a %= m
    if lo == 0:
        return 0
    if a == 0:
        return None
    x = -(-lo // a)
    if a * x <= hi:
        return x
    y = _first_residue(m % a, a, a - hi % a, a - lo % a)
    return None if y is None else -(-(lo + m * y) // a)


def _first_in_window(a: int, start: int, m: int, lo: int, hi: int) -> int | None:
    """The least x >= 0 with lo <= (a (start + x)) mod m <= hi, or None."""
    lo, hi = max(lo, 0), min(hi, m - 1)
    if lo > hi:
        return None
    b = (a * start) % m
    if lo <= b <= hi:
        return 0
    shift = -b if b < lo else m - b  # (a x) mod m must then lie in [lo + shift, hi + shift], inside [0, m)
    return _first_residue(a, m, lo + shift, hi + shift)


def _first_failure_float64(t: int, pair: _Pair, tolerance: Fraction, end: int) -> int:
    """``_first_failure`` in float64, where positions up to 2**53 are exact, by jumps instead of a scan.

    In a binade [2**k, 2**(k+1)) of the angle the product t w^ = t W 2**e (W an integer) is
    rounded to a multiple of s = 2**(k-52): its rounding r depends on u = (t W) mod M, M the
    number of steps of 2**e in s, and is s (rint(u/M) - u/M). The error r + t delta exceeds
    the tolerance only for u in two windows (just above M/2 when r > tol - t delta, just
    below when r < -tol - t delta), which move slowly with t delta. Over a block of positions
    where t delta changes by at most s/64 the windows are widened to hold for the whole block,
    the least position in them is found by ``_first_in_window``, and it is checked exactly.
    """
    w = Fraction(pair.rounded)
    if w == 0:
        drift = abs(pair.delta)
        first = tolerance // drift + 1
        return int(first) if first <= end else end + 1
    numerator, denominator = w.numerator, w.denominator  # w^ = W / 2**j
    delta = pair.delta
    while t <= end:
        angle = t * w
        k = angle.numerator.bit_length() - angle.denominator.bit_length()
        if Fraction(2) ** k > angle:
            k -= 1
        spacing = Fraction(2) ** (k - 52)
        binade_end = min(end, -(-(Fraction(2) ** (k + 1)) // w) - 1)  # the last t whose product lies below 2**(k+1)
        steps = spacing * denominator  # s / 2**-j: the product is exact when this is at most 1
        if steps <= 1:  # no rounding in this binade: the error is t delta
            if delta:
                first = tolerance // abs(delta) + 1
                if first <= binade_end:
                    return max(t, int(first))
            t = binade_end + 1
            continue
        modulus = int(steps)
        while t <= binade_end:
            # The windows are open where tol - |t delta| < s / 2. Until then nothing can fail: jump.
            opening = tolerance - abs(t * delta)
            if opening >= spacing / 2:
                if not delta:
                    break
                t = int((tolerance - spacing / 2) / abs(delta)) + 1
                continue
            # A block over which |t delta| grows by at most a quarter of how far the windows are open, so
            # that the windows widened to hold over the whole block are at most 5/4 of the true ones.
            block = max(1, int((spacing / 2 - opening) / (4 * abs(delta)))) if delta else binade_end - t + 1
            last = min(binade_end, t + block - 1)
            drifts = (t * delta, last * delta)
            up = tolerance - max(drifts)  # r must exceed this (its least value over the block)
            down = tolerance + min(drifts)  # or -r must exceed this
            # r = s (1 - u/M) above M/2 and -s u/M below (ties at M/2 either way): the residues u where
            # r > up or -r > down, each window widened by one residue.
            windows = []
            if up < spacing / 2:
                windows.append((modulus // 2, int(modulus * (1 - up / spacing)) + 1))
                if up < 0:
                    windows.append((0, int(modulus * -up / spacing) + 1))
            if down < spacing / 2:
                windows.append((int(modulus * down / spacing) - 1, -(-modulus // 2)))
                if down < 0:
                    windows.append((int(modulus * (1 + down / spacing)) - 1, modulus - 1))
            while t <= last and windows:
                hits = [_first_in_window(numerator, t, modulus, lo, hi) for lo, hi in windows]
                hits = [x for x in hits if x is not None and t + x <= last]
                if not hits:
                    break
                candidate = t + min(hits)
                if _exact_error(candidate, pair, _FLOAT64) > tolerance:
                    return candidate
                t = candidate + 1
            t = last + 1
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
    r"""The largest position up to which the angles :math:`t\,\omega_i` formed in ``dtype`` stay within ``tolerance``.

    The angles are formed as framework code forms them in a low-precision type: the
    position :math:`t` and the frequency :math:`\omega_i = \mathrm{base}^{-2i/d}` are each
    rounded to ``dtype`` (to nearest, ties to even), and so is their product,
    :math:`\hat a = \mathrm{fl}(\mathrm{fl}(t)\,\mathrm{fl}(\omega_i))`. (PyTorch computes a
    float16 or bfloat16 product in float32 and rounds it: the same number, as the product
    of two such numbers is exact in float32.) The result is the largest :math:`T` such that
    :math:`|\hat a - t\,\omega_i| \le` ``tolerance`` radians at every integer position
    :math:`0 \le t \le T`, for pair ``pair`` or, with ``pair=None``, for every pair of a
    table of width ``d_model`` (or a rotary embedding of head width ``d_model``).
    Chapter 10 (:doc:`/notebooks/10_precision_and_speed`) derives and uses it.

    Parameters
    ----------
    d_model : int
        Width of the table (or of a rotary head), from 1 to ``MAX_WIDTH`` :math:`= 2^{16}`; its pairs are
        :math:`i = 0 \ldots \lceil d/2 \rceil - 1`.
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
    **Exact.** For each pair, :math:`\omega_i` is known to about
    :math:`2^{-100}` relative (the double-double of :func:`frequencies`) and
    rounded to ``dtype`` in exact rational arithmetic. Up to the first
    position where a bound on the error exceeds the tolerance, found by
    bisection, no position can fail: the bound adds the rounding of the
    position (none up to :math:`2^p`, :math:`p` the significant bits), the
    rounding of the frequency times :math:`t`, and the rounding of the
    product (none while the product has at most :math:`p` bits). From there
    the positions are examined one by one, with arithmetic that is exact in
    float64 but for the term :math:`t\,(\hat\omega_i - \omega_i)`, whose
    rounding is accounted for; a position too close to the tolerance to
    decide is decided in rational arithmetic. So the result is exact, but for
    frequencies within :math:`2^{-100}` relative of a midpoint of the format,
    or errors within about :math:`2^{-48}` relative of the tolerance, which
    the rational arithmetic decides with :math:`\omega_i` to :math:`2^{-100}`.

    A frequency that is exact in the format (a power of two, as :math:`\omega_0 = 1`) needs no
    search: the product is an exact scaling, the error is the position's rounding times
    :math:`\omega_i`, and the first position where it exceeds the tolerance follows from the
    spacing of the positions, binade by binade (ties go to the even neighbour).

    The fastest pair has :math:`\omega_0 = 1`, exact in every format: its
    angle is the rounded position, exact up to :math:`2^p`, and
    :math:`2^p + 1` rounds to :math:`2^p` (ties to even), an error of 1. So
    for a tolerance below 1 its limit is :math:`2^p`: 2,048 in float16, 256
    in bfloat16, :math:`2^{24}` in float32 and :math:`2^{53}` in float64.

    **Cost.** The cases of chapter 10 take well under a second. In float64 the positions are not
    scanned but jumped through; with a tolerance so wide that the limit comes near :math:`2^{53}`
    at a small width (``angle_limit(8, dtype=np.float64, tolerance=0.1)``), the jumps become many and
    the search takes more than five minutes. That is a known limitation, not a wrong result.

    Raises
    ------
    TypeError
        If ``d_model`` or ``pair`` is not an integer (or None, for
        ``pair``), ``tolerance`` or ``base`` is not a real number, or
        ``dtype`` is not one of the types above.
    ValueError
        If ``d_model`` is outside ``1 .. 2**16``, ``pair`` is outside ``0 .. ceil(d/2) - 1``,
        ``tolerance`` is not finite and positive, ``base`` is below 1 or not
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
        raise ValueError(f"dtype must have at most 53 significant bits (float64), got {dtype.name} with {fmt.bits}")
    from ._encoding import _frequency_table  # here: _encoding imports this module

    table = _frequency_table(d_model, base)
    exact_tolerance = Fraction(tolerance)
    indices = range(count) if pair is None else [pair]
    pairs = [_pair(float(table.omega[i]), float(table.omega_lo[i]), fmt) for i in indices]
    pairs = list({(p.rounded, p.delta): p for p in pairs}.values())  # equal frequencies (base 1) fail together
    # Every pair must hold. Visit first the pairs whose rounding suggests an early failure (about
    # tolerance / (|delta| + w 2**-p)), so that most of the others are dismissed by one evaluation of
    # their bound at the best limit found so far.
    def estimate(p: _Pair) -> float:
        return float(exact_tolerance) / (abs(p.delta_hi) + p.rounded * 2.0**-fmt.bits + 2.0**-1074)

    end = SEARCH_END
    for p in sorted(pairs, key=estimate):
        if _bound(end, p, fmt) > exact_tolerance:
            end = min(end, _first_failure(p, fmt, exact_tolerance, end) - 1)
    return end
