"""Every page of the book offers its source to download: its notebook (.ipynb) or its
Markdown file (.md).

The theme's download menu holds the link; each link is followed, must answer 200, and
must give the page's own source: a valid notebook (nbformat) whose title is the page's,
or the Markdown file whose title is the page's.
"""

import nbformat
import pytest
from conftest import ROOT, open_page, toc_pages


def source_suffix(name: str) -> str:
    """The suffix of the source file of the page ``name``
    (``notebooks/01_formula.html``)."""
    stem = ROOT / name.removesuffix(".html")
    suffixes = [
        suffix for suffix in (".ipynb", ".md") if stem.with_suffix(suffix).exists()
    ]
    assert len(suffixes) == 1, f"{name}: expected one source file, found {suffixes}"
    return suffixes[0]


def title(markdown: str) -> str:
    """The text of the first level-1 heading of ``markdown``."""
    return next(
        line[2:].strip() for line in markdown.splitlines() if line.startswith("# ")
    )


@pytest.mark.parametrize("name", toc_pages())
def test_page_offers_its_source_for_download(browser, site_url, name):
    suffix = source_suffix(name)
    page, _ = open_page(browser, f"{site_url}/{name}")
    heading = page.locator("main article h1").first.inner_text()
    # The menu opens from its button, as a reader opens it.
    page.locator(".dropdown-download-buttons > button").click()
    links = page.locator(".dropdown-download-buttons .dropdown-menu a[href]")
    offered = {
        link.inner_text().strip(): link.evaluate("a => a.href")
        for link in links.all()
        if link.is_visible()
    }
    assert suffix in offered, (
        f"{name}: the download menu offers {sorted(offered)}, not {suffix}"
    )
    response = page.request.get(offered[suffix])
    status, text = response.status, response.text()
    page.close()
    assert status == 200, f"{name}: {offered[suffix]} answered HTTP {status}"
    if suffix == ".ipynb":
        notebook = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
        nbformat.validate(notebook)  # raises ValidationError on an invalid notebook
        first = next(cell for cell in notebook.cells if cell.cell_type == "markdown")
        assert title(first.source) in heading, (
            f"{name}: the notebook offered is {title(first.source)!r}"
        )
    else:
        assert title(text) in heading, f"{name}: the file offered is {title(text)!r}"
