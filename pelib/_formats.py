"""Binary floating-point formats and rounding to them exactly (chapter 10).

The formats are the binary ones of IEEE 754 (float16, float32, float64) and bfloat16 (8
significant bits and float32's exponents), described by three integers: the significant
bits p (the leading one included), the least normal exponent and the greatest exponent.
bfloat16 is recognised by its dtype, so nothing here imports ``ml_dtypes``.

:func:`round_to_format` rounds float64 numbers to such a format exactly (to nearest,
ties to even), which NumPy's casts do not always do for bfloat16: ``ml_dtypes`` (0.6.0)
casts a float64 to float32 first and then to bfloat16, rounding twice. :func:`to_dtype`
casts with one rounding. The tables (:mod:`pelib._encoding`, :mod:`pelib._conventions`)
and the precision atlas (:mod:`pelib._precision`) use both.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _validate


class _Format(NamedTuple):
    """A binary floating-point format: ``bits`` significant bits, normal exponents
    ``min_exp .. max_exp``."""

    name: str
    bits: int
    min_exp: int
    max_exp: int

    @property
    def largest(self) -> int:
        """The largest finite number, (2 - 2**(1 - p)) 2**max_exp (65,504 for
        float16)."""
        return (2**self.bits - 1) * 2 ** (self.max_exp - self.bits + 1)

    @property
    def overflow(self) -> int:
        """The least number that rounds to infinity: the largest plus half its
        spacing."""
        return (2 ** (self.bits + 1) - 1) * 2 ** (self.max_exp - self.bits)


def _format(dtype: np.dtype) -> _Format:
    """The format of a validated dtype (float16, bfloat16, float32, float64, or a long
    double of 53 bits)."""
    if _validate.is_bfloat16(dtype):
        return _Format("bfloat16", 8, -126, 127)
    info = np.finfo(dtype)
    return _Format(dtype.name, info.nmant + 1, info.minexp, info.maxexp - 1)


def round_to_format(x: np.ndarray, fmt: _Format) -> np.ndarray:
    """Float64 numbers rounded to the nearest number of ``fmt`` (ties to even), as
    float64; beyond its range +-inf.

    Exact: the number is scaled by a power of two so that the bits to keep are its
    integer part, and ``numpy.rint`` rounds that to the nearest integer, ties to even.
    Subnormal numbers of the format keep the spacing of its least normal binade.
    """
    x = np.asarray(x, dtype=np.float64)
    _, exponent = np.frexp(x)  # |x| = m 2**exponent with 1/2 <= m < 1; 0 for x = 0
    quantum = (
        np.maximum(exponent - 1, fmt.min_exp) - fmt.bits + 1
    )  # the spacing of x's binade is 2**quantum
    rounded = np.ldexp(np.rint(np.ldexp(x, -quantum)), quantum)
    with np.errstate(over="ignore"):
        return np.where(np.abs(rounded) > fmt.largest, np.copysign(np.inf, x), rounded)


def to_dtype(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Float64 ``x`` in ``dtype``, each number rounded once to nearest (a bfloat16
    through :func:`round_to_format`)."""
    if _validate.is_bfloat16(dtype):
        # The correctly rounded value is a bfloat16 number, hence a float32 one: both
        # casts below are exact.
        return round_to_format(x, _format(dtype)).astype(np.float32).astype(dtype)
    return np.asarray(x, dtype=np.float64).astype(dtype)
