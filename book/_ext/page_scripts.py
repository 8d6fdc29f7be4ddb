"""Sphinx extension of the book: each page loads each script once.

sphinx-thebe registers its inline configuration once per read of the sources,
and Jupyter Book can read them twice in one build, so a page would declare
``THEBE_JS_URL`` twice and the browser reports a script error. The scripts of a
page are deduplicated here, keeping the first of each.
"""


def _unique_scripts(app, pagename, templatename, context, doctree):
    seen, unique = set(), []
    for script in context.get("script_files", []):
        # An inline script has filename None or "", depending on who added it.
        key = (
            getattr(script, "filename", None) or "",
            tuple(sorted(getattr(script, "attributes", {}).items())),
        )
        if key not in seen:
            seen.add(key)
            unique.append(script)
    # In place: extensions that run later (MathJax, widgets) add their scripts to this
    # same list.
    context["script_files"][:] = unique


def setup(app):
    # Early: html-page-context stops at the first handler that returns a template name.
    app.connect("html-page-context", _unique_scripts, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
