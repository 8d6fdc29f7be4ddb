"""The built site in a real browser: self-contained, typeset, complete, and interactive
without a kernel."""

import hashlib
import re

import pytest
from conftest import SCREENSHOTS, open_folds, open_page, toc_pages

EXPLORER_PAGES = [
    "notebooks/01_formula.html",
    "notebooks/03_shift_property.html",
    "notebooks/04_wavelengths.html",
    "notebooks/05_sin_only.html",
]


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
    text = page.evaluate(
        "() => {\n"
        "        const main = document.querySelector('main') || document.body;\n"
        "        const copy = main.cloneNode(true);\n"
        "        copy.querySelectorAll('pre, code, script, mjx-container')"
        ".forEach(e => e.remove());\n"
        "        return copy.innerText;\n"
        "    }"
    )
    if has_math:
        assert page.locator("mjx-container").count() > 0, (
            f"{name}: math present but not typeset"
        )
    assert "$$" not in text and "\\begin{" not in text, (
        f"{name}: raw TeX left in the page"
    )
    # TeX that MathJax could not read is typeset as an error message in its place.
    errors = page.evaluate(
        "() => Array.from(document.querySelectorAll('mjx-merror'), error => {\n"
        "        const item = MathJax.startup.document"
        ".getMathItemsWithin(error.closest('mjx-container'))[0];\n"
        "        return error.getAttribute('data-mjx-error') + ': ' + "
        "(item ? item.math : '?');\n"
        "    })"
    )
    assert errors == [], f"{name}: TeX that MathJax cannot typeset: {errors}"


def test_tables_are_rendered_as_tables(loaded):
    # A Markdown table that the parser did not take (printed by a cell, say) shows as
    # lines of pipes in a paragraph.
    name, page, _ = loaded
    paragraphs = page.evaluate(
        "() => Array.from(document.querySelectorAll('main p'), p => {\n"
        "        const copy = p.cloneNode(true);\n"
        "        copy.querySelectorAll('mjx-container, .math, code')"
        ".forEach(e => e.remove());\n"
        "        return copy.innerText;\n"
        "    })"
    )
    rows = [
        line
        for text in paragraphs
        for line in text.splitlines()
        if re.fullmatch(r"\s*\|(?:[^|\n]+\|){2,}\s*", line)
    ]
    assert rows == [], f"{name}: Markdown table rows left as text: {rows[:3]}"


def test_images_load_and_have_alt_text(loaded):
    name, page, _ = loaded
    images = page.evaluate(
        "() => Array.from(document.querySelectorAll('main img')).map(img => ({\n"
        "        src: img.currentSrc.slice(0, 80), complete: img.complete, "
        "width: img.naturalWidth,\n"
        "        alt: img.getAttribute('alt') || '', "
        "visible: img.offsetParent !== null}))"
    )
    for image in images:
        if not image["visible"]:
            continue  # frames of an explorer that are not selected are not rendered
        assert image["complete"] and image["width"] > 0, (
            f"{name}: image did not load: {image['src']}"
        )
        assert len(image["alt"].strip()) > 10, (
            f"{name}: image without alt text: {image['src']}"
        )


def test_screenshot(loaded):
    name, page, _ = loaded
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / (name.replace("/", "_").removesuffix(".html") + ".png")
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000


def test_nothing_is_cut_off_at_1280_px(loaded):
    # At the viewport of the tests (1280 x 900), with every fold open, no code cell and
    # no displayed equation is wider than the column that holds it (README, "Writing
    # a chapter"), and what cells print wraps instead of scrolling. It runs after the
    # screenshot, which shows the page as a reader first sees it, folded.
    name, page, _ = loaded
    open_folds(page)
    wide = page.evaluate(
        "() => {\n"
        "        const found = [];\n"
        "        for (const pre of document.querySelectorAll('main div.cell pre')) {\n"
        "            if (pre.scrollWidth > pre.clientWidth + 1)\n"
        "                found.push('code: ' + pre.innerText.slice(0, 80));\n"
        "        }\n"
        "        for (const math of document.querySelectorAll("
        "'main mjx-container[display=\"true\"]')) {\n"
        "            const inner = math.firstElementChild.getBoundingClientRect();\n"
        "            const outer = math.getBoundingClientRect();\n"
        "            if (inner.width > outer.width + 1 || math.scrollWidth > "
        "math.clientWidth + 1)\n"
        "                found.push('equation: ' + (MathJax.startup.document\n"
        "                    .getMathItemsWithin(math)[0] || {math: '?'}).math"
        ".slice(0, 80));\n"
        "        }\n"
        "        return found;\n"
        "    }"
    )
    assert wide == [], f"{name}: cut off at 1280 px: {wide}"


def visible_frame(page, explorer):
    """A fingerprint of the frame the explorer shows now."""
    sources = explorer.locator("img").evaluate_all(
        "imgs => imgs.filter(img => img.offsetParent !== null).map(img => img.src)"
    )
    assert len(sources) == 1, f"expected one visible frame, found {len(sources)}"
    return hashlib.sha256(sources[0].encode()).hexdigest()


def press_and_check(page, explorer, handle, key):
    """Press ``key`` on the focused slider ``handle``; return the frame shown and what
    the handle announces."""
    page.keyboard.press(key)
    page.wait_for_timeout(300)
    readout = handle.locator(
        "xpath=ancestor::*[contains(@class, 'widget-slider')][1]"
        "//*[contains(@class, 'widget-readout')]"
    )
    return (
        visible_frame(page, explorer),
        handle.get_attribute("aria-valuetext"),
        readout.inner_text().strip(),
    )


@pytest.mark.parametrize("name", EXPLORER_PAGES)
def test_explorer_works_without_a_kernel_from_the_keyboard(browser, site_url, name):
    """Each slider is named by its label, sits in the tab order, and its arrow keys
    switch the frame."""
    page, log = open_page(browser, f"{site_url}/{name}")
    page.wait_for_selector(".widget-slider [role=slider]", timeout=15_000)
    explorer = (
        page.locator(".widget-vbox").filter(has=page.locator(".widget-slider")).first
    )
    labels = explorer.locator(".widget-slider .widget-label").all_inner_texts()
    assert labels, f"{name}: no slider"
    for label in labels:
        # Found as assistive technology finds it: by its role and its name.
        handle = explorer.get_by_role("slider", name=label, exact=True)
        assert handle.count() == 1, f"{name}: no slider named {label!r}"
        assert handle.get_attribute("tabindex") == "0", (
            f"{name}: slider {label!r} is not in the tab order"
        )
        before = visible_frame(page, explorer)
        at_start = handle.get_attribute("aria-valuenow") == handle.get_attribute(
            "aria-valuemin"
        )
        forth, back = (
            ("ArrowRight", "ArrowLeft") if at_start else ("ArrowLeft", "ArrowRight")
        )
        handle.focus()
        after, announced, shown = press_and_check(page, explorer, handle, forth)
        assert after != before, (
            f"{name}: {forth} on slider {label!r} did not change the frame"
        )
        assert announced == shown, (
            f"{name}: slider {label!r} announces {announced!r} but shows {shown!r}"
        )
        restored, announced, shown = press_and_check(page, explorer, handle, back)
        assert restored == before, (
            f"{name}: {back} on slider {label!r} did not bring the first frame back"
        )
        assert announced == shown
    assert log.errors == [] and log.failed == [] and log.foreign() == []
    page.close()
