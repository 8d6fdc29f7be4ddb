"""Every link of the built site resolves: each same-site target is served, and each
#fragment is an id there.

The crawl starts at every page of the site (the table of contents, and the index and
search pages that Sphinx adds) and follows every same-site link to an HTML page. Links
are read from each page's DOM once it has loaded, so links that scripts add count too;
ids likewise. Targets that are not HTML pages (downloads, images) are requested and must
answer 200. Links to other hosts are collected, not followed: the tests run offline.
"""

import re
from collections import deque
from dataclasses import dataclass, field
from urllib.parse import unquote, urlparse

import pytest
from conftest import site_pages, toc_pages

LINKS = (
    "() => Array.from(document.querySelectorAll('a[href], area[href]'), a => a.href)"
)
# A page that only sends the browser elsewhere (Jupyter Book's index.html).
REFRESH = re.compile(r"<meta[^>]+http-equiv=[\"']?refresh", re.IGNORECASE)
IDS = (
    "() => Array.from(document.querySelectorAll('[id], a[name]'), "
    "e => e.id || e.getAttribute('name'))"
)


@dataclass
class Crawl:
    """What a crawl of the site found: paths are relative to the site root, fragments
    decoded."""

    #: For each HTML page crawled, the ids of its elements (its anchors).
    anchors: dict[str, set[str]] = field(default_factory=dict)
    #: For each HTML page crawled, the same-site links it has, as (target path,
    #: fragment).
    links: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    #: Every target that was requested (pages and other files), with the HTTP status it
    #: got.
    status: dict[str, int] = field(default_factory=dict)
    #: Links to other hosts (not followed).
    external: set[str] = field(default_factory=set)


def broken_links(crawl: Crawl) -> list[str]:
    """Every link of ``crawl`` whose target is not served, or whose fragment is not an
    id of its target page."""
    broken = []
    for page, links in sorted(crawl.links.items()):
        for target, fragment in sorted(links):
            if crawl.status.get(target) != 200:
                broken.append(
                    f"{page}: {target} "
                    f"(HTTP {crawl.status.get(target, 'not requested')})"
                )
            elif (
                fragment
                and target in crawl.anchors
                and fragment not in crawl.anchors[target]
            ):
                broken.append(f"{page}: {target}#{fragment} (no element with that id)")
            elif fragment and target not in crawl.anchors and target.endswith(".html"):
                broken.append(
                    f"{page}: {target}#{fragment} "
                    "(a page that redirects has no anchors)"
                )
    return broken


def same_site_target(href: str, site: str) -> tuple[str, str] | None:
    """``(path, fragment)`` of a link on ``site``, or None for another host or
    scheme."""
    url = urlparse(href)
    if url.scheme not in ("http", "https") or url.netloc != urlparse(site).netloc:
        return None
    path = unquote(url.path).lstrip("/")
    if path == "" or path.endswith("/"):
        path += "index.html"
    return path, unquote(url.fragment)


def crawl_site(browser, site: str, start: list[str]) -> Crawl:
    """Crawl ``site`` from the pages ``start`` (paths under the site root)."""
    crawl = Crawl()
    queue, queued = deque(start), set(start)
    page = browser.new_page()
    try:
        while queue:
            path = queue.popleft()
            response = page.request.get(f"{site}/{path}")
            crawl.status[path] = response.status
            if response.status != 200 or REFRESH.search(response.text()):
                # not served, or a redirect (index.html): nothing of its own to read
                continue
            page.goto(f"{site}/{path}", wait_until="networkidle")
            crawl.anchors[path] = set(page.evaluate(IDS))
            crawl.links[path] = set()
            for href in page.evaluate(LINKS):
                target = same_site_target(href, site)
                if target is None:
                    if urlparse(href).scheme in ("http", "https"):
                        crawl.external.add(href)
                    continue
                crawl.links[path].add(target)
                if target[0].endswith(".html"):
                    if target[0] not in queued:
                        queued.add(target[0])
                        queue.append(target[0])
                elif target[0] not in crawl.status:
                    crawl.status[target[0]] = page.request.get(
                        f"{site}/{target[0]}"
                    ).status
    finally:
        page.close()
    return crawl


@pytest.fixture(scope="module")
def crawl(browser, site_url):
    return crawl_site(browser, site_url, site_pages())


def test_every_link_and_anchor_resolves(crawl):
    assert broken_links(crawl) == []


def test_the_crawl_covers_the_book(crawl):
    # Every page was read, and the crawl found what a book of this size has: downloads,
    # and links into the middle of pages.
    assert set(site_pages()) <= set(crawl.anchors)
    assert {"genindex.html", "search.html"} <= set(crawl.anchors) and set(
        toc_pages()
    ) <= set(crawl.anchors)
    assert any(
        target.startswith("_sources/")
        for links in crawl.links.values()
        for target, _ in links
    )
    anchored = {
        (target, fragment)
        for links in crawl.links.values()
        for target, fragment in links
        if fragment
    }
    assert len(anchored) > 100
    assert sum(len(links) for links in crawl.links.values()) > 500


def test_broken_links_finds_a_missing_page_a_missing_anchor_and_a_failed_file():
    crawl = Crawl(
        anchors={"a.html": {"top", "eq-1"}, "b.html": {"x"}},
        links={
            "a.html": {
                ("b.html", "x"),
                ("b.html", "y"),
                ("c.html", ""),
                ("a.html", "eq-1"),
                ("f.ipynb", ""),
            },
            "b.html": {("a.html", ""), ("index.html", "z"), ("g.png", "")},
        },
        status={
            "a.html": 200,
            "b.html": 200,
            "c.html": 404,
            "f.ipynb": 200,
            "index.html": 200,
            "g.png": 500,
        },
    )
    assert broken_links(crawl) == [
        "a.html: b.html#y (no element with that id)",
        "a.html: c.html (HTTP 404)",
        "b.html: g.png (HTTP 500)",
        "b.html: index.html#z (a page that redirects has no anchors)",
    ]


def test_same_site_target():
    site = "http://127.0.0.1:8000"
    assert same_site_target(
        f"{site}/notebooks/01_formula.html#equation-pe%2Dvector", site
    ) == ("notebooks/01_formula.html", "equation-pe-vector")
    assert same_site_target(f"{site}/", site) == ("index.html", "")
    assert same_site_target("http://127.0.0.1:9000/a.html", site) is None
    assert same_site_target("mailto:someone@example.org", site) is None
    assert same_site_target("https://arxiv.org/abs/1706.03762", site) is None
