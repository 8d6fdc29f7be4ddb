"""`make bench`: the performance targets of the book, each measured as a ratio in this
process.

Absolute times depend on the machine and on what else runs on it; the ratio of
two timings taken side by side in one process is what the targets constrain.
Timings that are compared are interleaved: every round times each contender once,
in turn, and each keeps its best round.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from fractions import Fraction

import numpy as np

import oracle
import pelib
from pelib import _encoding

#: Rounds of every timing that is compared with another: the same count on both sides.
ROUNDS = 15


def target(
    name: str, measured: float, limit: float, unit: str = "x", *, at_least: bool = False
) -> bool:
    ok = measured >= limit if at_least else measured <= limit
    print(
        f"{name:<62} {measured:8.3g}{unit}   "
        f"target {'>=' if at_least else '<='} {limit:g}{unit}   "
        f"{'met' if ok else 'MISSED'}"
    )
    return ok


def side_by_side(
    contenders: dict[str, Callable[[], object]], rounds: int = ROUNDS
) -> dict[str, float]:
    """Best time of one call of each contender, in seconds, over ``rounds`` interleaved
    rounds.

    Every contender runs once before the rounds (so that what it keeps between calls,
    such as pelib's frequencies and factors of a width, is in place, as in any program
    that calls it more than once); then each round times every contender once, in turn.
    """
    for make in contenders.values():
        make()
    best = dict.fromkeys(contenders, np.inf)
    for _ in range(rounds):
        for name, make in contenders.items():
            start = time.perf_counter()
            make()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def shift_against_copy() -> bool:
    """pelib.shift of a (4096, 1024) float64 table costs at most 2x numpy.copy of it."""
    pe = pelib.sinusoidal(4096, 1024)
    times = side_by_side(
        {"copy": lambda: np.copy(pe), "shift": lambda: pelib.shift(pe, 100.0)}
    )
    print(
        f"numpy.copy (4096, 1024) float64: {times['copy'] * 1e3:.2f} ms; "
        f"pelib.shift: {times['shift'] * 1e3:.2f} ms"
    )
    return target(
        "pelib.shift / numpy.copy, (4096, 1024) float64",
        times["shift"] / times["copy"],
        2.0,
    )


N, D = 8192, 1024
FAR = 10**9


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """pelib on one thread, like numpy.ones and the direct formula (targets compare like
    with like).

    pelib writes tables of 8 MiB or more with two threads
    (``_encoding._THREADED_BYTES``); the baselines use one. Inside this block no table
    is large enough to be split.
    """
    saved = _encoding._THREADED_BYTES
    _encoding._THREADED_BYTES = 1 << 62
    try:
        yield
    finally:
        _encoding._THREADED_BYTES = saved


#: Rows on which the error is measured against the oracle (mpmath): every 128th, and the
#: last.
SAMPLED = np.r_[np.arange(0, N, 128), N - 1]


def exact_error(table: np.ndarray, start: int = 0) -> float:
    """Largest error of ``table`` (8192 x 1024, rows start .. start + 8191) on the
    sampled rows, against mpmath."""
    positions = [Fraction(start) + int(t) for t in SAMPLED]
    return float(oracle.error(table[SAMPLED], positions, table.shape[1]).max())


def accuracy() -> list[bool]:
    """pelib.sinusoidal within 5e-16 (float64) and 2**-24 (float32) of mpmath, from 0
    and from 10**9."""
    results = []
    for start in (0, FAR):
        for dtype, bound, unit in (
            (np.float64, 5e-16, "5e-16"),
            (np.float32, 2.0**-24, "2**-24"),
        ):
            error = exact_error(pelib.sinusoidal(N, D, start=start, dtype=dtype), start)
            name = (
                f"pelib.sinusoidal {np.dtype(dtype).name}, "
                f"rows {start:,} + 0..{N - 1}, error / {unit}"
            )
            results.append(target(name, error / bound, 1.0, " "))
            print(f"    (largest error on {len(SAMPLED)} sampled rows: {error:.3g})")
    direct = exact_error(pelib.sinusoidal_direct(N, D, start=FAR), FAR)
    print(
        f"for comparison, the direct float64 formula from {FAR:,}: "
        f"largest error {direct:.3g} (reported, no target)"
    )
    return results


def table_float64() -> list[bool]:
    """pelib.sinusoidal float64, one thread: >= 5x the direct formula, <= 1.6x
    numpy.ones."""
    with one_thread():
        times = side_by_side(
            {
                "direct": lambda: pelib.sinusoidal_direct(N, D),
                "pelib": lambda: pelib.sinusoidal(N, D),
                "ones": lambda: np.ones((N, D)),
            }
        )
    two = side_by_side({"pelib": lambda: pelib.sinusoidal(N, D)})["pelib"]
    print(
        f"({N}, {D}) float64, one thread each: direct {times['direct'] * 1e3:.1f} ms, "
        f"pelib {times['pelib'] * 1e3:.1f} ms, "
        f"numpy.ones {times['ones'] * 1e3:.1f} ms; "
        f"pelib with its two threads {two * 1e3:.1f} ms (reported, no target)"
    )
    return [
        target(
            "direct formula / pelib.sinusoidal, float64, one thread each",
            times["direct"] / times["pelib"],
            5,
            at_least=True,
        ),
        target(
            "pelib.sinusoidal / numpy.ones, float64, one thread each",
            times["pelib"] / times["ones"],
            1.6,
        ),
    ]


def table_float32() -> list[bool]:
    """pelib.sinusoidal float32, one thread: no slower than the direct formula, <= 3x
    numpy.ones."""
    with one_thread():
        times = side_by_side(
            {
                "direct": lambda: pelib.sinusoidal_direct(N, D, dtype=np.float32),
                "pelib": lambda: pelib.sinusoidal(N, D, dtype=np.float32),
                "ones": lambda: np.ones((N, D), dtype=np.float32),
                # The accuracy-matched baseline: the direct formula in float64, rounded
                # at the end.
                "matched": lambda: pelib.sinusoidal_direct(N, D).astype(np.float32),
            }
        )
    print(
        f"({N}, {D}) float32, one thread each: "
        f"direct {times['direct'] * 1e3:.1f} ms, pelib {times['pelib'] * 1e3:.1f} ms, "
        f"numpy.ones {times['ones'] * 1e3:.1f} ms, "
        f"float64 direct rounded {times['matched'] * 1e3:.1f} ms"
    )
    print(
        "pelib float32 against the accuracy-matched baseline: "
        f"{times['matched'] / times['pelib']:.1f}x faster "
        "(reported, no target)"
    )
    return [
        target(
            "pelib.sinusoidal / direct formula, float32, one thread each",
            times["pelib"] / times["direct"],
            1.0,
        ),
        target(
            "pelib.sinusoidal / numpy.ones, float32, one thread each",
            times["pelib"] / times["ones"],
            3.0,
        ),
    ]


def first_table_of_a_width() -> None:
    """The first table of a width also evaluates the factors that later tables reuse
    (reported, no target)."""

    def first() -> None:
        _encoding._factor_store.cache_clear()
        _encoding._remembered_frequencies.cache_clear()
        pelib.sinusoidal(N, D)

    with one_thread():
        times = side_by_side(
            {
                "first": first,
                "later": lambda: pelib.sinusoidal(N, D),
                "ones": lambda: np.ones((N, D)),
            }
        )
    print(
        f"one thread each: first ({N}, {D}) float64 table of its width: "
        f"{times['first'] * 1e3:.1f} ms, "
        f"{times['first'] / times['ones']:.2f}x numpy.ones; "
        f"later ones {times['later'] / times['ones']:.2f}x "
        "(reported, no target)"
    )


def explorer_updates() -> list[bool]:
    """One update of each explorer at its default values: under 100 ms of compute (the
    redraw is reported)."""
    from pelib import explore

    results = []
    for chapter, make in explore.EXPLORERS.items():
        compute, redraw = explore.update_times(make())
        print(
            f"explorer of {chapter}: redraw and PNG {redraw * 1e3:.0f} ms "
            "(reported, no target)"
        )
        results.append(
            target(
                f"explorer of {chapter}, compute of one update",
                compute * 1e3,
                100,
                " ms",
            )
        )
    return results


def main() -> int:
    results = [*accuracy(), *table_float64(), *table_float32()]
    first_table_of_a_width()
    results += [shift_against_copy(), *explorer_updates()]
    print(f"{sum(results)} of {len(results)} targets met")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
