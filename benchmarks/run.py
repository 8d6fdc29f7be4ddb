"""`make bench`: the performance targets of the book, each measured as a ratio in this process.

Absolute times depend on the machine and on what else runs on it; the ratio of
two timings taken side by side in one process is what the targets constrain.
"""

from __future__ import annotations

import sys

import numpy as np

import pelib
from pelib.timing import best_time


def target(name: str, measured: float, limit: float, unit: str = "x", *, at_least: bool = False) -> bool:
    ok = measured >= limit if at_least else measured <= limit
    print(f"{name:<58} {measured:8.2f}{unit}   target {'>=' if at_least else '<='} {limit:g}{unit}   "
          f"{'met' if ok else 'MISSED'}")
    return ok


def shift_against_copy() -> bool:
    """pelib.shift of a (4096, 1024) float64 table costs at most 2x numpy.copy of it."""
    pe = pelib.sinusoidal(4096, 1024)
    copy = best_time(np.copy, pe, repeat=15)
    shift = best_time(pelib.shift, pe, 100.0, repeat=15)
    print(f"numpy.copy (4096, 1024) float64: {copy * 1e3:.2f} ms; pelib.shift: {shift * 1e3:.2f} ms")
    return target("pelib.shift / numpy.copy, (4096, 1024) float64", shift / copy, 2.0)


N, D = 8192, 1024


def table_float64() -> list[bool]:
    """pelib.sinusoidal float64: >= 8x the direct formula, <= 2.5x numpy.ones, error <= the direct formula's."""
    # Best of many rounds: the least disturbed measurement of each, on a shared machine.
    direct = best_time(pelib.sinusoidal_direct, N, D, repeat=5)
    fast = best_time(pelib.sinusoidal, N, D, repeat=25)
    ones = best_time(np.ones, (N, D), repeat=25)
    exact = pelib.encode(np.arange(N), D, dtype=np.longdouble)
    error_fast = float(np.abs(pelib.sinusoidal(N, D) - exact).max())
    error_direct = float(np.abs(pelib.sinusoidal_direct(N, D) - exact).max())
    print(f"({N}, {D}) float64: direct {direct * 1e3:.1f} ms, pelib {fast * 1e3:.1f} ms, numpy.ones {ones * 1e3:.1f} ms")
    print(f"max error against long double: pelib {error_fast:.1e}, direct {error_direct:.1e}")
    return [
        target("speed-up of pelib.sinusoidal over the direct formula, float64", direct / fast, 8, at_least=True),
        target("pelib.sinusoidal / numpy.ones, float64", fast / ones, 2.5),
        target("pelib error / direct-formula error, float64", error_fast / error_direct, 1.0),
    ]


def table_float32() -> list[bool]:
    """pelib.sinusoidal float32: within 1e-7 of the truth and no slower than the direct float32 formula."""
    direct = best_time(lambda: pelib.sinusoidal_direct(N, D, dtype=np.float32), repeat=5)
    fast = best_time(lambda: pelib.sinusoidal(N, D, dtype=np.float32), repeat=5)
    exact = pelib.encode(np.arange(N), D, dtype=np.longdouble)
    error = float(np.abs(pelib.sinusoidal(N, D, dtype=np.float32) - exact).max())
    error_direct = float(np.abs(pelib.sinusoidal_direct(N, D, dtype=np.float32) - exact).max())
    print(f"({N}, {D}) float32: direct {direct * 1e3:.1f} ms (error {error_direct:.1e}), pelib {fast * 1e3:.1f} ms")
    return [
        target("pelib.sinusoidal float32, max error in units of 1e-7", error * 1e7, 1.0, " "),
        target("pelib.sinusoidal / direct formula, float32", fast / direct, 1.0),
    ]


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
    results = [*table_float64(), *table_float32(), shift_against_copy(), *explorer_updates()]
    print(f"{sum(results)} of {len(results)} targets met")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
