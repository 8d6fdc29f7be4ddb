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

.PHONY: help env book test test-python test-notebooks test-book bench lab clean

help:
	@echo "make book   build the HTML book into _build/html"
	@echo "make test   unit and property tests, nbval over every notebook, strict book build"
	@echo "make bench  performance targets, measured as ratios in one process"
	@echo "make lab    JupyterLab on notebooks/ with a kernel that has pelib"
	@echo "make clean  remove _build"

env: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(BIN)/python -m pip check
	@touch $@

book: $(STAMP)
	$(BUILD)
	@echo
	@echo "Built. Open $(CURDIR)/_build/html/index.html in a browser,"
	@echo "or serve it: python3 -m http.server --directory _build/html 8000"

test: test-python test-notebooks test-book

test-python: $(STAMP)
	python -m pytest tests pelib

test-notebooks: $(STAMP)
	python -m pytest $(NBVAL) -n 2 --dist loadfile notebooks

test-book: $(STAMP)
	$(BUILD)

bench: $(STAMP)
	python benchmarks/run.py

lab: $(STAMP)
	jupyter lab notebooks

clean:
	rm -rf _build
