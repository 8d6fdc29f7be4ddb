"""The project's tooling: kernels of the environment keep their log to what a reader
needs."""

import filecmp
import inspect
import logging
import runpy
import sys
from pathlib import Path

import ipykernel.kernelapp
from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parents[1]
KERNEL_CONFIG = ROOT / "jupyter" / "ipython_kernel_config.py"


class _Config:
    """Stands in for the traitlets config that IPython hands to the file."""

    def __init__(self):
        self.IPKernelApp = type("Section", (), {})()


def record(message):
    return logging.LogRecord(
        "IPKernelApp", logging.WARNING, __file__, 1, message, (), None
    )


def test_the_kernel_config_drops_only_the_plaintext_tcp_note():
    config = _Config()
    namespace = runpy.run_path(
        str(KERNEL_CONFIG), init_globals={"get_config": lambda: config}
    )
    logging_config = config.IPKernelApp.logging_config
    keep = logging_config["filters"]["plaintext_tcp_note"]["()"]()
    assert logging_config["handlers"]["console"]["filters"] == ["plaintext_tcp_note"]
    assert not keep(
        record(
            namespace["PLAINTEXT_TCP_NOTE"]
            + " All communication ... is sent in plain text."
        )
    )
    assert keep(record("Parent appears to have exited, shutting down."))
    assert keep(record("Kernel is running over TCP"))


def test_the_environment_has_the_kernel_config():
    installed = Path(sys.prefix) / "etc" / "ipython" / "ipython_kernel_config.py"
    assert installed.exists() and filecmp.cmp(
        installed, KERNEL_CONFIG, shallow=False
    ), f"{installed} is not {KERNEL_CONFIG}: run `make env`"


def test_a_kernel_logs_no_plaintext_tcp_note_but_its_other_warnings(tmp_path):
    # Started as Jupyter Book and nbval start it: over TCP, without CurveZMQ keys.
    manager = KernelManager(kernel_name="python3")
    with open(tmp_path / "stderr", "w") as stderr:
        manager.start_kernel(stderr=stderr, cwd=str(tmp_path))
        client = manager.client()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=60)
            connection = manager.get_connection_info()
            client.execute_interactive(
                "from ipykernel.kernelapp import IPKernelApp\n"
                "IPKernelApp.instance().log.warning('a warning of the kernel itself')",
                timeout=60,
            )
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
    assert connection["transport"] == "tcp" and not connection.get("curve_publickey")
    log = (tmp_path / "stderr").read_text()
    assert "a warning of the kernel itself" in log
    assert "without encryption" not in log, log


def test_ipykernel_still_words_the_note_as_the_filter_expects():
    # If ipykernel rewords its note, the filter lets it through: the test above then
    # fails too, but this says why.
    source = inspect.getsource(ipykernel.kernelapp)
    namespace = runpy.run_path(str(KERNEL_CONFIG), init_globals={"get_config": _Config})
    assert f'"{namespace["PLAINTEXT_TCP_NOTE"]}"' in source


OTHER_MACHINE = ROOT / "tests" / "other_machine.py"
SEEN = (
    "import json, numpy; from threadpoolctl import threadpool_info; "
    "from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__; "
    "print(json.dumps([[i.get('architecture') for i in threadpool_info() "
    "if i['user_api'] == 'blas'], "
    "[f for f in __cpu_dispatch__ if __cpu_features__.get(f)]]))"
)


def _seen(prefix=()):
    import json
    import subprocess

    done = subprocess.run(
        [*prefix, sys.executable, "-c", SEEN],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout, json.loads(done.stdout.splitlines()[-1])


def test_other_machine_changes_what_it_says_and_says_what_it_skips():
    # The run "as on another machine" (make test-other-machine) must differ from the
    # native one in every setting it reports, and name every setting it cannot make.
    _, (native_blas, native_features) = _seen()
    text, (blas, features) = _seen([sys.executable, str(OTHER_MACHINE)])
    if "OPENBLAS_CORETYPE=" in text:
        assert blas != native_blas
    else:
        assert "skipped: another OpenBLAS kernel" in text
    if "NPY_DISABLE_CPU_FEATURES=" in text:
        assert native_features and not features
    else:
        assert "skipped: NumPy's SIMD loops off" in text and not native_features


def test_the_book_build_prints_one_line_per_notebook(capsys):
    """book/_ext/progress.py: a line for each notebook read, none for other pages."""
    progress = runpy.run_path(str(ROOT / "book" / "_ext" / "progress.py"))

    class Env:
        docname = ""

        def doc2path(self, docname):
            return ROOT / (
                docname + (".md" if docname.startswith("book/") else ".ipynb")
            )

    class App:
        env = Env()

    app = App()
    for docname in ("notebooks/01_formula", "book/intro"):
        progress["_source_read"](app, docname, [""])
        app.env.docname = docname
        progress["_doctree_read"](app, None)
    progress["_read_done"](app, app.env)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("  ran notebooks/01_formula in ") and lines[0].endswith(
        " s"
    )
    assert lines[1:] == ["  every page read; writing the site"]
