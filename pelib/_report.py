"""What a page prints: numbers that read the same on every machine.

A quantity at rounding level (an error of 2e-16, a residual, the spread of a column)
depends on the machine: on the BLAS kernel, NumPy's SIMD loops, the number of threads,
the last bits of libm's ``sin`` and ``exp``. The book never prints such a number. It
prints the bound the quantity meets, after checking it (:func:`at_most`), and prints
every other computed number with so few digits that no rounding difference of the stated
size can change them (:func:`shown`), or, after "at least" and "at most", rounded in the
direction that keeps the claim true (:func:`rounded`). Each function checks before it
returns text, so a page cannot show what its machine did not confirm, and the saved
outputs that nbval compares are the same on every IEEE-754 machine. The convention is
stated in the README ("Numbers that are the same on every machine"); every chapter uses
it.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_CEILING, Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from . import _validate

__all__ = ["at_most", "rounded", "shown"]

_SPEC = re.compile(
    r"[^.]*\.\d{1,2}[eEfFgG%]"
)  # [[fill]align][sign][width][,] then .precision and type


def _numbers(value: Any) -> np.ndarray:
    """``value`` as a float64 array: a real number or an array of them (mpmath numbers
    included)."""
    accepted = "value must be a real number or an array of real numbers"
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise TypeError(f"{accepted}, got {_validate.describe(value)}")
    try:
        raw = np.asarray(value)
        if (
            raw.dtype.kind not in "iufO"
        ):  # complex, boolean, text, dates: not real numbers
            raise TypeError(raw.dtype)
        with np.errstate(over="raise"):
            array = raw.astype(np.float64)
    except (OverflowError, FloatingPointError) as error:
        raise ValueError(
            f"{accepted} within the float range, got {_validate.describe(value)}"
        ) from error
    except (TypeError, ValueError) as error:
        raise TypeError(f"{accepted}, got {_validate.describe(value)}") from error
    if array.size == 0:
        raise ValueError(
            f"value must hold at least one real number, got {_validate.describe(value)}"
        )
    return array


def _one_number(value: Any) -> float:
    """``value`` as a finite float: one real number (an mpmath number is accepted)."""
    array = _numbers(value)
    if array.ndim != 0:
        raise TypeError(
            f"value must be one real number, got {_validate.describe(value)}"
        )
    center = float(array)
    if not math.isfinite(center):
        raise ValueError(f"value must be finite, got {_validate.describe(value)}")
    return center


def _ceil_text(bound: float) -> str:
    """``bound`` rounded up to two significant digits, as ``'5e-16'`` or ``'4.5e-13'``.

    It starts from the shortest decimal that reads back as ``bound`` (``repr``), so that
    the float nearest 5e-16 shows as 5e-16, not as 5.1e-16.
    """
    exact = Decimal(repr(bound))
    step = Decimal(1).scaleb(
        exact.adjusted() - 1
    )  # a unit of the second significant digit
    up = (exact / step).to_integral_value(rounding=ROUND_CEILING) * step
    return f"{float(up):g}"


def at_most(value: Any, bound: float) -> str:
    """Check that ``max |value| <= bound`` and return the bound as text, ``'≤ 5e-16'``.

    The book's way to show a quantity at rounding level: the bound is the same on every
    machine, the quantity is not. Give a bound that follows from exact inputs (a
    derivation, pelib's promise, a constant), never one computed from rounded results,
    and write beside it why it holds.

    Parameters
    ----------
    value : real number or array_like of real numbers
        The quantity, for example the largest error of a table; an array is checked
        entry by entry. mpmath numbers are accepted.
    bound : float
        A finite positive number.

    Returns
    -------
    str
        ``'≤ '`` and the bound rounded up to two significant digits (``'≤ 4.5e-13'`` for
        4.44e-13), so that what the page says is never tighter than what was checked.

    Raises
    ------
    ValueError
        If some ``|value|`` exceeds ``bound`` or is nan (the check fails), or ``bound``
        is not finite and positive.

    Examples
    --------
    >>> import numpy as np, pelib
    >>> pelib.at_most(np.array([1e-16, -2e-16]), 5e-16)
    '≤ 5e-16'
    >>> pelib.at_most(3.0, 4.44e-13)
    Traceback (most recent call last):
    ...
    ValueError: value: 3 exceeds its bound 4.44e-13
    """
    bound = _validate.real(bound, "bound", positive=True)
    array = _numbers(value)
    if np.isnan(array).any():
        raise ValueError("value: nan meets no bound")
    largest = float(np.max(np.abs(array)))
    if largest > bound:
        raise ValueError(f"value: {largest:.3g} exceeds its bound {bound:.3g}")
    return "≤ " + _ceil_text(bound)


def shown(value: Any, spec: str, slack: float) -> str:
    """``format(value, spec)``, after checking that every number within ``slack`` reads
    the same.

    The book's way to print a computed number that is not at rounding level (a distance,
    a score, an angle): choose a format with few enough digits, and a slack at least as
    large as the difference that other machines can make (a few units in the last place
    of every rounded step that led to it). If ``value - slack`` or ``value + slack``
    formats differently, the value sits too near a rounding boundary for the text to be
    the same everywhere, and the call refuses: print fewer digits, or the bound the
    value meets.

    What it guarantees: every machine whose value is within ``slack`` of this one and
    whose own call succeeds prints the same text; a machine whose value lands within
    ``slack`` of a boundary refuses loudly instead of printing other digits. So leave a
    margin: the value should sit at least twice ``slack`` from the nearest boundary. A
    one-sided claim ("at most 0.16") is not what this function checks (0.1534 reads
    "0.153", below the value): print the bound that was asserted, or use
    :func:`at_most`.

    Parameters
    ----------
    value : real number
        A finite real number (an mpmath number is accepted).
    spec : str
        A format specification for floats with a precision (at most 99 digits) and a
        type (``e``, ``f``, ``g`` or ``%``), such as ``'.4f'``, ``'.3g'`` or
        ``'>8.2e'``.
    slack : float
        The largest difference another machine can make, finite and >= 0.

    Returns
    -------
    str
        ``format(value, spec)``.

    Raises
    ------
    ValueError
        If ``value`` is not finite, ``spec`` is not such a format, ``slack`` is negative
        or not finite, or a number within ``slack`` of ``value`` formats differently.

    Examples
    --------
    >>> import pelib
    >>> pelib.shown(2.6712016084, ".4f", 1e-12)
    '2.6712'
    >>> pelib.shown(0.12345, ".3f", 1e-4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: value and slack: 0.12345 reads '0.123' but 0.12355 reads '0.124' (...
    """
    center = _one_number(value)
    spec = _validate.text(spec, "spec")
    slack = _validate.real(slack, "slack", minimum=0.0)
    accepted = (
        "spec must be a float format with a precision, such as '.4f', '.3g' or '+.2e'"
    )
    if not _SPEC.fullmatch(spec):  # without a precision, Python prints every digit
        raise ValueError(f"{accepted}, got {spec!r}")
    try:
        text = format(center, spec)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{accepted}, got {spec!r}") from error
    for other in (center - slack, center + slack):
        if format(other, spec) != text:
            raise ValueError(
                f"value and slack: {center:.6g} reads {text!r} but {other:.6g} reads "
                f"{format(other, spec)!r} (slack {slack:g}): print fewer digits"
            )
    return text


def rounded(value: Any, decimals: int, slack: float, direction: str) -> str:
    """``value`` rounded ``"down"`` (to print after "at least") or ``"up"`` (after "at
    most").

    :func:`shown` rounds to nearest, so "at most 0.153" can print for 0.15339: false.
    This rounds in the direction that keeps a one-sided claim true of the exact value
    too: ``slack`` bounds how far ``value`` is from the exact value, so rounded down the
    text is at most ``value - slack``. Every machine whose value is within ``slack`` of
    the exact value prints the same text: the call refuses if a boundary of the last
    printed digit lies within ``[value - 3 slack, value + slack]`` (mirrored when
    rounding up).

    Parameters
    ----------
    value : real number
        A finite real number (an mpmath number is accepted).
    decimals : int
        Digits after the decimal point, 0 to 20.
    slack : float
        Bound on ``|value - exact|``, finite and >= 0.
    direction : {"down", "up"}
        ``"down"`` for a lower bound ("at least", "or more"), ``"up"`` for an upper
        bound ("at most", "up to").

    Returns
    -------
    str
        The rounded value with ``decimals`` digits after the point.

    Raises
    ------
    ValueError
        If an argument is out of range, or a boundary lies in the window above ("print
        fewer digits").

    Examples
    --------
    >>> import pelib
    >>> pelib.rounded(0.153385, 3, 1e-12, "up")
    '0.154'
    >>> pelib.rounded(0.99891, 3, 1e-12, "down")
    '0.998'
    """
    center = _one_number(value)
    decimals = _validate.size(decimals, "decimals", minimum=0, maximum=20)
    slack = _validate.real(slack, "slack", minimum=0.0)
    direction = _validate.choice(direction, "direction", ("down", "up"))
    step, window = (
        (math.floor, (-3, 1)) if direction == "down" else (math.ceil, (-1, 3))
    )
    scale = 10**decimals
    ends = {step((Fraction(center) + k * Fraction(slack)) * scale) for k in window}
    if len(ends) > 1:
        raise ValueError(
            f"value and slack: {center:.6g} is within {3 * slack:g} "
            "of a boundary of its last printed digit "
            f"({decimals} decimals): print fewer digits"
        )
    return f"{Decimal(ends.pop()).scaleb(-decimals):.{decimals}f}"
