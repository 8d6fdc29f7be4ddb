# Every step CI runs is a target here: .ci/run and .github/workflows/ci.yml call `make test`.
# Each target sets up what it needs on first use: .venv (the pinned lock, then pelib in editable mode),
# the site's browser assets from npm, and Chromium for the browser tests.

PYTHON ?= python3
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
STAMP  := $(VENV)/.installed

# Kernels started by Jupyter Book, nbval and JupyterLab resolve to this environment.
export PATH := $(BIN):$(PATH)
# Silences debugpy's note about frozen modules, which kernels would print on stderr.
export PYDEVD_DISABLE_FILE_VALIDATION := 1

NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# --quiet: Sphinx prints its warnings and errors (each one fails the build), not its progress.
# The site is rebuilt from scratch, so a page whose source was renamed or removed does not linger.
BUILD := rm -rf _build/html && jupyter-book build . --all --warningiserror --nitpick --keep-going --quiet

.PHONY: help env assets book test test-lint test-workflows test-python test-notebooks test-other-machine test-book \
	test-browser test-lab browser bench base-table lab clean

help:
	@echo "make book   build the HTML book into _build/html"
	@echo "make test   workflow lint, unit and property tests, nbval over every notebook (natively and as on another"
	@echo "            machine), strict book build, browser tests of the site and of the chapters in JupyterLab"
	@echo "make bench  performance targets, measured as ratios in one process"
	@echo "make base-table  recompute chapter 11's table of smallest rotary bases (hours; resumes)"
	@echo "make lab    JupyterLab on the chapters (notebooks/) with MyST rendered and a kernel that has pelib;"
	@echo "            open the http://localhost:8888/lab?token=... address it prints"
	@echo "make clean  remove _build"

env: $(STAMP)

# Browser assets of the site (MathJax, require.js, the widget manager) and, for the browser tests
# only, axe-core: from npm, as package-lock.json pins them.
NODE_STAMP := node_modules/.package-lock.json
VENDOR     := _vendor/.copied
WIDGETS    := node_modules/@jupyter-widgets/html-manager/dist

$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "Node.js with npm is needed to fetch the site's assets (see README)"; exit 1; }
	@echo "Installing the site's browser assets from npm (package-lock.json)"
	@npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(VENDOR): $(NODE_STAMP)
	@rm -rf _vendor && mkdir -p _vendor/widgets
	@cp -r node_modules/mathjax/es5 _vendor/mathjax
	@cp node_modules/requirejs/require.js $(WIDGETS)/embed-amd.js _vendor/widgets/
	@cp $(WIDGETS)/*.woff $(WIDGETS)/*.woff2 $(WIDGETS)/*.ttf $(WIDGETS)/*.eot $(WIDGETS)/*.svg _vendor/widgets/
	@touch $@

assets: $(VENDOR)

# The kernel settings of the environment (jupyter/ipython_kernel_config.py) go where IPython looks
# for them: etc/ipython of the environment.
$(STAMP): requirements.txt pyproject.toml jupyter/ipython_kernel_config.py
	@test -x $(BIN)/python || { echo "Creating $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "Installing the pinned requirements (requirements.txt) and pelib into $(VENV)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@# The oracle is not part of pelib's distribution: a .pth file puts the repository on the path of
	@# this environment only, so notebooks and tests import it from here.
	@$(BIN)/python -c 'import pathlib, sysconfig; pathlib.Path(sysconfig.get_path("purelib"), "pe_book_oracle.pth").write_text("$(CURDIR)\n")'
	@problems=$$($(BIN)/python -m pip check) || { echo "$$problems"; exit 1; }
	@mkdir -p $(VENV)/etc/ipython && cp jupyter/ipython_kernel_config.py $(VENV)/etc/ipython/
	@touch $@

book: $(STAMP) $(VENDOR)
	@echo "Building the book: every notebook runs (a few minutes)"
	$(BUILD)
	@echo "Or serve it: python3 -m http.server --directory _build/html 8000"

test: test-lint test-workflows test-python test-notebooks test-other-machine test-book test-browser test-lab

# Style, before anything slow: ruff, pinned in requirements.txt, with the rules and their reasons in
# pyproject.toml ([tool.ruff]).
test-lint: $(STAMP)
	ruff format --check --quiet .
	ruff check --quiet .

# The CI workflow and .ci/run, linted: actionlint (with shellcheck on every `run:` block) and
# shellcheck, both pinned in requirements.txt so every machine lints alike.
test-workflows: $(STAMP)
	actionlint -shellcheck=$(BIN)/shellcheck -pyflakes=
	shellcheck .ci/run

test-python: $(STAMP)
	python -m pytest tests pelib --ignore=tests/browser

test-notebooks: $(STAMP)
	python -m pytest $(NBVAL) -n 2 --dist loadfile notebooks

# The Python tests and the notebooks again, as on another machine (tests/other_machine.py): another
# OpenBLAS kernel that every CPU of this architecture runs, and NumPy's SIMD loops off. Each setting
# is checked to take effect; one this machine does not offer is named as skipped. The saved outputs
# must not change (README, "The same on every machine").
OTHER_MACHINE := python tests/other_machine.py

test-other-machine: $(STAMP)
	$(OTHER_MACHINE) python -m pytest tests pelib --ignore=tests/browser -q
	$(OTHER_MACHINE) python -m pytest $(NBVAL) -n 2 --dist loadfile notebooks

test-book: $(STAMP) $(VENDOR)
	@echo "Building the book: every notebook runs, and any warning fails the build"
	$(BUILD)

# Browser tests of the built site (_build/html) in Debian's Chromium, driven by Playwright:
# screenshots of every page go to _build/screenshots. SKIP_BROWSER_TESTS=1 skips them.
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM
APT_INSTALL := apt-get install chromium chromium-driver

ifeq ($(SKIP_BROWSER_TESTS),1)
test-browser test-lab:
	@echo "Browser tests skipped (SKIP_BROWSER_TESTS=1)."
else
test-browser: $(STAMP) $(NODE_STAMP) browser
	python -m pytest tests/browser --ignore=tests/browser/test_lab.py

# The chapters in JupyterLab as a reader runs them (tests/browser/test_lab.py): JupyterLab from .venv
# on a copy of notebooks/, in the same Chromium; MyST rendered, an explorer recomputing in a kernel.
test-lab: $(STAMP) browser
	python -m pytest tests/browser/test_lab.py
endif

# Chromium and ChromeDriver from the distribution: installed here when missing, if this is root on
# a machine with apt-get (a fresh Debian machine, a CI container); otherwise this stops with the
# command to run.
browser:
	@if [ -x "$(CHROMIUM)" ] && command -v chromedriver >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Chromium and ChromeDriver for the browser tests: $(APT_INSTALL)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq && $(APT_INSTALL) -y -qq >/dev/null || exit 1; \
		test -x "$(CHROMIUM)" || { echo "apt-get installed no Chromium at $(CHROMIUM) (set CHROMIUM=/path/to/chromium)"; exit 1; }; \
	else \
		echo "The browser tests need Chromium and ChromeDriver. Install them with:"; \
		echo "    sudo $(APT_INSTALL)"; \
		echo "(or run make test SKIP_BROWSER_TESTS=1 to skip the browser tests)"; \
		exit 1; \
	fi

bench: $(STAMP)
	python benchmarks/run.py

# The table of smallest rotary bases that chapter 11 reads (notebooks/data/base_table.json), by pelib's
# certified search: hours on two cores (the longest searches, at 2**20 positions, take most of them).
# Rows already in the file are kept, so delete it to recompute everything; an interrupted run resumes.
base-table: $(STAMP)
	python scripts/base_table.py --jobs 2

# JupyterLab on the chapters, with the environment's kernel (pelib importable) and the MyST renderer
# (jupyterlab-myst, in the lock). Root (a container, a fresh cloud machine) needs --allow-root.
# JupyterLab prints the address to open, with its token. LAB_ARGS passes more options, such as
# LAB_ARGS="--ip=0.0.0.0 --no-browser" to reach it from outside a container.
LAB_ARGS ?=
LAB_AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(STAMP)
	@echo "Starting JupyterLab on notebooks/. Open the address it prints below,"
	@echo "http://localhost:8888/lab?token=... (or the port it names); Control-C twice stops it."
	jupyter lab --ServerApp.root_dir=notebooks $(LAB_AS_ROOT) $(LAB_ARGS)

clean:
	rm -rf _build _vendor
