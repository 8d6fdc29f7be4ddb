"""Sphinx extension of the book: one line per chapter while the book builds.

``make book`` and ``make test`` run Sphinx with ``--quiet``, which keeps its progress
messages out of the log, so a build that executes every notebook showed nothing for
minutes. This prints, on standard output and nothing else, one line per notebook when
it has been read (executed and parsed) and how long that took, and one line when
reading is done.
"""

import sys
import time

_started: dict[str, float] = {}


def _say(text):
    print(text, file=sys.stdout, flush=True)


def _is_notebook(app, docname):
    return str(app.env.doc2path(docname)).endswith(".ipynb")


def _source_read(app, docname, source):
    if _is_notebook(app, docname):
        _started[docname] = time.perf_counter()


def _doctree_read(app, doctree):
    docname = app.env.docname
    start = _started.pop(docname, None)
    if start is not None:
        _say(f"  ran {docname} in {time.perf_counter() - start:.0f} s")


def _read_done(app, env):
    _say("  every page read; writing the site")


def setup(app):
    app.connect("source-read", _source_read)
    app.connect("doctree-read", _doctree_read)
    app.connect("env-updated", _read_done)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
