"""Serve the built site on localhost and drive Debian's Chromium with Playwright.

The site is _build/html, or the folder named by the environment variable SITE_DIR.
"""

import functools
import http.server
import os
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("SITE_DIR") or ROOT / "_build" / "html").resolve()
SCREENSHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# axe-core, from npm (package.json); injected into the pages by the tests, never shipped
# with the site.
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# Flags for a headless run on a machine without a display or outside network (and, in a
# container, with a small /dev/shm).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def toc_pages():
    """Every page of the table of contents, as a path under the site root."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [
        chapter["file"] for part in toc["parts"] for chapter in part["chapters"]
    ]
    return [f"{name}.html" for name in files]


def site_pages():
    """Every HTML page of the built site: the table of contents and the pages Sphinx
    adds (index, search).

    Files under the site's own folders (_static, _sources, _images) are assets, not
    pages, and index.html only redirects to the first page. Without a built site, the
    table of contents (the tests then fail, saying so).
    """
    toc = toc_pages()
    if not SITE.is_dir():
        return toc
    found = {
        path.relative_to(SITE).as_posix()
        for path in SITE.rglob("*.html")
        if not path.relative_to(SITE).parts[0].startswith("_")
    }
    return toc + sorted(found - set(toc) - {"index.html"})


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="session")
def site_url():
    if not (SITE / "index.html").exists():
        pytest.fail(f"no built site in {SITE}: run `make book` first")
    handler = functools.partial(QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: "
            "apt-get install chromium chromium-driver"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


class PageLog:
    """Everything a page asked the network for, and everything that went wrong while
    loading it."""

    def __init__(self, page):
        self.requests, self.failed, self.errors = [], [], []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on(
            "requestfailed",
            lambda request: self.failed.append(f"{request.url} ({request.failure})"),
        )
        page.on(
            "response",
            lambda response: (
                response.status >= 400
                and self.failed.append(f"{response.url} (HTTP {response.status})")
            ),
        )
        page.on(
            "console",
            lambda message: (
                message.type == "error" and self.errors.append(message.text)
            ),
        )
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def foreign(self):
        return [
            url
            for url in self.requests
            if urlparse(url).scheme not in ("data", "blob")
            and urlparse(url).hostname not in LOCAL_HOSTS
        ]


def open_page(browser, url):
    """Open ``url`` in a new page and wait until it has loaded, typeset its math and
    gone quiet."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log = PageLog(page)
    page.goto(url, wait_until="networkidle")
    # MathJax typesets asynchronously; wait for it where the page loads it.
    page.wait_for_function(
        "!window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)"
    )
    page.evaluate(
        "window.MathJax ? window.MathJax.startup.promise.then(() => true) : true"
    )
    page.wait_for_load_state("networkidle")
    return page, log


def open_folds(page):
    """Open every fold of the page as a reader who opens them all would: the folded
    checks (``details``) and the dropdown admonitions (corrections, solutions), which
    sphinx-togglebutton hides with the class ``toggle-hidden``."""
    page.evaluate(
        "() => {\n"
        "        document.querySelectorAll('details').forEach(d => d.open = true);\n"
        "        document.querySelectorAll('.toggle-hidden')"
        ".forEach(e => e.classList.remove('toggle-hidden'));\n"
        "    }"
    )
    # Opening a fold starts sphinx-togglebutton's fade-in (0.3 s of opacity): wait for
    # every finite animation to end, or an audit on a busy machine sees half-faded text
    # and reports its contrast.
    page.evaluate(
        "() => Promise.all(document.getAnimations()"
        ".filter(a => a.effect && isFinite(a.effect.getComputedTiming().endTime))"
        ".map(a => a.finished.catch(() => null)))"
    )
