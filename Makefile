# Every step CI runs is a target here: .ci/run calls `make test`.
# Each target sets up .venv on first use (the pinned lock, then pelib in editable mode).

PYTHON ?= python3
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
STAMP  := $(VENV)/.installed

# Kernels started by Jupyter Book, nbval and JupyterLab resolve to this environment.
export PATH := $(BIN):$(PATH)
# Silences debugpy's note about frozen modules, which kernels would print on stderr.
export PYDEVD_DISABLE_FILE_VALIDATION := 1

NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
BUILD := jupyter-book build . --all --warningiserror --nitpick --keep-going

.PHONY: help env assets book test test-python test-notebooks test-book test-browser bench lab clean

help:
	@echo "make book   build the HTML book into _build/html"
	@echo "make test   unit and property tests, nbval over every notebook, strict book build, browser tests"
	@echo "make bench  performance targets, measured as ratios in one process"
	@echo "make lab    JupyterLab on notebooks/ with a kernel that has pelib"
	@echo "make clean  remove _build"

env: $(STAMP)

# Browser assets of the site (MathJax, require.js, the widget manager), from npm.
NODE_STAMP := node_modules/.package-lock.json
VENDOR     := _vendor/.copied
WIDGETS    := node_modules/@jupyter-widgets/html-manager/dist

$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "Node.js with npm is needed to fetch the site's assets (see README)"; exit 1; }
	npm ci --no-audit --no-fund
	@touch $@

$(VENDOR): $(NODE_STAMP)
	rm -rf _vendor && mkdir -p _vendor/widgets
	cp -r node_modules/mathjax/es5 _vendor/mathjax
	cp node_modules/requirejs/require.js $(WIDGETS)/embed-amd.js _vendor/widgets/
	cp $(WIDGETS)/*.woff $(WIDGETS)/*.woff2 $(WIDGETS)/*.ttf $(WIDGETS)/*.eot $(WIDGETS)/*.svg _vendor/widgets/
	@touch $@

assets: $(VENDOR)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(BIN)/python -m pip check
	@touch $@

book: $(STAMP) $(VENDOR)
	$(BUILD)
	@echo
	@echo "Built. Open $(CURDIR)/_build/html/index.html in a browser,"
	@echo "or serve it: python3 -m http.server --directory _build/html 8000"

test: test-python test-notebooks test-book test-browser

test-python: $(STAMP)
	python -m pytest tests pelib --ignore=tests/browser

test-notebooks: $(STAMP)
	python -m pytest $(NBVAL) -n 2 --dist loadfile notebooks

test-book: $(STAMP) $(VENDOR)
	$(BUILD)

# Browser tests of the built site in Debian's Chromium (screenshots in _build/screenshots).
# SKIP_BROWSER_TESTS=1 skips them on a machine without Chromium.
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM

test-browser: $(STAMP)
ifeq ($(SKIP_BROWSER_TESTS),1)
	@echo "Browser tests skipped (SKIP_BROWSER_TESTS=1)."
else
	@test -x $(CHROMIUM) || { echo "Chromium is needed for the browser tests: sudo apt-get install chromium chromium-driver"; \
		echo "(or run with SKIP_BROWSER_TESTS=1 to skip them)"; exit 1; }
	python -m pytest tests/browser
endif

bench: $(STAMP)
	python benchmarks/run.py

lab: $(STAMP)
	jupyter lab notebooks

clean:
	rm -rf _build _vendor
