"""Compute the table of smallest rotary bases for chapter 11 (``make base-table``).

For head widths 64, 128 and 256 and training lengths 2**10 .. 2**20, bracket the
smallest base whose cosine sums stay non-negative at every offset below the length,
with pelib's certified search (``pelib.smallest_base`` refuses the longest lengths,
where one search runs for minutes to an hour). Rows are written to
``notebooks/data/base_table.json`` as soon as each is done, longest searches first;
rows already there are kept, so an interrupted run resumes.
The chapter re-checks every row it prints (the upper end by a certified scan, the
lower end by an offset where mpmath finds a negative sum).
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from pelib import _base

DIMS = (64, 128, 256)
LENGTHS = tuple(2**k for k in range(10, 21))
OUT = Path(__file__).resolve().parent.parent / "notebooks" / "data" / "base_table.json"


def _load() -> dict[tuple[int, int], dict]:
    if not OUT.exists():
        return {}
    rows = json.loads(OUT.read_text())["rows"]
    return {(row["dim"], row["length"]): row for row in rows}


def _save(rows: dict[tuple[int, int], dict]) -> None:
    ordered = [rows[key] for key in sorted(rows)]
    text = ",\n".join("    " + json.dumps(row) for row in ordered)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(
        '{\n  "about": "Smallest rotary base b* in [lower, upper] for head width dim '
        'and training length; computed by scripts/base_table.py",\n'
        f'  "rows": [\n{text}\n  ]\n}}\n'
    )


def _row(key: tuple[int, int]) -> dict:
    """One row of the table: the bracket of one head width and length, and how long
    its search took on one core."""
    dim, length = key
    began = time.perf_counter()
    bracket = _base._chain(length, dim // 2)
    return {
        "dim": dim,
        "length": length,
        "lower": bracket.lower,
        "upper": bracket.upper,
        "seconds": round(time.perf_counter() - began, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="searches run at once")
    jobs = parser.parse_args().jobs
    rows = _load()
    missing = [(d, n) for d in DIMS for n in LENGTHS if (d, n) not in rows]
    missing.sort(key=lambda key: -key[0] * key[1])
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for done in as_completed([pool.submit(_row, key) for key in missing]):
            row = done.result()
            print(json.dumps(row), flush=True)
            rows[(row["dim"], row["length"])] = row
            _save(rows)


if __name__ == "__main__":
    main()
