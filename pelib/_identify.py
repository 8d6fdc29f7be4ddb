"""Which encoding is this? Name the convention behind a sinusoidal position table (chapter 8).

The analysis, in the order :func:`identify` runs it:

1. Zero rows (padding) and zero columns (the odd-width column of tensor2tensor) are set
   aside; what is left must hold numbers in [-1, 1], with no two equal columns (equal
   columns are what a rotary cos or sin cache looks like).
2. The columns are paired: each way of laying out (sine, cosine) pairs (interleaved, the
   two halves, with a lone sine for an odd count) is tried, and a layout is kept if every
   pair lies on the unit circle, ``a**2 + b**2 = 1``, in every row.
3. The angle of each pair, ``atan2(a, b)``, is read in every row; which column is the
   sine follows from the direction in which the angle turns, its speed (the slope along
   the rows) is the pair's frequency.
4. The frequencies must fall geometrically from 1. Their ratio ``r`` names the candidate
   conventions: the paper's ``base**(-2i/d)`` for a few widths ``d`` and tensor2tensor's
   ``max_timescale**(-i/(K-1))``, each with the base rounded to 1, 2, ... significant
   digits; the shortest base, 10,000 first, that reproduces the angles wins.
5. The offset is the integer ``o`` with ``w_i * o`` equal to the angle of row 0 for every
   pair, found from the slowest pair to the fastest.
6. The convention's table is rebuilt and compared entry by entry with the input: within
   what float64 angles explain, the angles were float64; within what angles rounded to
   float32 explain, float32; otherwise the table is refused.
"""

from __future__ import annotations

import decimal
import functools
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import _validate
from ._encoding import _Frequencies, _frequencies_of, _pairs_at_positions

#: The layouts :func:`identify` names.
IDENTIFIED_LAYOUTS = ("interleaved", "concat", "concat_cos_first")
#: The two families of frequencies.
FREQUENCY_FAMILIES = ("paper", "tensor2tensor")
#: The least number of rows :func:`identify` accepts.
MIN_ROWS = 8

_TWO_PI = 2 * np.pi
_TWO_PI_LD = 2 * np.longdouble(np.pi) + np.longdouble(2.4492935982947064e-16)  # 2 pi to long double
# Positions searched for the offset of the first row.
_OFFSET_LIMIT = 2**31
# At most this many windings of the slowest pair are tried as offsets, _CHUNK at a time.
_WINDINGS = 2**24
_CHUNK = 2**16
# The least number of consecutive non-zero rows from which frequencies are measured.
_MIN_RUN = 4
# Rows used for the quick checks of candidate conventions.
_SAMPLE = 64


@dataclass(frozen=True)
class Identification:
    """What :func:`identify` found: a convention, its parameters, and how well the table matches it.

    Attributes
    ----------
    layout : str
        One of three names. ``"interleaved"``: sine and cosine alternate, ``sin, cos, sin, cos, ...`` (the paper);
        ``"concat"``: all sines, then all cosines (``[sin | cos]``; with an odd number of
        non-zero columns, one more sine than cosines, as Hugging Face's Marian);
        ``"concat_cos_first"``: ``[cos | sin]`` (Hugging Face's MusicGen). Zero columns are
        not counted in the layout: they sit where ``zero_columns`` says.
    frequencies : str
        One of two names. ``"paper"``: :math:`\\omega_i = \\text{base}^{-2i/d}` with ``d = d_model``;
        ``"tensor2tensor"``: :math:`\\omega_i = \\text{base}^{-i/(K-1)}` with
        ``K = d_model // 2``, from 1 to ``1/base`` (tensor2tensor, fairseq, Whisper).
    base : float
        The base (for tensor2tensor's frequencies, the ``max_timescale``), rounded to the
        fewest significant digits that reproduce the table. With a single frequency the
        table does not depend on it, and it is reported as 10000.0.
    offset : int
        Row ``r`` holds position ``r + offset``.
    zero_rows : tuple of int
        The rows that are all zero (padding rows, such as fairseq's ``padding_idx`` row).
    zero_columns : tuple of int
        The columns that are all zero (the last column of tensor2tensor at an odd width).
    angle_dtype : str
        The precision in which the angles ``p * w`` were formed (and the sines taken):
        ``"float64"`` when every deviation from the exact table is within what float64
        angles and the rounding of the stored numbers explain, ``"float32"`` when it takes
        angles rounded to float32 to explain them.
    max_error : float
        The largest ``|table - self.table(len(table))|`` over the whole input.
    d_model : int
        The width ``d`` in the convention's formula: the table's width, except where code
        rounds an odd width up (the ``positional-encodings`` package: width + 1), computes
        the frequencies for the columns without its zero column (diffusers at an odd width:
        width - 1), or makes one column more than the width it was given (the TensorFlow
        tutorial at an odd depth: width - 1).
    width : int
        The number of columns of the table.
    """

    layout: str
    frequencies: str
    base: float
    offset: int
    zero_rows: tuple[int, ...]
    zero_columns: tuple[int, ...]
    angle_dtype: str
    max_error: float
    d_model: int
    width: int

    @property
    def n_frequencies(self) -> int:
        """How many frequencies the table has (one per sine-cosine pair, and one for a lone sine)."""
        return (self.width - len(self.zero_columns) + 1) // 2

    @property
    def omega(self) -> np.ndarray:
        """The angular frequency of each pair (and of a lone sine), fastest first, correctly rounded to float64."""
        return _accurate(self.frequencies, self.base, self.d_model, self.n_frequencies).omega.copy()

    def table(self, n_positions: int) -> np.ndarray:
        """The convention's table of ``n_positions`` rows, exactly as :func:`identify` compared it.

        Row ``r`` holds position ``r + offset``; the zero rows (those below ``n_positions``)
        and zero columns are zero, as in the input. The values are the exact ones rounded
        to float64 (see the Notes of :func:`identify` for the accuracy), not a re-run of
        the code that made the input: ``numpy.abs(table - ident.table(len(table))).max()`` is
        ``ident.max_error``.

        Parameters
        ----------
        n_positions : int
            Number of rows, 0 or more.

        Returns
        -------
        numpy.ndarray
            Float64 array of shape ``(n_positions, width)``.
        """
        n_positions = _validate.size(n_positions, "n_positions", minimum=0)
        _validate.fits(n_positions * self.width, 8, "n_positions")
        if self.offset + n_positions - 1 > _OFFSET_LIMIT + 2**31:
            raise ValueError(f"n_positions: positions up to {self.offset + n_positions - 1} are beyond "
                             f"{_OFFSET_LIMIT + 2**31}, where the table is not computed accurately")
        reading = _reading_of(self)
        positions = self.offset + np.arange(n_positions, dtype=np.int64)
        freq = _accurate(self.frequencies, self.base, self.d_model, self.n_frequencies)
        table = _rebuild(positions, reading, freq, self.width)
        table[[r for r in self.zero_rows if r < n_positions]] = 0.0
        return table

    def __str__(self) -> str:
        layout = {"interleaved": "interleaved (sin, cos) pairs", "concat": "[sin | cos]",
                  "concat_cos_first": "[cos | sin]"}[self.layout]
        if self.frequencies == "paper":
            frequencies = f"the paper's frequencies base**(-2i/{self.d_model}), base {self.base:g}"
        else:
            frequencies = (f"tensor2tensor's frequencies 1 .. 1/max_timescale over {self.d_model // 2} "
                           f"timescales, max_timescale {self.base:g}")
        parts = [f"{layout}, {frequencies}", f"row r holds position r {'-' if self.offset < 0 else '+'} "
                 f"{abs(self.offset)}"]
        if self.zero_rows:
            parts.append(f"zero rows {_short(self.zero_rows)}")
        if self.zero_columns:
            parts.append(f"zero columns {_short(self.zero_columns)}")
        parts.append(f"angles in {self.angle_dtype}, max error {self.max_error:.2g}")
        return "; ".join(parts)


def _short(indices: tuple[int, ...]) -> str:
    shown = ", ".join(str(i) for i in indices[:6])
    return f"({shown}{', ...' if len(indices) > 6 else ''})"


class _Reading(NamedTuple):
    """One way of reading the columns: which column holds the sine and the cosine of each pair."""

    layout: str  # one of IDENTIFIED_LAYOUTS, or "interleaved_cos_first" (refused, but recognised)
    sin: np.ndarray  # column of the sine of pair i
    cos: np.ndarray  # column of the cosine of pair i
    lone: int | None  # column of the frequency without a partner (an odd count of columns)
    lone_kind: str  # "sin" or "cos"


class _Mismatch(Exception):
    """The table does not fit a reading; the message says why."""


def _frequencies(family: str, base: float, d_model: int, count: int) -> np.ndarray:
    """The first ``count`` frequencies of a convention, in long double."""
    i = np.arange(count, dtype=np.longdouble)
    b = np.longdouble(base)
    if family == "paper":
        return np.power(b, -2 * i / np.longdouble(d_model))
    k = d_model // 2
    if k < 2:
        return np.ones(count, dtype=np.longdouble)
    return np.exp(-i * np.log(b) / np.longdouble(k - 1))


@functools.lru_cache(maxsize=64)
def _accurate(family: str, base: float, d_model: int, count: int) -> _Frequencies:
    """The first ``count`` frequencies of a convention, to about 2**-100 relative (double-double)."""
    if family == "paper":
        exponents = [decimal.Decimal(2 * i) / decimal.Decimal(d_model) for i in range(count)]
    elif d_model // 2 < 2:
        exponents = [decimal.Decimal(0)] * count
    else:
        exponents = [decimal.Decimal(i) / decimal.Decimal(d_model // 2 - 1) for i in range(count)]
    return _frequencies_of(exponents, base)


def _reading_of(ident: Identification) -> _Reading:
    core = np.array([j for j in range(ident.width) if j not in set(ident.zero_columns)])
    for reading in _readings(core):
        if reading.layout == ident.layout:
            return reading
    raise AssertionError(ident.layout)  # every identified layout has a reading


def _readings(core: np.ndarray) -> list[_Reading]:
    """Every layout of (sine, cosine) pairs over the non-zero columns ``core``."""
    m = len(core)
    k, odd = m // 2, m % 2
    lone_last = int(core[-1]) if odd else None
    readings = [
        _Reading("interleaved", core[0 : 2 * k : 2], core[1 : 2 * k : 2], lone_last, "sin"),
        # cos, sin, cos, sin, ...: an odd count ends with a lone cosine
        _Reading("interleaved_cos_first" if m > 2 else "concat_cos_first", core[1 : 2 * k : 2],
                 core[0 : 2 * k : 2], lone_last, "cos"),
    ]
    if m > 2:
        readings += [
            # [sin | cos]: ceil(m/2) sines, then floor(m/2) cosines; the lone sine is the last sine
            _Reading("concat", core[:k], core[k + odd :], int(core[k]) if odd else None, "sin"),
            # [cos | sin]: floor(m/2) cosines, then ceil(m/2) sines; the lone sine is the last column
            _Reading("concat_cos_first", core[k : 2 * k], core[:k], lone_last, "sin"),
        ]
    return readings


def _storage_bits(array: np.ndarray) -> int:
    """Significant bits of the narrowest format (bfloat16, float16, float32, float64) holding every entry."""
    if _validate.is_extension_float(array.dtype):
        return 8
    if array.dtype == np.float16:
        return 11
    data = array.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        single = data.astype(np.float32)
        if not np.array_equal(single, data):
            return 53
        if not np.any(single.view(np.uint32) & np.uint32(0xFFFF)):
            return 8  # the low 16 bits of every float32 are zero: bfloat16 numbers (tested before float16,
            #           whose numbers include most bfloat16 ones)
        if np.array_equal(single.astype(np.float16).astype(np.float32), single):
            return 11
    return 24


def _half_ulp(values: np.ndarray, bits: int) -> np.ndarray:
    """Half the spacing of ``bits``-bit numbers at each of ``values`` (0 at 0)."""
    _, exponent = np.frexp(np.abs(values))
    half = np.ldexp(1.0, exponent - bits - 1)
    return np.where(values == 0, 0.0, half)


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles reduced to [-pi, pi)."""
    return (np.asarray(angle, dtype=np.float64) + np.pi) % _TWO_PI - np.pi


def _angles(positions: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``positions * omega`` reduced modulo 2 pi, formed in long double, as float64 in [-pi, pi)."""
    product = np.multiply.outer(np.asarray(positions, dtype=np.longdouble), omega)
    return _wrap(np.fmod(product, _TWO_PI_LD))


def _rough_angles(positions: np.ndarray, omega: float) -> np.ndarray:
    """``positions * omega`` in float64, in [-pi, pi): off by at most ``|p w| 2**-52``, about 5e-7 radians
    at 2**31, well inside the envelope of float64 angles there (for the search, not for the checks)."""
    return _wrap(np.asarray(positions, dtype=np.float64) * float(omega))


def _rebuild(positions: np.ndarray, reading: _Reading, freq: _Frequencies, width: int) -> np.ndarray:
    """The convention's table at the integer ``positions`` in the columns of ``reading`` (float64; other
    columns zero), each entry within about half a unit in the last place of the exact value."""
    table = np.zeros((len(positions), width))
    k = len(reading.sin)
    for begin in range(0, len(positions), 4096):
        rows = slice(begin, begin + 4096)
        pairs = _pairs_at_positions(positions[rows], freq)  # sin + i cos
        table[rows, reading.sin] = pairs.real[:, :k]
        table[rows, reading.cos] = pairs.imag[:, :k]
        if reading.lone is not None:
            table[rows, reading.lone] = (pairs.real if reading.lone_kind == "sin" else pairs.imag)[:, k]
    return table


def _runs(live: np.ndarray) -> list[np.ndarray]:
    """The maximal stretches of consecutive row indices in the sorted array ``live``."""
    if len(live) == 0:
        return []
    breaks = np.nonzero(np.diff(live) != 1)[0] + 1
    return np.split(live, breaks)


class _Slopes(NamedTuple):
    omega: np.ndarray  # measured turn per row of each pair (signed)
    error: np.ndarray  # its standard error, from the scatter about the line
    scatter: np.ndarray  # the root-mean-square distance of the angles from the line


def _slopes(data: np.ndarray, reading: _Reading, run: np.ndarray, floor: float) -> _Slopes:
    """Least-squares slope of the unwrapped angle of every pair along the consecutive rows ``run``."""
    theta = np.unwrap(np.arctan2(data[np.ix_(run, reading.sin)], data[np.ix_(run, reading.cos)]), axis=0)
    t = np.arange(len(run), dtype=np.float64) - (len(run) - 1) / 2
    ss = float(t @ t)
    slope = (t @ (theta - theta.mean(axis=0))) / ss
    residual = theta - theta.mean(axis=0) - np.outer(t, slope)
    scatter = np.sqrt((residual**2).sum(axis=0) / max(len(run) - 2, 1))
    return _Slopes(slope, np.maximum(scatter, floor) / math.sqrt(ss), scatter)


def _lone_frequency(column: np.ndarray, run: np.ndarray) -> tuple[float, float]:
    """Frequency of a lone sinusoidal column from x[t+1] + x[t-1] = 2 cos(w) x[t], and its rough error."""
    x = column[run]
    mid, around = x[1:-1], x[2:] + x[:-2]
    denominator = float(mid @ mid)
    if denominator == 0:
        raise _Mismatch("the lone column is zero along the rows")
    c = float(mid @ around) / (2 * denominator)
    residual = around - 2 * c * mid
    spread = math.sqrt(float(residual @ residual) / max(len(mid) - 1, 1) / denominator) + 2.0**-40
    omega = math.acos(min(1.0, max(-1.0, c)))
    # d(acos c) = dc / sin(w): the error of c, seen through the flat top of the cosine
    return omega, spread / max(math.sin(omega), math.sqrt(spread))


class _Candidate(NamedTuple):
    family: str
    d_model: int
    base: float
    rank: tuple  # smaller is preferred


def _roundings(value: float) -> list[tuple[int, float]]:
    """``value`` rounded to 1, 2, ..., 17 significant digits (digits, rounded value), without repeats."""
    out, seen = [], set()
    for digits in range(1, 18):
        rounded = float(f"{value:.{digits - 1}e}")
        if rounded not in seen and rounded > 0 and math.isfinite(rounded):
            seen.add(rounded)
            out.append((digits, rounded))
    return out


def _candidates(ratio: float, log_error: float, pairs: int, n_freq: int, width: int, core: int,
                lone: bool, layout: str) -> list[_Candidate]:
    """Conventions whose frequency ratio ``base**(-2/d)`` (or ``max_timescale**(-1/(K-1))``) matches ``ratio``.

    The paper's ``d`` is the table's width, or one of the widths real code uses instead: the width
    without its zero columns (diffusers' odd widths), the width rounded up to even when a lone sine
    ends the table (positional-encodings), and the width less one for a [sin | cos] table of an even
    number of columns (the TensorFlow tutorial's odd depth gives depth + 1 columns).
    """
    log_ratio = math.log(ratio)
    widths = [width]
    if core != width:
        widths.append(core)
    if lone:
        widths.append(2 * n_freq)
    if layout.startswith("concat") and not lone and core == width:
        widths.append(width - 1)
    interpretations = [("paper", d, rank, -log_ratio * d / 2) for rank, d in enumerate(dict.fromkeys(widths))
                       if d >= 2]
    if not lone and pairs >= 2:
        interpretations.append(("tensor2tensor", width, 0, -log_ratio * (pairs - 1)))
    found = []
    for family, d, d_rank, log_base in interpretations:
        if not -700 < log_base < 700:
            continue
        for digits, base in _roundings(math.exp(log_base)):
            if family == "paper":
                candidate_log_ratio = -2 * math.log(base) / d
            else:
                candidate_log_ratio = -math.log(base) / (pairs - 1)
            if abs(candidate_log_ratio - log_ratio) <= log_error:
                # 10000 first; then the table's own width; then the fewest digits, tensor2tensor's reading
                # winning only with fewer digits than the paper's (the paper's formula is the default)
                rank = (base != 10000.0, d_rank, digits + 0.5 * (family != "paper"))
                found.append(_Candidate(family, d, base, rank))
    return sorted(found, key=lambda c: c.rank)


def _log_ratio(candidate: _Candidate, pairs: int) -> float:
    """log of the ratio of consecutive frequencies of a candidate convention."""
    if candidate.family == "paper":
        return -2 * math.log(candidate.base) / candidate.d_model
    return -math.log(candidate.base) / (pairs - 1)


def _angle_envelope(theta: np.ndarray, base: float, bits: int, angle_bits: int) -> np.ndarray:
    """How far a measured pair angle may be from the exact one: the stored numbers' rounding (twice, for
    the two entries of a pair), the sine's own error, and the angle's rounding in ``angle_bits``
    (53 or 24) with the frequency's error (about ``ln(base) + 4`` units)."""
    growth = max(math.log(base), 0.0) + 4
    evaluation = 2.0**-50 if angle_bits == 53 else 2.0**-21
    return 4 * 2.0**-bits + evaluation + np.abs(theta) * growth * 2.0 ** (1 - angle_bits)


def _value_envelope(half_ulp: np.ndarray, theta: np.ndarray, base: float, bits: int, angle_bits: int) -> np.ndarray:
    """How far a stored entry may be from the exact one, in the same terms as :func:`_angle_envelope`."""
    growth = max(math.log(base), 0.0) + 4
    evaluation = 2.0**-50 if angle_bits == 53 else 2.0**-22
    floor = 2.0**-25 if bits <= 11 else 0.0  # float16's subnormals
    return half_ulp + floor + evaluation + np.abs(theta) * growth * 2.0 ** (1 - angle_bits)


def _float32_limit(base: float) -> int:
    """Positions up to which the envelope of float32 angles stays below a quarter turn in the fastest pair."""
    return int(2.0**21 / (max(math.log(base), 0.0) + 4))


def _search_offset(phase: np.ndarray, omega: np.ndarray, rows: int, base: float, bits: int,
                   angle_bits: int, *, wide: bool = True) -> int | None:
    """The integer ``o`` with ``omega * o = phase`` (mod 2 pi) for every pair, within the envelope of angles
    formed with ``angle_bits`` bits, or None.

    ``phase`` is each pair's angle at row 0. Candidates start from the windings of the slowest pair,
    nearest 0 first and in chunks, move to agree with each faster pair in turn, and are dropped as
    soon as they disagree with a slower one. Of the survivors that fit every pair, the one whose
    angles miss least wins (the nearest to 0 among equals). The search covers
    ``|o| < min(2**31, _WINDINGS * 2 pi / w_slowest)`` for float64 angles and positions below
    :func:`_float32_limit` for float32 angles.
    """
    limit = _OFFSET_LIMIT if angle_bits == 53 else max(_float32_limit(base) - rows, 0)
    order = np.argsort(omega)
    slowest = float(omega[order[0]])
    span = _TWO_PI / slowest
    reach = min(int(limit / span) + 1, _WINDINGS) if wide else 1
    best: tuple[float, int] | None = None
    for first, last in [(0, 1)] + [(lo, min(lo + _CHUNK, reach)) for lo in range(2, reach + 1, _CHUNK)]:
        windings = np.arange(first, last + 1, dtype=np.float64)
        windings = np.concatenate([windings, -windings[windings > 0]]) if first == 0 else \
            np.concatenate([windings, -windings])
        position = (float(phase[order[0]]) + _TWO_PI * windings) / slowest
        position = position[np.abs(position) <= limit + span]
        for step, j in enumerate(order[1:], start=1):
            if len(position) == 0:
                break
            tolerance = _angle_envelope(float(omega[j]) * (np.abs(position) + rows), base, bits, angle_bits)
            miss = _wrap(phase[j] - _rough_angles(position, omega[j]))
            position = np.where(tolerance < np.pi / 4, position + miss / float(omega[j]), position)
            previous = order[step - 1]
            residual = np.abs(_wrap(phase[previous] - _rough_angles(position, omega[previous])))
            bound = _angle_envelope(float(omega[previous]) * (np.abs(position) + rows), base, bits, angle_bits)
            position = position[residual <= 2 * bound]
        offsets = np.unique(np.round(position))
        offsets = offsets[np.abs(offsets) <= limit]
        if len(offsets):
            theta = np.multiply.outer(np.abs(offsets) + rows, omega.astype(np.float64))
            residual = np.abs(_wrap(phase[None, :] - _angles(offsets, omega)))
            fits = (residual <= _angle_envelope(theta, base, bits, angle_bits)).all(axis=1)
            for miss, offset in zip(residual.max(axis=1)[fits], offsets[fits]):
                candidate = (float(miss), abs(int(offset)), int(offset))
                if best is None or candidate[:2] < best[:2]:
                    best = candidate
        if best is not None and best[0] <= 2.0 ** (2 - bits):
            break  # as close as the stored numbers allow: windings further out cannot do better
    return None if best is None else best[2]


def _check(data: np.ndarray, reading: _Reading, live: np.ndarray, freq: _Frequencies, offset: int,
           base: float, bits: int) -> tuple[str, float, tuple[int, int, float, float]]:
    """Compare every non-zero row with the rebuilt table: the angle precision, the largest deviation,
    and (row, column, deviation, envelope) of the worst entry against float32 angles."""
    positions = live.astype(np.int64) + offset
    exact = _rebuild(positions, reading, freq, data.shape[1])
    theta = np.zeros_like(exact)
    k = len(reading.sin)
    omega64 = freq.omega
    angle = np.abs(np.multiply.outer(positions.astype(np.float64), omega64))
    theta[:, reading.sin] = angle[:, :k]
    theta[:, reading.cos] = angle[:, :k]
    if reading.lone is not None:
        theta[:, reading.lone] = angle[:, k]
    deviation = np.abs(data[live] - exact)
    largest = float(deviation.max())
    half_ulp = _half_ulp(exact, bits)
    if np.all(deviation <= _value_envelope(half_ulp, theta, base, bits, 53)):
        return "float64", largest, (0, 0, 0.0, 0.0)
    envelope = _value_envelope(half_ulp, theta, base, bits, 24)
    excess = deviation / envelope
    row, column = np.unravel_index(int(np.argmax(excess)), excess.shape)
    worst = (int(live[row]), int(column), float(deviation[row, column]), float(envelope[row, column]))
    return ("float32" if excess[row, column] <= 1 else "none"), largest, worst


def _sample(live: np.ndarray) -> np.ndarray:
    if len(live) <= 3 * _SAMPLE:
        return live
    middle = live[np.linspace(_SAMPLE, len(live) - _SAMPLE - 1, _SAMPLE).astype(int)]
    return np.unique(np.concatenate([live[:_SAMPLE], middle, live[-_SAMPLE:]]))


def _identify_reading(data: np.ndarray, reading: _Reading, live: np.ndarray, run: np.ndarray, bits: int,
                      zero_rows: tuple, zero_columns: tuple) -> Identification:
    """Identify the table under one reading of its columns, or raise _Mismatch saying why not."""
    n, width = data.shape
    pairs = len(reading.sin)
    n_freq = pairs + (reading.lone is not None)
    core = width - len(zero_columns)
    floor = 2.0 ** (2 - bits)
    slopes = _slopes(data, reading, run, floor)
    measured = slopes.omega
    if measured[0] <= 0:
        raise _Mismatch("the first pair turns backwards")
    if abs(measured[0] - 1) > max(10 * slopes.error[0], 1e-9):
        raise _Mismatch(f"the first (sine, cosine) pair turns by {measured[0]:.12g} radians per row, not by 1: "
                        "the first frequency of the paper and of tensor2tensor is 1 (are the positions scaled, "
                        "or the frequencies in another order?)")
    # The ratio r of the geometric frequencies w_i = r**i, weighted by how well each pair measures it.
    if pairs >= 2:
        i = np.arange(1, pairs)
        good = measured[1:] > 0
        if not np.all(measured[1:] > -10 * slopes.error[1:]):
            raise _Mismatch("some pairs turn the other way from the first")
        if not np.any(good):
            raise _Mismatch("the pairs after the first do not turn")
        # Angles formed in float32 are off by up to about |p w| 2**-23 in each row, and over a short run
        # those errors can drift like a line, tilting a slope by up to twice their size over the run
        # without any scatter about it. Their size shows in the scatter of the noisiest pairs, relative
        # to each pair's frequency; that relative tilt is added to each slope's random error.
        turning = measured > 0
        relative = slopes.scatter[turning] / measured[turning]
        tilt = 4 * float(relative.max()) / max(len(run) - 1, 1) if len(relative) else 0.0
        sigma = np.hypot(slopes.error[1:][good] / measured[1:][good], tilt)  # of log(w_i)
        weight = (i[good] / sigma) ** 2
        log_ratio = float(np.sum(weight * np.log(measured[1:][good]) / i[good]) / np.sum(weight))
        # 8 standard errors, and what the rounding of the code's own frequencies can tilt the slopes by
        log_error = 8 / math.sqrt(float(np.sum(weight))) + 2.0 ** (5 - bits)
        ratio = math.exp(log_ratio)
    elif reading.lone is not None:
        ratio, error = _lone_frequency(data[:, reading.lone], run)
        log_error = 8 * error / max(ratio, 1e-300) + 2.0 ** (5 - bits)
    else:
        ratio, log_error = None, 0.0
    if ratio is not None and not 0 < ratio < 1:
        raise _Mismatch(f"the frequencies do not fall from one pair to the next (ratio {ratio:.6g})")

    if ratio is None:  # a single pair: every base gives the same table
        candidates = [_Candidate("paper", width, 10000.0, ())]
    else:
        candidates = _candidates(ratio, log_error, pairs, n_freq, width, core, reading.lone is not None,
                                 reading.layout)
        if not candidates:
            raise _Mismatch(f"the frequencies fall by a ratio of {ratio:.9g} per pair, which no base gives")

    closest = min(candidates, key=lambda c: abs(_log_ratio(c, pairs) - math.log(ratio))) if ratio else candidates[0]
    sample = _sample(live)
    theta = np.arctan2(data[np.ix_(sample, reading.sin)], data[np.ix_(sample, reading.cos)])
    worst = None
    tried: set[tuple[int, int, _Candidate]] = set()

    def accept(offset: int, angle_bits: int) -> Identification | None:
        """The most preferred candidate that puts every sampled angle within the envelope at ``offset`` and
        whose rebuilt table matches every entry, or None."""
        nonlocal worst
        positions = sample + offset
        for candidate in candidates:
            if (offset, angle_bits, candidate) in tried:
                continue
            tried.add((offset, angle_bits, candidate))
            omega = _frequencies(candidate.family, candidate.base, candidate.d_model, n_freq)
            residual = np.abs(_wrap(theta - _angles(positions, omega[:pairs])))
            angle = np.abs(np.multiply.outer(positions.astype(np.float64), omega[:pairs].astype(np.float64)))
            if not np.all(residual <= _angle_envelope(angle, candidate.base, bits, angle_bits)):
                continue
            freq = _accurate(candidate.family, candidate.base, candidate.d_model, n_freq)
            angle_dtype, largest, worst = _check(data, reading, live, freq, offset, candidate.base, bits)
            if angle_dtype == "float64" or (angle_bits == 24 and angle_dtype == "float32"):
                return Identification(reading.layout, candidate.family, candidate.base, offset, zero_rows,
                                      zero_columns, angle_dtype, largest, candidate.d_model, width)
        return None

    # The offset is searched with the preferred conventions and with the one closest to the measured
    # ratio (which models the table's own, perhaps rounded, frequencies best): first near position 0,
    # then over the whole range, with the envelope of float64 angles; then with that of float32 angles,
    # which is informative only while the fast pairs' angle errors stay well below a radian.
    searched = list(dict.fromkeys(candidates[:6] + [closest]))
    for angle_bits, wide, among in ((53, False, searched), (53, True, searched[:1] + [closest]),
                                    (24, True, searched)):
        for candidate in dict.fromkeys(among):
            omega = _frequencies(candidate.family, candidate.base, candidate.d_model, n_freq)
            phase = np.angle(np.exp(1j * (theta - _angles(sample, omega[:pairs]))).sum(axis=0))
            offset = _search_offset(phase, omega[:pairs], n, candidate.base, bits, angle_bits, wide=wide)
            if offset is not None:
                found = accept(offset, angle_bits)
                if found is not None:
                    return found
    if worst is not None:
        row, column, deviation, envelope = worst
        raise _Mismatch(f"the closest convention misses row {row}, column {column} by {deviation:.3g}, more "
                        f"than angles formed in float32 explain ({envelope:.3g})")
    limit = _float32_limit(candidates[0].base)
    raise _Mismatch("no integer offset and base put every pair at its angle in every row, with angles formed "
                    f"in float64, or in float32 at positions below {limit:,} (identify does not test float32 "
                    "angles further out, where their errors grow to a large fraction of a radian in the fast "
                    "pairs): the rows are not at integer positions, the positions are scaled, the frequencies "
                    "are not geometric, or the angles were formed in float32 far out")


def _describe_columns(data: np.ndarray, core: np.ndarray, run: np.ndarray, zero_rows: tuple) -> str:
    """Why the columns do not pair up: what each column is on its own."""
    x = data[np.ix_(run, core)]
    if len(run) < 3:
        return ""
    mid, around = x[1:-1], x[2:] + x[:-2]
    energy = (mid * mid).sum(axis=0)
    c = np.where(energy > 0, (mid * around).sum(axis=0) / np.where(energy > 0, 2 * energy, 1), 2.0)
    residual = np.sqrt(((around - 2 * c * mid) ** 2).sum(axis=0) / np.maximum((around**2).sum(axis=0), 1e-300))
    if not np.all(residual < 1e-3) or not np.all(np.abs(c) <= 1 + 1e-6):
        return (" Its columns are not sinusoids of the row index either: a learned or random embedding "
                "looks like this.")
    freq = np.arccos(np.clip(c, -1, 1))
    shown = ", ".join(f"{f:.4g}" for f in freq[:6])
    text = (f" Every column is a sinusoid of the row index, but no two columns are a sine and a cosine of "
            f"one frequency: the columns turn by {shown}, ... radians per row.")
    reliable = np.nonzero(freq > 0.05)[0]
    if len(reliable) >= 3 and reliable[0] == 0 and abs(freq[0] - 1) < 1e-3:
        j = reliable
        ratio = math.exp(float(np.polyfit(j, np.log(freq[j]), 1)[0]))
        if np.allclose(freq[j], ratio**j, rtol=2e-3):
            base = ratio ** (-len(core) / 2)
            text += (f" Column j has frequency {ratio:.5g}**j, that is base**(-2j/d) with base {base:.5g} for "
                     f"d = {len(core)}: the exponent counts columns, 2j/d, where the paper's counts pairs, "
                     "2*(j//2)/d (hand-written code that loops over every dimension, or writes 2*(i+1)/d for "
                     "the cosine of column i + 1, does this).")
        elif len(j) >= 4 and np.allclose(freq[j][1::2][: len(freq[j][2::2])], freq[j][2::2], rtol=2e-3):
            text += (" Each cosine column turns like the next pair's sine: the cosine's exponent is "
                     "2(i+1)/d where it should be 2i/d.")
    if data[run[0], core].min() > 1 - 1e-6:
        text += (" Every column starts at 1, like cosines of position 0: a rotary (RoPE) cos cache holds "
                 "cosines only, and is not a position table.")
    elif 0 in zero_rows and run[0] == 1:
        text += (" Row 0 is zero, like sines of position 0: a rotary (RoPE) sin cache holds sines only, and "
                 "is not a position table.")
    return text


def identify(table: ArrayLike) -> Identification:
    r"""Name the convention of a sinusoidal position table, or say why it is not one.

    Given the table some code produced (one row per position), find the column layout, the
    family of frequencies and its base, the position of the first row, the padding rows and
    columns, and whether the angles were formed in float32 or float64; then rebuild the
    convention's table and measure how far the input is from it. Chapter 8
    (:doc:`/notebooks/08_which_encoding`) runs it on the conventions of widely used code
    and on broken code.

    Parameters
    ----------
    table : array_like
        A 2-D array of real numbers (float64, float32, float16 or bfloat16), at least 8
        rows (consecutive positions, padding rows allowed) and 2 non-zero columns.

    Returns
    -------
    Identification
        The convention, its parameters, and ``max_error``; ``str()`` of it reads as a
        sentence, and its ``table(n)`` rebuilds the convention for comparison.

    Raises
    ------
    TypeError
        If ``table`` is not an array of real numbers (a complex array, such as the
        ``freqs_cis`` of rotary code, is refused with that explanation).
    ValueError
        If ``table`` is not 2-D, holds nan or infinity, has fewer than 8 rows or fewer than 4
        consecutive non-zero rows (from which the frequencies are measured), or is not a
        sinusoidal encoding: the message says why (constant or zero, entries outside
        [-1, 1], equal columns as in a rotary cos/sin cache, columns that do not pair
        into sines and cosines of one frequency, frequencies that are not geometric from 1,
        rows that are not at integer positions, or deviations larger than float32 angles
        explain).

    Notes
    -----
    **How it decides.** The layouts and frequencies are told apart by arithmetic, not by
    the look of the table: a layout must put every (sine, cosine) pair on the unit circle,
    and the rebuilt table must match every entry within an envelope derived from the
    rounding of the stored numbers and of the angles. The storage precision is read off
    the input: an array whose numbers are all float32 numbers counts as float32, all
    bfloat16 numbers as bfloat16, all float16 numbers as float16.

    **Tables that fit more than one description.** The first in this order is returned:
    base 10000, then the table's own width in the exponent, then the fewest significant
    digits in the base, tensor2tensor's reading winning only with fewer digits than the
    paper's. These cases are exact identities, not accidents of rounding: a single pair
    (width 2, or 3 with a zero column) does not depend on the base and is reported as
    ``"interleaved"``, ``"paper"``, base 10000; and the paper's frequencies with base
    :math:`b` and width :math:`d = 2K` are tensor2tensor's with
    :math:`M = b^{(K-1)/K}` (at width 4, tensor2tensor's 100 is the paper's 10000; at
    width 8, its 1000 is the paper's 10000; at width 6, the paper's :math:`10^6` is its
    10000).

    **The offset.** With the envelope of float64 angles it is searched over
    ``|offset| < 2**31`` (more precisely, over :math:`2^{24}` windings of the slowest
    pair either side of 0, which covers :math:`2^{31}` whenever the slowest pair turns by
    less than 0.049 radians per row, as it does at every width above 3 with base 10000);
    with the envelope of float32 angles only at positions below
    :math:`2^{21}/(\ln b + 4)`, about 158,000 for base 10000, beyond which those
    envelopes stop pinning a position down. Of the offsets that fit, the one whose angles
    miss least is returned. A table with few frequencies can fit several offsets whose
    differences are nearly multiples of every wavelength (a single pair: integers nearly
    a multiple of :math:`2\pi` apart, chapter 4); with float64 angles the best fit is
    the right one unless the stored numbers cannot tell them apart.

    **The rebuilt table** is computed like :func:`sinusoidal`'s first rows: frequencies in
    double-double arithmetic, the angle reduced exactly, each entry within about half a unit
    in the last place of the exact value, on every platform.

    Examples
    --------
    >>> from pelib import sinusoidal
    >>> ident = identify(sinusoidal(32, 16, start=2, layout="concat"))
    >>> ident.layout, ident.frequencies, ident.base, ident.offset, ident.angle_dtype
    ('concat', 'paper', 10000.0, 2, 'float64')
    >>> bool(ident.max_error < 1e-15)
    True
    """
    array = _table_array(table)
    return _identify(array, backwards=True)


def _identify(array: np.ndarray, *, backwards: bool) -> Identification:
    """:func:`identify` of a validated array; ``backwards`` says whether to try the rows reversed."""
    data = array.astype(np.float64)
    n, width = data.shape
    if n < MIN_ROWS:
        raise ValueError(f"table must have at least {MIN_ROWS} rows (positions), got {n}")
    bits = _storage_bits(array)
    zero_column = ~data.any(axis=0)
    zero_row = ~data.any(axis=1)
    zero_columns = tuple(int(j) for j in np.nonzero(zero_column)[0])
    zero_rows = tuple(int(r) for r in np.nonzero(zero_row)[0])
    core = np.nonzero(~zero_column)[0]
    live = np.nonzero(~zero_row)[0]
    if len(live) == 0:
        raise ValueError("table is all zeros: not a sinusoidal encoding")
    if len(core) < 2:
        raise ValueError("table has fewer than 2 non-zero columns: a sinusoidal encoding has a sine and a cosine "
                         "of each frequency")
    largest = float(np.abs(data).max())
    if largest > 1 + 2.0**-20:
        raise ValueError(f"table has entries up to {largest:.6g} in size, but sines and cosines lie in [-1, 1]: "
                         "not a sinusoidal encoding as it stands (scaled, by sqrt(d_model) say, or added to token "
                         "embeddings?)")
    if np.all(data[live] == data[live[0]]):
        raise ValueError("table is not a sinusoidal encoding: every non-zero row is the same")
    runs = _runs(live)
    run = max(runs, key=len)[:4096]  # enough rows to measure every frequency to a few parts in 1e9
    if len(run) < _MIN_RUN:
        raise ValueError(f"table needs at least {_MIN_RUN} consecutive non-zero rows to measure frequencies, "
                         f"the longest run has {len(run)}")

    # Layouts that put every pair on the unit circle; the circle test does not see which column is the sine.
    tolerance = max(2.0**-16, 16 * 2.0**-bits)
    readings = []
    for reading in _readings(core):
        a, b = data[np.ix_(live, reading.sin)], data[np.ix_(live, reading.cos)]
        if np.abs(a * a + b * b - 1).max() <= tolerance:
            readings.append(reading)
    if not readings:
        # Equal columns, leaving out constant ones (the cosine of a slow pair can round to 1 in every row,
        # and neighbouring slow pairs can round to the same numbers: a stored table can have equal columns
        # that its exact values do not; here no layout fits, so they are not that).
        varying = core[np.ptp(data[np.ix_(live, core)], axis=0) > 0]
        equal = _equal_columns(data, varying, live)
        if equal:
            raise ValueError(f"table has equal columns ({', '.join(str(j) for j in equal[:4])}) and no layout of "
                             "(sine, cosine) pairs: this looks like a rotary (RoPE) cos or sin cache, which "
                             "repeats each angle (cat((freqs, freqs)) or repeat_interleave); a rotary cache is not "
                             "a position table")
        radius = _common_radius(data, core, live)
        if radius is not None:
            raise ValueError(f"table is a sinusoidal encoding scaled by {radius:.6g}: its (sine, cosine) pairs lie "
                             "on a circle of that radius, not 1; divide by it and ask again")
        raise ValueError("table is not a sinusoidal encoding: no layout of its columns into (sine, cosine) pairs "
                         "puts every pair on the unit circle (sin**2 + cos**2 = 1)."
                         + _describe_columns(data, core, run, zero_rows))

    reasons = []
    for reading in readings:
        try:
            ident = _identify_reading(data, reading, live, run, bits, zero_rows, zero_columns)
        except _Mismatch as mismatch:
            reasons.append(f"read as {reading.layout.replace('_', ' ')}: {mismatch}")
            continue
        if ident.layout == "interleaved_cos_first":
            raise ValueError(
                "table holds the cosine in the even columns and the sine in the odd ones (cos, sin, cos, sin, "
                f"...): otherwise it is the paper's encoding ({ident.frequencies} frequencies, base "
                f"{ident.base:g}, offset {ident.offset}), but the paper's formula puts the sine first, "
                "PE(pos, 2i) = sin(pos / 10000**(2i/d)); swap each pair of columns")
        return ident
    first = _backwards(array) if backwards else None
    if first is not None:
        raise ValueError(f"table runs backwards: row r holds position {first} - r (positions fall down the "
                         "rows); reverse its rows, table[::-1], and ask again")
    raise ValueError("table is not a sinusoidal encoding of a known convention: " + "; ".join(reasons))


def _table_array(table: Any) -> np.ndarray:
    """The input as a 2-D array of finite real numbers (bfloat16 and other extension floats included)."""
    if isinstance(table, np.ndarray) and _validate.is_extension_float(table.dtype):
        array = table
    else:
        try:
            probe = np.asarray(table) if not isinstance(table, (str, bytes, dict, set, frozenset)) else None
        except (TypeError, ValueError, OverflowError):
            probe = None
        if probe is not None and probe.dtype.kind == "c":
            raise TypeError("table must be an array of real numbers, got a complex array (the freqs_cis of "
                            "rotary code is complex: a rotary cache, not a position table)")
        if probe is not None and _validate.is_extension_float(probe.dtype):
            array = probe
        else:
            return _validate.float_array(table, "table", ndim=2)
    if array.ndim != 2:
        raise ValueError(f"table must be a 2-D array of finite real numbers (int or float), got shape {array.shape}")
    if not np.all(np.isfinite(array.astype(np.float32))):
        raise ValueError("table must be a 2-D array of finite real numbers (int or float); it holds nan or infinity")
    return array


def _equal_columns(data: np.ndarray, columns: np.ndarray, live: np.ndarray) -> list[int]:
    """The first group of equal columns among ``columns``: candidates by a few rows, then checked in full."""
    key = np.ascontiguousarray(data[np.ix_(_sample(live)[:16], columns)].T)
    _, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    for group in np.nonzero(counts > 1)[0]:
        members = columns[inverse == group]
        first = data[:, members[0]]
        same = [int(j) for j in members if np.array_equal(data[:, j], first)]
        if len(same) > 1:
            return same
    return []


def _common_radius(data: np.ndarray, core: np.ndarray, live: np.ndarray) -> float | None:
    """The radius on which every pair of some layout lies, if it is the same for all pairs (a scaled table)."""
    for reading in _readings(core):
        a, b = data[np.ix_(live, reading.sin)], data[np.ix_(live, reading.cos)]
        radius = np.sqrt(a * a + b * b)
        middle = float(np.median(radius))
        if middle > 0 and np.abs(radius - middle).max() <= 1e-5 * middle and abs(middle - 1) > 1e-5:
            return middle
    return None


def _backwards(array: np.ndarray) -> int | None:
    """If the table with its rows reversed is a known convention, the position of the input's row 0."""
    try:
        ident = _identify(array[::-1], backwards=False)
    except ValueError:
        return None
    return ident.offset + len(array) - 1
