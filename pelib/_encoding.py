"""The sinusoidal positional encoding of Vaswani et al. (2017), section 3.5.

For every base of at least 1 the tables are within 5e-16 of the exact values at every
position below 2**31 (chapter 10 measures it against mpmath). A base below 1 is accepted
but carries no such bound: g_i then exceeds 2**10 and the products of step 2 are no
longer exact (base 1e-6 at d_model 16 is off by more than 1e-5 near 2**31). Three pieces
make the bound possible, each in its own section below:

1. **Frequencies in double-double.** Each w_i = base**(-2i/d) is computed in 60-digit
   decimal arithmetic and kept as two float64 numbers, hi + lo, within about 2**-100 of
   the exact value; so is w_i * 4096 / (2 pi), the frequency in steps (a step is a
   4096th of a turn) per position.
2. **Angles reduced without rounding, sines within 0.53 ulp.** The steps p * g_i are
   reduced modulo a whole turn with products that are exact in float64 (the frequency is
   split into pieces of at most 21 bits on fixed grids, the position into its top 26
   bits and the rest), so the reduced angle is known to about 2**-64 radians below
   2**31. Its sine and cosine come from a table of the 4096 steps (each a double-double)
   and short Taylor series for the rest of the angle, below pi/4096: all but the last
   addition are far below a unit in the last place, so each value is within about 0.53
   of one.
3. **One complex multiplication per entry.** A table is a first chunk of rows, evaluated
   as in 2., and every later chunk is the first one turned by one factor per frequency
   (the shift property of chapter 3), each factor evaluated as in 2. too. Every entry is
   thus one rounded complex multiplication away from two accurate values;
   ``_fill_table`` says why that keeps it within 3.1e-16.

Nothing here depends on the platform's long double or its sine: the accuracy path is
NumPy float64 arithmetic (no transcendental function) and the standard library's
``decimal``.
"""

from __future__ import annotations

import contextvars
import decimal
import functools
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _validate
from ._formats import to_dtype

LAYOUTS = ("interleaved", "concat")


# --- frequencies in double-double -----------------------------------------------------

#: pi to 85 significant digits (a constant of mathematics; the tests check it against
#: mpmath).
_PI = decimal.Decimal(
    "3.141592653589793238462643383279502884197169399375105820974944592307816406286208998628"
)
#: Significant digits of the decimal arithmetic behind the frequencies and the table of
#: turns (about 199 bits).
_DIGITS = 60
#: Angles are counted in steps of a whole turn / 4096 (pi/2048 radians): 1024 steps per
#: quarter turn.
_STEPS = 4096
#: The grids of the pieces of a frequency in steps per position (``_split_steps``).
_COARSE, _FINE = 2.0**-11, 2.0**-32


class _Frequencies(NamedTuple):
    """The frequencies of one (d_model, base) (read-only arrays of length ceil(d/2)).

    ``omega + omega_lo`` is w_i = base**(-2i/d) to about 2**-100 relative, ``omega``
    being w_i correctly rounded to float64 (unless w_i lies within 2**-100 of a
    midpoint). ``coarse + fine + tiny`` is g_i = w_i * 4096 / (2 pi), the frequency in
    steps of the table of turns per position, to about 2**-100 relative and 2**-86 steps
    absolute (the rounding of ``tiny``), split for exact products (``_split_steps``).
    """

    omega: np.ndarray
    omega_lo: np.ndarray
    coarse: np.ndarray
    fine: np.ndarray
    tiny: np.ndarray


def _frequency_table(d_model: int, base: float) -> _Frequencies:
    """The frequencies of a validated (d_model, base); those of the 16 last widths up to
    2**14 are remembered."""
    if d_model <= 1 << 14:
        return _remembered_frequencies(d_model, base)
    return _compute_frequencies(d_model, base)


@functools.lru_cache(maxsize=16)
def _remembered_frequencies(d_model: int, base: float) -> _Frequencies:
    return _compute_frequencies(d_model, base)


def _compute_frequencies(d_model: int, base: float) -> _Frequencies:
    """The frequencies of a validated (d_model, base); a base whose frequencies overflow
    is refused.

    w_i = q**i with q = base**(-2/d), from q**j and q**(M k) for i = j + M k (M about
    sqrt(ceil(d/2))): about 2 sqrt(d) powers in 60-digit decimal arithmetic (each within
    10**-57 relative), then one double-double product per frequency.
    """
    count = (d_model + 1) // 2
    context = decimal.Context(prec=_DIGITS)
    q = context.exp(
        context.divide(context.multiply(context.ln(decimal.Decimal(base)), -2), d_model)
    )
    step = math.isqrt(count - 1) + 1
    low = [decimal.Decimal(1)]
    for _ in range(1, step):
        low.append(context.multiply(low[-1], q))
    stride = context.multiply(low[-1], q)  # q ** step
    high = [decimal.Decimal(1)]
    for _ in range(1, (count + step - 1) // step):
        high.append(context.multiply(high[-1], stride))
    largest = context.multiply(
        low[(count - 1) % step], high[(count - 1) // step]
    )  # w of the last pair
    if not math.isfinite(float(max(largest, decimal.Decimal(1)))):
        raise ValueError(
            f"base={base!r} is too small for d_model={d_model}: "
            "its frequencies overflow"
        )
    in_steps = context.divide(_STEPS, context.multiply(2, _PI))
    low, high, high_steps = (
        _double_double(values, context)
        for values in (low, high, [context.multiply(h, in_steps) for h in high])
    )
    table = _Frequencies(*(np.empty(count) for _ in _Frequencies._fields))
    for begin in range(
        0, count, _BLOCK
    ):  # in blocks, so that the temporaries stay small
        i = np.arange(begin, min(count, begin + _BLOCK))
        j, k = i % step, i // step
        omega = _product(low[0][j], low[1][j], high[0][k], high[1][k])
        steps = _product(low[0][j], low[1][j], high_steps[0][k], high_steps[1][k])
        if not np.all(np.isfinite(omega[0])):
            raise ValueError(
                f"base={base!r} is too small for d_model={d_model}: "
                "its frequencies overflow"
            )
        finite = np.isfinite(steps[0]) & np.isfinite(
            steps[1]
        )  # w * 4096 / (2 pi) can overflow where w does not
        steps = (
            np.where(finite, steps[0], np.fmod(omega[0], _STEPS)),
            np.where(finite, steps[1], 0.0),
        )
        for array, part in zip(table, (*omega, *_split_steps(*steps)), strict=True):
            array[begin : begin + len(i)] = part
    for array in table:
        array.flags.writeable = False
    return table


def _double_double(
    values: list[decimal.Decimal], context: decimal.Context
) -> tuple[np.ndarray, np.ndarray]:
    """Each decimal as hi + lo: hi its nearest float64, lo the nearest float64 to the
    rest."""
    hi = [float(v) for v in values]
    lo = [
        float(context.subtract(v, decimal.Decimal(h))) if math.isfinite(h) else 0.0
        for v, h in zip(values, hi, strict=True)
    ]
    return np.array(hi), np.array(lo)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split of |x| < 2**996 into two halves of at most 26 bits, x = big +
    small exactly."""
    t = x * 134217729.0  # 2**27 + 1
    big = t - (t - x)
    return big, x - big


def _product(
    a: np.ndarray, a_lo: np.ndarray, b: np.ndarray, b_lo: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(a + a_lo)(b + b_lo) as a double-double, to about 2**-104 relative (Dekker's
    product).

    The mantissas are multiplied in [1/4, 1) and the exponents added afterwards, so that
    no intermediate overflows; a result beyond the float64 range comes out infinite.
    """
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    a_lo, b_lo = np.ldexp(a_lo, -ea), np.ldexp(b_lo, -eb)
    p = ma * mb
    (a1, a2), (b1, b2) = _split(ma), _split(mb)
    error = ((a1 * b1 - p) + a1 * b2 + a2 * b1) + a2 * b2  # p + error = ma * mb exactly
    error += ma * b_lo + a_lo * mb
    hi = p + error
    lo = error - (hi - p)
    with np.errstate(over="ignore"):
        return np.ldexp(hi, ea + eb), np.ldexp(lo, ea + eb)


def _split_steps(
    hi: np.ndarray, lo: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split g = hi + lo (steps per position) into coarse + fine + tiny.

    ``coarse`` is g on the grid of 2**-11, ``fine`` the rest on the grid of 2**-32
    (|fine| <= 2**-12), ``tiny`` what remains (|tiny| <= 2**-33). For every base of at
    least 1, g <= 4096 / (2 pi) < 2**10: ``coarse`` then has at most 21 bits and
    ``fine`` at most 20, so that their products with an integer below 2**32
    (``_integer_steps``) or with a 26-bit half of a position (``_steps``) are exact in
    float64. From 2**52 on the grids mean nothing: g (a whole number there) is kept
    modulo a turn and its low part dropped, which leaves the values finite but
    meaningless for such frequencies (above 7e12 radians per position, where no float64
    formula is meaningful either).
    """
    huge = np.abs(hi) >= 2.0**52
    with np.errstate(over="ignore", invalid="ignore"):
        coarse = np.where(huge, np.fmod(hi, _STEPS), np.rint(hi / _COARSE) * _COARSE)
    rest = np.where(
        huge, 0.0, hi - coarse
    )  # exact: the bits of hi below the coarse grid
    fine = np.rint(rest / _FINE) * _FINE
    return coarse, fine, np.where(huge, 0.0, (rest - fine) + lo)


def _frequencies_of(exponents: list[decimal.Decimal], base: float) -> _Frequencies:
    """The frequencies ``base ** (-e)`` for the exponents ``e >= 0`` given as decimals
    (exact fractions computed by the caller), as double-doubles and in steps, like
    ``_compute_frequencies``.

    For frequencies other than the paper's (``pelib.identify`` rebuilds tensor2tensor's
    grid and the paper's grid at widths other than the table's). Each power is computed
    in 60-digit decimal arithmetic, within 10**-57 relative.
    """
    context = decimal.Context(prec=_DIGITS)
    log_base = context.ln(decimal.Decimal(base))
    values = [
        context.exp(context.minus(context.multiply(log_base, e))) for e in exponents
    ]
    in_steps = context.divide(_STEPS, context.multiply(2, _PI))
    omega = _double_double(values, context)
    steps = _double_double([context.multiply(v, in_steps) for v in values], context)
    return _Frequencies(omega[0], omega[1], *_split_steps(*steps))


def _pairs_at_positions(positions: np.ndarray, freq: _Frequencies) -> np.ndarray:
    """sin a + i cos a for a = p * w, every integer position ``|p| < 2**32`` (a 1-D int
    array) and frequency: a complex128 array of shape (len(positions), len(w)), each
    part within about 0.53 units in the last place of the exact value."""
    out = np.empty((len(positions), len(freq.omega)), dtype=np.complex128)
    _pairs_at_integers(positions.astype(np.float64), freq, None, out)
    return out


def _angular_frequencies(d_model: int, base: float, dtype: DTypeLike) -> np.ndarray:
    """w_i = base ** (-2i / d_model) for i = 0 .. ceil(d_model / 2) - 1, in ``dtype`` (a
    new array).

    Float64 gets the correctly rounded values; long double gets hi + lo rounded once to
    it. The arguments are already validated; a base so small that a frequency overflows
    is the one case left to reject.
    """
    table = _frequency_table(d_model, base)
    if np.dtype(dtype) == np.longdouble:
        return table.omega.astype(np.longdouble) + table.omega_lo.astype(np.longdouble)
    return table.omega.astype(dtype)


# --- accurate sines and cosines -------------------------------------------------------

#: One step of the table of turns, 2 pi / 4096, rounded to float64 (it multiplies angles
#: below half a step).
_STEP = float(2 * _PI / _STEPS)
#: Elements per block of the accurate evaluation: its work arrays stay in the cache.
_BLOCK = 1 << 15


@functools.lru_cache(maxsize=1)
def _turn_table() -> tuple[np.ndarray, np.ndarray]:
    """z_j = sin(j s) + i cos(j s), s = 2 pi / 4096, j = 0 .. 4095, as complex hi + lo
    (each part within 2**-106).

    The first quarter turn comes from e^{is} (its Taylor series) and its powers, in
    60-digit decimal arithmetic; the other three quarters are z_j (-i)**q, which is
    exact.
    """
    context = decimal.Context(prec=_DIGITS)
    cos, sin = _decimal_cos_sin(
        context.divide(context.multiply(2, _PI), _STEPS), context
    )
    c, s = decimal.Decimal(1), decimal.Decimal(0)
    sines, cosines = [], []
    for _ in range(_STEPS // 4):
        sines.append(s)
        cosines.append(c)
        c, s = (
            context.subtract(context.multiply(c, cos), context.multiply(s, sin)),
            context.add(context.multiply(s, cos), context.multiply(c, sin)),
        )
    (sin_hi, sin_lo), (cos_hi, cos_lo) = (
        _double_double(sines, context),
        _double_double(cosines, context),
    )
    tables = []
    for quarter in (sin_hi + 1j * cos_hi, sin_lo + 1j * cos_lo):
        table = np.concatenate(
            [quarter * (-1j) ** q for q in range(4)]
        )  # (a + ib)(-i) = b - ia, exactly
        table.flags.writeable = False
        tables.append(table)
    return tables[0], tables[1]


def _decimal_cos_sin(
    x: decimal.Decimal, context: decimal.Context
) -> tuple[decimal.Decimal, decimal.Decimal]:
    """cos x and sin x of a small decimal x by their Taylor series, to the context's
    precision."""
    cos, sin, term, k = decimal.Decimal(0), decimal.Decimal(0), decimal.Decimal(1), 0
    negligible = decimal.Decimal(10) ** -(context.prec + 5)
    while abs(term) > negligible:
        # context.add and context.subtract: Python's + and - would round to 28 digits
        if k % 2 == 0:
            cos = context.add(cos, term) if k % 4 == 0 else context.subtract(cos, term)
        else:
            sin = context.add(sin, term) if k % 4 == 1 else context.subtract(sin, term)
        k += 1
        term = context.divide(context.multiply(term, x), k)
    return cos, sin


#: Scratch arrays of each thread, reused from call to call: a fresh array of a few
#: megabytes costs more in page faults (first touches of new memory) than the arithmetic
#: done in it.
_SCRATCH = threading.local()
#: Arrays larger than this are not kept.
_SCRATCH_BYTES = 1 << 22


def _scratch(
    name: str, shape: tuple[int, ...], dtype: DTypeLike = np.float64
) -> np.ndarray:
    """This thread's scratch array ``name`` with ``shape`` (contents undefined); never
    part of a result."""
    size = math.prod(shape)
    kept = _SCRATCH.__dict__.get(name)
    if kept is None or kept.size < size or kept.dtype != dtype:
        kept = np.empty(max(size, 1), dtype=dtype)
        if kept.nbytes <= _SCRATCH_BYTES:
            _SCRATCH.__dict__[name] = kept
    return kept[:size].reshape(shape)


def _work(shape: tuple[int, int]) -> list[np.ndarray]:
    """The work arrays of one block of the accurate evaluation: four float64, one index,
    two complex."""
    return [
        *(_scratch(f"real{k}", shape) for k in range(4)),
        _scratch("index", shape, np.intp),
        _scratch("complex0", shape, np.complex128),
        _scratch("complex1", shape, np.complex128),
    ]


def _steps(positions: np.ndarray, freq: _Frequencies) -> tuple[np.ndarray, np.ndarray]:
    """positions * g modulo 4096 steps as ``whole + part``, for any finite float64
    positions (broadcast against g).

    ``whole`` is on the grid of 2**-32 in [-2048, 2048], |part| <= 2**-32. Each position
    is split into its top 26 bits and the other 27 (through its exponent, so that
    nothing overflows); each part times ``coarse`` or ``fine`` is exact (27 + 21 bits)
    and so is its remainder modulo 4096; the remainders and p * tiny are added with
    Knuth's TwoSum. What is rounded is p * tiny (by |p| 2**-86 steps) and the sum of the
    TwoSum errors: about 2**-55 steps (2**-64 radians) at |p| = 2**31, growing in
    proportion to |p|.
    """
    mantissa, exponent = np.frexp(positions)
    big = np.ldexp(
        np.trunc(np.ldexp(mantissa, 26)), exponent - 26
    )  # the top 26 bits; the other 27 in small
    small = positions - big
    # coarse is a multiple of 2**-11 and fine of 2**-32, so a multiple of 2**23 (2**44)
    # times coarse (fine) is a whole number of turns: reducing the halves first (fmod is
    # exact) keeps every product below 2**33 steps, however large the position.
    terms = [
        _modulo_turn(np.fmod(half, period) * g)
        for half in (big, small)
        for period, g in ((2.0**23, freq.coarse), (2.0**44, freq.fine))
    ]
    terms.append(
        _modulo_turn(positions * freq.tiny)
    )  # the one rounded product, below 1 step for |p| < 2**33
    total, errors = terms[0], []
    for term in terms[1:]:
        total, error = _two_sum(total, term)
        errors.append(error)
    total = _modulo_turn(total)
    whole = np.rint(total / _FINE) * _FINE
    return whole, (total - whole) + sum(errors)


def _modulo_turn(x: np.ndarray) -> np.ndarray:
    """x minus the nearest multiple of a whole turn (4096 steps), exactly."""
    return x - _STEPS * np.rint(x / _STEPS)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s = fl(a + b) and the exact error a + b - s (Knuth)."""
    s = a + b
    virtual = s - a
    return s, (a - (s - virtual)) + (b - virtual)


def _integer_steps(
    m: np.ndarray,
    freq: _Frequencies,
    whole: np.ndarray | None,
    part: np.ndarray | None,
    arrays: list[np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Steps of (m + offset) * g for integers |m| < 2**32 (a column) and every
    frequency.

    The offset's steps are ``whole + part`` from ``_steps`` (None for no offset).
    Returns (count, y, rest) in ``arrays``: the angle is count + y + rest steps, count
    an integer, y on the grid of 2**-32 below 2**21 and |rest| <= 2**-1. Exact but for
    ``rest``: m * coarse has at most 32 + 21 bits, m * fine is below 2**20 on the grid
    of 2**-32, so their sum after removing the integer part of the first is exact too,
    and so is adding ``whole``.
    """
    count, y, rest, x = arrays[:4]
    np.multiply(m, freq.coarse, out=x)
    np.rint(x, out=count)
    np.subtract(x, count, out=x)
    np.multiply(m, freq.fine, out=y)
    np.add(y, x, out=y)
    if whole is not None:
        np.add(y, whole, out=y)
    np.multiply(m, freq.tiny, out=rest)
    if part is not None:
        np.add(rest, part, out=rest)
    return count, y, rest


def _pairs_from_steps(
    count: np.ndarray,
    y: np.ndarray,
    rest: np.ndarray,
    out: np.ndarray,
    arrays: list[np.ndarray],
    turn: int = 0,
) -> None:
    """out = sin a + i cos a for a = count + y + rest steps plus ``turn`` quarter turns.

    With j the step nearest to the angle and d the rest in radians (|d| <= pi/4096),

        z = z_j e^{-id} = z_j + (z_j (e^{-id} - 1) + z_j,lo),

    where e^{-id} - 1 = (cos d - 1) - i sin d comes from short Taylor series (-d^2/2 +
    d^4/24 and d - d^3/6: the first neglected terms are below 3e-22 and 3e-18). The
    correction in parentheses is below 8e-4 in modulus, so its own roundings cost about
    a thousandth of a unit in the last place; the last addition rounds once. Each value
    is thus within about 0.53 units in the last place of float64 (2**-53 near 1) of the
    sine or cosine of the reduced angle, which itself is within about 2**-64 radians for
    positions below 2**31. With ``turn=1`` the result is the factor e^{-ia} = (-i)(sin a
    + i cos a).
    """
    x, index, correction, product = arrays[3], arrays[4], arrays[5], arrays[6]
    d = rest
    np.add(y, rest, out=x)
    np.rint(x, out=x)  # the nearest step, before the whole count
    np.subtract(y, x, out=y)  # exact: both on the grid of 2**-32
    np.add(count, x, out=count)
    np.copyto(index, count, casting="unsafe")
    if turn:
        np.add(index, turn * _STEPS // 4, out=index)
    np.bitwise_and(
        index, _STEPS - 1, out=index
    )  # modulo a whole turn, also for negative counts
    np.add(y, d, out=d)  # within half a step (and a rounding) of 0
    np.multiply(d, _STEP, out=d)  # the rest in radians, |d| <= pi/4096
    np.multiply(d, d, out=x)
    cos_minus_1, minus_sin = correction.real, correction.imag
    np.multiply(x, 1 / 24, out=cos_minus_1)
    np.add(cos_minus_1, -1 / 2, out=cos_minus_1)
    np.multiply(cos_minus_1, x, out=cos_minus_1)
    np.multiply(d, x, out=y)
    np.multiply(y, 1 / 6, out=y)
    np.subtract(y, d, out=minus_sin)
    hi, lo = _turn_table()
    np.take(hi, index, out=out, mode="clip")  # z_j
    np.multiply(out, correction, out=product)
    np.take(lo, index, out=correction, mode="clip")
    np.add(product, correction, out=correction)
    np.add(out, correction, out=out)


def _pairs_at_integers(
    m: np.ndarray,
    freq: _Frequencies,
    offset: tuple[np.ndarray, np.ndarray] | None,
    out: np.ndarray,
    turn: int = 0,
) -> None:
    """out[r] = the pairs of position m[r] + offset (or the factors, ``turn=1``), in
    blocks that stay in cache."""
    rows = max(1, _BLOCK // out.shape[1])
    whole, part = offset if offset is not None else (None, None)
    for begin in range(0, len(m), rows):
        block = out[begin : begin + rows]
        arrays = _work(block.shape)
        count, y, rest = _integer_steps(
            m[begin : begin + rows, None], freq, whole, part, arrays
        )
        _pairs_from_steps(count, y, rest, block, arrays, turn)


def _pairs_at(positions: np.ndarray, freq: _Frequencies, out: np.ndarray) -> None:
    """out[r] = the pairs of the float64 position positions[r], for any finite
    positions."""
    whole, part = _steps(positions[:, None], freq)
    arrays = _work(out.shape)
    count, y, rest = arrays[:3]
    count.fill(0.0)
    np.copyto(y, whole)
    np.copyto(rest, part)
    _pairs_from_steps(count, y, rest, out, arrays)


# --- the public functions -------------------------------------------------------------


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
    Each frequency is the exact :math:`\mathrm{base}^{-2i/d}` rounded once to
    the nearest float64: within half a unit in the last place, at every width
    and for every base. It is computed in 60-digit decimal arithmetic and
    kept internally as a double-double (two float64 numbers whose sum is
    within about :math:`2^{-100}` of the exact value), from which
    :func:`sinusoidal` and :func:`encode` form their angles. (A value within
    :math:`2^{-100}` of a midpoint between two float64 numbers could round the
    other way; the tests compare every frequency of many widths and bases
    with mpmath and find none.)

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


_ACCURACY = r"""
    **Accuracy.** At every position :math:`|p| < 2^{31}` and for every base of
    at least 1, each float64 entry is within :math:`5 \cdot 10^{-16}` of the
    exact value, at every width, in both layouts, for tables of any length
    and start (fractional and negative ones too). The source derives
    :math:`3.1 \cdot 10^{-16}`; the tests and chapter 10
    (:doc:`/notebooks/10_precision_and_speed`) measure it against mpmath: at
    most about :math:`2.2 \cdot 10^{-16}` (half a unit in the last place of a
    value just below 1 is :math:`1.1 \cdot 10^{-16}`). A float32, float16 or
    bfloat16 result is the float64 value rounded once (to nearest, ties to
    even): within half a unit of its type plus the float64 error, so within
    :math:`2^{-24}` in float32 and :math:`2^{-9} + 5 \cdot 10^{-16}` in
    bfloat16 (half its spacing in :math:`[\frac12, 1)`, 8 significant bits;
    ``ml_dtypes``' own cast from float64 rounds twice, through float32, so
    pelib rounds to bfloat16 itself). Nothing
    depends on the platform's long double or on its sine. Beyond
    :math:`2^{31}` the error grows in proportion to the position, by up to
    about :math:`|p| \cdot 2^{-95}`: measured, still within
    :math:`5 \cdot 10^{-16}` up to :math:`2^{44}` and about
    :math:`10^{-13}` near :math:`2^{53}`, beyond which float64 positions are
    no longer all integers. A long double result is computed directly in long
    double (the angles :math:`p\,\omega_i` and their sines), as accurate as
    the platform's long double makes it.
"""


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

    Row ``t`` encodes position :math:`p = \mathrm{start} + t` (exactly: the sum
    is not rounded). With ``layout="interleaved"`` (the paper's formula)

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
        and negative positions are allowed).
    layout : {"interleaved", "concat"}, default "interleaved"
        ``"interleaved"`` alternates sine and cosine columns,
        ``sin(p w_0), cos(p w_0), sin(p w_1), ...``. ``"concat"`` puts all
        sines first and then all cosines, ``[sin | cos]``; for odd ``d_model``
        that is ``ceil(d/2)`` sine columns followed by ``floor(d/2)`` cosine
        columns. The two layouts are a column permutation of each other.
    dtype : numpy floating dtype or ml_dtypes.bfloat16, default numpy.float64
        Type of the result. Float16, bfloat16, float32 and float64 tables are
        computed in float64 and rounded once; a long double table is computed
        directly in long double. bfloat16 is recognised by its dtype (pelib
        does not import ``ml_dtypes``); the float8 types are refused.

    Notes
    -----{accuracy}
    **Method.** The first chunk of rows (about :math:`2^{14}` pairs, 32 rows
    at ``d_model = 1024``, so that it stays in the processor's cache) is
    evaluated entry by entry as :func:`encode` does it. Every later chunk is
    the first one turned by one factor :math:`e^{-i\omega_i m}` per frequency,
    itself evaluated as accurately (the shift property of chapter 3,
    :doc:`/notebooks/03_shift_property`): one complex multiplication per
    (sine, cosine) pair instead of a sine and a cosine, written straight into
    the table where its type and layout allow. So every entry is one rounded
    complex multiplication away from two accurate values. The factors do not
    depend on ``start``; those of the last four (``d_model``, ``base``) are
    kept (up to 2 MiB each), so that another table of the same width costs
    one accurate chunk and one complex multiplication per pair. The bits of a
    row depend on ``start`` and on the row's index, not on the length of the
    table nor on its type (a float32 table is the float64 one rounded).
    ``make bench`` measures the speed against the direct formula and against
    ``numpy.ones``.

    Returns
    -------
    numpy.ndarray
        Array of shape ``(n_positions, d_model)`` and type ``dtype``.

    Raises
    ------
    TypeError
        If a size is not an integer (booleans included), ``base`` or
        ``start`` is not a real number, ``layout`` is not a string or
        ``dtype`` is not a floating dtype (NumPy's or bfloat16).
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
    bfloat16 = _validate.is_bfloat16(dtype)  # built in float64, then rounded once
    _validate.fits(
        n_positions * d_model,
        dtype.itemsize + (8 if bfloat16 else 0),
        "n_positions and d_model",
    )
    _check_range(abs(start) + n_positions, d_model, base, "start and n_positions")
    if dtype == np.longdouble:
        positions = np.longdouble(start) + np.arange(n_positions, dtype=np.longdouble)
        return _direct_table(positions, d_model, base, layout, dtype)
    table = np.empty((n_positions, d_model), dtype=np.float64 if bfloat16 else dtype)
    if n_positions:
        _fill_table(table, start, d_model, base, layout)
    return to_dtype(table, dtype) if bfloat16 else table


def encode(
    positions: ArrayLike,
    d_model: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    r"""Sinusoidal encodings of arbitrary positions, each evaluated on its own.

    The encoding of :func:`sinusoidal`, for positions that need not be
    consecutive: a scalar, a list, or an array of any shape, integers or
    not. Useful for looking at one slow column over a long range, or at
    far-away positions, without building every row in between. Chapter 1
    (:doc:`/notebooks/01_formula`) uses it for the slowest dimension.

    Parameters
    ----------
    positions : array_like of real numbers
        Positions to encode, finite; integers and floats are accepted,
        booleans and complex numbers are not. They are taken as float64
        numbers (long double for a long double result).
    d_model : int
        Width of the encoding, at least 1.
    base : float, default 10000.0
        The constant of the paper, finite and positive.
    layout : {"interleaved", "concat"}, default "interleaved"
        Column order, as in :func:`sinusoidal`.
    dtype : numpy floating dtype or ml_dtypes.bfloat16, default numpy.float64
        Type of the result, as in :func:`sinusoidal`.

    Returns
    -------
    numpy.ndarray
        Array of shape ``numpy.shape(positions) + (d_model,)``.

    Notes
    -----{accuracy}
    **Method.** Each entry is evaluated on its own. The angle
    :math:`p\,\omega_i` is reduced modulo :math:`2\pi` without rounding
    error below :math:`2^{31}`: with the double-double frequencies of
    :func:`frequencies`, split into pieces whose products with the position's
    halves are exact in float64. Its sine and cosine come from a table of 4096
    angles (each a double-double) and short Taylor series for the rest, so
    each value is within about 0.53 units in the last place, half a unit
    being the least a float64 result can promise. :func:`sinusoidal` agrees
    with it to within the errors of both, but not always to the last bit (its
    rows after the first chunk are products of two such values). Integer
    positions take a shorter exact path than fractional ones.

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
    bfloat16 = _validate.is_bfloat16(dtype)  # evaluated in float64, then rounded once
    positions = _validate.real_array(
        positions, "positions", dtype=_working_dtype(dtype)
    )
    _validate.fits(
        positions.size * d_model,
        dtype.itemsize + (8 if bfloat16 else 0),
        "positions and d_model",
    )
    if positions.size:
        _check_range(np.max(np.abs(positions)), d_model, base, "positions")
    flat = positions.reshape(-1)
    if dtype == np.longdouble:
        table = _direct_table(flat, d_model, base, layout, dtype)
    elif bfloat16:
        table = to_dtype(
            _encoded(
                flat,
                _frequency_table(d_model, base),
                d_model,
                layout,
                np.dtype(np.float64),
            ),
            dtype,
        )
    else:
        table = _encoded(flat, _frequency_table(d_model, base), d_model, layout, dtype)
    return table.reshape(positions.shape + (d_model,))


sinusoidal.__doc__ = sinusoidal.__doc__.replace("{accuracy}", _ACCURACY)
encode.__doc__ = encode.__doc__.replace("{accuracy}", _ACCURACY)


def _working_dtype(dtype: np.dtype) -> type:
    """Positions are float64, or long double if that is the output type."""
    return np.longdouble if dtype == np.longdouble else np.float64


def _check_range(
    largest_position: float, d_model: int, base: float, names: str
) -> None:
    """Reject positions whose angles p * w would overflow the floating-point range."""
    omega = _frequency_table(d_model, base).omega
    with np.errstate(over="ignore"):
        largest = np.float64(largest_position) * np.max(omega)
    if not np.isfinite(largest):
        raise ValueError(
            f"{names}: positions up to {float(largest_position)!r} "
            f"with base={base!r} give angles "
            "p * w beyond the floating-point range; "
            "use smaller positions or a larger base"
        )


def _columns(layout: str, d_model: int) -> tuple[slice, slice]:
    """Where the sines and the cosines go in a table of the given layout."""
    if layout == "interleaved":
        return slice(0, None, 2), slice(1, None, 2)
    n_sin = (d_model + 1) // 2
    return slice(0, n_sin), slice(n_sin, None)


def _write(pairs: np.ndarray, out: np.ndarray, layout: str) -> None:
    """Write complex pairs sin + i cos into rows of a table of the given layout
    (rounding to its type)."""
    d_model = out.shape[1]
    if layout == "interleaved":
        out[:] = pairs.view(np.float64)[:, :d_model]
    else:
        sin_cols, cos_cols = _columns(layout, d_model)
        out[:, sin_cols] = pairs.real
        out[:, cos_cols] = pairs.imag[:, : d_model // 2]


def _direct_table(
    positions: np.ndarray, d_model: int, base: float, layout: str, dtype: np.dtype
) -> np.ndarray:
    """The encoding of each position in the 1-D array ``positions`` by the formula, in
    the positions' precision.

    Only long double tables use it: the angles and their sines in long double.
    """
    omega = _angular_frequencies(d_model, base, positions.dtype)
    angles = np.multiply.outer(positions, omega)
    table = np.empty((len(positions), d_model), dtype=dtype)
    sin_cols, cos_cols = _columns(layout, d_model)
    table[:, sin_cols] = np.sin(angles)
    table[:, cos_cols] = np.cos(angles[:, : d_model // 2])
    return table


def _encoded(
    positions: np.ndarray,
    freq: _Frequencies,
    d_model: int,
    layout: str,
    dtype: np.dtype,
) -> np.ndarray:
    """``encode`` for float64 positions (1-D), in blocks of rows."""
    n_freq = len(freq.omega)
    table = np.empty((len(positions), d_model), dtype=dtype)
    rows = max(1, _BLOCK // n_freq)
    pairs = _scratch("pairs", (min(len(positions), rows), n_freq), np.complex128)
    for begin in range(0, len(positions), rows):
        block = positions[begin : begin + rows]
        out = pairs[: len(block)]
        if np.all(np.abs(block) < 2.0**32) and np.all(block == np.rint(block)):
            _pairs_at_integers(block, freq, None, out)  # the cheaper exact reduction
        else:
            _pairs_at(block, freq, out)
        _write(out, table[begin : begin + rows], layout)
    return table


#: The first chunk holds about 2**14 pairs (256 KiB, which stays in cache), in 16 to
#: 1024 rows.
_FIRST_CHUNK_PAIRS = 1 << 14
_MIN_ROWS, _MAX_ROWS = 16, 1024
#: Factors evaluated at a time, and the most kept per (d_model, base) (2 MiB of
#: complex128).
_FACTOR_GROUP_PAIRS, _KEPT_FACTOR_PAIRS = 1 << 16, 1 << 17


def _chunk_rows(n_freq: int) -> int:
    """Rows of the first chunk. It depends on the width only, so a row's bits do not
    depend on the table's length."""
    return min(_MAX_ROWS, max(_MIN_ROWS, _FIRST_CHUNK_PAIRS // n_freq))


@functools.lru_cache(maxsize=4)
def _factor_store(d_model: int, base: float) -> list[np.ndarray]:
    """The factors of the chunks of the last four (d_model, base), kept because they do
    not depend on the start.

    A one-element list holding a read-only (chunks, ceil(d/2)) array, replaced by a
    longer one when a table needs more chunks (up to _KEPT_FACTOR_PAIRS pairs).
    """
    return [np.empty((0, (d_model + 1) // 2), dtype=np.complex128)]


def _kept_factors(
    d_model: int, base: float, freq: _Frequencies, rows: int, chunks: int
) -> np.ndarray:
    """The factors e^{-i w k rows} of chunks k = 0 .. min(chunks, what may be kept) - 1,
    from the store."""
    n_freq = len(freq.omega)
    store = _factor_store(d_model, base)
    kept = store[0]
    wanted = min(chunks, max(1, _KEPT_FACTOR_PAIRS // n_freq))
    if len(kept) < wanted:
        longer = np.empty((wanted, n_freq), dtype=np.complex128)
        longer[: len(kept)] = kept
        ks = np.arange(len(kept), wanted, dtype=np.float64)
        _pairs_at_integers(ks * rows, freq, None, longer[len(kept) :], turn=1)
        longer.flags.writeable = False
        store[0] = kept = longer
    return kept[:wanted]


def _fill_table(
    table: np.ndarray, start: float, d_model: int, base: float, layout: str
) -> None:
    """Rows start .. start + n - 1 of the encoding, as chunks of the first one turned by
    accurate factors.

    Chunk k (rows kR .. kR + R - 1) is the first chunk times f_k = e^{-i w kR} pair by
    pair (z(t + m) = z(t) e^{-i w m} for z = sin + i cos, chapter 3). Both are evaluated
    (``_pairs_from_steps``) within e = 0.53 u of their exact values per component, u =
    2**-53. The product (a + ib)(c + id) adds the roundings of ac and bd (or ad and bc)
    and of their difference (or sum): at most 1.25 u together, as |ac| + |bd| <= 1 and
    the result is below 1. The input errors reach the result as |dz| |f| + |z| |df| <= 2
    sqrt(2) e. So an entry is within (1.25 + 2 sqrt(2) 0.53) u = 2.75 u = 3.1e-16 of
    exact, below the 5e-16 promised (measured: up to 2.8e-16; the last bits depend on
    whether NumPy's loop for the complex product fuses a multiplication with the
    addition, which differs between machines, chapter 10). Chunk 0 is the first chunk
    itself (f_0 = 1 exactly). The factors do not depend on the start: those of the first
    2 MiB are kept for the last four (d_model, base) (``_kept_factors``), the others are
    evaluated group by group.
    """
    n = len(table)
    freq = _frequency_table(d_model, base)
    n_freq = len(freq.omega)
    rows = min(n, _chunk_rows(n_freq))
    chunks = -(-n // rows)
    first = _scratch("first", (rows, n_freq), np.complex128)
    offset = (
        _steps(np.float64(start), freq) if start else None
    )  # start 0: no offset to add
    _pairs_at_integers(np.arange(rows, dtype=np.float64), freq, offset, first)
    kept = _kept_factors(d_model, base, freq, rows, chunks)
    group = max(1, _FACTOR_GROUP_PAIRS // n_freq)
    begin = 0
    while begin < chunks:
        if begin < len(kept):
            factors = kept[begin : begin + group]
        else:
            factors = _scratch(
                "factors", (min(group, chunks - begin), n_freq), np.complex128
            )
            ks = np.arange(begin, begin + len(factors), dtype=np.float64)
            _pairs_at_integers(ks * rows, freq, None, factors, turn=1)
        _turn_chunks(
            first, factors, table[begin * rows : (begin + len(factors)) * rows], layout
        )
        begin += len(factors)


#: Tables of at least this many bytes are written by two threads (NumPy releases the GIL
#: in ufuncs).
_THREADED_BYTES = 1 << 23
_POOL: dict[int, ThreadPoolExecutor] = {}


def _cpus() -> int:
    """The processors this process may run on."""
    return (
        len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else (os.cpu_count() or 1)
    )


def _pool() -> ThreadPoolExecutor:
    """One worker thread per process (a forked child starts its own: the parent's
    threads are not copied)."""
    pid = os.getpid()
    if pid not in _POOL:
        _POOL.clear()
        _POOL[pid] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pelib")
    return _POOL[pid]


def _split_multiply(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """np.multiply(a, b, out=out), rounded once to out's type; large outputs by two
    threads.

    A large output is split in two halves along its first axis (an operand whose first
    axis is out's is split with it, any other is broadcast whole), one written by a
    worker thread and one by the caller: most of the time goes to the first touch of the
    new memory, which two processors share. Each entry is the same product either way,
    so the bits do not depend on the split. The worker runs in a copy of the caller's
    context, so NumPy's error state (``np.errstate``) holds there too, and an error
    raised there is raised here.
    """
    half = len(out) // 2
    if out.nbytes < _THREADED_BYTES or half == 0 or _cpus() < 2:
        np.multiply(a, b, out=out, casting="same_kind")
        return

    def part(x: np.ndarray, rows: slice) -> np.ndarray:
        return x[rows] if x.ndim == out.ndim and len(x) == len(out) else x

    low, high = slice(0, half), slice(half, None)
    other = _pool().submit(
        contextvars.copy_context().run,
        np.multiply,
        part(a, high),
        part(b, high),
        out=out[high],
        casting="same_kind",
    )
    try:
        np.multiply(part(a, low), part(b, low), out=out[low], casting="same_kind")
    finally:
        other.result()


def _turn_chunks(
    first: np.ndarray, factors: np.ndarray, out: np.ndarray, layout: str
) -> None:
    """Write chunk k of ``out`` (rows kR .. kR + R - 1, the last one possibly shorter)
    as first * factors[k].

    Straight into the table where it is float64 or float32 pairs (the product is formed
    in complex128 and rounded once), otherwise through a buffer that stays in cache.
    """
    rows, n_freq = first.shape
    if (
        layout == "interleaved"
        and out.shape[1] % 2 == 0
        and out.dtype in (np.float64, np.float32)
    ):
        pairs = out.view(np.complex128 if out.dtype == np.float64 else np.complex64)
        full = len(out) // rows
        _split_multiply(
            first,
            factors[:full, None],
            pairs[: full * rows].reshape(full, rows, n_freq),
        )
        if full < len(factors):
            tail = pairs[full * rows :]
            np.multiply(
                first[: len(tail)], factors[full], out=tail, casting="same_kind"
            )
        return
    buffer = _scratch("buffer", first.shape, np.complex128)
    for k, factor in enumerate(factors):
        chunk = out[k * rows : (k + 1) * rows]
        product = buffer[: len(chunk)]
        np.multiply(first[: len(chunk)], factor, out=product)
        _write(product, chunk, layout)
