# Two commands do all the set-up on a fresh machine: `make train` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed

.PHONY: venv test lint train bench playthroughs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# torch first and pinned: any other version would pull a multi-GB build.
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e ".[dev,train,bench,jax]"
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2 -q

train: $(STAMP)
	$(PY) -m tabletop_gym.cli train --env Positano-v0

bench: $(STAMP)
	$(PY) bench/run.py
	$(PY) bench/jax_run.py

playthroughs: $(STAMP)
	$(PY) -m tests.playthroughs.regenerate

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
