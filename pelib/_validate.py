"""Argument checks shared by every public function of pelib.

Each helper either returns the value in a canonical form or raises a
``TypeError`` (wrong kind of value) or ``ValueError`` (right kind, value out
of range) whose message names the parameter and says what is accepted.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike


def _describe(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def size(value: Any, name: str, *, minimum: int = 0) -> int:
    """Return ``value`` as a Python int, checking it is an integer >= ``minimum``."""
    accepted = f"{name} must be an integer >= {minimum}"
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{accepted} (int or NumPy integer), got {_describe(value)}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{accepted}, got {value}")
    return value


def real(value: Any, name: str, *, positive: bool = False) -> float:
    """Return ``value`` as a finite float (strictly positive if ``positive``)."""
    kind = "a finite real number > 0" if positive else "a finite real number"
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {kind} (int or float), got {_describe(value)}")
    try:
        result = float(value)
    except OverflowError:
        result = math.inf
    if not math.isfinite(result) or (positive and result <= 0):
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return result


def choice(value: Any, name: str, accepted: Iterable[str]) -> str:
    """Return ``value`` if it is one of the strings in ``accepted``."""
    options = ", ".join(repr(a) for a in accepted)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {options}, got {_describe(value)}")
    if value not in accepted:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def float_dtype(value: Any, name: str = "dtype") -> np.dtype:
    """Return ``value`` as a NumPy floating-point dtype."""
    accepted = f"{name} must be a NumPy floating dtype (float16, float32, float64 or longdouble)"
    if value is None:
        raise TypeError(f"{accepted}, got None")
    try:
        dtype = np.dtype(value)
    except (TypeError, ValueError):
        raise TypeError(f"{accepted}, got {value!r}") from None
    if dtype.kind != "f":
        raise TypeError(f"{accepted}, got {dtype.name}")
    return dtype


def real_array(value: Any, name: str, *, dtype: DTypeLike = np.float64) -> np.ndarray:
    """Return ``value`` as an array of ``dtype``, checking it holds finite real numbers."""
    accepted = f"{name} must be a number or an array of finite real numbers (int or float)"
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        raise TypeError(f"{accepted}, got {_describe(value)}") from None
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{accepted}, got an array of dtype {array.dtype}")
    array = array.astype(dtype)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{accepted}; it holds nan or infinity")
    return array


def float_array(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as a floating-point array (integers become float64)."""
    accepted = f"{name} must be an array of real numbers (int or float)"
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        raise TypeError(f"{accepted}, got {_describe(value)}") from None
    if array.dtype.kind in "iu":
        return array.astype(np.float64)
    if array.dtype.kind != "f":
        raise TypeError(f"{accepted}, got an array of dtype {array.dtype}")
    return array
