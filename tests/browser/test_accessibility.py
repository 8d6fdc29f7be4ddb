"""An accessibility audit of every page with axe-core: no serious or critical violation.

axe-core comes from npm (package.json pins it; `make test` installs it into
node_modules) and is injected into each page once the page has loaded, typeset its math
and drawn its widgets. It runs its default rule set: the WCAG 2.0, 2.1 and 2.2 rules of
levels A and AA, and its best practices. Moderate and minor findings are not failures.
"""

import pytest
from conftest import AXE, SITE, open_folds, open_page, site_pages

FAILING_IMPACTS = {"serious", "critical"}


def audit(page) -> list[dict]:
    """The violations axe-core finds on ``page``: rule, impact, help text and the
    elements concerned."""
    if not AXE.exists():
        pytest.fail(
            f"axe-core not found at {AXE}: run `npm ci` "
            "(or any make target that builds the book)"
        )
    page.add_script_tag(path=str(AXE))
    return page.evaluate(
        "() => axe.run(document).then(results => results.violations.map(v => ({\n"
        "        id: v.id, impact: v.impact, help: v.help,\n"
        "        nodes: v.nodes.map(n => n.target.join(' ') + ': ' + "
        "n.html.slice(0, 160))})))"
    )


def wait_for_widgets(page):
    # The widget manager draws the explorers after the page has loaded; audit them
    # drawn.
    if page.locator('script[type="application/vnd.jupyter.widget-view+json"]').count():
        page.wait_for_selector(".widget-slider [role=slider]", timeout=15_000)


@pytest.mark.parametrize("name", site_pages())
def test_no_serious_or_critical_accessibility_violation(browser, site_url, name):
    page, _ = open_page(browser, f"{site_url}/{name}")
    wait_for_widgets(page)
    # The folded checks and corrections are audited open, as a reader who opens them
    # sees them; the toggles themselves are audited either way.
    open_folds(page)
    violations = audit(page)
    page.close()
    failing = [v for v in violations if v["impact"] in FAILING_IMPACTS]
    assert not failing, f"{name}: " + "\n".join(
        f"{v['impact']} {v['id']} ({v['help']}) "
        f"on {len(v['nodes'])} elements: {v['nodes'][:3]}"
        for v in failing
    )


def test_axe_is_not_shipped_with_the_site():
    assert (SITE / "index.html").exists(), f"no built site in {SITE}"
    assert [path.name for path in SITE.rglob("axe*.js")] == []
