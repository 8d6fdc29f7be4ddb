"""The chapters in JupyterLab, as a reader runs them with `make lab`: the book's MyST
rendered (jupyterlab-myst, in the lock), and an explorer recomputing its figure in a
kernel.

JupyterLab runs from this environment on a copy of notebooks/ in a temporary directory,
with its own settings, configuration and runtime folders there, so neither the
repository nor the user's Jupyter changes. Its settings draw every cell (no windowing:
JupyterLab otherwise renders only the cells in view) and never save.
"""

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import ROOT, toc_pages

NOTEBOOKS = ROOT / "notebooks"
# The explorer run live: chapter 3's, built by the first cell that calls explore.
EXPLORER_CHAPTER = "03_shift_property.ipynb"
SETTINGS = {
    # Every cell drawn, not only those in view.
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    # The copy is never written to.
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    # No news pop-up over the notebook and no request to jupyter.org.
    "@jupyterlab/apputils-extension/notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}
STARTUP = 180  # seconds JupyterLab may take to start and to render a chapter
# MyST that no chapter may show as text once rendered: a directive's fence or its
# options, a role, a target "(label)=".
RAW_MYST = re.compile(
    r":::\{|```\{|\{[a-z][\w:-]*\}`|\([\w.:-]+\)=|:(class|label|name|open):\s"
)


def chapters():
    """The notebooks of the table of contents, in reading order."""
    return [
        Path(page).with_suffix(".ipynb").name
        for page in toc_pages()
        if page.startswith("notebooks/")
    ]


def markdown_sources(path):
    notebook = json.loads(path.read_text())
    return [
        "".join(cell["source"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "markdown"
    ]


def leftovers_of(sources):
    """Text that shows, in the rendered page, a construct of these sources left
    unrendered: the name of a role they use, "{cite:p}" (rendered Markdown keeps it
    when it drops the backticks), the label after a labelled equation, "(pe-sin)", and
    the target of a role with explicit text, "<sec-01-sources>"."""
    found = set()
    for source in sources:
        found.update(re.findall(r"(\{[a-z][\w:-]*\})`", source))
        for match in re.finditer(r"\$\$\s*\(([\w.:-]+)\)", source):
            found.add(f"({match.group(1)})")
        for match in re.finditer(r"\{[a-z][\w:-]*\}`[^`]*<([^<>`]+)>`", source):
            found.add(f"<{match.group(1)}>")
    return sorted(found)


def folds_in(sources):
    """Directives that the site folds: dropdown admonitions and solutions."""
    return sum(
        len(re.findall(r"^:class:.*\bdropdown\b", source, re.MULTILINE))
        + len(re.findall(r"^[:`]{3,}\{dropdown\}", source, re.MULTILINE))
        for source in sources
    )


class Lab(NamedTuple):
    url: str  # the server's base address, ending in /
    token: str
    root: Path  # the copy of notebooks/ it serves


def write_settings(folder):
    for plugin, values in SETTINGS.items():
        path = folder / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def wait_for_server(process, runtime, token, log):
    """The address of the server once it answers, from the file it writes into its
    runtime folder."""
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"JupyterLab exited ({process.returncode}):\n{log.read_text()}")
        for info in runtime.glob("jpserver-*.json"):
            url = json.loads(info.read_text())["url"]
            try:
                status = f"{url}api/status?token={token}"
                with urllib.request.urlopen(status, timeout=5):
                    return url
            except OSError:
                pass
        time.sleep(0.5)
    pytest.fail(f"JupyterLab did not start in {STARTUP} s:\n{log.read_text()}")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab from this environment on a copy of notebooks/, on a free local port
    with a token; shut down after the tests, also when one fails."""
    home = tmp_path_factory.mktemp("lab")
    root = home / "notebooks"
    shutil.copytree(
        NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints")
    )
    write_settings(home / "settings")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH")
    }
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        IPYTHONDIR=str(home / "ipython"),
    )
    token = secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        "--port=0",  # a free port, which the server writes into its runtime folder
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        # window.jupyterapp: the tests open notebooks and talk to the kernel with it
        "--expose-app-in-browser",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = home / "lab.log"
    with log.open("w") as output:
        process = subprocess.Popen(
            command, cwd=home, env=env, stdout=output, stderr=subprocess.STDOUT
        )
    try:
        yield Lab(wait_for_server(process, home / "runtime", token, log), token, root)
    finally:
        process.terminate()  # the server shuts its kernels down
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def lab_page(browser, lab):
    """JupyterLab, loaded once in a page that opens one chapter after the other."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(STARTUP * 1000)
    page.goto(f"{lab.url}lab?reset&token={lab.token}")
    page.wait_for_function("window.jupyterapp !== undefined")
    page.evaluate("() => window.jupyterapp.restored.then(() => true)")
    yield page
    page.close()


def open_notebook(page, name):
    """Open the notebook ``name`` as the current tab, once its kernel is ready."""
    page.evaluate(
        """async (path) => {
            const app = window.jupyterapp;
            const panel = await app.commands.execute(
                'docmanager:open', {path, factory: 'Notebook'});
            await panel.context.ready;
            await panel.sessionContext.ready;
            app.shell.activateById(panel.id);
            return true;
        }""",
        name,
    )


def close_notebook(page):
    """Close the current notebook without saving, and shut its kernel down."""
    page.evaluate(
        """async () => {
            const panel = window.jupyterapp.shell.currentWidget;
            await panel.sessionContext.shutdown();
            panel.dispose();
            return true;
        }"""
    )


# What each markdown cell of the current notebook shows once rendered, without its math
# (whose TeX is not MyST) and without the hidden editor holding its source, or null
# while it is not rendered. Folded content counts: a closed fold is still in the page.
RENDERED_MARKDOWN = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    return Array.from(panel.node.querySelectorAll('.jp-MarkdownCell'), cell => {
        const shown = Array.from(
            cell.querySelector('.jp-Cell-inputArea').children,
        ).filter(child => !child.matches('.jp-InputPrompt, .jp-InputArea-editor'));
        if (!shown.some(child => child.childElementCount > 0)) return null;
        const copy = document.createElement('div');
        shown.forEach(child => copy.appendChild(child.cloneNode(true)));
        copy.querySelectorAll('.katex, mjx-container, .MathJax, math, script, style')
            .forEach(math => math.remove());
        return {text: copy.textContent, folds: copy.querySelectorAll('details').length};
    });
}"""


def rendered_markdown(page, expected_cells):
    """The rendered markdown cells of the current notebook, once every one of them is
    rendered and the rendering has settled (jupyterlab-myst resolves the references of
    the whole notebook after rendering each cell)."""
    deadline = time.monotonic() + STARTUP
    previous = None
    while time.monotonic() < deadline:
        cells = page.evaluate(RENDERED_MARKDOWN)
        done = len(cells) == expected_cells and None not in cells
        if done and cells == previous:
            return cells
        previous = cells if done else None
        page.wait_for_timeout(1000)
    pytest.fail(
        f"{expected_cells} markdown cells expected, rendered: "
        f"{sum(cell is not None for cell in cells)} of {len(cells)}"
    )


@pytest.mark.parametrize("name", chapters())
def test_myst_is_rendered(lab, lab_page, name):
    """No MyST shows as text in the rendered markdown cells, and the folds of the site
    (corrections, solutions) are folds here too."""
    sources = markdown_sources(lab.root / name)
    open_notebook(lab_page, name)
    try:
        cells = rendered_markdown(lab_page, len(sources))
    finally:
        close_notebook(lab_page)
    raw = []
    leftovers = leftovers_of(sources)
    for index, cell in enumerate(cells):
        for match in RAW_MYST.finditer(cell["text"]):
            raw.append(f"cell {index}: {match.group(0)!r}")
        raw += [f"cell {index}: {text!r}" for text in leftovers if text in cell["text"]]
    assert raw == [], f"{name}: MyST left as text in the rendered markdown: {raw}"
    folds = sum(cell["folds"] for cell in cells)
    assert folds >= folds_in(sources), (
        f"{name}: {folds_in(sources)} dropdowns in the source, {folds} folds rendered"
    )


def visible_frame(output):
    """The explorer's frame in view: the src and alt of its one visible image."""
    frames = output.locator("img").evaluate_all(
        "imgs => imgs.filter(img => img.offsetParent !== null)"
        ".map(img => [img.src, img.alt])"
    )
    return frames[0] if len(frames) == 1 else None


def run_cell(page, cell):
    """Run a code cell from the keyboard: select it, then Shift+Enter; return once it
    has run (its prompt, cleared before, shows its execution count)."""
    cell.locator(".jp-InputPrompt").first.click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "prompt => /^\\[\\d+\\]:$/.test(prompt.textContent.trim())",
        arg=cell.locator(".jp-InputPrompt").first.element_handle(),
    )


def in_kernel(page, code):
    """Run ``code`` in the current notebook's kernel, outside its cells."""
    reply = page.evaluate(
        """async (code) => {
            const kernel = window.jupyterapp.shell.currentWidget
                .sessionContext.session.kernel;
            const future = kernel.requestExecute({code, store_history: false});
            return (await future.done).content;
        }""",
        code,
    )
    assert reply["status"] == "ok", f"kernel: {reply.get('evalue')}"


def test_explorer_recomputes_in_a_kernel(lab, lab_page):
    """Chapter 3's explorer, run in a kernel: its slider, moved from the keyboard,
    recomputes the figure with pelib.

    On the site the slider switches between precomputed frames, in the browser. To see
    the kernel at work, every frame but the one in view is emptied first: the figure
    that appears after the key press can only have been drawn by the kernel."""
    page = lab_page
    cells = json.loads((lab.root / EXPLORER_CHAPTER).read_text())["cells"]
    sources = ["".join(cell["source"]) for cell in cells]
    made = [re.search(r"^(\w+) = explore\.\w+\(", source, re.M) for source in sources]
    at = next(index for index, found in enumerate(made) if found)
    name = made[at].group(1)
    imports = next(
        index
        for index, source in enumerate(sources)
        if re.search(r"^from pelib import .*\bexplore\b", source, re.M)
    )
    open_notebook(page, EXPLORER_CHAPTER)
    try:
        # As Edit, Clear Outputs of All Cells: the saved outputs and prompts go, so
        # what the cells show next comes from this kernel.
        page.evaluate(
            "() => window.jupyterapp.commands"
            ".execute('notebook:clear-all-cell-outputs').then(() => true)"
        )
        notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
        run_cell(page, notebook.nth(imports))
        run_cell(page, notebook.nth(at))
        output = notebook.nth(at).locator(".jp-OutputArea")
        handle = output.get_by_role("slider").first
        handle.wait_for()
        page.wait_for_function(
            "output => Array.from(output.querySelectorAll('img'))"
            ".some(img => img.offsetParent !== null)",
            arg=output.element_handle(),
        )
        src, alt = visible_frame(output)
        in_kernel(
            page,
            f"""import ipywidgets
def _frames(widget):
    if isinstance(widget, ipywidgets.Stack):
        return [frame for child in widget.children for frame in _frames(child)]
    return [widget]
_shown = {name}.view
while isinstance(_shown, ipywidgets.Stack):
    _shown = _shown.children[_shown.selected_index]
for _frame in _frames({name}.view):
    if _frame is not _shown:
        _frame.value = ""
""",
        )
        at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute(
            "aria-valuemax"
        )
        readout = output.locator(".widget-readout").first
        before = readout.inner_text().strip()
        handle.focus()
        page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
        deadline = time.monotonic() + 60
        frame = visible_frame(output)
        while (frame is None or frame[0] == src) and time.monotonic() < deadline:
            page.wait_for_timeout(500)
            frame = visible_frame(output)
        value = readout.inner_text().strip()
        assert value != before, f"the slider did not move from {before}"
        assert frame is not None, (
            f"slider moved to {value}: no figure, so nothing was recomputed"
        )
        assert frame[0] != src and frame[1] != alt, "the figure did not change"
        assert re.search(rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\d)", frame[1]), (
            f"the new figure does not name the slider's value {value}: {frame[1]!r}"
        )
    finally:
        close_notebook(page)
