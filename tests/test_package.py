"""How pelib is put together: its modules import each other without a cycle, each says
what it holds and where the book explains it, no function runs over 60 lines, and
``import pelib`` needs NumPy only."""

from __future__ import annotations

import ast
import io
import shutil
import subprocess
import sys
import tokenize
import zipfile
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pelib"


def _imports(path: Path) -> set[str]:
    """The pelib modules that ``path`` imports anywhere (top level or inside a
    function)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:  # from ._x import y
                found.add(node.module.split(".")[0])
            else:  # from . import _x, _y
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "pelib."
        ):
            found.add(node.module.split(".")[1])
    return found


def _graph() -> dict[str, set[str]]:
    modules = {path.stem: path for path in PACKAGE.glob("*.py")}
    return {
        name: _imports(path) & set(modules) - {name} for name, path in modules.items()
    }


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a list of modules, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for other in sorted(graph[name]):
            if state.get(other) == 1:
                return path[path.index(other) :] + [other]
            if other not in state and (found := visit(other)):
                return found
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name)):
            return found
    return None


def test_no_import_cycle_inside_pelib():
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_import_scan_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from . import _a, _b\nfrom ._c import x\n\ndef f():\n    from ._d import y\n"
    )
    assert _imports(module) == {"_a", "_b", "_c", "_d"}


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_every_module_says_what_it_holds_and_where_the_book_explains_it(path):
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    assert len(doc.split()) >= 8, (
        f"{path.name}: no docstring saying what the module holds"
    )
    assert "chapter" in doc.lower() or ":doc:" in doc, f"{path.name}: no chapter named"


#: The most lines of code a function of pelib may hold, docstring aside.
MAX_FUNCTION_LINES = 60
_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}


def _code_lines(source: str) -> set[int]:
    """The numbers of the lines of ``source`` that hold code (not blank, not only a
    comment); every line of a string that spans several counts."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines


def _function_lengths(source: str) -> list[tuple[str, int]]:
    """(qualified name, lines of code) of every function in ``source``: the lines of
    its own body, without its docstring and without the functions nested in it (each
    counted on its own)."""
    code = _code_lines(source)
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, _own_lines(child, code)))
                visit(child, f"{prefix}{child.name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def _own_lines(function: ast.FunctionDef | ast.AsyncFunctionDef, code: set[int]) -> int:
    """The lines of code of ``function``'s body, docstring and nested functions
    aside."""
    body = function.body
    if ast.get_docstring(function, clean=False) is not None:
        body = body[1:]
    if not body:
        return 0
    lines = {n for n in code if body[0].lineno <= n <= function.end_lineno}
    for node in ast.walk(function):
        if node is not function and isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines -= set(range(start, node.end_lineno + 1))
    return len(lines)


def test_no_function_runs_over_60_lines():
    long = [
        f"{path.stem}.{name} ({count} lines)"
        for path in sorted(PACKAGE.glob("*.py"))
        for name, count in _function_lengths(path.read_text())
        if count > MAX_FUNCTION_LINES
    ]
    assert not long, (
        f"functions over {MAX_FUNCTION_LINES} lines of code (docstring, blank and "
        "comment lines aside; nested functions counted on their own): "
        + ", ".join(long)
    )


def test_the_length_count_leaves_out_docstrings_comments_and_nested_functions():
    source = (
        "class A:\n"
        "    def f(self):\n"
        '        """Doc\n\n        string."""\n'
        "        # a comment\n"
        "        x = (1,\n"
        "             2)\n"
        "\n"
        "        @staticmethod\n"
        "        def g():\n"
        "            return 1\n"
        "        return x  # counted\n"
    )
    assert _function_lengths(source) == [("A.f", 3), ("A.f.<locals>.g", 1)]


def test_import_pelib_needs_numpy_only():
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import pelib\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "print(' '.join(sorted("
        "new - set(sys.stdlib_module_names) - {'pelib', 'numpy'})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == [], f"import pelib also imports {out.stdout.strip()}"


def test_the_wheel_ships_pelib_alone(tmp_path):
    """``pip install .`` puts only pelib into site-packages, no top-level ``oracle``."""
    root = PACKAGE.parent
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(root / name, source / name)
    shutil.copytree(
        PACKAGE, source / "pelib", ignore=shutil.ignore_patterns("__pycache__")
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        top = {name.split("/")[0] for name in archive.namelist()}
    assert {name for name in top if not name.endswith(".dist-info")} == {"pelib"}


def test_the_oracle_is_importable_from_the_repository():
    import oracle

    assert Path(oracle.__file__).resolve().parent == PACKAGE.parent / "oracle"
