"""`make bench`: the performance targets of the book, each measured as a ratio in this process.

Absolute times depend on the machine and on what else runs on it; the ratio of
two timings taken side by side in one process is what the targets constrain.
"""

from __future__ import annotations

import sys

import numpy as np

import oracle
import pelib
from pelib.timing import best_time

#: Rounds of every timing that is compared with another: the same count on both sides.
ROUNDS = 15


def target(name: str, measured: float, limit: float, unit: str = "x", *, at_least: bool = False) -> bool:
    ok = measured >= limit if at_least else measured <= limit
    print(f"{name:<58} {measured:8.3g}{unit}   target {'>=' if at_least else '<='} {limit:g}{unit}   "
          f"{'met' if ok else 'MISSED'}")
    return ok


def shift_against_copy() -> bool:
    """pelib.shift of a (4096, 1024) float64 table costs at most 2x numpy.copy of it."""
    pe = pelib.sinusoidal(4096, 1024)
    copy = best_time(np.copy, pe, repeat=ROUNDS)
    shift = best_time(pelib.shift, pe, 100.0, repeat=ROUNDS)
    print(f"numpy.copy (4096, 1024) float64: {copy * 1e3:.2f} ms; pelib.shift: {shift * 1e3:.2f} ms")
    return target("pelib.shift / numpy.copy, (4096, 1024) float64", shift / copy, 2.0)


N, D = 8192, 1024
#: Rows on which the error is measured against the oracle (mpmath): every 128th, and the last.
SAMPLED = np.r_[np.arange(0, N, 128), N - 1]


def exact_error(table: np.ndarray) -> float:
    """Largest error of ``table`` (8192 x 1024) on the sampled rows, against the exact values (mpmath)."""
    return float(oracle.error(table[SAMPLED], SAMPLED, table.shape[1]).max())


def table_float64() -> list[bool]:
    """pelib.sinusoidal float64: >= 8x the direct formula, <= 2.5x numpy.ones, error <= the direct formula's."""
    direct = best_time(pelib.sinusoidal_direct, N, D, repeat=ROUNDS)
    fast = best_time(pelib.sinusoidal, N, D, repeat=ROUNDS)
    ones = best_time(np.ones, (N, D), repeat=ROUNDS)
    error_fast = exact_error(pelib.sinusoidal(N, D))
    error_direct = exact_error(pelib.sinusoidal_direct(N, D))
    print(f"({N}, {D}) float64: direct {direct * 1e3:.1f} ms, pelib {fast * 1e3:.1f} ms, numpy.ones {ones * 1e3:.1f} ms")
    print(f"max error against mpmath on {len(SAMPLED)} rows: pelib {error_fast:.1e}, direct {error_direct:.1e}")
    return [
        target("speed-up of pelib.sinusoidal over the direct formula, float64", direct / fast, 8, at_least=True),
        target("pelib.sinusoidal / numpy.ones, float64", fast / ones, 2.5),
        target("pelib error / direct-formula error, float64", error_fast / error_direct, 1.0),
    ]


def table_float32() -> list[bool]:
    """pelib.sinusoidal float32: within 2**-25 of the exact values, no slower than the direct float32 formula."""
    direct = best_time(lambda: pelib.sinusoidal_direct(N, D, dtype=np.float32), repeat=ROUNDS)
    fast = best_time(lambda: pelib.sinusoidal(N, D, dtype=np.float32), repeat=ROUNDS)
    # The accuracy-matched baseline: the direct formula in float64, rounded to float32 at the end.
    matched = best_time(lambda: pelib.sinusoidal_direct(N, D).astype(np.float32), repeat=ROUNDS)
    error = exact_error(pelib.sinusoidal(N, D, dtype=np.float32))
    error_direct = exact_error(pelib.sinusoidal_direct(N, D, dtype=np.float32))
    error_matched = exact_error(pelib.sinusoidal_direct(N, D).astype(np.float32))
    print(f"({N}, {D}) float32: direct {direct * 1e3:.1f} ms (error {error_direct:.1e}), float64 direct rounded "
          f"{matched * 1e3:.1f} ms (error {error_matched:.1e}), pelib {fast * 1e3:.1f} ms (error {error:.2e})")
    print(f"pelib float32 against the accuracy-matched baseline: {matched / fast:.1f}x faster (reported, no target)")
    return [
        target("pelib.sinusoidal float32, max error in units of 2**-25", error / 2.0**-25, 1.0001, " "),
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
