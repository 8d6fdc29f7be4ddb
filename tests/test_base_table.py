"""The table of smallest rotary bases that chapter 11 reads, and its script.

``notebooks/data/base_table.json`` holds brackets from ``scripts/base_table.py`` (hours
of pelib's search). Here: the file has every row the chapter reads, each bracket is
narrow and ordered, the short rows agree with a fresh run of the script's own function
and with mpmath, and the script resumes from what it saved.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from oracle import base as oracle

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "notebooks" / "data" / "base_table.json"


def _script():
    spec = importlib.util.spec_from_file_location(
        "base_table", ROOT / "scripts" / "base_table.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script():
    return _script()


@pytest.fixture(scope="module")
def rows():
    return {(r["dim"], r["length"]): r for r in json.loads(DATA.read_text())["rows"]}


def test_every_row_is_there_and_narrow(script, rows):
    assert set(rows) == {(d, n) for d in script.DIMS for n in script.LENGTHS}
    for (dim, length), row in rows.items():
        assert 1 < row["lower"] < row["upper"], (dim, length)
        assert row["upper"] / row["lower"] - 1 <= 1e-8, (dim, length)
        assert row["seconds"] >= 0


def test_smallest_base_grows_with_length(script, rows):
    # a base that passes for 2L passes for L, so b*(L) <= b*(2L)
    for dim in script.DIMS:
        for short, long in zip(script.LENGTHS, script.LENGTHS[1:], strict=False):
            assert rows[dim, long]["upper"] >= rows[dim, short]["lower"]


@pytest.mark.parametrize("dim", [64, 128, 256])
def test_short_rows_match_a_fresh_search_and_mpmath(script, rows, dim):
    fresh = script._row((dim, 1024))
    stored = rows[dim, 1024]
    assert max(fresh["lower"], stored["lower"]) <= min(fresh["upper"], stored["upper"])
    # every offset in mpmath: the upper end passes, 1e-9 below the lower end fails
    oracle.check_bracket(stored["lower"], stored["upper"], 1024, dim)


def test_the_script_saves_and_resumes(script, tmp_path, monkeypatch):
    monkeypatch.setattr(script, "OUT", tmp_path / "table.json")
    assert script._load() == {}
    row = script._row((64, 1024))
    script._save({(64, 1024): row})
    assert script._load() == {(64, 1024): row}
    # main() computes only what is missing: here nothing, so it submits no search
    submitted = []

    class Pool:
        def __init__(self, max_workers):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def submit(self, function, key):
            submitted.append(key)
            raise AssertionError(f"recomputed {key}")

    monkeypatch.setattr(script, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(script, "DIMS", (64,))
    monkeypatch.setattr(script, "LENGTHS", (1024,))
    monkeypatch.setattr("sys.argv", ["base_table.py"])
    script.main()
    assert submitted == [] and script._load() == {(64, 1024): row}
    # with the row gone it submits exactly that one
    script._save({})
    with pytest.raises(AssertionError, match="recomputed"):
        script.main()
    assert submitted == [(64, 1024)]
