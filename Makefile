# Two commands do all the set-up on a fresh machine: `make train` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed

.PHONY: venv test lint train bench playthroughs baselines clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# torch first and pinned: any other version would pull a multi-GB build.
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e ".[dev,train,bench]"
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2 -q

train: $(STAMP)
	$(PY) -m tabletop_gym.cli train --env Positano-v0

# docs/baselines.md and docs/baselines.json from the evaluation and league jobs (results cached
# under runs/baselines/; PPO seeds summarised from runs/final/).
baselines: $(STAMP)
	$(PY) -m tabletop_gym.baselines

bench: $(STAMP)
	$(PY) bench/run.py

playthroughs: $(STAMP)
	$(PY) -m tests.playthroughs.regenerate

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
