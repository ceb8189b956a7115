# Two commands do all the set-up on a fresh machine: `make train` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed

.PHONY: venv test lint train bench playthroughs clean docs docs-build docs-tables

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# torch first and pinned: any other version would pull a multi-GB build.
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e ".[dev,train,bench,docs]"
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP)
	$(VENV)/bin/ruff check .
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir build/site
	$(PY) -m pytest -n 2 -q

# The documentation site: `make docs` serves it at http://127.0.0.1:8000 and rebuilds on change.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve

# Rewrite the tables of the docs that hold numbers from the code (tests fail when they are stale).
docs-tables: $(STAMP)
	$(PY) tools/docs_tables.py

docs-build: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir build/site

train: $(STAMP)
	$(PY) -m tabletop_gym.cli train --env Positano-v0

bench: $(STAMP)
	$(PY) bench/run.py

playthroughs: $(STAMP)
	$(PY) -m tests.playthroughs.regenerate

clean:
	rm -rf $(VENV) build site *.egg-info .pytest_cache .ruff_cache
