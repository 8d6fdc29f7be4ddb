"""The committed notebooks are clean, complete and shaped alike.

nbval (``make test-notebooks``) re-runs them and compares outputs; these tests
check what nbval does not: that what is saved is fit to be read and compared.
"""

import ast
import itertools
import json
import re
from pathlib import Path

import pytest
import yaml

import pelib
from pelib import plots

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# The chapters are numbered (01_formula.ipynb, ...); the other notebooks are back matter
# (sources.ipynb, the corrections of other texts), checked like the chapters except for
# what makes a chapter: its learning goals, Summary, Exercises and main figure.
CHAPTERS = [path for path in NOTEBOOKS if path.name[:2].isdigit()]
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]{4,}")
# An absolute path: a slash-rooted path of two or more parts, or a Windows drive.
ABSOLUTE_PATH = re.compile(
    r"(?<![\w:/.~-])/(?:home|root|tmp|usr|work|Users|var|opt)/|[A-Za-z]:\\\\"
)


# A number at rounding level in scientific notation (exponent -10 or below, or a zero
# such as 0e+00) that is not printed as the bound it meets ("≤ 5e-16", pelib.at_most):
# its digits depend on the machine (README, "The same on every machine").
ROUNDING_LEVEL = re.compile(r"(?<![\w.+-])[+-]?(\d+(?:\.\d+)?)e([+-]\d+)\b")


def rounding_level_numbers(text):
    """The numbers in ``text`` printed at rounding level without their bound."""
    found = []
    for match in ROUNDING_LEVEL.finditer(text):
        if text[max(0, match.start() - 2) : match.start()] == "≤ ":
            continue
        mantissa, exponent = float(match[1]), int(match[2])
        if mantissa == 0 or exponent <= -10:
            found.append(match[0])
    return found


def load(path):
    return json.loads(path.read_text())


def code_cells(nb):
    return [
        c
        for c in nb["cells"]
        if c["cell_type"] == "code" and "".join(c["source"]).strip()
    ]


def source(cell):
    return "".join(cell["source"])


# The opening of a MyST directive, colon or backtick fence, and the option lines right
# after it.
DIRECTIVE = re.compile(
    r"^(?::{3,}|`{3,})\{(?P<name>[\w-]+)\}[ \t]*(?P<argument>[^\n]*)\n"
    r"(?P<options>(?:[ \t]*:[\w-]+:[^\n]*\n)*)",
    re.M,
)


def directives(text):
    """(name, argument, options) of every directive opened in a markdown text, in
    order."""
    for match in DIRECTIVE.finditer(text + "\n"):
        options = dict(re.findall(r":([\w-]+):[ \t]*([^\n]*)", match["options"]))
        yield match["name"], match["argument"].strip(), options


def output_text(output):
    text = "".join(output.get("text", []))
    for mime, value in output.get("data", {}).items():
        if not mime.startswith("image/"):
            text += json.dumps(value)
    return text


# The folding rule (README, "Writing a chapter"): a code cell that checks a claim
# against independent truth (it uses the oracle or mpmath, or asserts more than
# twice) is folded on the page (tag hide-input) and prints its verdict; cells that
# teach stay open.
CHECK_MODULES = {"oracle", "mpmath"}
OPEN_ASSERTS = 2
WIDTH = 88
# The helpers that guard printed numbers belong in folded checks, not in teaching cells.
PLUMBING = re.compile(r"\b(?:shown|at_most)\(")


def is_check(text):
    """Whether a code cell's source checks a claim (see the folding rule above)."""
    tree = ast.parse(
        "\n".join(
            line
            for line in text.splitlines()
            if not line.lstrip().startswith(("%", "!"))
        )
    )
    names = set(CHECK_MODULES)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in (
            CHECK_MODULES
        ):
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if alias.name.split(".")[0] in CHECK_MODULES
            )
    uses = any(
        isinstance(node, ast.Name)
        and node.id in names
        and isinstance(node.ctx, ast.Load)
        for node in ast.walk(tree)
    )
    asserts = sum(isinstance(node, ast.Assert) for node in ast.walk(tree))
    return uses or asserts > OPEN_ASSERTS


def cells_outside_solutions(cells):
    """The cells, markdown and code, not inside an exercise's solution (solution-start
    ... solution-end), whose code the page already hides."""
    inside = False
    for cell in cells:
        if cell["cell_type"] == "markdown":
            for name, _, _ in directives(source(cell)):
                if name in ("solution-start", "solution-end"):
                    inside = name == "solution-start"
        if not inside:
            yield cell


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def printed_lines(cell):
    return [
        line
        for output in cell.get("outputs", [])
        if output.get("name") == "stdout"
        for line in output_text(output).splitlines()
        if line.strip()
    ]


def prints_a_verdict(cell):
    return bool(printed_lines(cell))


# A fold of drawing code (README, "Writing a chapter"): the matplotlib calls that lay
# out a figure, folded under their own toggle once the numbers they draw are computed
# in an open cell before them.
DRAWING_PROMPT = "Show the code of the figure"


def folds_a_drawing(cell):
    return cell.get("metadata", {}).get("mystnb", {}).get("code_prompt_show") == (
        DRAWING_PROMPT
    )


# A fold of worked numbers (README, "Writing a chapter"): a teaching cell that prints
# an example in more numbers than the prose needs, folded whole (code and output).
NUMBERS_PROMPTS = {
    "code_prompt_show": "Show the numbers",
    "code_prompt_hide": "Hide the numbers",
}


DECIMAL = re.compile(r"\d+\.\d+")


def folds_numbers(cell):
    return "hide-cell" in tags(cell)


def draws_a_figure(cell):
    return any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import mpmath\nimport oracle\nimport pelib", False),
        ("table = pelib.sinusoidal(8, 4)\nassert table.shape == (8, 4)", False),
        ("x = oracle.frequency(0, 8)", True),
        ("with mpmath.workdps(30):\n    pass", True),
        ("from oracle import frequency\nfrequency(0, 8)", True),
        ("assert 1\nassert 2\nassert 3", True),
        ("%matplotlib inline\nplt.show()", False),
    ],
)
def test_is_check(text, expected):
    assert is_check(text) is expected


def test_every_chapter_is_in_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    listed = {entry["file"] for part in toc["parts"] for entry in part["chapters"]}
    assert NOTEBOOKS, "no notebooks found"
    for nb in NOTEBOOKS:
        assert f"notebooks/{nb.stem}" in listed


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
class TestNotebook:
    def test_under_one_megabyte(self, path):
        assert path.stat().st_size < 1_000_000

    def test_executed_top_to_bottom(self, path):
        counts = [c["execution_count"] for c in code_cells(load(path))]
        assert counts == list(range(1, len(counts) + 1))

    def test_no_errors_or_stderr(self, path):
        for cell in code_cells(load(path)):
            for output in cell["outputs"]:
                assert output["output_type"] != "error", "".join(cell["source"])
                assert output.get("name") != "stderr", output_text(output)

    def test_no_addresses_paths_or_svg(self, path):
        for cell in code_cells(load(path)):
            for output in cell["outputs"]:
                text = output_text(output)
                assert not ADDRESS.search(text), text
                assert not ABSOLUTE_PATH.search(text), text
                assert "image/svg+xml" not in output.get("data", {})

    def test_rounding_level_numbers_are_printed_as_bounds(self, path):
        for cell in code_cells(load(path)):
            for output in cell["outputs"]:
                if output.get("output_type") == "stream" or "text/plain" in output.get(
                    "data", {}
                ):
                    text = "".join(output.get("text", [])) or "".join(
                        output["data"]["text/plain"]
                    )
                    assert not rounding_level_numbers(text), (
                        rounding_level_numbers(text),
                        source(cell)[:200],
                    )

    def test_opens_and_closes_the_same_way(self, path):
        cells = load(path)["cells"]
        first = "".join(cells[0]["source"])
        assert cells[0]["cell_type"] == "markdown" and first.startswith("# ")
        imports = code_cells({"cells": cells})[0]
        assert cells[1] is imports, "the second cell is the one imports cell"
        assert "import pelib" in "".join(imports["source"])
        if path not in CHAPTERS:
            assert not any(
                c["cell_type"] == "markdown"
                and re.search(r"^## (Summary|Exercises)", source(c), re.M)
                for c in cells
            ), "back matter has no Summary or Exercises"
            return
        assert "In this chapter you will learn" in first
        # It closes with "## Summary" and then "## Exercises", the last section: no
        # heading of level 1 or 2 after it.
        summary = [
            i
            for i, c in enumerate(cells)
            if c["cell_type"] == "markdown" and source(c).startswith("## Summary")
        ]
        assert len(summary) == 1, "one Summary section"
        exercises = summary[0] + 1
        assert exercises < len(cells) and cells[exercises]["cell_type"] == "markdown", (
            "Exercises follow the Summary"
        )
        assert source(cells[exercises]).startswith("## Exercises"), (
            "Exercises follow the Summary"
        )
        for cell in cells[exercises + 1 :]:
            if cell["cell_type"] == "markdown":
                assert not re.search(r"^#{1,2} ", source(cell), re.M), (
                    "nothing after the Exercises section"
                )
        # Side matter waits in one optional section just before the Summary (README,
        # "Writing a chapter"): chapters 1-5 have it, and no section comes between.
        sections = [
            heading
            for c in cells
            if c["cell_type"] == "markdown"
            for heading in re.findall(r"^## (.+)$", source(c), re.M)
        ]
        further = [k for k, h in enumerate(sections) if h.startswith("Going further")]
        if path.name[:2] in {"01", "02", "03", "04", "05"}:
            assert further == [sections.index("Summary") - 1], (
                "one section 'Going further (optional)', just before the Summary"
            )
        else:
            assert len(further) <= 1

    def test_exercises_have_hidden_solutions_that_assert(self, path):
        if path not in CHAPTERS:
            pytest.skip("back matter has no exercises")
        # sphinx-exercise: each exercise has a label ex-NN-name and one gated solution
        # (solution-start ... solution-end) with the class dropdown, so it is hidden on
        # the page, whose code cells assert the answer.
        cells = load(path)["cells"]
        exercises, solutions, open_solution, in_section = [], {}, None, False
        for cell in cells:
            text = source(cell)
            if cell["cell_type"] == "code":
                if open_solution is not None and re.search(r"^\s*assert\b", text, re.M):
                    solutions[open_solution]["asserts"] += 1
                continue
            in_section = in_section or text.startswith("## Exercises")
            for name, argument, options in directives(text):
                if name in ("exercise", "exercise-start"):
                    label = options.get("label", "")
                    assert in_section, f"exercise {label} outside the Exercises section"
                    assert re.fullmatch(
                        rf"ex-{path.name[:2]}-[a-z0-9]+(?:-[a-z0-9]+)*", label
                    ), label
                    exercises.append(label)
                elif name == "solution-start":
                    assert open_solution is None, (
                        f"solution of {argument} opened inside another"
                    )
                    assert argument in exercises and argument not in solutions, (
                        f"solution of {argument}"
                    )
                    assert "dropdown" in options.get("class", "").split(), (
                        f"solution of {argument} is not hidden"
                    )
                    open_solution = argument
                    solutions[argument] = {"asserts": 0}
                elif name == "solution-end":
                    assert open_solution is not None, (
                        "solution-end without solution-start"
                    )
                    open_solution = None
                elif name == "solution":
                    raise AssertionError(
                        "solutions use solution-start and solution-end, "
                        "with code cells between"
                    )
        assert open_solution is None, f"solution of {open_solution} never ends"
        assert len(exercises) >= 2, f"{len(exercises)} exercises"
        assert len(set(exercises)) == len(exercises)
        for label in exercises:
            assert label in solutions, f"exercise {label} has no solution"
            assert solutions[label]["asserts"] >= 1, (
                f"the solution of {label} asserts nothing"
            )

    def test_imports_only_in_the_first_code_cell(self, path):
        for cell in code_cells(load(path))[1:]:
            for line in "".join(cell["source"]).splitlines():
                assert not re.match(r"\s*(import|from \S+ import) ", line), line

    def test_does_not_redefine_pelib(self, path):
        # Notebooks call pelib; a function of pelib's is never written again in a
        # notebook, and pelib comes from the installed package, not from a path added by
        # hand.
        public = set(pelib.__all__) | {
            name for name in dir(plots) if not name.startswith("_")
        }
        for cell in code_cells(load(path)):
            source = "".join(cell["source"])
            for name in re.findall(r"^\s*(?:def|class)\s+(\w+)", source, re.M):
                assert name not in public, f"{name} is defined in pelib"
            assert "sys.path" not in source

    def test_has_a_figure(self, path):
        if path not in CHAPTERS:
            pytest.skip("back matter: the figures are the chapters'")
        figures = [
            cell
            for cell in code_cells(load(path))
            if cell["metadata"].get("mystnb", {}).get("figure") and draws_a_figure(cell)
        ]
        assert figures, "every chapter has a figure that carries its main idea"

    def test_code_fits_the_column(self, path):
        for cell in code_cells(load(path)):
            for line in source(cell).splitlines():
                assert len(line) <= WIDTH, f"{len(line)} characters: {line}"

    def test_checks_are_folded_and_print_their_verdict(self, path):
        cells = load(path)["cells"]
        for cell in cells_outside_solutions(cells):
            if cell["cell_type"] != "code" or not source(cell).strip():
                continue
            if is_check(source(cell)):
                assert "hide-input" in tags(cell), (
                    "a check is folded (tag hide-input): " + source(cell)[:300]
                )
            if "hide-input" in tags(cell) and folds_a_drawing(cell):
                # drawing code only: it draws its figure, computes and prints nothing
                # the prose quotes, and checks nothing
                assert draws_a_figure(cell) and not is_check(source(cell)), (
                    "a folded drawing draws a figure and checks nothing: "
                    + source(cell)[:300]
                )
                assert not printed_lines(cell), (
                    "a folded drawing prints nothing; the open cell before it prints: "
                    + source(cell)[:300]
                )
                continue
            if "hide-input" in tags(cell):
                assert prints_a_verdict(cell), (
                    "a folded check prints its verdict: " + source(cell)[:300]
                )
                # its verdict and, at most, one sentence for the box it checks; the
                # detail is in its comments and asserts (README, "Writing a chapter")
                assert len(printed_lines(cell)) <= 2, (
                    "a folded check prints one or two lines: " + source(cell)[:300]
                )
        outside = {id(cell) for cell in cells_outside_solutions(cells)}
        for cell in (c for c in cells if id(c) not in outside):
            assert "hide-input" not in tags(cell), "a solution is folded once"
            assert not folds_numbers(cell), "a solution is folded once"

    def test_folded_numbers_teach_under_their_own_toggle(self, path):
        for cell in load(path)["cells"]:
            if not folds_numbers(cell):
                continue
            text = source(cell)[:300]
            assert cell["cell_type"] == "code", (
                "only a code cell folds numbers: " + text
            )
            prompts = cell["metadata"].get("mystnb", {})
            assert {k: prompts.get(k) for k in NUMBERS_PROMPTS} == NUMBERS_PROMPTS, (
                "folded numbers carry the toggle 'Show the numbers': " + text
            )
            assert "hide-input" not in tags(cell), "folded once: " + text
            assert not is_check(source(cell)), "folded numbers check nothing: " + text
            assert not draws_a_figure(cell), "folded numbers draw nothing: " + text
            assert printed_lines(cell), "folded numbers print them: " + text

    def test_the_prose_quotes_no_number_only_a_fold_of_numbers_prints(self, path):
        cells = load(path)["cells"]
        prose = " ".join(source(c) for c in cells if c["cell_type"] == "markdown")
        elsewhere = " ".join(
            "\n".join(printed_lines(c))
            for c in cells
            if c["cell_type"] == "code" and not folds_numbers(c)
        )
        for cell in filter(folds_numbers, cells):
            for number in set(DECIMAL.findall("\n".join(printed_lines(cell)))):
                quoted = re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", prose)
                assert not quoted or number in elsewhere, (
                    f"the prose quotes {number}, which only a fold of numbers prints"
                )

    def test_folded_checks_do_not_follow_one_another(self, path):
        # The checks of one passage are one folded cell with one verdict: two folded
        # cells in a row print two verdicts where the reader needs one.
        # A folded drawing between two checks does not make them one passage's.
        folded = [
            cell["cell_type"] == "code" and "hide-input" in tags(cell)
            for cell in cells_outside_solutions(load(path)["cells"])
            if not folds_a_drawing(cell)
        ]
        for k, (first, second) in enumerate(itertools.pairwise(folded)):
            assert not (first and second), f"folded checks {k} and {k + 1} in a row"

    def test_open_cells_print_plainly(self, path):
        # Open cells teach: they print with plain formats, and the folded check after
        # them guards what they printed with pelib.shown (README, "Writing a chapter").
        for cell in cells_outside_solutions(load(path)["cells"]):
            if cell["cell_type"] == "code" and "hide-input" not in tags(cell):
                found = PLUMBING.search(source(cell))
                assert found is None, (
                    f"{found.group()} in an open cell: " + source(cell)[:300]
                )

    def test_corrections_are_dropdowns_titled_with_their_verdict(self, path):
        # Each correction of another source (label erratum-*) is a dropdown
        # admonition whose title is the one-line verdict; the full entry is on the
        # errata page.
        for cell in load(path)["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            text = source(cell)
            for match in re.finditer(r"^\((erratum-[\w-]+)\)=\n+", text, re.M):
                opened = next(directives(text[match.end() :]), None)
                follows = DIRECTIVE.match(text, match.end())
                assert follows and opened and opened[0] == "admonition", (
                    f"{match[1]} is not on an admonition"
                )
                name, title, options = opened
                assert title, f"{match[1]} has no verdict as its title"
                assert "dropdown" in options.get("class", "").split(), (
                    f"{match[1]} is not folded (class dropdown)"
                )

    def test_roles_stay_on_one_line(self, path):
        # JupyterLab's MyST renderer (make lab) shows a role broken across lines as
        # text; make test-lab finds it in a browser, this finds it in a second.
        for cell in load(path)["cells"]:
            if cell["cell_type"] == "markdown":
                for role in re.findall(r"\{[\w:-]+\}`[^`]*`", source(cell)):
                    assert "\n" not in role, f"a role across lines: {role!r}"

    def test_figures_have_caption_name_and_alt_text(self, path):
        for cell in code_cells(load(path)):
            if draws_a_figure(cell):
                meta = cell["metadata"].get("mystnb", {})
                assert meta.get("figure", {}).get("caption") and meta["figure"].get(
                    "name"
                ), cell["source"]
                assert len(meta.get("image", {}).get("alt", "")) > 40, cell["source"]
