"""Independent truth for the book and its tests: the formulas evaluated without pelib.

Every value here comes from one of two places, and never from pelib:

- **mpmath** at a working precision chosen for the positions asked about, so that the
  angle ``p * w`` is known far beyond double precision before its sine is taken
  (:func:`encoding`, :func:`error`, :func:`frequency`, ...);
- **the standard library**, entry by entry in plain Python loops, exactly as the paper
  writes the formula (:func:`formula_row`, :func:`formula_table`).

The tables over image grids, video grids and diffusion time steps (MAE, DiT, diffusers)
are in :mod:`oracle.grids`, built on :func:`exact`. Nothing in this package imports
pelib, and none of its values passes through pelib's rounded intermediates (its
frequencies, its angles, its tables). NumPy is used only as a container for the
results. ``tests/test_oracle.py`` checks the oracle itself against
values known in closed form.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from numbers import Integral, Real

import mpmath
import numpy as np

__all__ = [
    "GUARD_BITS",
    "LAYOUTS",
    "MIN_BITS",
    "dot",
    "distance",
    "encoding",
    "error",
    "exact",
    "formula_row",
    "formula_table",
    "frequency",
    "grids",
    "least_squares",
    "timescale_frequency",
    "timing_signal",
    "to_mpf",
    "ulps",
    "wavelength",
    "working_precision",
]

#: The column orders the oracle knows, the paper's (sin, cos) pairs and [sin | cos].
LAYOUTS = ("interleaved", "concat")

#: Bits kept beyond those needed for the integer part of the largest angle.
GUARD_BITS = 96
#: The least precision of a single frequency, wavelength or timescale, in bits.
MIN_BITS = 160


def to_mpf(value) -> mpmath.mpf:
    """``value`` as an mpmath number: exactly for ints, mpmath numbers and floats of
    every NumPy width; a Fraction to :data:`MIN_BITS` bits beyond its own numerator and
    denominator."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"a position must be a number, got {value!r}")
    if isinstance(value, mpmath.mpf):
        return value
    if (
        isinstance(value, np.floating)
        and value.dtype == np.longdouble
        and np.finfo(np.longdouble).nmant > 52
    ):
        mantissa, exponent = np.frexp(value)
        bits = np.finfo(np.longdouble).nmant + 1
        return mpmath.ldexp(
            mpmath.mpf(int(mantissa * np.longdouble(2) ** bits)), int(exponent) - bits
        )
    if isinstance(value, Integral):
        value = int(value)
        with mpmath.workprec(
            max(mpmath.mp.prec, value.bit_length() + 1)
        ):  # exactly, however large
            return mpmath.mpf(value)
    if isinstance(value, Fraction):
        bits = MIN_BITS + value.numerator.bit_length() + value.denominator.bit_length()
        with mpmath.workprec(max(mpmath.mp.prec, bits)):
            return mpmath.mpf(value.numerator) / value.denominator
    if isinstance(value, Real):
        return mpmath.mpf(
            float(value)
        )  # every float16/32/64 value is a float64 exactly
    raise TypeError(f"expected a real number, got {type(value).__name__} {value!r}")


def working_precision(largest: float) -> int:
    """Bits of working precision for angles up to ``largest`` radians (plus the guard
    bits)."""
    return GUARD_BITS + max(1, int(abs(largest)).bit_length())


def _base(base) -> mpmath.mpf:
    b = to_mpf(base)
    if not b > 0:
        raise ValueError(f"base must be positive, got {base!r}")
    return b


def _precision() -> int:
    """At least MIN_BITS, or more if the caller raised mpmath's working precision."""
    return max(mpmath.mp.prec, MIN_BITS)


def frequency(i: int, d_model: int, base=10000) -> mpmath.mpf:
    r"""The paper's angular frequency :math:`\omega_i = \text{base}^{-2i/d}`, to at
    least :data:`MIN_BITS` bits."""
    with mpmath.workprec(_precision()):
        return _base(base) ** (-mpmath.mpf(2 * i) / d_model)


def wavelength(i: int, d_model: int, base=10000) -> mpmath.mpf:
    r""":math:`\lambda_i = 2\pi\,\text{base}^{2i/d}`, in positions per turn, to at least
    :data:`MIN_BITS` bits."""
    with mpmath.workprec(_precision()):
        return 2 * mpmath.pi / frequency(i, d_model, base)


def timescale_frequency(
    k: int, channels: int, min_timescale=1, max_timescale=10000
) -> mpmath.mpf:
    r"""tensor2tensor's inverse timescale :math:`\nu_k`, as its formula says it in exact
    arithmetic (:data:`MIN_BITS` bits).

    :math:`\nu_k = \text{min} \cdot \exp(-k \log(\text{max}/\text{min}) / \max(K - 1,
    1))` with :math:`K = \lfloor \text{channels}/2 \rfloor` (the code multiplies by
    ``min_timescale``; chapter 2 discusses it).
    """
    lo, hi = to_mpf(min_timescale), to_mpf(max_timescale)
    steps = max(channels // 2 - 1, 1)
    with mpmath.workprec(_precision()):
        return lo * mpmath.exp(-k * mpmath.log(hi / lo) / steps)


def _columns(d_model: int, layout: str) -> list[tuple[int, str]]:
    """(frequency index, 'sin' or 'cos') of each column of a table of the given
    layout."""
    if layout == "interleaved":
        return [(j // 2, "sin" if j % 2 == 0 else "cos") for j in range(d_model)]
    if layout == "concat":
        n_sin = (d_model + 1) // 2
        return [(j, "sin") for j in range(n_sin)] + [
            (j, "cos") for j in range(d_model // 2)
        ]
    raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")


def exact(
    positions: Iterable,
    d_model: int,
    *,
    base=10000,
    layout: str = "interleaved",
    frequencies=None,
):
    """The exact encoding as mpmath numbers: a list of rows, one per position.

    ``frequencies`` replaces the paper's :func:`frequency` by another list of mpmath
    frequencies (one per pair), e.g. tensor2tensor's :func:`timescale_frequency`.
    The working precision is raised for the call so that every angle carries
    :data:`GUARD_BITS` bits after its integer part.
    """
    points = [to_mpf(p) for p in positions]
    largest = max((abs(p) for p in points), default=mpmath.mpf(0))
    with mpmath.workprec(working_precision(largest)):
        if frequencies is None:
            omega = [frequency(i, d_model, base) for i in range((d_model + 1) // 2)]
        else:
            omega = [mpmath.mpf(w) for w in frequencies]
        columns = _columns(d_model, layout)
        rows = []
        for p in points:
            pairs = [mpmath.cos_sin(p * w) for w in omega]
            rows.append(
                [+pairs[i][1] if kind == "sin" else +pairs[i][0] for i, kind in columns]
            )
    return rows


def encoding(
    positions: Iterable,
    d_model: int,
    *,
    base=10000,
    layout: str = "interleaved",
    frequencies=None,
) -> np.ndarray:
    """The exact encoding of each position, rounded once to the nearest float64.

    An array of shape ``(len(positions), d_model)``; each entry is within half a unit in
    the last place of the true value (``2**-54`` for values near 1). The arguments are
    those of :func:`exact`.
    """
    rows = exact(positions, d_model, base=base, layout=layout, frequencies=frequencies)
    return np.array(
        [[float(v) for v in row] for row in rows], dtype=np.float64
    ).reshape(len(rows), d_model)


def error(
    values,
    positions: Iterable,
    d_model: int,
    *,
    base=10000,
    layout: str = "interleaved",
    frequencies=None,
) -> np.ndarray:
    """``|values - exact|`` entry by entry, the difference formed in mpmath.

    ``values`` is a table of any floating type (float16 to long double) whose row ``r``
    claims to encode ``positions[r]``. The result is a float64 array of its shape; the
    difference is exact before it is rounded, so errors far below one unit in the last
    place of float64 are measured correctly.
    """
    values = np.asarray(values)
    rows = exact(positions, d_model, base=base, layout=layout, frequencies=frequencies)
    if values.shape != (len(rows), d_model):
        raise ValueError(
            f"values has shape {values.shape}, expected {(len(rows), d_model)}"
        )
    with mpmath.workprec(200):
        return np.array(
            [
                [float(abs(to_mpf(v) - e)) for v, e in zip(vrow, erow, strict=True)]
                for vrow, erow in zip(values, rows, strict=True)
            ],
            dtype=np.float64,
        ).reshape(values.shape)


def ulps(errors, dtype=np.float64) -> np.ndarray:
    """Errors in units of ``2**-53`` (float64) or ``2**-24`` (float32): the spacing of
    numbers just below 1."""
    return np.asarray(errors, dtype=np.float64) / np.finfo(dtype).epsneg


def timing_signal(
    positions: Iterable, channels: int, *, min_timescale=1, max_timescale=10000
) -> np.ndarray:
    """tensor2tensor's ``[sin | cos]`` signal (plus a zero column for odd ``channels``),
    exactly, as float64."""
    count = channels // 2
    points = [to_mpf(p) for p in positions]
    largest = max((abs(p) for p in points), default=mpmath.mpf(0))
    with mpmath.workprec(working_precision(largest * to_mpf(min_timescale))):
        nu = [
            timescale_frequency(k, channels, min_timescale, max_timescale)
            for k in range(count)
        ]
        rows = (
            exact(points, 2 * count, layout="concat", frequencies=nu)
            if count
            else [[] for _ in points]
        )
    table = np.zeros((len(points), channels))
    for r, row in enumerate(rows):
        table[r, : 2 * count] = [float(v) for v in row]
    return table


def dot(offset, d_model: int, base=10000) -> float:
    r""":math:`\sum_i \cos(\omega_i k)` for an even width: the dot product of two rows
    ``offset`` apart."""
    k = to_mpf(offset)
    with mpmath.workprec(working_precision(k)):
        return float(
            mpmath.fsum(
                mpmath.cos(k * frequency(i, d_model, base)) for i in range(d_model // 2)
            )
        )


def distance(offset, d_model: int, base=10000) -> float:
    r""":math:`\lVert PE(t + k) - PE(t) \rVert = \sqrt{\sum_i 4 \sin^2(\omega_i k / 2)}`
    for an even width."""
    k = to_mpf(offset)
    with mpmath.workprec(working_precision(k)):
        total = mpmath.fsum(
            4 * mpmath.sin(k * frequency(i, d_model, base) / 2) ** 2
            for i in range(d_model // 2)
        )
        return float(mpmath.sqrt(total))


def least_squares(source, target, *, affine: bool = False, digits: int = 80):
    """The exact least-squares map ``target[t] ~ M source[t] (+ b)``, solved in mpmath.

    ``source`` and ``target`` are lists of rows of numbers (mpmath numbers, e.g. from
    :func:`exact`, or floats). The normal equations are solved with ``digits`` decimal
    digits, enough for condition numbers up to about ``10**(digits / 2 - 10)``. Returns
    ``(matrix, offset, column_residuals)``: the map as nested lists of mpmath numbers
    (``offset`` is None for a linear fit) and, as float64, the relative residual ``||fit
    - target|| / ||target||`` of each target column (the absolute one for a zero
    column).
    """
    with mpmath.workdps(digits):
        rows = [
            [mpmath.mpf(v) for v in row] + ([mpmath.mpf(1)] if affine else [])
            for row in source
        ]
        goal = [[mpmath.mpf(v) for v in row] for row in target]
        a, b = mpmath.matrix(rows), mpmath.matrix(goal)
        gram, moment = a.T * a, a.T * b
        solution = mpmath.matrix(gram.rows, b.cols)
        for j in range(b.cols):
            column = mpmath.lu_solve(gram, moment.column(j))
            for i in range(gram.rows):
                solution[i, j] = column[i]
        error = a * solution - b
        residuals = []
        for j in range(b.cols):
            e = mpmath.sqrt(mpmath.fsum(error[r, j] ** 2 for r in range(b.rows)))
            n = mpmath.sqrt(mpmath.fsum(b[r, j] ** 2 for r in range(b.rows)))
            residuals.append(float(e / n) if n else float(e))
        n_source = len(rows[0]) - (1 if affine else 0)
        matrix = [[solution[i, j] for i in range(n_source)] for j in range(b.cols)]
        offset = [solution[n_source, j] for j in range(b.cols)] if affine else None
    return matrix, offset, np.array(residuals)


# --- the formula in plain Python, entry by entry --------------------------------------


def formula_row(
    pos, d_model: int, base: float = 10000.0, layout: str = "interleaved"
) -> list[float]:
    """PE(pos) evaluated with ``math.sin``/``math.cos`` of ``pos / base ** (2i /
    d_model)``, one entry at a time.

    The angle is rounded to double precision before its sine is taken, so an entry can
    be off by about ``|pos| * 2**-52``; use :func:`encoding` where that matters.
    """
    out = []
    for i, kind in _columns(d_model, layout):
        angle = pos / base ** (2 * i / d_model)
        out.append(math.sin(angle) if kind == "sin" else math.cos(angle))
    return out


def formula_table(
    n_positions: int,
    d_model: int,
    base: float = 10000.0,
    start=0,
    layout: str = "interleaved",
) -> list[list[float]]:
    """Rows ``start .. start + n_positions - 1`` of :func:`formula_row`."""
    return [formula_row(start + t, d_model, base, layout) for t in range(n_positions)]


# The tables over grids and time steps (they use exact() and to_mpf() above).
from . import grids  # noqa: E402
