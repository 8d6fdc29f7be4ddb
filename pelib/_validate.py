"""Argument checks shared by every public function of pelib.

Each helper either returns the value in a canonical form or raises a
``TypeError`` (wrong kind of value) or ``ValueError`` (right kind, value out
of range) whose message names the parameter and says what is accepted.
``tests/test_bad_input.py`` holds every public function to that. No chapter explains
this module; the API page (:doc:`/book/api`) lists what each function accepts.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
from numpy.typing import DTypeLike


def digits(value: int) -> int:
    """The number of decimal digits of ``abs(value)``, without ``str`` (which refuses
    integers of over 4,300 digits)."""
    value = abs(int(value))
    if value < 10:
        return 1
    estimate = int(value.bit_length() * math.log10(2))  # the count, or one below it
    return estimate + (value >= 10**estimate)


def describe(value: Any) -> str:
    """``type value`` for a message, shortened for long values."""
    if isinstance(value, numbers.Integral) and not _is_bool(value):
        if abs(int(value)) >= 10**30:
            return f"{type(value).__name__} of {digits(value)} digits"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def size(value: Any, name: str, *, minimum: int = 0, maximum: int | None = None) -> int:
    """Return ``value`` as a Python int, checking ``minimum <= value (<= maximum)``."""
    accepted = f"{name} must be an integer >= {minimum}" + (
        f" and <= {maximum}" if maximum is not None else ""
    )
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{accepted} (int or NumPy integer), got {describe(value)}")
    value = int(value)
    if abs(value) >= 10**30:  # beyond any count or index a machine can hold
        raise ValueError(f"{accepted}, got an integer of {digits(value)} digits")
    if value < minimum or (maximum is not None and value > maximum):
        raise ValueError(f"{accepted}, got {value}")
    return value


def real(
    value: Any,
    name: str,
    *,
    positive: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
) -> float:
    """Return ``value`` as a finite float, optionally > 0 and within ``[minimum,
    maximum]``."""
    kind = "a finite real number" + (" > 0" if positive else "")
    if minimum is not None:
        kind += f" >= {minimum:g}"
    if maximum is not None:
        kind += f" <= {maximum:g}"
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {kind} (int or float), got {describe(value)}")
    try:
        result = float(value)
    except OverflowError:  # an integer or fraction beyond the float range
        result = math.inf if value > 0 else -math.inf
    if (
        not math.isfinite(result)
        or (positive and result <= 0)
        or (minimum is not None and result < minimum)
        or (maximum is not None and result > maximum)
    ):
        raise ValueError(f"{name} must be {kind}, got {describe(value)}")
    return result


def boolean(value: Any, name: str) -> bool:
    """Return ``value`` as a bool, accepting only True and False (Python or NumPy)."""
    if not _is_bool(value):
        raise TypeError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def text(value: Any, name: str, *, optional: bool = False) -> str | None:
    """Return ``value`` if it is a string (or None, if ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        kind = "a string or None" if optional else "a string"
        raise TypeError(f"{name} must be {kind}, got {describe(value)}")
    return value


def choice(value: Any, name: str, accepted: Iterable[str]) -> str:
    """Return ``value`` if it is one of the strings in ``accepted``."""
    accepted = tuple(accepted)
    options = ", ".join(repr(a) for a in accepted)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {options}, got {describe(value)}")
    if value not in accepted:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def function(value: Any, name: str) -> Any:
    """Return ``value`` if it can be called."""
    if not callable(value) or isinstance(value, type) and issubclass(value, np.generic):
        raise TypeError(
            f"{name} must be a function (a callable), got {describe(value)}"
        )
    return value


def float_dtype(value: Any, name: str = "dtype") -> np.dtype:
    """Return ``value`` as a floating-point dtype: a NumPy one, or
    ``ml_dtypes.bfloat16``.

    bfloat16 is recognised by its dtype (kind ``'V'``, name ``'bfloat16'``), so pelib
    never imports ``ml_dtypes``. The other :data:`EXTENSION_FLOATS` (the float8, float6
    and float4 formats) are refused with a message that says so.
    """
    accepted = (
        f"{name} must be a NumPy floating dtype "
        "(float16, float32, float64 or longdouble) or ml_dtypes.bfloat16"
    )
    if value is None or _is_bool(value) or isinstance(value, (numbers.Number, bytes)):
        raise TypeError(f"{accepted}, got {describe(value)}")
    try:
        with warnings.catch_warnings():
            # a deprecated alias (np.dtype("a") warns in NumPy 2) names no float dtype:
            # refused like any other, never passed on as a warning
            warnings.simplefilter("error", DeprecationWarning)
            dtype = np.dtype(value)
    except (TypeError, ValueError, OverflowError, SyntaxError, DeprecationWarning):
        # NumPy parses a string with a comma as a record format, by Python's own parser:
        # np.dtype(",") raises SyntaxError.
        raise TypeError(f"{accepted}, got {describe(value)}") from None
    if is_bfloat16(dtype):
        return dtype
    if is_extension_float(dtype):
        raise TypeError(
            f"{accepted}, got {dtype.name}: "
            "of the ml_dtypes formats only bfloat16 is accepted"
        )
    if dtype.kind != "f":
        raise TypeError(f"{accepted}, got {dtype.name}")
    return dtype


def as_array(
    value: Any, accepted: str, rectangular: str = "not a rectangular array of numbers"
) -> np.ndarray:
    """``np.asarray(value)``, refusing with ``TypeError(accepted, got ...)`` what is no
    array at all.

    Booleans, strings, bytes, mappings, sets and None are refused, and so is anything
    NumPy cannot make a rectangular array of (a ragged list, a number beyond the float
    range in a list of floats), with ``rectangular`` saying why. The caller checks the
    dtype, shape and values.
    """
    if (
        _is_bool(value)
        or isinstance(value, (str, bytes, dict, set, frozenset))
        or value is None
    ):
        raise TypeError(f"{accepted}, got {describe(value)}")
    try:
        return np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"{accepted}, got {describe(value)} ({rectangular})") from None


def _array(value: Any, name: str, accepted: str) -> np.ndarray:
    array = as_array(value, accepted)
    if array.dtype.kind == "O":
        raise TypeError(
            f"{accepted}, got {describe(value)} "
            "(an array of Python objects, such as integers "
            "beyond 64 bits, None or mixed types)"
        )
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{accepted}, got an array of dtype {array.dtype}")
    return array


def real_array(
    value: Any, name: str, *, dtype: DTypeLike = np.float64, ndim: int | None = None
) -> np.ndarray:
    """Return ``value`` as an array of ``dtype``, checking it holds finite real
    numbers."""
    accepted = (
        f"{name} must be a number or an array of finite real numbers (int or float)"
    )
    if ndim is not None:
        accepted = (
            f"{name} must be a {ndim}-D array of finite real numbers (int or float)"
        )
    array = _array(value, name, accepted)
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{accepted}, got shape {array.shape}")
    with np.errstate(over="ignore", invalid="ignore"):
        converted = array.astype(dtype)
    if not np.all(np.isfinite(converted)):
        raise ValueError(
            f"{accepted}; it holds nan or infinity, "
            f"or numbers beyond the range of {np.dtype(dtype).name}"
        )
    return converted


def float_array(value: Any, name: str, *, ndim: int | None = None) -> np.ndarray:
    """Return ``value`` as a finite floating-point array (integers become float64)."""
    accepted = f"{name} must be an array of finite real numbers (int or float)"
    if ndim is not None:
        accepted = (
            f"{name} must be a {ndim}-D array of finite real numbers (int or float)"
        )
    array = _array(value, name, accepted)
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{accepted}, got shape {array.shape}")
    if array.dtype.kind in "iu":
        with np.errstate(over="ignore", invalid="ignore"):
            array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{accepted}; it holds nan or infinity")
    return array


#: Floating-point formats that NumPy knows only as extension types (``ml_dtypes``:
#: bfloat16 and the float8 kinds). pelib never imports them; arrays of these types are
#: recognised by their dtype's name.
EXTENSION_FLOATS = (
    "bfloat16",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e4m3b11fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
)


def is_extension_float(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is one of the :data:`EXTENSION_FLOATS` (such as
    ``ml_dtypes.bfloat16``)."""
    # Most have kind 'V'; ml_dtypes 0.6.0 gives float8_e5m2 kind 'f', so the name
    # decides.
    return dtype.kind in "Vf" and dtype.names is None and dtype.name in EXTENSION_FLOATS


def is_bfloat16(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is ``ml_dtypes.bfloat16`` (recognised without importing
    ``ml_dtypes``)."""
    return is_extension_float(dtype) and dtype.name == "bfloat16"


def weight_array(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as an array of finite real numbers, keeping its dtype (integers,
    NumPy floats and the :data:`EXTENSION_FLOATS` such as bfloat16)."""
    accepted = (
        f"{name} must be an array of finite real numbers (integer, float or bfloat16)"
    )
    array = as_array(value, accepted)
    if is_extension_float(array.dtype):
        finite = np.isfinite(array.astype(np.float32))
    elif array.dtype.kind in "iuf":
        finite = np.isfinite(array) if array.dtype.kind == "f" else np.True_
    elif array.dtype.kind == "O":
        raise TypeError(
            f"{accepted}, got {describe(value)} "
            "(an array of Python objects, such as integers "
            "beyond 64 bits, None or mixed types)"
        )
    else:
        raise TypeError(f"{accepted}, got an array of dtype {array.dtype}")
    if not np.all(finite):
        raise ValueError(f"{accepted}; it holds nan or infinity")
    return array


def _memory() -> int:
    """Bytes of physical memory of this machine (2**40 where the system does not
    say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return 2**40


def fits(entries: int, itemsize: int, names: str) -> None:
    """Refuse a result of ``entries`` items of ``itemsize`` bytes that would need over
    half the memory."""
    needed = entries * itemsize
    limit = _memory() // 2
    if needed > limit:
        gib = (
            f"{needed / 2**30:.3g} GiB"
            if needed < 2**1000
            else f"about 10**{digits(needed) - 10} GiB"
        )
        raise ValueError(
            f"{names} ask for a result of {gib}, "
            "more than half of this machine's memory "
            f"({limit * 2 / 2**30:.3g} GiB)"
        )


@contextlib.contextmanager
def arithmetic(name: str, what: str) -> Iterator[None]:
    """Turn a floating-point overflow or invalid operation inside the block into a
    ValueError naming ``name``."""
    try:
        with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
            yield
    except FloatingPointError:
        raise ValueError(f"{name}: {what} beyond the floating-point range") from None
