"""The built site in a real browser: self-contained, typeset, complete, and interactive without a kernel."""

import hashlib
from urllib.parse import urlparse

import pytest

from conftest import SCREENSHOTS, toc_pages

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
EXPLORER_PAGES = ["notebooks/01_formula.html", "notebooks/03_shift_property.html",
                  "notebooks/04_wavelengths.html", "notebooks/05_sin_only.html"]


class PageLog:
    """Everything a page asked the network for, and everything that went wrong while loading it."""

    def __init__(self, page):
        self.requests, self.failed, self.errors = [], [], []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("requestfailed", lambda request: self.failed.append(f"{request.url} ({request.failure})"))
        page.on("response", lambda response: response.status >= 400 and self.failed.append(
            f"{response.url} (HTTP {response.status})"))
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def foreign(self):
        return [url for url in self.requests
                if urlparse(url).scheme not in ("data", "blob") and urlparse(url).hostname not in LOCAL_HOSTS]


def open_page(browser, url):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log = PageLog(page)
    page.goto(url, wait_until="networkidle")
    # MathJax typesets asynchronously; wait for it where the page loads it.
    page.wait_for_function("!window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
    page.evaluate("window.MathJax ? window.MathJax.startup.promise.then(() => true) : true")
    page.wait_for_load_state("networkidle")
    return page, log


@pytest.fixture(scope="module", params=toc_pages())
def loaded(request, browser, site_url):
    page, log = open_page(browser, f"{site_url}/{request.param}")
    yield request.param, page, log
    page.close()


def test_no_errors_no_failed_or_foreign_requests(loaded):
    name, page, log = loaded
    assert log.errors == [], f"{name}: console errors {log.errors}"
    assert log.failed == [], f"{name}: failed requests {log.failed}"
    assert log.foreign() == [], f"{name}: requests to other hosts {log.foreign()}"


def test_math_is_typeset(loaded):
    name, page, _ = loaded
    has_math = page.locator(".math, span.math, div.math").count() > 0
    text = page.evaluate("""() => {
        const main = document.querySelector('main') || document.body;
        const copy = main.cloneNode(true);
        copy.querySelectorAll('pre, code, script, mjx-container').forEach(e => e.remove());
        return copy.innerText;
    }""")
    if has_math:
        assert page.locator("mjx-container").count() > 0, f"{name}: math present but not typeset"
    assert "$$" not in text and "\\begin{" not in text, f"{name}: raw TeX left in the page"


def test_images_load_and_have_alt_text(loaded):
    name, page, _ = loaded
    images = page.evaluate("""() => Array.from(document.querySelectorAll('main img')).map(img => ({
        src: img.currentSrc.slice(0, 80), complete: img.complete, width: img.naturalWidth,
        alt: img.getAttribute('alt') || '', visible: img.offsetParent !== null}))""")
    for image in images:
        if not image["visible"]:
            continue  # frames of an explorer that are not selected are not rendered
        assert image["complete"] and image["width"] > 0, f"{name}: image did not load: {image['src']}"
        assert len(image["alt"].strip()) > 10, f"{name}: image without alt text: {image['src']}"


def test_screenshot(loaded):
    name, page, _ = loaded
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / (name.replace("/", "_").removesuffix(".html") + ".png")
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000


def visible_frame(page, explorer):
    """A fingerprint of the frame the explorer shows now."""
    sources = explorer.locator("img").evaluate_all(
        "imgs => imgs.filter(img => img.offsetParent !== null).map(img => img.src)")
    assert len(sources) == 1, f"expected one visible frame, found {len(sources)}"
    return hashlib.sha256(sources[0].encode()).hexdigest()


@pytest.mark.parametrize("name", EXPLORER_PAGES)
def test_explorer_works_without_a_kernel(browser, site_url, name):
    page, log = open_page(browser, f"{site_url}/{name}")
    page.wait_for_selector(".widget-slider", timeout=15_000)
    explorer = page.locator(".widget-vbox").filter(has=page.locator(".widget-slider")).first
    before = visible_frame(page, explorer)
    handle = explorer.locator(".noUi-handle").first
    handle.focus()
    page.keyboard.press("ArrowLeft")  # no explorer starts at its first value
    page.wait_for_timeout(300)
    after = visible_frame(page, explorer)
    assert after != before, f"{name}: moving the slider did not change the frame"
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)
    assert visible_frame(page, explorer) == before
    assert log.errors == [] and log.failed == [] and log.foreign() == []
    page.close()
