"""Timing helpers shared by the benchmark command and the chapters that measure speed.

Timings on a shared machine are noisy, so every figure is the best of several
repeats, and claims are made about ratios measured in one process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from . import _validate

#: The longest round accepted, in seconds.
MAX_SECONDS = 1.0
#: The most rounds accepted.
MAX_REPEAT = 1000


def best_time(
    func: Callable[..., Any], *args: Any, repeat: int = 7, min_seconds: float = 0.02
) -> float:
    """Best time of one call of ``func(*args)``, in seconds.

    Each of ``repeat`` rounds calls ``func`` as many times as fit in about
    ``min_seconds`` (at least once) and keeps the mean; the result is the
    smallest round, the one least disturbed by other work on the machine.
    Chapter 3 (:doc:`/notebooks/03_shift_property`) uses it.

    Parameters
    ----------
    func : callable
        What to time.
    *args
        Its arguments.
    repeat : int, default 7
        Number of rounds, from 1 to 1000.
    min_seconds : float, default 0.02
        Rough length of one round, from 0 to 1 second.

    Returns
    -------
    float
        Seconds per call.
    """
    func = _validate.function(func, "func")
    repeat = _validate.size(repeat, "repeat", minimum=1, maximum=MAX_REPEAT)
    min_seconds = _validate.real(
        min_seconds, "min_seconds", minimum=0.0, maximum=MAX_SECONDS
    )
    start = time.perf_counter()
    func(*args)
    first = time.perf_counter() - start
    number = max(1, int(min_seconds / first)) if first > 0 else 1000
    best = first
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            func(*args)
        best = min(best, (time.perf_counter() - start) / number)
    return best
