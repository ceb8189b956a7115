# Two commands do all the set-up on a fresh machine: `make train` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed

.PHONY: venv test lint train bench playthroughs pictures baselines clean docs docs-build docs-tables \
	browser screenshots dist wheel-test

# Extra venvs, built by `make test` only for their tests (docs/libraries.md): RLlib pins its own
# gymnasium, and the core package is also tested on the oldest gymnasium/pettingzoo it claims.
RLLIB_VENV := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed
MIN_VENV := .venv-min
MIN_STAMP := $(MIN_VENV)/.installed
MIN_PINS := gymnasium==1.0.0 pettingzoo==1.24.0
# What `pip install tabletop-gym` gives a user: the built wheel, no extra of the package (dev: the
# test runner). Its tests run from the unpacked sdist, without the package's source beside them,
# so they import the installed wheel (docs/release.md).
CORE_VENV := .venv-core
CORE_STAMP := $(CORE_VENV)/.installed
CORE_ONLY_TESTS := tests/test_core_install.py tests/integrations/test_gymnasium.py \
	tests/test_package_data.py tests/test_provenance.py tests/test_extras.py \
	tests/test_live_output.py
DIST := dist
WHEEL_TESTS := build/wheel-tests
RLLIB_TESTS := tests/integrations/rllib
CORE_TESTS := tests/test_pettingzoo_api.py tests/integrations/test_pettingzoo_suite.py \
	tests/integrations/test_gymnasium.py

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# torch first and pinned: any other version would pull a multi-GB build.
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e ".[dev,train,bench,openspiel,integrations,docs,jax,human,video,web,web-test,llm,verifiers,datasets]"
	touch $(STAMP)

$(RLLIB_STAMP): pyproject.toml
	$(PYTHON) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RLLIB_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(RLLIB_VENV)/bin/python -m pip install --quiet -e ".[dev,rllib]"
	touch $(RLLIB_STAMP)

$(MIN_STAMP): pyproject.toml
	$(PYTHON) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(MIN_VENV)/bin/python -m pip install --quiet -e ".[dev,human]" $(MIN_PINS)
	touch $(MIN_STAMP)

$(CORE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip install --quiet --upgrade pip
	touch $(CORE_STAMP)

# The sdist and the wheel as an index receives them (the wheel built from the sdist, so a file
# the sdist lacks fails here), checked by twine.
dist: $(STAMP)
	rm -rf $(DIST)
	$(PY) -m build --outdir $(DIST) .
	$(PY) -m twine check --strict $(DIST)/*

# The core tests against the installed wheel (not editable, not the checkout).
wheel-test: dist $(CORE_STAMP)
	$(CORE_VENV)/bin/python -m pip uninstall --quiet --yes tabletop-gym
	$(CORE_VENV)/bin/python -m pip install --quiet "$$(ls $(DIST)/*.whl)[dev]"
	rm -rf $(WHEEL_TESTS) && mkdir -p $(WHEEL_TESTS)
	tar -xzf $(DIST)/*.tar.gz -C $(WHEEL_TESTS) --strip-components=1
	rm -rf $(WHEEL_TESTS)/tabletop_gym
	cd $(WHEEL_TESTS) && TABLETOP_GYM_CORE_ONLY=1 $(CURDIR)/$(CORE_VENV)/bin/python -m pytest \
		-p no:cacheprovider -n 2 -q $(CORE_ONLY_TESTS)

venv: $(STAMP)

# The browser tests (tests/web/test_browser.py) drive the system's Chromium. Install Debian's
# package when it is missing and this runs as root with apt-get; otherwise those tests skip and
# say what is missing. Playwright itself never downloads a browser.
browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
		true; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium) \
			>/dev/null || echo "apt-get could not install chromium: the browser tests will skip"; \
	else \
		echo "no chromium and no root apt-get to install it: the browser tests will skip"; \
	fi

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: $(STAMP) $(RLLIB_STAMP) $(MIN_STAMP) $(CORE_STAMP) browser dist
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir build/site
	TABLETOP_GYM_DIST=$(DIST) $(PY) -m pytest -n 2 -q --ignore=$(RLLIB_TESTS)
	$(RLLIB_VENV)/bin/python -m pytest -q $(RLLIB_TESTS)
	$(MIN_VENV)/bin/python -m pytest -n 2 -q $(CORE_TESTS)
	$(MAKE) --no-print-directory wheel-test

# The documentation site: `make docs` serves it at http://127.0.0.1:8000 and rebuilds on change.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve

# Rewrite the tables of the docs that hold numbers from the code (tests fail when they are stale).
docs-tables: $(STAMP)
	$(PY) tools/docs_tables.py

docs-build: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir build/site

# The strongest agent trained from scratch in about half an hour here: masked PPO in JAX on
# Rapa Nui 2p against the distilled heuristic, then 1,000 games against the real heuristic
# (docs/jax-train.md). The residual SB3 recipe is `tabletop-gym train --env Positano-v0`.
train: $(STAMP)
	$(PY) -m tabletop_gym.cli train --backend jax --game rapa_nui --players 2 \
		--opponents heuristic-net --hp 'hidden=[64,64]' gamma=1.0 --minutes 30 --eval-games 1000

# docs/baselines.md and docs/baselines.json from the evaluation and league jobs (results cached
# under runs/baselines/; PPO seeds summarised from runs/final/). It measures; the results
# pipeline (`tabletop-gym suite results [--check]`) rewrites the page from docs/baselines.json.
baselines: $(STAMP)
	$(PY) -m tabletop_gym.tasks.baselines

bench: $(STAMP)
	$(PY) bench/run.py
	$(PY) bench/jax_run.py
	$(PY) bench/jax_train.py --all --out bench/results/jax_train

playthroughs: $(STAMP)
	$(PY) -m tests.playthroughs.regenerate

# The pictures of README.md and docs/envs/*.md, and the milliseconds per drawn frame.
pictures: $(STAMP)
	$(PY) bench/pictures.py

# The screenshots of README.md and docs/web.md, taken by the browser tests while they play.
screenshots: $(STAMP) browser
	TABLETOP_GYM_SCREENSHOTS=docs/images $(PY) -m pytest -q -n 0 tests/web/test_browser.py

clean:
	rm -rf $(VENV) $(RLLIB_VENV) $(MIN_VENV) $(CORE_VENV) build $(DIST) site *.egg-info .pytest_cache \
		.ruff_cache
