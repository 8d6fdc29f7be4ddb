"""`make bench`: the performance targets of the book, each measured as a ratio in this process.

Absolute times depend on the machine and on what else runs on it; the ratio of
two timings taken side by side in one process is what the targets constrain.
"""

from __future__ import annotations

import sys

import numpy as np

import pelib
from pelib.timing import best_time


def target(name: str, measured: float, limit: float, unit: str = "x") -> bool:
    ok = measured <= limit
    print(f"{name:<58} {measured:8.2f}{unit}   target <= {limit:g}{unit}   {'met' if ok else 'MISSED'}")
    return ok


def shift_against_copy() -> bool:
    """pelib.shift of a (4096, 1024) float64 table costs at most 2x numpy.copy of it."""
    pe = pelib.sinusoidal(4096, 1024)
    copy = best_time(np.copy, pe, repeat=15)
    shift = best_time(pelib.shift, pe, 100.0, repeat=15)
    print(f"numpy.copy (4096, 1024) float64: {copy * 1e3:.2f} ms; pelib.shift: {shift * 1e3:.2f} ms")
    return target("pelib.shift / numpy.copy, (4096, 1024) float64", shift / copy, 2.0)


def explorer_updates() -> list[bool]:
    """One update of each explorer at its default values: under 100 ms of compute (the redraw is reported)."""
    from pelib import explore

    results = []
    for chapter, make in explore.EXPLORERS.items():
        compute, redraw = explore.update_times(make())
        print(f"explorer of {chapter}: redraw and PNG {redraw * 1e3:.0f} ms (reported, no target)")
        results.append(target(f"explorer of {chapter}, compute of one update", compute * 1e3, 100, " ms"))
    return results


def main() -> int:
    results = [shift_against_copy(), *explorer_updates()]
    print(f"{sum(results)} of {len(results)} targets met")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
