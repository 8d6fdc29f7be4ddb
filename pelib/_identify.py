"""Which encoding is this? Name the convention behind a sinusoidal position table
(chapter 8).

The analysis, in the order :func:`identify` runs it:

1. Zero rows (padding) and zero columns (the odd-width column of tensor2tensor) are set
   aside; what is left must hold numbers in [-1, 1], with no two equal columns (equal
   columns are what a rotary cos or sin cache looks like).
2. The columns are paired: each way of laying out (sine, cosine) pairs (interleaved, the
   two halves, with a lone sine for an odd count) is tried, and a layout is kept if
   every pair lies on the unit circle, ``a**2 + b**2 = 1``, in every row.
3. The angle of each pair, ``atan2(a, b)``, is read in every row; which column is the
   sine follows from the direction in which the angle turns, its speed (the slope along
   the rows) is the pair's frequency.
4. The frequencies must fall geometrically, from 1 or, for tensor2tensor's frequencies
   with a ``min_timescale`` (which multiplies every frequency), from the first pair's
   measured speed, tried as each of its decimal roundings within its error (shortest
   first) and as measured. Their ratio ``r`` names the candidate conventions: the
   paper's ``base**(-2i/d)`` for a few widths ``d`` and tensor2tensor's
   ``min_timescale * (max_timescale/min_timescale)**(-i/(K-1))``, each with the base
   rounded to 1, 2, ... significant digits. The first candidate that reproduces the
   table wins, in the order :func:`identify`'s Notes give ("Tables that fit more than
   one description").
5. The offset is the integer ``o`` with ``w_i * o`` equal to the angle of row 0 for
   every pair, found from the slowest pair to the fastest.
6. The convention's table is rebuilt and compared entry by entry with the input. Within
   what float64 angles explain: ``"float64"`` if angles ``float32(p) * float32(w)``
   would have left that envelope in at least 8 entries, else ``"either"``. Beyond it,
   within what float32 angles explain: ``"float32"`` if somewhere the deviation is at
   least 1/64 of the largest change those float32 angles make, else ``"neither"``.
   Otherwise the table is refused.
"""

from __future__ import annotations

import dataclasses
import decimal
import functools
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import _validate
from ._encoding import (
    _DIGITS,
    _PI,
    _STEPS,
    _double_double,
    _Frequencies,
    _frequencies_of,
    _pairs_at_positions,
    _split_steps,
)
from ._identify_grid import (
    GridIdentification,
    TimestepReading,
    identify_grid,
    timestep_reading,
)
from ._identify_volume import VolumeIdentification, identify_volume

#: The layouts :func:`identify` names.
IDENTIFIED_LAYOUTS = ("interleaved", "concat", "concat_cos_first")
#: The two families of frequencies.
FREQUENCY_FAMILIES = ("paper", "tensor2tensor")
#: The least number of rows :func:`identify` accepts.
MIN_ROWS = 8

_TWO_PI = 2 * np.pi
_TWO_PI_LD = 2 * np.longdouble(np.pi) + np.longdouble(
    2.4492935982947064e-16
)  # 2 pi to long double
# Positions searched for the offset of the first row.
_OFFSET_LIMIT = 2**31
# At most this many windings of the slowest pair are tried as offsets, _CHUNK at a time.
_WINDINGS = 2**24
_CHUNK = 2**16
# The least number of consecutive non-zero rows from which frequencies are measured.
_MIN_RUN = 4
# Rows used for the quick checks of candidate conventions.
_SAMPLE = 64
_CHECK_ROWS = 512  # rows per block in _check
_TELLING = 8  # entries float32 angles must move out of float64's envelope (see _check)


@dataclass(frozen=True)
class Identification:
    """What :func:`identify` found: a convention, its parameters, and how well the table
    matches it.

    Attributes
    ----------
    layout : str
        One of three names. ``"interleaved"``: sine and cosine alternate, ``sin, cos,
        sin, cos, ...`` (the paper); ``"concat"``: all sines, then all cosines (``[sin |
        cos]``; with an odd number of non-zero columns, one more sine than cosines, as
        Hugging Face's Marian); ``"concat_cos_first"``: ``[cos | sin]`` (Hugging Face's
        MusicGen). Zero columns are not counted in the layout: they sit where
        ``zero_columns`` says.
    frequencies : str
        One of two names. ``"paper"``: :math:`\\omega_i = \\text{base}^{-2i/d}` with ``d
        = d_model``; ``"tensor2tensor"``: :math:`\\omega_i = \\text{base}^{-i/(K-1)}`
        with ``K = d_model // 2``, from 1 to ``1/base`` (tensor2tensor, fairseq,
        Whisper).
    base : float
        The base (for tensor2tensor's frequencies, the ``max_timescale``), rounded to
        the fewest significant digits that reproduce the table. With a single frequency
        the table does not depend on it, and it is reported as 10000.0. When the second
        pass for ``min_timescale`` (see there) finds no value that fits with the
        preferred max_timescales (at most 2, 10000 first), a max_timescale is pinned
        from the table with it: the range of max_timescale that fits at the reported
        ``min_timescale`` is found by widening and bisection, and its decimal with the
        fewest digits is reported. That range comes second in ``alternatives``
        ("max_timescale anywhere from a to b fits the table as well at min_timescale m
        (its ends found by bisection: a' and b', just beyond, do not); at any
        min_timescale, none outside p to q fits") and ``str()`` says "at min_timescale
        m the table pins it only to a' to b' (a to b fits), and none outside p to q
        fits at any min_timescale" (a, b rounded inwards to 9 digits, a', b' the
        nearest values bisection found not to fit, rounded outwards). The two
        timescales are strongly correlated: a to b holds at m only; p to q is the
        range no pair of timescales outside of which fits (see ``min_timescale``).
    offset : int
        Row ``r`` holds position ``r + offset``.
    zero_rows : tuple of int
        The rows that are all zero (padding rows, such as fairseq's ``padding_idx``
        row).
    zero_columns : tuple of int
        The columns that are all zero (the last column of tensor2tensor at an odd
        width).
    angle_dtype : str
        What the deviations from the exact table say about the precision of the angles
        ``p * w``. ``"float64"``: every deviation is within what float64 angles and the
        rounding of the stored numbers explain, and angles ``float32(p) * float32(w)``
        would have left that envelope by 2x in at least 8 entries (the table is
        consistent with float64 angles, not with those float32 ones; one entry is not
        enough, since code's own float32 frequencies differ from ``float32(w)`` by a
        few units in the last place and move each entry differently).
        ``"either"``: within the float64 envelope, and fewer entries would tell
        (float16 or bfloat16 storage, a single pair at ``w = 1``): the stored numbers
        cannot tell. ``"float32"``: beyond
        the float64 envelope, within what float32 angles explain, and somewhere at least
        1/64 of the deviation those float32 angles make. ``"neither"``: beyond the
        float64 envelope but everywhere below 1/64 of that (a float64 recurrence, say).
    max_error : float
        The largest ``|table - self.table(len(table))|`` over the whole input.
    d_model : int
        The width ``d`` in the convention's formula: the table's width, except where
        code rounds an odd width up (the ``positional-encodings`` package: width + 1),
        computes the frequencies for the columns without its zero column (diffusers at
        an odd width: width - 1), or makes one column more than the width it was given
        (the TensorFlow tutorial at an odd depth: width - 1).
    width : int
        The number of columns of the table (less than ``d_model`` for the first
        columns of a wider interleaved table).
    min_timescale : float
        tensor2tensor's ``min_timescale``, which multiplies every frequency (its first
        frequency); 1.0 for the paper's frequencies. It is the first pair's measured
        speed rounded to the fewest significant digits that reproduce the table, or
        the measured value itself. A half-precision table (float16 or bfloat16) with
        few rows can measure it too coarsely for any of these to reproduce it; for
        such a table of at most 256 non-zero rows (not for others, whose first pass
        failed for another reason) a second pass runs. At the offset the float32
        envelope finds, every non-zero row bounds each pair's frequency (the angle
        may be off by what :func:`identify`'s envelope of float32 angles allows in its
        two entries), and since ``log w_i`` is linear in ``log min_timescale`` and
        ``log max_timescale``, those bounds confine the two to a polygon outside which
        no pair of timescales fits every entry. On lines of fixed max_timescale (the
        preferred ones, at most 2, then 17 across the polygon), 33 values of
        min_timescale across the polygon are tried until one fits every entry; the
        max_timescale is then pinned too if it is not a preferred one (see ``base``),
        the range of min_timescale that fits at the reported max_timescale is found
        by widening and bisection, and its decimal with the fewest digits is
        reported. The range comes first in ``alternatives`` ("min_timescale anywhere
        from a to b fits the table as well at max_timescale M (its ends found by
        bisection: a' and b', just beyond, do not); at any max_timescale, none outside
        p to q fits", p to q the polygon's extent) and ``str()`` says "at
        max_timescale M the table pins it only to a' to b' (a to b fits), and none
        outside p to q fits at any max_timescale" (rounded as for ``base``). a to b
        holds at M only: with another max_timescale a value outside it can fit (the
        two are strongly correlated), but none outside p to q. If no value fits, the
        table is refused with the measured first frequency and what was tried in the
        message. The offset is searched only with the max_timescales of the first
        pass's candidates near the measured min_timescale, so the second pass serves
        rows starting near position 0: a table whose rows start thousands of
        positions on may be refused although its true timescales fit it
        (tensor2tensor's 16 x 32 table with min_timescale 2/3 from position 8000, in
        float16, is).
    alternatives : tuple of str
        Up to 3 other descriptions (another family or ``d_model``, with the fewest
        digits) whose angles fit the sampled rows (at most about 200) at the same
        offset within the angle envelope of the search that found the offset (float64
        angles', or float32 angles' when only those fit). The float32 envelope is
        wide: a float32 table can list descriptions whose frequencies differ from the
        chosen ones by as much as float32 angles over those rows hide. Their full
        tables are not compared. When the second pass for ``min_timescale`` chose it
        (see ``min_timescale``), the range of ``min_timescale`` that fits at the
        reported max_timescale goes first, followed, when ``max_timescale`` was pinned
        too (see ``base``), by its range at the reported min_timescale; each line also
        gives the range outside which no pair of timescales fits.

    Notes
    -----
    What it does not give: code that builds the table in another framework, the names
    of the codes that follow the convention (chapter 8's Rosetta table lists them), or
    which row a token reads. The facts map onto pelib's constructors:
    ``sinusoidal(n, d_model, base=base, start=offset, layout=layout)`` for ``"paper"``
    frequencies in the ``"interleaved"`` and ``"concat"`` layouts
    (``"concat_cos_first"`` is ``"concat"`` with its halves swapped),
    ``timing_signal(n, width, min_timescale=min_timescale, max_timescale=base,
    start_index=offset)`` for
    ``"tensor2tensor"`` ones in ``"concat"``, with ``zero_rows`` and ``zero_columns``
    then set to zero. A zero row is a padding row; which row a real token reads is set
    by the code that numbers the tokens (fairseq's first token reads row 2), not by the
    table.
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
    min_timescale: float = 1.0
    alternatives: tuple[str, ...] = ()

    @property
    def n_frequencies(self) -> int:
        """How many frequencies the table has (one per sine-cosine pair, and one for a
        lone sine)."""
        return (self.width - len(self.zero_columns) + 1) // 2

    @property
    def omega(self) -> np.ndarray:
        """The angular frequency of each pair (and of a lone sine), fastest first,
        correctly rounded to float64."""
        return _accurate(
            self.frequencies,
            self.base,
            self.d_model,
            self.n_frequencies,
            self.min_timescale,
        ).omega.copy()

    def as_timestep(self) -> TimestepReading:
        """The table read as a diffusion time-step embedding (diffusers'
        ``get_timestep_embedding``, DiT's and guided-diffusion's
        ``timestep_embedding``; :func:`timestep_embedding`) of consecutive integer
        time steps: the same facts, named as that code's parameters.

        A ``[sin | cos]`` or ``[cos | sin]`` table of time steps ``0 .. n - 1`` is
        also a 1-D position table, and :func:`identify` describes it as one (the
        paper's frequencies for ``downscale_freq_shift`` 0, tensor2tensor's for 1);
        this renames those facts. ``flip_sin_to_cos`` is the layout, ``scale`` the
        ``min_timescale``; ``downscale_freq_shift`` and ``max_period`` trade off
        (the table fixes only ``max_period**(-1/(K - shift))``), so the reading
        lists the pairs of them that fit (see :class:`TimestepReading`).

        Returns
        -------
        TimestepReading

        Raises
        ------
        ValueError
            If the table is not such an embedding: interleaved pairs, zero rows, one
            more sine than cosines, or zero columns other than the last column of an
            odd width; the message says which.

        Examples
        --------
        >>> from pelib import identify, timestep_embedding
        >>> table = timestep_embedding(range(40), 8, flip_sin_to_cos=True,
        ...                            downscale_freq_shift=0)
        >>> identify(table).as_timestep().readings[0]
        (0.0, 10000.0)
        """
        return timestep_reading(self)

    def table(self, n_positions: int) -> np.ndarray:
        """The convention's table of ``n_positions`` rows, exactly as :func:`identify`
        compared it.

        Row ``r`` holds position ``r + offset``; the zero rows (those below
        ``n_positions``) and zero columns are zero, as in the input. The values are the
        exact ones rounded to float64 (see the Notes of :func:`identify` for the
        accuracy), not a re-run of the code that made the input: ``numpy.abs(table -
        ident.table(len(table))).max()`` is ``ident.max_error``.

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
            raise ValueError(
                f"n_positions: positions up to {self.offset + n_positions - 1} are "
                f"beyond {_OFFSET_LIMIT + 2**31}, where the table is not computed "
                "accurately"
            )
        reading = _reading_of(self)
        positions = self.offset + np.arange(n_positions, dtype=np.int64)
        freq = _accurate(
            self.frequencies,
            self.base,
            self.d_model,
            self.n_frequencies,
            self.min_timescale,
        )
        table = _rebuild(positions, reading, freq, self.width)
        table[[r for r in self.zero_rows if r < n_positions]] = 0.0
        return table

    def __str__(self) -> str:
        layout = _LAYOUT_NAMES[self.layout]
        parts = [f"{layout}, {self._frequency_text()}"]
        parts.append(_position_text(self.offset))
        if self.zero_rows:
            parts.append(f"zero rows {_short(self.zero_rows)}")
        if self.zero_columns:
            parts.append(f"zero columns {_short(self.zero_columns)}")
        parts.append(f"{_ANGLES[self.angle_dtype]}, max error {self.max_error:.2g}")
        return "; ".join(parts)

    def _frequency_text(self) -> str:
        """The frequencies in words, as ``str()`` gives them."""
        if self.frequencies == "paper":
            frequencies = (
                f"the paper's frequencies base**(-2i/{self.d_model}), "
                f"base {_number(self.base)}"
            )
            if self.d_model > self.width:
                frequencies += (
                    f" (the first {self.width} columns of a width-{self.d_model} table)"
                )
        elif self.min_timescale == 1.0:
            frequencies = (
                "tensor2tensor's frequencies 1 .. 1/max_timescale over "
                f"{self.d_model // 2} timescales, max_timescale "
                f"{_number(self.base)}"
            )
        else:
            pinned = [
                _pinned_text(a, "max_timescale")
                for a in self.alternatives
                if a.startswith(_PINNED)
            ]
            pinned_base = [
                _pinned_text(a, "min_timescale")
                for a in self.alternatives
                if a.startswith(_PINNED_BASE)
            ]
            frequencies = (
                f"tensor2tensor's frequencies over {self.d_model // 2} "
                "timescales, "
                f"min_timescale {_number(self.min_timescale)} (which "
                "multiplies "
                f"every frequency"
                + (f"; {pinned[0]}" if pinned else "")
                + f"), max_timescale {_number(self.base)}"
                + (f" ({pinned_base[0]})" if pinned_base else "")
            )
        return frequencies


def _pinned_text(line: str, other: str) -> str:
    """What a line of :func:`_pin_scale` in ``alternatives`` says, for ``str()``: "at
    <other> X the table pins it only to a' to b' (a to b fits), and none outside p to
    q fits at any <other>", a to b the range that fits rounded inwards, a' and b' the
    values just beyond it that bisection found not to fit, rounded outwards."""
    fitting = line.split(" to ", 1)
    low, high = fitting[0].split()[-1], fitting[1].split()[0]
    value = line.split(f" at {other} ", 1)[1].split()[0]
    outside = line.split("none outside ", 1)[1].split(" fits")[0]
    if ", just beyond, do not" in line:
        beyond = line.split("bisection: ", 1)[1].split(", just")[0].split(" and ")
        pins = f"pins it only to {beyond[0]} to {beyond[1]} ({low} to {high} fits)"
    else:
        pins = f"fits it from {low} to {high}"
    return (
        f"at {other} {value} the table {pins}, and none outside {outside} fits at "
        f"any {other}"
    )


_LAYOUT_NAMES = {
    "interleaved": "interleaved (sin, cos) pairs",
    "concat": "[sin | cos]",
    "concat_cos_first": "[cos | sin]",
    "interleaved_cos_first": "interleaved (cos, sin) pairs",
}


#: What ``str(Identification)`` says for each ``angle_dtype``.
_ANGLES = {
    "float64": "angles in float64 (float32 angles would show)",
    "float32": "angles in float32",
    "either": "angles in float64 or float32 (the stored numbers are too coarse to "
    "tell)",
    "neither": "angles neither float64's nor float32's (errors above float64 rounding, "
    "far below float32's: a recurrence, say)",
}


def _number(value: float) -> str:
    """The shortest decimal that reads back as ``value``, without a trailing ``.0``."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _equivalent(family: str, base: float, d_model: int) -> str:
    """One line for :attr:`Identification.alternatives`."""
    if family == "paper":
        return f"the paper's frequencies with d_model {d_model}, base {_number(base)}"
    return f"tensor2tensor's frequencies, max_timescale {_number(base)}"


def _position_text(offset: int) -> str:
    """ "row r holds position r + offset" in words."""
    sign = "-" if offset < 0 else "+"
    return (
        "row r holds position r"
        if offset == 0
        else f"row r holds position r {sign} {abs(offset)}"
    )


def _short(indices: tuple[int, ...]) -> str:
    shown = ", ".join(str(i) for i in indices[:6])
    return f"({shown}{', ...' if len(indices) > 6 else ''})"


class _Reading(NamedTuple):
    """One way of reading the columns: which column holds the sine and the cosine of
    each pair."""

    # one of IDENTIFIED_LAYOUTS, or "interleaved_cos_first" (refused, but recognised)
    layout: str
    sin: np.ndarray  # column of the sine of pair i
    cos: np.ndarray  # column of the cosine of pair i
    lone: (
        int | None
    )  # column of the frequency without a partner (an odd count of columns)
    lone_kind: str  # "sin" or "cos"


class _Mismatch(Exception):
    """The table does not fit a reading; the message says why."""


def _frequencies(
    family: str, base: float, d_model: int, count: int, scale: float = 1.0
) -> np.ndarray:
    """The first ``count`` frequencies of a convention, in long double (``scale`` is
    tensor2tensor's ``min_timescale``: ``scale * (base / scale)**(-i/(K-1))``)."""
    i = np.arange(count, dtype=np.longdouble)
    b = np.longdouble(base)
    if family == "paper":
        return np.power(b, -2 * i / np.longdouble(d_model))
    k = d_model // 2
    m = np.longdouble(scale)
    if k < 2:
        return np.full(count, m, dtype=np.longdouble)
    return m * np.exp(-i * np.log(b / m) / np.longdouble(k - 1))


@functools.lru_cache(maxsize=64)
def _accurate(
    family: str, base: float, d_model: int, count: int, scale: float = 1.0
) -> _Frequencies:
    """The first ``count`` frequencies of a convention, to about 2**-100 relative
    (double-double)."""
    if family != "paper" and scale != 1.0:
        return _scaled_grid(base, scale, d_model // 2, count)
    if family == "paper":
        exponents = [
            decimal.Decimal(2 * i) / decimal.Decimal(d_model) for i in range(count)
        ]
    elif d_model // 2 < 2:
        exponents = [decimal.Decimal(0)] * count
    else:
        exponents = [
            decimal.Decimal(i) / decimal.Decimal(d_model // 2 - 1) for i in range(count)
        ]
    return _frequencies_of(exponents, base)


def _scaled_grid(base: float, scale: float, k: int, count: int) -> _Frequencies:
    """tensor2tensor's frequencies with ``min_timescale = scale``,
    ``scale * (base / scale)**(-i/(k-1))`` (``scale`` for every i when k < 2), in
    60-digit decimal arithmetic, as double-doubles and steps."""
    context = decimal.Context(prec=_DIGITS)
    m = decimal.Decimal(scale)
    log_ratio = context.ln(context.divide(decimal.Decimal(base), m))
    values = []
    for i in range(count):
        exponent = context.divide(decimal.Decimal(i), decimal.Decimal(max(k - 1, 1)))
        power = context.exp(context.minus(context.multiply(log_ratio, exponent)))
        values.append(m if k < 2 else context.multiply(m, power))
    in_steps = context.divide(_STEPS, context.multiply(2, _PI))
    omega = _double_double(values, context)
    steps = _double_double([context.multiply(v, in_steps) for v in values], context)
    return _Frequencies(omega[0], omega[1], *_split_steps(*steps))


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
        _Reading(
            "interleaved", core[0 : 2 * k : 2], core[1 : 2 * k : 2], lone_last, "sin"
        ),
        # cos, sin, cos, sin, ...: an odd count ends with a lone cosine
        _Reading(
            "interleaved_cos_first" if m > 2 else "concat_cos_first",
            core[1 : 2 * k : 2],
            core[0 : 2 * k : 2],
            lone_last,
            "cos",
        ),
    ]
    if m > 2:
        readings += [
            # [sin | cos]: ceil(m/2) sines, then floor(m/2) cosines; the lone sine is
            # the last sine
            _Reading(
                "concat",
                core[:k],
                core[k + odd :],
                int(core[k]) if odd else None,
                "sin",
            ),
            # [cos | sin]: floor(m/2) cosines, then ceil(m/2) sines; the lone sine is
            # the last column
            _Reading("concat_cos_first", core[k : 2 * k], core[:k], lone_last, "sin"),
        ]
    return readings


def _storage_bits(array: np.ndarray) -> int:
    """Significant bits of the narrowest format (bfloat16, float16, float32, float64)
    holding every entry."""
    if _validate.is_extension_float(array.dtype):
        return 8
    if array.dtype == np.float16:
        return 11
    data = np.asarray(array, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        single = data.astype(np.float32)
        if not np.array_equal(single, data):
            return 53
        if not np.any(single.view(np.uint32) & np.uint32(0xFFFF)):
            # the low 16 bits of every float32 are zero: bfloat16 numbers (tested before
            # float16,
            return 8
            #           whose numbers include most bfloat16 ones)
        if np.array_equal(single.astype(np.float16).astype(np.float32), single):
            return 11
    return 24


def _half_ulp(values: np.ndarray, bits: int) -> np.ndarray:
    """Half the spacing of ``bits``-bit numbers at each of ``values`` (0 at 0).

    For a normal float64 ``v``, masking all but its exponent bits gives the power of two
    ``2**floor(log2 |v|)`` exactly, and half a ``bits``-bit spacing there is that times
    ``2**-bits`` (what ``frexp``'s ``2**(e - bits - 1)`` is); subnormal values, whose
    exponent bits are zero, take the ``frexp`` route."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    power = (values.view(np.uint64) & np.uint64(0x7FF0000000000000)).view(np.float64)
    half = power * 2.0**-bits
    tiny = (power == 0) & (values != 0)
    if np.any(tiny):
        _, exponent = np.frexp(np.abs(values[tiny]))
        half[tiny] = np.ldexp(1.0, exponent - bits - 1)
    return half


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles reduced to [-pi, pi)."""
    return (np.asarray(angle, dtype=np.float64) + np.pi) % _TWO_PI - np.pi


def _angles(positions: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``positions * omega`` reduced modulo 2 pi, formed in long double, as float64 in
    [-pi, pi)."""
    product = np.multiply.outer(np.asarray(positions, dtype=np.longdouble), omega)
    return _wrap(np.fmod(product, _TWO_PI_LD))


def _rough_angles(positions: np.ndarray, omega: float) -> np.ndarray:
    """``positions * omega`` in float64, in [-pi, pi): off by at most ``|p w| 2**-52``,
    about 5e-7 radians at 2**31, well inside the envelope of float64 angles there (for
    the search, not for the checks)."""
    return _wrap(np.asarray(positions, dtype=np.float64) * float(omega))


def _rebuild(
    positions: np.ndarray, reading: _Reading, freq: _Frequencies, width: int
) -> np.ndarray:
    """The convention's table at the integer ``positions`` in the columns of ``reading``
    (float64; other columns zero), each entry within about half a unit in the last place
    of the exact value."""
    table = np.zeros((len(positions), width))
    k = len(reading.sin)
    sin, cos = _as_slice(reading.sin), _as_slice(reading.cos)
    for begin in range(0, len(positions), 4096):
        rows = slice(begin, begin + 4096)
        pairs = _pairs_at_positions(positions[rows], freq)  # sin + i cos
        table[rows, sin] = pairs.real[:, :k]
        table[rows, cos] = pairs.imag[:, :k]
        if reading.lone is not None:
            table[rows, reading.lone] = (
                pairs.real if reading.lone_kind == "sin" else pairs.imag
            )[:, k]
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


def _slopes(
    data: np.ndarray, reading: _Reading, run: np.ndarray, floor: float
) -> _Slopes:
    """Least-squares slope of the unwrapped angle of every pair along the consecutive
    rows ``run``."""
    sines, cosines = _take(data, run, reading.sin), _take(data, run, reading.cos)
    theta = np.unwrap(np.arctan2(sines, cosines), axis=0)
    t = np.arange(len(run), dtype=np.float64) - (len(run) - 1) / 2
    ss = float(t @ t)
    slope = (t @ (theta - theta.mean(axis=0))) / ss
    residual = theta - theta.mean(axis=0) - np.outer(t, slope)
    scatter = np.sqrt((residual**2).sum(axis=0) / max(len(run) - 2, 1))
    return _Slopes(slope, np.maximum(scatter, floor) / math.sqrt(ss), scatter)


def _lone_frequency(column: np.ndarray, run: np.ndarray) -> tuple[float, float]:
    """Frequency of a lone sinusoidal column from x[t+1] + x[t-1] = 2 cos(w) x[t], and
    its rough error."""
    x = column[run]
    mid, around = x[1:-1], x[2:] + x[:-2]
    denominator = float(mid @ mid)
    if denominator == 0:
        raise _Mismatch("the lone column is zero along the rows")
    c = float(mid @ around) / (2 * denominator)
    residual = around - 2 * c * mid
    spread = (
        math.sqrt(float(residual @ residual) / max(len(mid) - 1, 1) / denominator)
        + 2.0**-40
    )
    omega = math.acos(min(1.0, max(-1.0, c)))
    # d(acos c) = dc / sin(w): the error of c, seen through the flat top of the cosine
    return omega, spread / max(math.sin(omega), math.sqrt(spread))


class _Candidate(NamedTuple):
    family: str
    d_model: int
    base: float
    rank: tuple  # smaller is preferred
    scale: float = 1.0  # tensor2tensor's min_timescale, the first frequency


def _roundings(value: float) -> list[tuple[int, float]]:
    """``value`` rounded to 1, 2, ..., 17 significant digits (digits, rounded value),
    without repeats."""
    out, seen = [], set()
    for digits in range(1, 18):
        rounded = float(f"{value:.{digits - 1}e}")
        if rounded not in seen and rounded > 0 and math.isfinite(rounded):
            seen.add(rounded)
            out.append((digits, rounded))
    return out


def _candidates(
    ratio: float,
    log_error: float,
    pairs: int,
    n_freq: int,
    width: int,
    core: int,
    lone: bool,
    layout: str,
    scale: float = 1.0,
) -> list[_Candidate]:
    """Conventions whose frequency ratio ``base**(-2/d)`` (or
    ``max_timescale**(-1/(K-1))``) matches ``ratio``.

    The paper's ``d`` is the table's width, or one of the widths real code uses instead:
    the width without its zero columns (diffusers' odd widths), the width rounded up to
    even when a lone sine ends the table (positional-encodings), and the width less one
    for a [sin | cos] table of an even number of columns (the TensorFlow tutorial's odd
    depth gives depth + 1 columns), and the wider width at which base 10000 gives this
    ratio, when it is an integer (the first columns of a wider interleaved table). With
    ``scale`` (a first frequency other than 1) only tensor2tensor's frequencies, whose
    ``min_timescale`` multiplies every frequency, are tried.
    """
    log_ratio = math.log(ratio)
    widths = [width]
    if core != width:
        widths.append(core)
    if lone:
        widths.append(2 * n_freq)
    if layout.startswith("concat") and not lone and core == width:
        widths.append(width - 1)
    wider = -2 * math.log(10000.0) / log_ratio
    near = abs(wider - round(wider)) <= 2 * log_error * wider / abs(log_ratio)
    fits = layout == "interleaved" and width < round(wider) <= 2**20 and near
    wider_d = round(wider) if fits else None
    if wider_d is not None:
        widths.append(wider_d)
    interpretations = [
        ("paper", d, rank, -log_ratio * d / 2)
        for rank, d in enumerate(dict.fromkeys(widths))
        if d >= 2 and scale == 1.0
    ]
    if not lone and pairs >= 2:
        log_max = -log_ratio * (pairs - 1) + math.log(scale)
        interpretations.append(("tensor2tensor", width, 0, log_max))
    found = []
    for family, d, d_rank, log_base in interpretations:
        if not -700 < log_base < 700:
            continue
        for digits, base in _roundings(math.exp(log_base)):
            if family == "paper":
                candidate_log_ratio = -2 * math.log(base) / d
            else:
                if base <= scale:
                    continue
                candidate_log_ratio = -math.log(base / scale) / (pairs - 1)
            if abs(candidate_log_ratio - log_ratio) <= log_error:
                # 10000 first; then the table's own width; then the fewest digits,
                # tensor2tensor's reading winning only with fewer digits than the
                # paper's (the paper's formula is the default)
                rank = (base != 10000.0, d_rank, digits + 0.5 * (family != "paper"))
                # a cut wider table wins when the own width's base takes 3 digits more
                if family == "paper" and d == wider_d:
                    rank = (True, 0, digits + 2.25)
                found.append(_Candidate(family, d, base, rank, scale))
    return sorted(found, key=lambda c: c.rank)


def _log_ratio(candidate: _Candidate, pairs: int) -> float:
    """log of the ratio of consecutive frequencies of a candidate convention."""
    if candidate.family == "paper":
        return -2 * math.log(candidate.base) / candidate.d_model
    return -math.log(candidate.base / candidate.scale) / (pairs - 1)


def _angle_envelope(
    theta: np.ndarray, base: float, bits: int, angle_bits: int
) -> np.ndarray:
    """How far a measured pair angle may be from the exact one: the stored numbers'
    rounding (twice, for the two entries of a pair), the sine's own error, and the
    angle's rounding in ``angle_bits`` (53 or 24) with the frequency's error (about
    ``ln(base) + 4`` units)."""
    growth = max(math.log(base), 0.0) + 4
    evaluation = 2.0**-50 if angle_bits == 53 else 2.0**-21
    return (
        4 * 2.0**-bits + evaluation + np.abs(theta) * growth * 2.0 ** (1 - angle_bits)
    )


def _value_envelope(
    half_ulp: np.ndarray, theta: np.ndarray, base: float, bits: int, angle_bits: int
) -> np.ndarray:
    """How far a stored entry may be from the exact one, in the same terms as
    :func:`_angle_envelope`."""
    growth = max(math.log(base), 0.0) + 4
    evaluation = 2.0**-50 if angle_bits == 53 else 2.0**-22
    floor = 2.0**-25 if bits <= 11 else 0.0  # float16's subnormals
    return (
        half_ulp + floor + evaluation + np.abs(theta) * growth * 2.0 ** (1 - angle_bits)
    )


def _float32_limit(base: float) -> int:
    """Positions up to which the envelope of float32 angles stays below a quarter turn
    in the fastest pair."""
    return int(2.0**21 / (max(math.log(base), 0.0) + 4))


def _search_offset(
    phase: np.ndarray,
    omega: np.ndarray,
    rows: int,
    base: float,
    bits: int,
    angle_bits: int,
    *,
    wide: bool = True,
) -> int | None:
    """The integer ``o`` with ``omega * o = phase`` (mod 2 pi) for every pair, within
    the envelope of angles formed with ``angle_bits`` bits, or None.

    ``phase`` is each pair's angle at row 0. Candidates start from the windings of the
    slowest pair, nearest 0 first and in chunks, move to agree with each faster pair in
    turn, and are dropped as soon as they disagree with a slower one. Of the survivors
    that fit every pair, the one whose angles miss least wins (the nearest to 0 among
    equals). The search covers ``|o| < min(2**31, _WINDINGS * 2 pi / w_slowest)`` for
    float64 angles and positions below :func:`_float32_limit` for float32 angles.
    """
    limit = _OFFSET_LIMIT if angle_bits == 53 else max(_float32_limit(base) - rows, 0)
    order = np.argsort(omega)
    slowest = float(omega[order[0]])
    span = _TWO_PI / slowest
    reach = min(int(limit / span) + 1, _WINDINGS) if wide else 1
    best: tuple[float, int] | None = None
    for first, last in [(0, 1)] + [
        (lo, min(lo + _CHUNK, reach)) for lo in range(2, reach + 1, _CHUNK)
    ]:
        windings = np.arange(first, last + 1, dtype=np.float64)
        windings = (
            np.concatenate([windings, -windings[windings > 0]])
            if first == 0
            else np.concatenate([windings, -windings])
        )
        position = (float(phase[order[0]]) + _TWO_PI * windings) / slowest
        position = position[np.abs(position) <= limit + span]
        for step, j in enumerate(order[1:], start=1):
            if len(position) == 0:
                break
            tolerance = _angle_envelope(
                float(omega[j]) * (np.abs(position) + rows), base, bits, angle_bits
            )
            miss = _wrap(phase[j] - _rough_angles(position, omega[j]))
            position = np.where(
                tolerance < np.pi / 4, position + miss / float(omega[j]), position
            )
            previous = order[step - 1]
            residual = np.abs(
                _wrap(phase[previous] - _rough_angles(position, omega[previous]))
            )
            bound = _angle_envelope(
                float(omega[previous]) * (np.abs(position) + rows),
                base,
                bits,
                angle_bits,
            )
            position = position[residual <= 2 * bound]
        offsets = np.unique(np.round(position))
        offsets = offsets[np.abs(offsets) <= limit]
        if len(offsets):
            theta = np.multiply.outer(np.abs(offsets) + rows, omega.astype(np.float64))
            residual = np.abs(_wrap(phase[None, :] - _angles(offsets, omega)))
            fits = (residual <= _angle_envelope(theta, base, bits, angle_bits)).all(
                axis=1
            )
            for miss, offset in zip(
                residual.max(axis=1)[fits], offsets[fits], strict=True
            ):
                candidate = (float(miss), abs(int(offset)), int(offset))
                if best is None or candidate[:2] < best[:2]:
                    best = candidate
        if best is not None and best[0] <= 2.0 ** (2 - bits):
            # as close as the stored numbers allow: windings further out cannot do
            # better
            break
    return None if best is None else best[2]


def _check(
    data: np.ndarray,
    reading: _Reading,
    live: np.ndarray,
    freq: _Frequencies,
    offset: int,
    base: float,
    bits: int,
) -> tuple[str, float, tuple[int, int, float, float]]:
    """Compare every non-zero row with the rebuilt table: the angle precision, the
    largest deviation, and (row, column, deviation, envelope) of the worst entry against
    float32 angles.

    The rows are taken in blocks of :data:`_CHECK_ROWS` (the same comparisons, entry by
    entry, as one pass over the whole table, in less memory and time)."""
    largest, within64, telling, shift_max = 0.0, True, 0, 0.0
    best_excess, worst = -1.0, (0, 0, 0.0, 0.0)
    for begin in range(0, len(live), _CHECK_ROWS):
        rows = live[begin : begin + _CHECK_ROWS]
        block = _check_rows(data, reading, rows, freq, offset, base, bits)
        largest = max(largest, block.largest)
        within64 = within64 and block.within64
        telling += block.telling
        shift_max = max(shift_max, block.shift_max)
        if block.excess > best_excess:  # the first largest, in row-major order
            best_excess = block.excess
            row, column = block.where
            worst = (int(rows[row]), int(column), block.deviation, block.envelope)
    if not within64 and best_excess > 1:
        return "none", largest, worst
    if within64:
        # float32 angles would have left this envelope (by 2x, well above libm's last
        # bits) somewhere
        verdict = "float64" if telling >= _TELLING else "either"
        return verdict, largest, (0, 0, 0.0, 0.0)
    # Beyond float64's envelope: float32 angles leave errors of the size of their own
    # rounding
    # somewhere; errors 64 times smaller everywhere come from some other arithmetic.
    verdict = "float32" if largest > shift_max / 64 else "neither"
    return verdict, largest, worst


class _Block(NamedTuple):
    largest: float  # the largest deviation from the rebuilt table
    within64: bool  # every entry within the envelope of float64 angles
    telling: int  # entries where float32 angles would have left that envelope
    shift_max: float  # the largest change float32 angles make
    excess: float  # the largest deviation / envelope of float32 angles
    where: tuple[int, int]  # its (row in the block, column)
    deviation: float  # the deviation there
    envelope: float  # the envelope there


def _check_rows(
    data: np.ndarray,
    reading: _Reading,
    rows: np.ndarray,
    freq: _Frequencies,
    offset: int,
    base: float,
    bits: int,
) -> _Block:
    """:func:`_check`'s comparisons on the table rows ``rows``."""
    positions = rows.astype(np.int64) + offset
    exact = _rebuild(positions, reading, freq, data.shape[1])
    theta = np.zeros_like(exact)
    k = len(reading.sin)
    sin, cos = _as_slice(reading.sin), _as_slice(reading.cos)
    omega64 = freq.omega
    angle = np.abs(np.multiply.outer(positions.astype(np.float64), omega64))
    theta[:, sin] = angle[:, :k]
    theta[:, cos] = angle[:, :k]
    if reading.lone is not None:
        theta[:, reading.lone] = angle[:, k]
    deviation = np.abs(data[_as_slice(rows)] - exact)
    half_ulp = _half_ulp(exact, bits)
    envelope64 = _value_envelope(half_ulp, theta, base, bits, 53)
    within64 = bool(np.all(deviation <= envelope64))
    envelope = _value_envelope(half_ulp, theta, base, bits, 24)
    ratio = deviation / envelope
    row, column = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    # What angles formed as float32(p) * float32(w), in float32, would do to each entry:
    # the test
    # of whether this table, at its storage precision, can tell float32 angles from
    # float64 ones.
    with np.errstate(over="ignore"):
        angle32 = positions.astype(np.float32)[:, None] * omega64.astype(np.float32)
    angle32 = angle32.astype(np.float64)
    shift = np.zeros_like(exact)
    shift[:, sin] = np.abs(np.sin(angle32[:, :k]) - exact[:, sin])
    shift[:, cos] = np.abs(np.cos(angle32[:, :k]) - exact[:, cos])
    if reading.lone is not None:
        lone = (np.sin if reading.lone_kind == "sin" else np.cos)(angle32[:, k])
        shift[:, reading.lone] = np.abs(lone - exact[:, reading.lone])
    telling = int(np.count_nonzero(shift > 2 * envelope64))
    return _Block(
        float(deviation.max()),
        within64,
        telling,
        float(shift.max()),
        float(ratio[row, column]),
        (int(row), int(column)),
        float(deviation[row, column]),
        float(envelope[row, column]),
    )


def _sample(live: np.ndarray) -> np.ndarray:
    if len(live) <= 3 * _SAMPLE:
        return live
    middle = live[np.linspace(_SAMPLE, len(live) - _SAMPLE - 1, _SAMPLE).astype(int)]
    return np.unique(np.concatenate([live[:_SAMPLE], middle, live[-_SAMPLE:]]))


class _Table(NamedTuple):
    """The table being identified, as every step of the analysis reads it."""

    data: np.ndarray  # the entries, as float64
    live: np.ndarray  # the rows that are not all zero
    run: np.ndarray  # the longest stretch of consecutive live rows (its first 4096)
    bits: int  # significant bits of the storage format (see _storage_bits)
    zero_rows: tuple[int, ...]
    zero_columns: tuple[int, ...]


def _longest_run(live: np.ndarray) -> np.ndarray:
    """The rows the frequencies are measured from: the longest stretch of consecutive
    live rows, its first 4096 (enough to measure every frequency to a few parts in
    1e9)."""
    return max(_runs(live), key=len)[:4096]


class _Fit(NamedTuple):
    """The frequencies measured from one first frequency: their ratio, its error, and
    the conventions that give it."""

    ratio: float | None  # None for a single frequency
    log_error: float  # the error of log(ratio)
    candidates: list[_Candidate]  # most preferred first


def _identify_reading(
    table: _Table,
    reading: _Reading,
    given: list[float] | None = None,
    given_base: float | None = None,
) -> Identification:
    """Identify the table under one reading of its columns, or raise _Mismatch saying
    why not.

    ``given`` replaces the first frequencies tried for tensor2tensor's ``min_timescale``
    (the second pass of :func:`_pin_scale`, which does not search again), and
    ``given_base``, if given too, replaces the max_timescales tried with that one."""
    slopes = _steady_slopes(table, reading)
    scales = _first_frequencies(slopes, len(reading.sin), given)
    fitted, failure = [], None
    for scale in scales:
        try:
            fitted.append(_fit(table, reading, slopes, scale, given_base))
        except _Mismatch as mismatch:
            failure = failure or mismatch
    if not fitted:
        raise failure
    search = _Search(table, reading, fitted)
    found, far = search.first_pass()
    if found is not None:
        return found
    pin = (
        scales != [1.0]
        and given is None
        and table.bits <= _PIN_BITS
        and len(table.live) <= _PIN_ROWS
    )
    if far is not None and not pin:
        return far
    unsure = ""
    if pin:
        # the second pass, also when the first found only a fit far from 0: the one
        # nearer 0 wins
        pinned = _pin_scale(search, slopes)
        if isinstance(pinned, Identification) and (
            far is None or abs(pinned.offset) < abs(far.offset)
        ):
            return pinned
        if far is not None:
            return far
        unsure = (
            "; " + pinned + " (the second pass searches the offset only with the "
            "max_timescales that fit near the measured min_timescale: a table whose "
            "rows start thousands of positions from 0 may be refused although "
            "tensor2tensor's timescales fit it)"
        )
    elif scales != [1.0]:
        unsure = _unpinned_scale(slopes)
    raise search.refusal(unsure)


def _steady_slopes(table: _Table, reading: _Reading) -> _Slopes:
    """Each pair's turn per row, measured along the run, if the first pair turns
    steadily forwards down the rows (else _Mismatch)."""
    floor = 2.0 ** (2 - table.bits)
    slopes = _slopes(table.data, reading, table.run, floor)
    if slopes.scatter[0] > 0.05:
        raise _Mismatch(
            "the angle of the first (sine, cosine) pair does not advance steadily "
            f"down the rows (it strays {slopes.scatter[0]:.2g} radians rms from a "
            "straight line): the rows are not consecutive positions in order ("
            + (_row_pattern(table.data, table.run) or "shuffled, or with rows missing")
            + ")"
        )
    if slopes.omega[0] <= 0:
        raise _Mismatch("the first pair turns backwards")
    return slopes


def _first_frequencies(
    slopes: _Slopes, pairs: int, given: list[float] | None
) -> list[float]:
    """The first frequencies to try: 1 (the paper's, and tensor2tensor's without a
    min_timescale) if the first pair measures it, else the measured one's decimals.

    tensor2tensor's min_timescale multiplies every frequency: its first frequency is
    min_timescale. Every decimal rounding of the measured first frequency within its
    error (the floor relative: 1e-9 of it) is tried, shortest first, and the measured
    value itself; ``given`` replaces them."""
    first, error = slopes.omega[0], slopes.error[0]
    if not abs(first - 1) > max(10 * error, 1e-9):
        return [1.0]
    near = [
        value
        for _, value in _roundings(float(first))
        if abs(value - first) <= max(10 * error, 1e-9 * first)
    ]
    if pairs < 2:
        raise _Mismatch(
            f"the first (sine, cosine) pair turns by {first:.12g} radians per row, "
            "not by 1 (the paper's first frequency) and the table has no second pair "
            "to fit tensor2tensor's min_timescale: are the positions scaled?"
        )
    if given is not None:
        return list(given)
    return list(dict.fromkeys(near + [float(first)]))


def _fit(
    table: _Table,
    reading: _Reading,
    slopes: _Slopes,
    scale: float,
    given_base: float | None = None,
) -> _Fit:
    """The ratio of the frequencies, its error, and the candidate conventions, for the
    first frequency ``scale``."""
    pairs = len(reading.sin)
    if pairs >= 2:
        ratio, log_error = _geometric_ratio(slopes, scale, len(table.run), table.bits)
    elif reading.lone is not None:
        ratio, error = _lone_frequency(table.data[:, reading.lone], table.run)
        log_error = 8 * error / max(ratio, 1e-300) + 2.0 ** (5 - table.bits)
    else:  # a single pair: every base gives the same table
        width = table.data.shape[1]
        return _Fit(None, 0.0, [_Candidate("paper", width, 10000.0, ())])
    if not 0 < ratio < 1:
        raise _Mismatch(
            f"the frequencies do not fall from one pair to the next (ratio {ratio:.6g})"
        )
    candidates = _fit_candidates(table, reading, ratio, log_error, scale, given_base)
    if not candidates and scale != 1.0:
        raise _Mismatch(
            f"the first (sine, cosine) pair turns by {slopes.omega[0]:.12g} radians "
            "per row, not by 1 (the paper's first frequency), and no tensor2tensor "
            "min_timescale and max_timescale give the ratio "
            f"{ratio:.9g} of the next ones: are the positions scaled, or the "
            "frequencies in another order?"
        )
    if not candidates:
        raise _Mismatch(
            f"the frequencies fall by a ratio of {ratio:.9g} per pair, which no base "
            "gives"
        )
    return _Fit(ratio, log_error, candidates)


def _geometric_ratio(
    slopes: _Slopes, scale: float, rows: int, bits: int
) -> tuple[float, float]:
    """The ratio r of geometric frequencies ``w_i = scale * r**i`` that the measured
    turns of the pairs after the first give, and the error of ``log r``.

    Each pair weighs as well as it measures r. Angles formed in float32 are off by up
    to about ``|p w| 2**-23`` in each row, and over a short run those errors can drift
    like a line, tilting a slope by up to twice their size over the run without any
    scatter about it. Their size shows in the scatter of the noisiest pairs, relative
    to each pair's frequency; that relative tilt is added to each slope's random
    error."""
    measured = slopes.omega
    i = np.arange(1, len(measured))
    good = measured[1:] > 0
    if not np.all(measured[1:] > -10 * slopes.error[1:]):
        raise _Mismatch("some pairs turn the other way from the first")
    if not np.any(good):
        raise _Mismatch("the pairs after the first do not turn")
    turning = measured > 0
    relative = slopes.scatter[turning] / measured[turning]
    tilt = 4 * float(relative.max()) / max(rows - 1, 1) if len(relative) else 0.0
    # of log(w_i)
    sigma = np.hypot(slopes.error[1:][good] / measured[1:][good], tilt)
    weight = (i[good] / sigma) ** 2
    logs = np.log(measured[1:][good] / scale) / i[good]
    log_ratio = float(np.sum(weight * logs) / np.sum(weight))
    # 8 standard errors, and what the rounding of the code's own frequencies can tilt
    # the slopes by
    log_error = 8 / math.sqrt(float(np.sum(weight))) + 2.0 ** (5 - bits)
    # tensor2tensor's grid with a min_timescale: every pair on scale * ratio**i
    if scale != 1.0:
        miss = np.abs(np.log(measured[1:][good] / scale) - i[good] * log_ratio)
        if np.any(miss > 10 * sigma + i[good] * log_error):
            raise _Mismatch(
                f"the first (sine, cosine) pair turns by {measured[0]:.12g} radians "
                "per row, not by 1 (the paper's first frequency), and the frequencies "
                "are not geometric from it, as tensor2tensor's with a min_timescale "
                "would be: are the positions scaled, or the frequencies in another "
                "order?"
            )
    return math.exp(log_ratio), log_error


def _fit_candidates(
    table: _Table,
    reading: _Reading,
    ratio: float,
    log_error: float,
    scale: float,
    given_base: float | None,
) -> list[_Candidate]:
    """The conventions whose frequencies fall by ``ratio`` from ``scale`` (only
    tensor2tensor's with max_timescale ``given_base``, if given with a scale)."""
    width = table.data.shape[1]
    pairs = len(reading.sin)
    if given_base is not None and scale != 1.0:
        return [_Candidate("tensor2tensor", width, given_base, (), scale)]
    return _candidates(
        ratio,
        log_error,
        pairs,
        pairs + (reading.lone is not None),
        width,
        width - len(table.zero_columns),
        reading.lone is not None,
        reading.layout,
        scale,
    )


def _closest(fitted: list[_Fit], pairs: int) -> _Candidate:
    """The candidate whose ratio of frequencies is nearest the measured one (which
    models the table's own, perhaps rounded, frequencies best); the first if a single
    frequency measures no ratio."""
    candidates = [c for fit in fitted for c in fit.candidates]
    if not fitted[0].ratio:
        return candidates[0]
    ratios = {c.scale: fit.ratio for fit in fitted for c in fit.candidates}
    return min(
        candidates,
        key=lambda c: abs(_log_ratio(c, pairs) - math.log(ratios[c.scale])),
    )


def _phase(theta: np.ndarray, sample: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """Each pair's angle at row 0, averaged over the sampled rows: the angles
    ``theta`` less ``sample * omega``, summed as unit vectors."""
    return np.angle(np.exp(1j * (theta - _angles(sample, omega))).sum(axis=0))


def _angles_fit(
    theta: np.ndarray,
    positions: np.ndarray,
    omega: np.ndarray,
    base: float,
    bits: int,
    angle_bits: int,
) -> bool:
    """Whether the angles ``theta`` of the rows at ``positions`` are
    ``positions * omega`` within the envelope of angles formed with ``angle_bits``
    bits."""
    residual = np.abs(_wrap(theta - _angles(positions, omega)))
    angle = np.abs(
        np.multiply.outer(positions.astype(np.float64), omega.astype(np.float64))
    )
    return bool(np.all(residual <= _angle_envelope(angle, base, bits, angle_bits)))


def _unpinned_scale(slopes: _Slopes) -> str:
    """What a refusal adds when no decimal of the measured first frequency fit and the
    second pass did not run."""
    return (
        "; or tensor2tensor's frequencies with a min_timescale that no decimal near "
        f"the first pair's measured {slopes.omega[0]:.7g} radians per row (known to "
        f"about {10 * slopes.error[0]:.1g}) reproduces: identify tries only those "
        "decimals and the measured value (and pins the timescales from the stored "
        f"numbers only in half-precision tables of at most {_PIN_ROWS} rows), and at "
        "this storage precision and number of rows they may not pin it down"
    )


class _Search:
    """The search for a convention and an offset that reproduce the table under one
    reading of its columns, among the candidates of the measured frequencies.

    The sampled rows' pair angles ``theta`` decide which candidates and offsets are
    worth a check of every entry (:func:`_check`); ``tried`` keeps any from being
    checked twice, and ``worst`` is the worst entry of the last check, for the
    refusal."""

    def __init__(self, table: _Table, reading: _Reading, fitted: list[_Fit]) -> None:
        self.table, self.reading = table, reading
        self.pairs = len(reading.sin)
        self.n_freq = self.pairs + (reading.lone is not None)
        # the candidates of the shortest first frequency first
        self.candidates = [c for fit in fitted for c in fit.candidates]
        self.closest = _closest(fitted, self.pairs)
        # The offset is searched with the preferred conventions and with the one
        # closest to the measured ratio; with several first frequencies, the most
        # preferred candidate of each too.
        self.searched = list(
            dict.fromkeys(
                self.candidates[:6]
                + [fit.candidates[0] for fit in fitted]
                + [self.closest]
            )
        )
        self.sample = _sample(table.live)
        data = table.data
        self.theta = np.arctan2(
            data[np.ix_(self.sample, reading.sin)],
            data[np.ix_(self.sample, reading.cos)],
        )
        self.tried: set[tuple[int, int, _Candidate]] = set()
        self.worst: tuple[int, int, float, float] | None = None

    def convention(self, candidate: _Candidate) -> tuple[str, float, int, int, float]:
        """The arguments of :func:`_frequencies` and :func:`_accurate` for
        ``candidate``."""
        c = candidate
        return c.family, c.base, c.d_model, self.n_freq, c.scale

    def fits_angles(self, candidate: _Candidate, offset: int, angle_bits: int) -> bool:
        """Whether ``candidate`` at ``offset`` puts every sampled angle within the
        envelope of angles formed with ``angle_bits`` bits."""
        omega = _frequencies(*self.convention(candidate))[: self.pairs]
        positions = self.sample + offset
        bits = self.table.bits
        return _angles_fit(
            self.theta, positions, omega, candidate.base, bits, angle_bits
        )

    def offset_of(
        self, candidate: _Candidate, bits: int, angle_bits: int, wide: bool
    ) -> int | None:
        """The offset at which ``candidate``'s angles meet the sampled ones
        (:func:`_search_offset` with the envelope of ``bits``-bit numbers), or
        None."""
        omega = _frequencies(*self.convention(candidate))[: self.pairs]
        phase = _phase(self.theta, self.sample, omega)
        rows = len(self.table.data)
        return _search_offset(
            phase, omega, rows, candidate.base, bits, angle_bits, wide=wide
        )

    def first_pass(self) -> tuple[Identification | None, Identification | None]:
        """The first convention whose offset the search finds and whose table matches
        every entry (or None), and, in half precision, a fit far from 0 kept in reserve
        (or None).

        The offset is searched first near position 0, then over the whole range, with
        the envelope of float64 angles; then with that of float32 angles, which is
        informative only while the fast pairs' angle errors stay well below a radian.
        In half precision, float32 angles far out leave so wide an envelope that a
        neighbouring decimal of min_timescale can fit there too (tensor2tensor's 16 x 5
        table with min_timescale 2/3 fits min_timescale 0.667 at position -348486 in
        float16): in half precision a fit with float32 angles whose rows start farther
        from 0 than their own span is kept only if no other searched candidate, and not
        the second pass (_pin_scale), fits nearer 0."""
        table, far = self.table, None
        for angle_bits, wide, among in (
            (53, False, self.searched),
            (53, True, self.searched[:1] + [self.closest]),
            (24, True, self.searched),
        ):
            for candidate in dict.fromkeys(among):
                offset = self.offset_of(candidate, table.bits, angle_bits, wide)
                if offset is None:
                    continue
                found = self.accept(offset, angle_bits)
                if found is None:
                    continue
                if (
                    angle_bits == 53
                    or table.bits > _PIN_BITS
                    or abs(found.offset) < len(table.data)
                ):
                    return found, far
                if far is None or abs(found.offset) < abs(far.offset):
                    far = found
        return None, far

    def accept(self, offset: int, angle_bits: int) -> Identification | None:
        """The most preferred candidate that puts every sampled angle within the
        envelope at ``offset`` and whose rebuilt table matches every entry, or None."""
        table, reading = self.table, self.reading
        for candidate in self.candidates:
            if (offset, angle_bits, candidate) in self.tried:
                continue
            self.tried.add((offset, angle_bits, candidate))
            if not self.fits_angles(candidate, offset, angle_bits):
                continue
            freq = _accurate(*self.convention(candidate))
            angle_dtype, largest, self.worst = _check(
                table.data,
                reading,
                table.live,
                freq,
                offset,
                candidate.base,
                table.bits,
            )
            if angle_dtype in ("float64", "either") or (
                angle_bits == 24 and angle_dtype != "none"
            ):
                return Identification(
                    reading.layout,
                    candidate.family,
                    candidate.base,
                    offset,
                    table.zero_rows,
                    table.zero_columns,
                    angle_dtype,
                    largest,
                    candidate.d_model,
                    table.data.shape[1],
                    candidate.scale,
                    self.equally(offset, angle_bits, candidate),
                )
        return None

    def equally(
        self, offset: int, angle_bits: int, chosen: _Candidate
    ) -> tuple[str, ...]:
        """Other descriptions (at most 3, the fewest digits of each family and width)
        whose angles fit the sampled rows at ``offset`` within the same envelope."""
        found, described = [(chosen.family, chosen.d_model)], []
        for candidate in self.candidates:
            if len(described) == 3 or (candidate.family, candidate.d_model) in found:
                continue
            if not self.fits_angles(candidate, offset, angle_bits):
                continue
            found.append((candidate.family, candidate.d_model))
            described.append(
                _equivalent(candidate.family, candidate.base, candidate.d_model)
            )
        return tuple(described)

    def refusal(self, unsure: str) -> _Mismatch:
        """Why no convention fits: the worst entry of the last check, else where the
        closest convention within about 1e-3 radians misses, else that no offset
        fits; ``unsure`` ends the message."""
        if self.worst is not None:
            row, column, deviation, envelope = self.worst
            return _Mismatch(
                f"the closest convention misses row {row}, column {column} by "
                f"{deviation:.3g}, more than angles formed in float32 explain "
                f"({envelope:.3g}): noise, or a table computed some other way" + unsure
            )
        near_miss = self.near_miss()
        if near_miss is not None:
            return near_miss
        limit = _float32_limit(self.candidates[0].base)
        return _Mismatch(
            "no integer offset and base put every pair at its angle in every row, with "
            f"angles formed in float64, or in float32 at positions below {limit:,} "
            "(identify does not test float32 angles further out, where their errors "
            "grow to a large fraction of a radian in the fast pairs): the rows are not "
            "at integer positions, the positions are scaled, the frequencies are not "
            "geometric, or the angles were formed in float32 far out" + unsure
        )

    def near_miss(self) -> _Mismatch | None:
        """Where the closest convention misses most, if the first two searched put
        every angle within about 1e-3 radians at some offset (else None)."""
        table, reading = self.table, self.reading
        width = table.data.shape[1]
        for candidate in self.searched[:2]:  # loosely: angles within about 1e-3
            offset = self.offset_of(candidate, 12, 53, wide=False)
            if offset is None:
                continue
            freq = _accurate(*self.convention(candidate))
            exact = _rebuild(table.live.astype(np.int64) + offset, reading, freq, width)
            deviation = np.abs(table.data[table.live] - exact)
            row, column = np.unravel_index(int(np.argmax(deviation)), deviation.shape)
            closest = Identification(
                reading.layout,
                candidate.family,
                candidate.base,
                offset,
                (),
                (),
                "float64",
                0.0,
                candidate.d_model,
                width,
                candidate.scale,
            )
            return _Mismatch(
                f"the closest convention, {_LAYOUT_NAMES[reading.layout]} with "
                f"{closest._frequency_text()}, {_position_text(offset)}, misses row "
                f"{int(table.live[row])}, column {int(column)} by "
                f"{deviation[row, column]:.2g}, more than angles formed in float32 "
                "explain (noise, or a table computed some other way)"
            )
        return None


def _first_slope(
    data: np.ndarray, reading: _Reading, run: np.ndarray, bits: int
) -> tuple[float, float]:
    """The first pair's turn per row along ``run``, weighted by what each row's stored
    numbers pin, and a bound on its error.

    A row's angle ``atan2(a, b)`` is off by at most ``(h(a) |b| + h(b) |a|) / (a**2 +
    b**2)`` (``h``: half a storage spacing, far finer for an entry near 0 than near 1),
    plus float32's angle and sine errors (``2**-21 + |angle| 2**-22``); the rows are
    weighted by the inverse square of that bound, and the error bound is the tilt that
    bounds of that size, each of the worst sign, would give. That bound holds only for
    rows near position 0: float32 angles at position ``p`` err by about ``|p w|
    2**-24``, which the unwrapped angle from row 0 does not see (so the refusals do not
    print it)."""
    a = data[run, reading.sin[0]]
    b = data[run, reading.cos[0]]
    theta = np.unwrap(np.arctan2(a, b))
    bound = (
        (_half_ulp(a, bits) * np.abs(b) + _half_ulp(b, bits) * np.abs(a))
        / (a * a + b * b)
        + 2.0**-21
        + np.abs(theta) * 2.0**-22
    )
    weight = bound**-2
    t = np.arange(len(run), dtype=np.float64)
    t = t - float(weight @ t) / float(weight.sum())
    spread = float(weight @ (t * t))
    slope = float((weight * t) @ theta) / spread
    return slope, float((np.abs(t) * weight) @ bound) / spread


def _shortest_decimal(low: float, high: float) -> float:
    """The decimal with the fewest significant digits in ``[low, high]`` (0 < low <=
    high), the one nearest the middle among those."""
    middle = (low + high) / 2
    for digits in range(1, 18):
        for value in (
            float(f"{middle:.{digits - 1}e}"),
            float(f"{low:.{digits - 1}e}"),
            float(f"{high:.{digits - 1}e}"),
        ):
            if low <= value <= high:
                return value
    return middle


def _edge(fits: Any, inside: float, step: float) -> tuple[float, float]:
    """The end of the range of ``x`` with ``fits(x)`` reached from ``inside`` (which
    fits) in the direction of ``step``: widen while the next value fits (at most 8
    times, doubling the step), then bisect 16 times. Returns the last value that fits
    and the nearest value beyond it that was tried and does not fit (nan if every
    value tried fits)."""
    outside = inside + step
    failed = False
    for _ in range(8):
        if not fits(outside):
            failed = True
            break
        inside, outside = outside, outside + step
        step *= 2
    for _ in range(16):
        middle = (inside + outside) / 2
        if fits(middle):
            inside = middle
        else:
            outside, failed = middle, True
    if not failed and fits(outside):
        return outside, math.nan
    return inside, outside


def _beyond(ends: list[tuple[float, float]]) -> str:
    """What :func:`_edge`'s two ends say beyond the range that fits: ": a' and b',
    just beyond, do not", each rounded outwards to 9 digits (empty if one is nan)."""
    if math.isnan(ends[0][1]) or math.isnan(ends[1][1]):
        return ""
    return (
        f": {_digits(ends[0][1], False)} and {_digits(ends[1][1], True)}, just "
        "beyond, do not"
    )


def _digits(value: float, up: bool) -> str:
    """``value`` to 9 significant digits, rounded up or down (not to nearest), so that
    a range printed with it is widened (its ends outwards) or narrowed (inwards)."""
    exact = decimal.Decimal(value)
    quantum = decimal.Decimal(1).scaleb(exact.adjusted() - 8)
    rounded = exact.quantize(
        quantum, decimal.ROUND_CEILING if up else decimal.ROUND_FLOOR
    )
    return f"{float(rounded):.9g}"


def _pinned_frequencies(
    data: np.ndarray,
    reading: _Reading,
    live: np.ndarray,
    bits: int,
    offset: int,
    predicted: np.ndarray,
    base: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The range of each pair's frequency outside which some entry of a non-zero row
    leaves :func:`_check`'s envelope of float32 angles (for a ``max_timescale`` up to
    ``base``), when row ``r`` holds position ``r + offset`` (low > high where the rows
    disagree).

    Within that envelope an entry ``a`` is within ``E = h + f + 2**-22 + |angle|
    (ln(base) + 4) 2**-23`` of the exact one (``h``: half a storage spacing, taken at
    ``|a| + 2 E`` so that it is no less than at the exact value; ``f``: ``2**-25`` in
    float16, whose subnormals are that fine; ``angle``: the pair's measured angle, its
    winding taken from ``predicted``, a frequency near each pair's, plus 0.01). A sine
    entry then confines the angle to ``asin([a - E, a + E])`` on the branch its cosine
    ``b`` names, and a cosine entry to ``acos([b - E, b + E])`` on the branch of the
    sine's sign; an entry is used only where that branch is certain (the other entry
    farther than its ``E`` from 0) and the range does not reach +-1. At position ``p``
    the angle's range over ``p`` is the frequency's, and the ranges are intersected."""
    rows = live[live + offset != 0]
    a = data[np.ix_(rows, reading.sin)]
    b = data[np.ix_(rows, reading.cos)]
    position = (rows + offset).astype(np.float64)[:, None]
    theta = np.arctan2(a, b)
    winding = _TWO_PI * np.round((position * predicted - theta) / _TWO_PI)
    floor = 2.0**-25 if bits <= 11 else 0.0
    growth = max(math.log(base), 0.0) + 4
    spread = floor + 2.0**-22 + (np.abs(theta + winding) + 0.01) * growth * 2.0**-23

    def room(x: np.ndarray) -> np.ndarray:
        rough = _half_ulp(x, bits) + spread
        return _half_ulp(np.abs(x) + 2 * rough, bits) + spread

    room_a, room_b = room(a), room(b)
    big = np.full(a.shape, np.inf)
    low, high = -big, big.copy()
    with np.errstate(invalid="ignore"):
        # the sine: asin on the branch of the cosine's sign
        use = (np.abs(b) > room_b) & (np.abs(a) + room_a < 1)
        s_low, s_high = np.arcsin(a - room_a), np.arcsin(a + room_a)
        s_low, s_high = (
            np.where(b > 0, s_low, np.pi - s_high),
            np.where(b > 0, s_high, np.pi - s_low),
        )
        shift = _TWO_PI * np.round((theta - (s_low + s_high) / 2) / _TWO_PI)
        low = np.where(use, s_low + shift, low)
        high = np.where(use, s_high + shift, high)
        # the cosine: acos on the branch of the sine's sign
        use = (np.abs(a) > room_a) & (np.abs(b) + room_b < 1)
        c_low, c_high = np.arccos(b + room_b), np.arccos(b - room_b)
        c_low, c_high = (
            np.where(a > 0, c_low, -c_high),
            np.where(a > 0, c_high, -c_low),
        )
        shift = _TWO_PI * np.round((theta - (c_low + c_high) / 2) / _TWO_PI)
        low = np.maximum(low, np.where(use, c_low + shift, -big))
        high = np.minimum(high, np.where(use, c_high + shift, big))
    low, high = low + winding, high + winding
    ends = np.sort([low / position, high / position], axis=0)
    return ends[0].max(axis=0), ends[1].min(axis=0)


class _Region(NamedTuple):
    """The (log min_timescale, log max_timescale) that every pair's frequency range
    allows: ``normal @ (x, y) <= limit``."""

    normal: np.ndarray  # (constraints, 2)
    limit: np.ndarray  # (constraints,)

    def slice(self, axis: int, value: float) -> tuple[float, float]:
        """The range of the other coordinate with coordinate ``axis`` at ``value``
        (low > high if none)."""
        a, b = self.normal[:, 1 - axis], self.normal[:, axis]
        rest = self.limit - b * value
        with np.errstate(divide="ignore", invalid="ignore"):
            ends = rest / a
        if np.any((a == 0) & (rest < 0)):
            return 1.0, 0.0
        return float(ends[a < 0].max()), float(ends[a > 0].min())

    def extent(self) -> tuple[float, float, float, float] | None:
        """The least and greatest x, then y, over the region (None if it is empty):
        its corners are among the crossings of two of its edges."""
        n, c = self.normal, self.limit
        p, q = np.triu_indices(len(c), 1)
        det = n[p, 0] * n[q, 1] - n[p, 1] * n[q, 0]
        keep = np.abs(det) > 1e-12
        p, q, det = p[keep], q[keep], det[keep]
        x = (c[p] * n[q, 1] - c[q] * n[p, 1]) / det
        y = (n[p, 0] * c[q] - n[q, 0] * c[p]) / det
        slack = 1e-12 * (1 + np.abs(c))
        inside = np.all(
            np.outer(x, n[:, 0]) + np.outer(y, n[:, 1]) <= c + slack, axis=1
        )
        if not np.any(inside):
            return None
        x, y = x[inside], y[inside]
        return float(x.min()), float(x.max()), float(y.min()), float(y.max())


def _region(low: np.ndarray, high: np.ndarray, k: int, log_m: float) -> _Region | str:
    """The region of (x, y) = (log min_timescale, log max_timescale) with every pair's
    frequency ``w_i = exp((1 + i/(k-1)) x - i/(k-1) y)`` in ``[low_i, high_i]``,
    ``x <= y <= x + 60`` and ``|x - log_m| <= 1`` (``log_m``: near the measured first
    frequency), or why there is none."""
    pairs = len(low)
    if low[0] <= 0 or np.any(high <= 0) or np.any(low > high):
        pair = (
            int(np.nonzero((high <= 0) | (low > high))[0][0])
            if (np.any(high <= 0) or np.any(low > high))
            else 0
        )
        return f"the rows of pair {pair} agree on no frequency"
    t = np.arange(pairs) / (k - 1)
    direction = np.stack([1 + t, -t], axis=1)
    positive = low > 0
    normal = np.concatenate(
        [
            direction,
            -direction[positive],
            [[1.0, -1.0], [-1.0, 1.0], [1.0, 0.0], [-1.0, 0.0]],
        ]
    )
    limit = np.concatenate(
        [np.log(high), -np.log(low[positive]), [0.0, 60.0, log_m + 1, 1 - log_m]]
    )
    return _Region(normal, limit)


#: How :func:`_pin_scale` begins the lines it adds to ``alternatives``.
_PINNED = "min_timescale anywhere from "
_PINNED_BASE = "max_timescale anywhere from "
_PIN_GRID = 33  # values of min_timescale tried on each line by _pin_scale
_PIN_LINES = 17  # max_timescales _pin_scale tries across the range the rows allow
_PIN_ROWS = 256  # _pin_scale runs only on tables with at most this many non-zero rows
_PIN_BITS = 11  # ... stored in half precision (at most this many significant bits)
_PIN_BASES = 2  # preferred max_timescales _pin_scale tries first


def _pin_scale(search: _Search, slopes: _Slopes) -> Identification | str:
    """The second pass for tensor2tensor's timescales when no decimal near the first
    measurement fits (half-precision tables of at most :data:`_PIN_ROWS` rows).

    At the offset the float32 envelope finds (with the first frequency measured from
    what each stored number pins, :func:`_first_slope`), each pair's frequency range
    (:func:`_pinned_frequencies`) bounds ``(log m, log M)`` to a polygon (every
    ``log w_i`` is linear in them) outside which no timescales fit. On lines of fixed
    ``M`` (the preferred max_timescales first, then :data:`_PIN_LINES` across the
    polygon, from its middle outwards), :data:`_PIN_GRID` values of ``m`` across the
    polygon's slice are tried until one fits every entry. From there: if ``M`` is not
    a preferred one, its range at that ``m`` is found by widening and bisection
    (:func:`_edge`) and its shortest decimal taken; then ``m``'s range at that ``M``
    and its shortest decimal; then ``M``'s range again at that ``m``. The ranges, each
    at the other timescale's reported value, and the polygon's extent go into
    ``alternatives``. Otherwise say what was seen."""
    table, reading = search.table, search.reading
    measured, _ = _first_slope(table.data, reading, table.run, table.bits)
    told = (
        f"or tensor2tensor's frequencies with a min_timescale near {measured:.9g} "
        "(the first pair's measured turn per row)"
    )
    try:
        fit = _fit(table, reading, slopes, measured)
    except _Mismatch:
        return told + ": the other pairs do not fall geometrically from it"
    candidates = [c for c in fit.candidates if c.family == "tensor2tensor"]
    if not candidates or search.pairs < 2 or candidates[0].d_model // 2 < 2:
        return told + ": no max_timescale gives the other pairs' ratio"
    pin = _Pin(search, candidates, measured, slopes.omega)
    offsets: list[int] = []
    for candidate in candidates[:6]:
        offset = search.offset_of(candidate, table.bits, 24, wide=True)
        if offset is not None and offset not in offsets:
            offsets.append(offset)
    if not offsets:
        return (
            told
            + ": no offset puts the pairs at their angles with max_timescale "
            + " or ".join(_number(c.base) for c in candidates[:6])
        )
    seen = []
    for offset in offsets[:2]:
        pinned = _pin_at(pin, offset)
        if isinstance(pinned, Identification):
            return pinned
        seen.append(f"{_position_text(offset)}: {pinned}")
    return told + ": " + "; ".join(seen)


@dataclass(frozen=True, eq=False)
class _Pin:
    """What the second pass (:func:`_pin_scale`) works with: the search of one reading,
    tensor2tensor's candidates at the measured first frequency, that frequency, and
    every pair's measured frequency (which picks the winding of each angle)."""

    search: _Search
    candidates: list[_Candidate]
    measured: float
    predicted: np.ndarray

    @property
    def preferred(self) -> list[float]:
        """The max_timescales tried first: the most preferred candidates'."""
        return [c.base for c in self.candidates[:_PIN_BASES]]

    def fits(self, scale: float, base: float, offset: int) -> bool:
        """Whether min_timescale ``scale`` and max_timescale ``base`` at ``offset``
        put every sampled angle, then every entry, within the envelope of float32
        angles."""
        if not base > scale:
            return False
        search, table = self.search, self.search.table
        args = ("tensor2tensor", base, self.candidates[0].d_model, search.n_freq, scale)
        omega = _frequencies(*args)[: search.pairs]
        positions = search.sample + offset
        if not _angles_fit(search.theta, positions, omega, base, table.bits, 24):
            return False
        freq = _accurate(*args)
        verdict = _check(
            table.data, search.reading, table.live, freq, offset, base, table.bits
        )[0]
        return verdict != "none"


def _pin_at(pin: _Pin, offset: int) -> Identification | str:
    """The table identified with the timescales pinned at ``offset``, their ranges
    leading ``alternatives``; or what was seen there."""
    bounds = _pin_bounds(pin, offset)
    if isinstance(bounds, str):
        return bounds
    region, extent = bounds
    found = _pin_grid(pin, region, extent, offset)
    if found is None:
        return _nothing_fits(pin, extent)
    scale, base, scale_ends, extra = _pin_ranges(pin, found, extent, offset)
    search = pin.search
    try:
        ident = _identify_reading(
            search.table, search.reading, given=[scale], given_base=base
        )
    except _Mismatch as mismatch:
        return (
            f"with min_timescale {_number(scale)} and max_timescale {_number(base)}, "
            f"which fit every entry, the table is still refused ({mismatch})"
        )
    x_lo, x_hi = extent[:2]
    line = _range_line(_PINNED, scale_ends, "max_timescale", base, x_lo, x_hi)
    return dataclasses.replace(ident, alternatives=(line, *extra) + ident.alternatives)


def _pin_bounds(
    pin: _Pin, offset: int
) -> tuple[_Region, tuple[float, float, float, float]] | str:
    """The polygon of (log min_timescale, log max_timescale) that the stored numbers
    allow at ``offset`` and its extent, or why there is none that bounds
    max_timescale."""
    search, table = pin.search, pin.search.table
    k = pin.candidates[0].d_model // 2
    log_m = math.log(pin.measured)
    base = max(c.base for c in pin.candidates[:6])
    for _ in range(3):  # the envelope grows with max_timescale: until it covers it
        low, high = _pinned_frequencies(
            table.data,
            search.reading,
            table.live,
            table.bits,
            offset,
            pin.predicted[: search.pairs],
            base,
        )
        region = _region(low, high, k, log_m)
        extent = region.extent() if isinstance(region, _Region) else None
        if extent is None or math.exp(extent[3]) <= base:
            break
        base = 1.01 * math.exp(extent[3])
    if isinstance(region, str):
        return region
    if extent is None:
        return (
            "the pairs' frequency ranges, which the stored numbers allow, admit no "
            "min_timescale and max_timescale together"
        )
    x_lo, x_hi, y_lo, y_hi = extent
    if (
        y_hi >= x_lo + 59
        or min(x_lo - log_m, x_hi - log_m) <= -0.99
        or (x_hi >= log_m + 0.99)
    ):
        return "the rows do not bound max_timescale"
    return region, extent


def _middle_out(count: int) -> np.ndarray:
    """The indices 0 .. count - 1 from the middle outwards (the lower first of two
    at equal distance)."""
    return np.argsort(np.abs(np.arange(count) - count // 2), kind="stable")


def _pin_grid(
    pin: _Pin, region: _Region, extent: tuple[float, ...], offset: int
) -> tuple[float, float, float] | None:
    """The first (log min_timescale, max_timescale) on the lines of fixed
    max_timescale that fits every entry, with a step for widening the range of
    min_timescale from it; or None."""
    y_lo, y_hi = extent[2:]
    lines = [(math.log(b), b) for b in pin.preferred if y_lo <= math.log(b) <= y_hi]
    middle, half = (y_lo + y_hi) / 2, (y_hi - y_lo) / 2
    across = middle + half * np.linspace(-1.0, 1.0, _PIN_LINES)
    lines += [(float(across[j]), math.exp(across[j])) for j in _middle_out(_PIN_LINES)]
    for y, base in lines:
        left, right = region.slice(1, y)
        if left > right:
            continue
        grid = (left + right) / 2 + (right - left) / 2 * np.linspace(
            -1.0, 1.0, _PIN_GRID
        )
        for j in _middle_out(_PIN_GRID):
            if pin.fits(math.exp(grid[j]), base, offset):
                return float(grid[j]), base, (right - left) / 8
    return None


def _nothing_fits(pin: _Pin, extent: tuple[float, ...]) -> str:
    """What the second pass saw when no timescales tried fit every entry."""
    x_lo, x_hi, y_lo, y_hi = extent
    tried = " or ".join(
        _number(b) for b in pin.preferred if y_lo <= math.log(b) <= y_hi
    )
    return (
        "the stored numbers allow min_timescale only from "
        f"{_digits(math.exp(x_lo), False)} to {_digits(math.exp(x_hi), True)} and "
        f"max_timescale only from {_digits(math.exp(y_lo), False)} to "
        f"{_digits(math.exp(y_hi), True)}, and no min_timescale tried ({_PIN_GRID} "
        "across that range on each line) fits every entry with max_timescale "
        + (tried + " or " if tried else "")
        + f"any of {_PIN_LINES} values across its range"
    )


def _pin_ranges(
    pin: _Pin,
    found: tuple[float, float, float],
    extent: tuple[float, ...],
    offset: int,
) -> tuple[float, float, list[tuple[float, float]], list[str]]:
    """The timescales to report, from the first that fit: the shortest decimal in
    each one's range at the other's value; min_timescale's range; and the line for
    ``alternatives`` that gives max_timescale's range, if it was not a preferred
    one."""
    x, base, step = found
    scale = math.exp(x)
    free = base not in pin.preferred
    y_lo, y_hi = extent[2:]
    y_step = max((y_hi - y_lo) / 8, 1e-9)
    if free:  # max_timescale's shortest decimal at this min_timescale
        ends = _log_range(lambda b, m=scale: pin.fits(m, b, offset), base, y_step)
        choice = _shortest_decimal(ends[0][0], ends[1][0])
        base = choice if pin.fits(scale, choice, offset) else base
    scale_ends = _log_range(lambda m, b=base: pin.fits(m, b, offset), scale, step)
    choice = _shortest_decimal(scale_ends[0][0], scale_ends[1][0])
    scale = choice if pin.fits(choice, base, offset) else scale
    extra = []
    if free:
        ends = _log_range(lambda b, m=scale: pin.fits(m, b, offset), base, y_step)
        extra.append(
            _range_line(_PINNED_BASE, ends, "min_timescale", scale, y_lo, y_hi)
        )
    return scale, base, scale_ends, extra


def _log_range(accepts: Any, start: float, step: float) -> list[tuple[float, float]]:
    """The ends of the range of positive values that ``accepts``, from ``start``
    outwards in steps ``step`` (of the log): (fits, beyond) at each end."""
    return [
        tuple(
            math.exp(v)
            for v in _edge(lambda v: accepts(math.exp(v)), math.log(start), s * step)
        )
        for s in (-1, 1)
    ]


def _range_line(
    prefix: str,
    ends: list[tuple[float, float]],
    other: str,
    value: float,
    log_low: float,
    log_high: float,
) -> str:
    """A line of ``alternatives``: the range that fits at the other timescale's
    reported ``value``, rounded inwards, the values just beyond it that do not, and
    the range ``exp(log_low)`` to ``exp(log_high)`` outside which none fits."""
    return (
        f"{prefix}{_digits(ends[0][0], True)} to {_digits(ends[1][0], False)} fits the "
        f"table as well at {other} {_number(value)} (its ends found by bisection"
        f"{_beyond(ends)}); at any {other}, none outside "
        f"{_digits(math.exp(log_low), False)} to {_digits(math.exp(log_high), True)} "
        "fits"
    )


def _row_pattern(data: np.ndarray, run: np.ndarray) -> str:
    """What the rows ``run`` repeat, if they do (the first 512 of them): equal rows
    (positions clamped), or columns that repeat with a short period (a flattened
    grid)."""
    x = data[run[:512]]
    rows = np.unique(x, axis=0, return_index=True, return_inverse=True)
    if len(rows[0]) < len(x):
        inverse = rows[2].ravel()
        r = int(np.nonzero(np.bincount(inverse)[inverse] > 1)[0][0])
        same = [int(run[j]) for j in np.nonzero(inverse == inverse[r])[0]]
        return (
            f"rows {same[0]} and {same[1]} are equal, which no two positions give: "
            "positions clamped (as Transformer-XL's clamp_len does) or repeated"
        )
    for period in range(2, min(len(x) // 2, 128) + 1):
        repeat = np.all(x[period:] == x[:-period], axis=0)
        if np.any(repeat):
            return (
                f"{int(repeat.sum())} of its columns repeat every {period} rows: "
                "the rows look like the cells of a grid read row by row (a 2-D "
                "encoding flattened), not positions on a line"
            )
    return ""


def _near_miss(data: np.ndarray, core: np.ndarray, live: np.ndarray) -> str:
    """What a table whose pairs lie near, not on, the unit circle is: quantized, noisy,
    or 2-D."""
    x = data[np.ix_(live, core)]
    for levels in (127, 128, 255, 256, 32767, 32768, 65535):
        # a multiple k / levels, exactly or as float32 rounds it (2**-24 relative;
        # 2**-22 leaves room for the division and the product here)
        steps = x * levels
        if np.all(np.abs(steps - np.round(steps)) <= np.abs(steps) * 2.0**-22):
            return (
                f" Every entry is a multiple of 1/{levels} (to float32 "
                "rounding): a table quantized to "
                "integers (int8 or int16), which moves each entry by up to half a "
                "step."
            )
    m = len(core)
    if m % 4 == 0 and m >= 8:
        quarter = m // 4
        a = x[:, np.r_[0:quarter, 2 * quarter : 3 * quarter]]
        b = x[:, np.r_[quarter : 2 * quarter, 3 * quarter : m]]
        if np.abs(a * a + b * b - 1).max() <= 1e-5:
            return (
                " Each half of its columns is a [sin | cos] table of its own: a "
                "2-D "
                "encoding (MAE's get_2d_sincos_pos_embed, say), whose rows are "
                "cells of "
                "a grid, not positions on a line."
            )
    best = min(
        float(
            np.abs(
                data[np.ix_(live, r.sin)] ** 2 + data[np.ix_(live, r.cos)] ** 2 - 1
            ).max()
        )
        for r in _readings(core)
    )
    if best <= 0.05:
        return (
            f" The closest layout misses the circle by {best:.2g}: a sinusoidal "
            "table with noise "
            "of about that size added (or trained away from a sinusoidal start)."
        )
    return ""


def _describe_columns(
    data: np.ndarray, core: np.ndarray, run: np.ndarray, zero_rows: tuple
) -> str:
    """Why the columns do not pair up: what each column is on its own."""
    x = data[np.ix_(run, core)]
    if len(run) < 3:
        return ""
    mid, around = x[1:-1], x[2:] + x[:-2]
    energy = (mid * mid).sum(axis=0)
    c = np.where(
        energy > 0,
        (mid * around).sum(axis=0) / np.where(energy > 0, 2 * energy, 1),
        2.0,
    )
    residual = np.sqrt(
        ((around - 2 * c * mid) ** 2).sum(axis=0)
        / np.maximum((around**2).sum(axis=0), 1e-300)
    )
    if not np.all(residual < 1e-3) or not np.all(np.abs(c) <= 1 + 1e-6):
        return (
            " Its columns are not sinusoids of the row index either: a learned or "
            "random embedding looks like this."
        )
    freq = np.arccos(np.clip(c, -1, 1))
    shown = ", ".join(f"{f:.4g}" for f in freq[:6])
    text = (
        " Every column is a sinusoid of the row index, but no two columns are a sine "
        f"and a cosine of one frequency: the columns turn by {shown}, ... radians per "
        "row."
    )
    reliable = np.nonzero(freq > 0.05)[0]
    if len(reliable) >= 3 and reliable[0] == 0 and abs(freq[0] - 1) < 1e-3:
        j = reliable
        ratio = math.exp(float(np.polyfit(j, np.log(freq[j]), 1)[0]))
        if np.allclose(freq[j], ratio**j, rtol=2e-3):
            base = ratio ** (-len(core) / 2)
            text += (
                f" Column j has frequency {ratio:.5g}**j, that is base**(-2j/d) with "
                f"base {base:.5g} for d = {len(core)}: the exponent counts columns, "
                "2j/d, where the paper's counts pairs, 2*(j//2)/d (hand-written code "
                "that loops over every dimension, or writes 2*(i+1)/d for the cosine "
                "of column i + 1, does this)."
            )
        elif len(j) >= 4 and np.allclose(
            freq[j][1::2][: len(freq[j][2::2])], freq[j][2::2], rtol=2e-3
        ):
            text += (
                " Each cosine column turns like the next pair's sine: the cosine's "
                "exponent is 2(i+1)/d where it should be 2i/d."
            )
    if data[run[0], core].min() > 1 - 1e-6:
        text += (
            " Every column starts at 1, like cosines of position 0: a rotary (RoPE) "
            "cos cache holds cosines only, and is not a position table."
        )
    elif 0 in zero_rows and run[0] == 1:
        text += (
            " Row 0 is zero, like sines of position 0: a rotary (RoPE) sin cache holds "
            "sines only, and is not a position table."
        )
    return text


def identify(
    table: ArrayLike,
) -> Identification | GridIdentification | VolumeIdentification:
    r"""Name the convention of a sinusoidal position table, or say why it is not one.

    Given the table some code produced (one row per position), find the column layout,
    the family of frequencies and its base, the position of the first row, the padding
    rows and columns, and whether the angles were formed in float32 or float64; then
    rebuild the convention's table and measure how far the input is from it. Chapter 8
    (:doc:`/notebooks/08_which_encoding`) runs it on the conventions of widely used code
    and on broken code.

    Parameters
    ----------
    table : array_like
        A 2-D array of real numbers (float64, float32, float16 or bfloat16), at least 8
        rows (consecutive positions, padding rows allowed) and 2 non-zero columns.

    Returns
    -------
    Identification, GridIdentification or VolumeIdentification
        The convention, its parameters, and ``max_error``; ``str()`` of it reads as a
        sentence, and its ``table(n)`` rebuilds the convention for comparison. A
        time-step table is an :class:`Identification` whose
        :meth:`~Identification.as_timestep` names diffusers' parameters; a 2-D grid
        table, which no 1-D convention explains, gives a :class:`GridIdentification`,
        and diffusers' 3-D table a :class:`VolumeIdentification` (see "Beyond the
        token axis" below).

    Raises
    ------
    TypeError
        If ``table`` is not an array of real numbers (a complex array, such as the
        ``freqs_cis`` of rotary code, is refused with that explanation).
    ValueError
        If ``table`` is not 2-D, holds nan or infinity, has fewer than 8 rows or fewer
        than 4 consecutive non-zero rows (from which the frequencies are measured), or
        is not a sinusoidal encoding: the message says why (constant or zero, entries
        outside [-1, 1], equal columns as in a rotary cos/sin cache, columns that do not
        pair into sines and cosines of one frequency, frequencies that are not geometric
        (from 1, or from a first frequency that a tensor2tensor ``min_timescale`` near
        the measured one explains), rows that are not at integer positions, or
        deviations larger than float32 angles explain).

    Notes
    -----
    **How it decides.** The layouts and frequencies are told apart by arithmetic, not by
    the look of the table: a layout must put every (sine, cosine) pair on the unit
    circle, and the rebuilt table must match every entry within an envelope derived from
    the rounding of the stored numbers and of the angles. The storage precision is read
    off the input: an array whose numbers are all float32 numbers counts as float32, all
    bfloat16 numbers as bfloat16, all float16 numbers as float16.

    **Tables that fit more than one description.** The candidates are ranked, and the
    first that reproduces the table is returned: a base (or ``max_timescale``) of
    exactly 10000 first; then the table's own width in the exponent before the widths
    real code uses instead (see ``d_model``); then the fewest significant digits in the
    base, tensor2tensor's reading counting half a digit more than the paper's. The
    paper's base 10000 at a wider width ``D`` (the first columns of a width-``D``
    interleaved table) counts as 3.25 digits at the table's own width: it is chosen
    only when the own width needs a base of 4 or more digits. So the first 256 columns
    of the paper's width-512 table come out as base 100 at width 256 (the same
    frequencies, :math:`10000^{-2i/512} = 100^{-2i/256}`), with the width-512 reading
    among ``alternatives``. With a ``min_timescale``, the candidates of its shortest
    decimal come first. Which offsets are searched can also decide between candidates
    that fit equally (the Notes on the offset). These cases are exact identities, not
    accidents of rounding: a single pair
    (width 2, or 3 with a zero column) does not depend on the base and is reported as
    ``"interleaved"``, ``"paper"``, base 10000; and the paper's frequencies with base
    :math:`b` and width :math:`d = 2K` are tensor2tensor's with
    :math:`M = b^{(K-1)/K}` (at width 4, tensor2tensor's 100 is the paper's 10000; at
    width 8, its 1000 is the paper's 10000; at width 6, the paper's :math:`10^6` is its
    10000).

    **Beyond the token axis** (issue 20). A diffusion time-step table (diffusers'
    ``get_timestep_embedding``, DiT's and guided-diffusion's ``timestep_embedding``,
    :func:`timestep_embedding`, of the time steps ``0 .. n - 1``) is a 1-D
    ``[sin | cos]`` or ``[cos | sin]`` table: ``downscale_freq_shift`` 0 gives the
    paper's frequencies with base ``max_period``, 1 tensor2tensor's, another shift the
    paper's at another width or base, and ``scale`` is a ``min_timescale``. It is
    identified as such, exactly as before; :meth:`Identification.as_timestep` renames
    those facts as the code's parameters, and lists the pairs of shift and
    ``max_period`` that fit, since only ``max_period**(-1/(K - shift))`` is
    determined. A ``scale`` that turns the fastest pair by more than pi per step
    (diffusers' ``scale=1000`` with integer steps, say) aliases: consecutive rows
    cannot tell that frequency from another, and the table is refused. Only when a
    table is refused as a 1-D table is it read as the 2-D table of MAE, DiT and
    diffusers (:func:`sincos_2d`): zero rows first (extra tokens), then one half
    repeating every ``W`` rows (the width index) and the other constant within
    blocks of ``W`` rows (the height index), each half a ``[sin | cos]`` table with
    the frequencies ``10000**(-k/(D/4))`` of positions that step evenly from 0 on
    each axis; the positions are read off the angles and the table rebuilt. The
    result names the grid, the step of each axis (1 for MAE's and DiT's integer
    grid) and diffusers' ``base_size / interpolation_scale``, which is all the
    table determines of those two (see :class:`GridIdentification`). A table with
    the rows of such a grid that fails a later step is refused with the 1-D
    reason followed by the grid's. diffusers' 3-D table (:func:`sincos_3d`), of
    shape ``(frames, height * width, D)`` with at least 2 frames or flattened to
    ``(frames * height * width, D)``, is read likewise: the first ``D/4`` columns
    constant within a frame, the last ``3D/4`` a grid table repeated in every
    frame; its interpolation scales are determined (see
    :class:`VolumeIdentification`). A 3-D array that is not such a table is refused
    as before (a 2-D array is expected), and so is one of a single frame, shape
    ``(1, cells, D)`` (pass ``table[0]``, which a 2-D reading does not recognise
    either).

    **The offset.** With the envelope of float64 angles it is searched over ``|offset| <
    2**31`` (more precisely, over :math:`2^{24}` windings of the slowest pair either
    side of 0, which covers :math:`2^{31}` whenever the slowest pair turns by less than
    0.049 radians per row, as it does at every width above 3 with base 10000); with the
    envelope of float32 angles only at positions below :math:`2^{21}/(\ln b + 4)`, about
    158,000 for base 10000, beyond which those envelopes stop pinning a position down.
    Of the offsets that fit, the one whose angles miss least is returned. A table with
    few frequencies can fit several offsets whose differences are nearly multiples of
    every wavelength (a single pair: integers nearly a multiple of :math:`2\pi` apart,
    chapter 4); with float64 angles the best fit is the right one unless the stored
    numbers cannot tell them apart. In a half-precision table a fit with float32 angles
    whose rows start farther from 0 than the table has rows is returned only if no other
    candidate searched, and not the second pass for ``min_timescale``, fits nearer 0:
    those envelopes are wide enough far out for a neighbouring decimal of
    ``min_timescale`` to fit (tensor2tensor's 16 x 5 table with ``min_timescale`` 2/3
    and ``max_timescale`` 3 fits ``min_timescale`` 0.667 at offset -348486 in float16).

    **Time.** Every entry is compared with the rebuilt table, in blocks of rows; the
    time grows with the number of entries. An 8192 x 1024 table takes a few seconds
    (3.6 to 4.8 s measured on a shared two-core machine under a load of about 7).
    Tables whose angles were formed in float32, and half-precision tables, can take
    much longer for their size: more candidates and offsets are searched and checked
    before one fits. Measured on the same kind of machine (load about 4 to 7):
    Whisper's 4096 x 512 table in bfloat16 7.1 to 10.6 s, its 1500 x 384 table in
    float16 1.7 to 7.1 s, the first 32 columns of a width-512 table with float32
    angles, 40 rows, 5.6 to 14.7 s. The second pass for ``min_timescale`` (see
    :class:`Identification`) runs only on half-precision tables of at most 256 rows
    whose first pass failed or fitted only far from 0 (see the offset), and serves
    rows starting near position 0 (tables whose rows start thousands of positions on
    may be refused): DETR's normalized tables of 8 to 40 rows and 64 or 128 features
    (both timescales pinned by it) took 1.2 to 5.9 s in float16 and 1.8 to 6.2 s in
    bfloat16 (each measured once, load about 7).
    Times vary severalfold with the machine's load (one of these tables took 7.1 s
    at a load of 4 to 5, above the 6.2 s given here).

    **The rebuilt table** is computed like :func:`sinusoidal`'s first rows: frequencies
    in double-double arithmetic, the angle reduced exactly, each entry within about half
    a unit in the last place of the exact value, on every platform.

    Examples
    --------
    >>> from pelib import sinusoidal
    >>> ident = identify(sinusoidal(32, 16, start=2, layout="concat"))
    >>> ident.layout, ident.frequencies, ident.base, ident.offset, ident.angle_dtype
    ('concat', 'paper', 10000.0, 2, 'float64')
    >>> bool(ident.max_error < 1e-15)
    True
    """
    try:
        array = _table_array(table)
    except ValueError:
        volume = _volume_array(table)
        if volume is None:
            raise
        return volume
    try:
        return _identify(array, backwards=True)
    except ValueError as error:
        grid = identify_grid(array)
        if isinstance(grid, GridIdentification):
            return grid
        volume = identify_volume(array)
        if volume is not None:
            return volume
        if grid is None:
            raise
        raise ValueError(f"{error} {grid}") from None


def _volume_array(table: Any) -> VolumeIdentification | None:
    """:func:`identify_volume` of a 3-D array of at least 2 frames of finite real
    numbers, which :func:`_table_array` refuses; None for anything else."""
    if not isinstance(table, np.ndarray) or table.ndim != 3 or table.shape[0] < 2:
        return None
    if table.dtype.kind != "f" and not _validate.is_extension_float(table.dtype):
        return None
    if table.size == 0 or not np.all(np.isfinite(table.astype(np.float64))):
        return None
    return identify_volume(table)


def _identify(array: np.ndarray, *, backwards: bool) -> Identification:
    """:func:`identify` of a validated array; ``backwards`` says whether to try the rows
    reversed."""
    table, core, beyond = _prepare(array)
    readings = _readings_on_circle(table, core)
    if not readings:
        raise _not_paired(table, core, beyond)
    reasons = []
    for reading in readings:
        try:
            ident = _identify_reading(table, reading)
        except _Mismatch as mismatch:
            reasons.append(f"read as {reading.layout.replace('_', ' ')}: {mismatch}")
            continue
        if ident.layout == "interleaved_cos_first":
            raise ValueError(
                "table holds the cosine in the even columns and the sine in the odd "
                "ones (cos, sin, cos, sin, ...): with each pair swapped it would be "
                f"{ident._frequency_text()}, {_position_text(ident.offset)}, "
                "but every convention identify names puts the sine of a pair before "
                "its cosine (the paper's PE(pos, 2i) = sin(pos / 10000**(2i/d))); "
                "swap each pair of columns and ask again"
            )
        return ident
    first = _backwards(table, readings) if backwards else None
    if first is not None:
        raise ValueError(
            f"table runs backwards: row r holds position {first} - r (positions fall "
            "down the rows); reverse its rows, table[::-1], and ask again"
        )
    # a reading that fails at once for the direction of its first pair says nothing
    if len(reasons) > 1:
        kept = [r for r in reasons if not r.endswith("the first pair turns backwards")]
        reasons = kept or reasons
    raise ValueError(
        "table is not a sinusoidal encoding of a known convention: "
        + "; ".join(reasons)
        + ("." + beyond if beyond else "")
    )


def _prepare(array: np.ndarray) -> tuple[_Table, np.ndarray, str]:
    """The table as the analysis reads it, its non-zero columns, and a sentence for
    refusals if its entries reach slightly beyond 1; or ValueError if it is too small,
    zero, scaled or constant to be a sinusoidal encoding."""
    data = array.astype(np.float64)
    n = len(data)
    if n < MIN_ROWS:
        raise ValueError(
            f"table must have at least {MIN_ROWS} rows (positions), got {n}"
        )
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
        raise ValueError(
            "table has fewer than 2 non-zero columns: a sinusoidal encoding has a sine "
            "and a cosine of each frequency"
        )
    largest = float(np.abs(data).max())
    if largest > 1.01:
        raise ValueError(
            f"table has entries up to {largest:.6g} in size, but sines and cosines lie "
            "in [-1, 1]: not a sinusoidal encoding as it stands (scaled, by "
            "sqrt(d_model) say, or added to token embeddings?)"
        )
    beyond = ""
    if largest > 1 + 2.0**-20:
        beyond = (
            f" Its entries reach 1 + {largest - 1:.2g}, slightly outside [-1, 1]: "
            "noise, or sines and cosines from an inexact recurrence, not a scaled "
            "table."
        )
    if np.all(data[live] == data[live[0]]):
        raise ValueError(
            "table is not a sinusoidal encoding: every non-zero row is the same"
        )
    run = _longest_run(live)
    if len(run) < _MIN_RUN:
        raise ValueError(
            f"table needs at least {_MIN_RUN} consecutive non-zero rows to measure "
            f"frequencies, the longest run has {len(run)}"
        )
    return _Table(data, live, run, bits, zero_rows, zero_columns), core, beyond


def _readings_on_circle(table: _Table, core: np.ndarray) -> list[_Reading]:
    """The layouts that put every pair on the unit circle (the circle test does not
    see which column is the sine)."""
    tolerance = max(2.0**-16, 16 * 2.0**-table.bits)
    sampled = _sample(table.live)
    return [
        reading
        for reading in _readings(core)
        # the sampled rows first: a layout off the circle there is off it in the table
        if all(
            _on_circle(table.data, reading, rows, tolerance)
            for rows in (sampled, table.live)
        )
    ]


def _not_paired(table: _Table, core: np.ndarray, beyond: str) -> ValueError:
    """Why no layout puts the pairs on the unit circle: equal columns (a rotary cache),
    a common radius (a scaled table), or what the columns are."""
    data, live = table.data, table.live
    # Equal columns, leaving out constant ones (the cosine of a slow pair can round to
    # 1 in every row, and neighbouring slow pairs can round to the same numbers: a
    # stored table can have equal columns that its exact values do not; here no layout
    # fits, so they are not that).
    varying = core[np.ptp(data[np.ix_(live, core)], axis=0) > 0]
    equal = _equal_columns(data, varying, live)
    if equal:
        return ValueError(
            f"table has equal columns ({', '.join(str(j) for j in equal[:4])}) and "
            "no layout of (sine, cosine) pairs: this looks like a rotary (RoPE) "
            "cos or sin cache, which repeats each angle (cat((freqs, freqs)) or "
            "repeat_interleave); a rotary cache is not a position table"
        )
    radius = _common_radius(data, core, live)
    if radius is not None:
        return ValueError(
            f"table is a sinusoidal encoding scaled by {radius:.6g}: its (sine, "
            "cosine) pairs lie on a circle of that radius, not 1; divide by it and "
            "ask again"
        )
    return ValueError(
        "table is not a sinusoidal encoding: no layout of its columns into (sine, "
        "cosine) pairs puts every pair on the unit circle (sin**2 + cos**2 = 1)."
        + beyond
        + (
            _near_miss(data, core, live)
            or _describe_columns(data, core, table.run, table.zero_rows)
        )
    )


def _table_array(table: Any) -> np.ndarray:
    """The input as a 2-D array of finite real numbers (bfloat16 and other extension
    floats included)."""
    if isinstance(table, np.ndarray) and _validate.is_extension_float(table.dtype):
        array = table
    else:
        try:
            probe = (
                np.asarray(table)
                if not isinstance(table, (str, bytes, dict, set, frozenset))
                else None
            )
        except (TypeError, ValueError, OverflowError):
            probe = None
        if probe is not None and probe.dtype.kind == "c":
            raise TypeError(
                "table must be an array of real numbers, got a complex array (the "
                "freqs_cis of rotary code is complex: a rotary cache, not a position "
                "table)"
            )
        if probe is not None and probe.ndim == 3 and probe.shape[0] == 1:
            raise ValueError(
                f"table must be a 2-D array, got shape {probe.shape}: a "
                "batch of "
                "one table (tensor2tensor's get_timing_signal_1d returns "
                "one); "
                "pass table[0]"
            )
        if probe is not None and _validate.is_extension_float(probe.dtype):
            array = probe
        else:
            return _validate.float_array(table, "table", ndim=2)
    if array.ndim != 2:
        raise ValueError(
            "table must be a 2-D array of finite real numbers (int or float), got "
            f"shape {array.shape}"
        )
    if not np.all(np.isfinite(array.astype(np.float32))):
        raise ValueError(
            "table must be a 2-D array of finite real numbers (int or float); it holds "
            "nan or infinity"
        )
    return array


def _equal_columns(
    data: np.ndarray, columns: np.ndarray, live: np.ndarray
) -> list[int]:
    """The first group of equal columns among ``columns``: candidates by a few rows,
    then checked in full."""
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


def _common_radius(
    data: np.ndarray, core: np.ndarray, live: np.ndarray
) -> float | None:
    """The radius on which every pair of some layout lies, if it is the same for all
    pairs (a scaled table)."""
    for reading in _readings(core):
        a, b = data[np.ix_(live, reading.sin)], data[np.ix_(live, reading.cos)]
        radius = np.sqrt(a * a + b * b)
        middle = float(np.median(radius))
        if (
            middle > 0
            and np.abs(radius - middle).max() <= 1e-5 * middle
            and abs(middle - 1) > 1e-5
        ):
            return middle
    return None


def _as_slice(index: np.ndarray) -> slice | np.ndarray:
    """``index`` as the equal slice when it steps evenly upwards (a view, not a copy,
    for basic indexing), else unchanged."""
    index = np.asarray(index)
    if len(index) == 0:
        return index
    first = int(index[0])
    step = int(index[1]) - first if len(index) > 1 else 1
    if step > 0 and np.array_equal(index, first + step * np.arange(len(index))):
        return slice(first, first + step * (len(index) - 1) + 1, step)
    return index


def _take(data: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``data[np.ix_(rows, columns)]``: the same entries in the same order, as a view
    where the indices step evenly (for element-wise use and max, not for sums)."""
    r, c = _as_slice(rows), _as_slice(columns)
    if isinstance(r, slice) or isinstance(c, slice):
        return data[r][:, c]
    return data[np.ix_(r, c)]


def _on_circle(
    data: np.ndarray, reading: _Reading, rows: np.ndarray, tolerance: float
) -> bool:
    """Whether every pair of ``reading`` lies on the unit circle in ``rows``, within
    ``tolerance``."""
    a, b = _take(data, rows, reading.sin), _take(data, rows, reading.cos)
    return bool(np.abs(a * a + b * b - 1).max() <= tolerance)


def _backwards(table: _Table, readings: list[_Reading]) -> int | None:
    """If the table with its rows reversed is a known convention, the position of the
    input's row 0.

    The same steps as :func:`_identify` on ``data[::-1]``, without repeating what
    reversing the rows does not change: the storage precision, the zero columns and the
    layouts on the circle (``readings``)."""
    n = len(table.data)
    live = np.sort(n - 1 - table.live)
    reverse = _Table(
        np.ascontiguousarray(table.data[::-1]),
        live,
        _longest_run(live),  # as _identify chooses it
        table.bits,
        tuple(sorted(n - 1 - r for r in table.zero_rows)),
        table.zero_columns,
    )
    for reading in readings:
        try:
            ident = _identify_reading(reverse, reading)
        except _Mismatch:
            continue
        if ident.layout == "interleaved_cos_first":
            return None  # _identify refuses it
        return ident.offset + n - 1
    return None
