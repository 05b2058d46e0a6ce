# The two front-door commands: `make report` (the main job) and `make test`.
PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
EXTRAS ?= dev
STAMP  := $(VENV)/.installed-$(EXTRAS)

.PHONY: setup test report bench lint clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $(STAMP)

# Main job: every built-in scenario under every protocol, side by side (text table + PNG).
report: setup
	$(VENV)/bin/hwlib compare --out reports/scenarios

test: setup
	$(VENV)/bin/ruff check hwlib tests benchmarks
	$(PY) -m pytest -q

bench: setup
	$(PY) benchmarks/engine.py

lint: setup
	$(VENV)/bin/ruff check hwlib tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
