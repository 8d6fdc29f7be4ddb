"""The RoPE cosine sum and the smallest rotary base, checked in mpmath.

:func:`cosine_sum` is :math:`S_b(m) = \\sum_{i<n} \\cos(m\\, b^{-i/n})`, :math:`n =
d/2`, evaluated in mpmath with the base read at its exact binary value (a float is the
rational it holds). :func:`check_bracket` checks a claimed bracket ``(lower, upper)`` of
the smallest base that keeps every sum below a length non-negative (Su Jianlin,
kexue.fm/archives/10122; Men et al. 2024, arXiv 2405.14591): every offset is
non-negative at ``upper``, and some offset is negative a little below ``lower``. That
second half is a witness, not a proof that every base below ``lower`` fails; the
search that proves it is pelib's. Nothing here imports pelib.
"""

from __future__ import annotations

from collections.abc import Iterable

import mpmath

from . import frequency, to_mpf

__all__ = ["check_bracket", "cosine_sum", "negative_offset"]


def _frequencies(dim: int, base) -> list[mpmath.mpf]:
    """:math:`b^{-i/n}`, :math:`i < n = d/2`: the paper's frequencies
    (:func:`oracle.frequency`), at least the working precision."""
    if dim % 2 or dim < 2:
        raise ValueError(f"dim must be even and positive, got {dim}")
    return [frequency(i, dim, base) for i in range(dim // 2)]


def _sum(m, frequencies: list[mpmath.mpf]) -> mpmath.mpf:
    offset = to_mpf(m)
    return mpmath.fsum(mpmath.cos(offset * theta) for theta in frequencies)


def cosine_sum(m, dim: int, base, digits: int = 30) -> mpmath.mpf:
    """:math:`\\sum_{i<d/2} \\cos(m\\, b^{-2i/d})` with ``digits`` significant digits
    beyond the integer part of the largest angle ``m`` (``m`` an integer, ``dim`` even,
    ``base`` a number read exactly)."""
    with mpmath.workdps(digits + len(str(abs(int(m))))):
        return +_sum(m, _frequencies(dim, base))


def negative_offset(
    base, dim: int, offsets: Iterable[int], digits: int = 30
) -> int | None:
    """The first of ``offsets`` (integers below :math:`10^{8}`) whose sum at ``base``
    is negative in mpmath, or None."""
    with mpmath.workdps(digits + 8):
        frequencies = _frequencies(dim, base)
        for m in offsets:
            if not 0 <= m < 10**8:
                raise ValueError(f"offsets must lie in [0, 10**8), got {m}")
            if _sum(m, frequencies) < 0:
                return int(m)
    return None


def check_bracket(
    lower,
    upper,
    length: int,
    dim: int,
    *,
    below: float = 1e-9,
    offsets: Iterable[int] | None = None,
    witnesses: Iterable[int] | None = None,
    digits: int = 25,
) -> int:
    """Check a bracket of the smallest base for ``length`` and ``dim`` in mpmath.

    Asserts that the sum at ``upper`` is non-negative at every offset of ``offsets``
    (default: all of ``0 .. length - 1``) and that one of ``witnesses`` (default: the
    same range; each must be below ``length``) has a negative sum at
    ``lower * (1 - below)``. Returns that witness offset (the first found).
    """
    checked = range(length) if offsets is None else offsets
    bad = negative_offset(upper, dim, checked, digits)
    assert bad is None, f"upper = {upper!r} fails at offset {bad}"
    probe = to_mpf(lower) * (1 - to_mpf(below))
    candidates = list(range(length) if witnesses is None else witnesses)
    assert all(0 <= m < length for m in candidates), "a witness is not below length"
    witness = negative_offset(probe, dim, candidates, digits)
    assert witness is not None, f"no offset below {length} fails at {probe}"
    return witness
