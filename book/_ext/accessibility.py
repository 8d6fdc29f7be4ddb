"""Sphinx extension of the book: accessibility fixes of the theme's and docutils'
markup.

The browser tests audit every page with axe-core (tests/browser/test_accessibility.py);
each fix here removes the cause of a violation it reported:

- ``templates/``: two buttons of the theme whose accessible name left out their
  visible text (search, colour mode), replaced by templates of the same name found
  before the theme's.
- ``accessibility.css`` (in book/_assets): link colours with a contrast of at least
  4.5:1 on the tinted boxes of admonitions and proofs, where the theme's blue had
  4.29:1.
- The bibliography: docutils 0.21 marks each entry of a citation list with the
  DPUB-ARIA role ``doc-biblioentry``, deprecated since DPUB-ARIA 1.1 and not a list
  item, so the list (``role="list"``) had no items; entries are marked ``listitem``
  here.
- The toggle of a folded check (myst-nb's ``hide-input``): myst-nb names it "Toggle
  hidden content" with ``aria-label`` while it shows "Show the check", so its
  accessible name left out its visible text; here the name is the visible text.
"""

from html import escape
from pathlib import Path

from myst_nb.sphinx_ import HideCodeCellNode
from sphinx.writers.html5 import HTML5Translator

TEMPLATES = Path(__file__).parent / "templates"


class CitationListTranslator(HTML5Translator):
    """The HTML translator, with each citation of a citation list marked as a list
    item."""

    def visit_citation(self, node):
        super().visit_citation(node)
        # The last chunk is the entry's opening tag, written by the call above.
        self.body[-1] = self.body[-1].replace(
            'role="doc-biblioentry"', 'role="listitem"'
        )


def visit_hidden_input(self, node):
    """The opening of a folded check, as myst-nb writes it but without the
    ``aria-label`` that hid the toggle's visible text from assistive technology."""
    self.body.append(f'<details class="admonition hide {" ".join(node["classes"])}">\n')
    self.body.append("<summary>\n")
    for state, prompt in (("collapsed", "prompt_show"), ("expanded", "prompt_hide")):
        self.body.append(
            f'<p class="{state} admonition-title">{escape(node[prompt])}</p>\n'
        )
    self.body.append("</summary>\n")


def depart_hidden_input(self, node):
    self.body.append("</details>\n")


def _own_toggle(app):
    # After every extension's setup, so this replaces myst-nb's own handlers.
    app.add_node(
        HideCodeCellNode, override=True, html=(visit_hidden_input, depart_hidden_input)
    )


def _templates_first(app, config):
    # Before the theme's own component folders, which the themes append to this list.
    config.templates_path.insert(0, str(TEMPLATES))


def setup(app):
    app.connect("config-inited", _templates_first)
    app.connect("builder-inited", _own_toggle)
    # The theme (pydata-sphinx-theme) mixes its own behaviour into the translator
    # registered here.
    app.set_translator("html", CitationListTranslator, override=True)
    app.add_css_file("accessibility.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
