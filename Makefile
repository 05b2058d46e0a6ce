# The two front-door commands: `make report` (the main job) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
PY     := $(VENV)/bin/python
EXTRAS ?= all,dev
STAMP  := $(VENV)/.installed-$(EXTRAS)

.PHONY: setup test test-all report bench lint clean

# After the install: the compiled engine (mypyc) for the current sources, when a C compiler is
# present; otherwise one line says the interpreted engine will run. A no-op when up to date.
setup: $(STAMP)
	@$(PY) -m hwlib.build_engine
	@# JupyterLab from this venv opens hwlib's notebooks unmodified and saves them without outputs
	@# (hwlib/views/notebook_files.py)
	@mkdir -p $(VENV)/etc/jupyter
	@printf '%s\n' "# written by hwlib's make setup: see hwlib/views/notebook_files.py" \
	    "c.ServerApp.contents_manager_class = 'hwlib.views.notebook_files.NotebookFiles'" \
	    > $(VENV)/etc/jupyter/jupyter_server_config.py

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "hwlib needs Python >= 3.11, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $(STAMP)

# Main job: the fault-sweep report - the embedded default sweep on local Spark, rendered by
# papermill + nbconvert to reports/fault-sweep.html (offline; notebook and metrics beside it).
report: setup
	$(VENV)/bin/hwlib report --out reports/fault-sweep.html

# The fast subset (CI's): every check but those marked slow - the longest searches, installs into
# fresh venvs, live clusters - which pytest counts as "deselected"; make test-all runs them too.
# Two test processes (pytest-xdist), each given whole modules (--dist loadscope): a module's
# tests share its costly fixtures (a rendered report, a Spark sweep), made once.
PYTEST := $(PY) -m pytest -n 2 --dist loadscope
test: setup
	$(VENV)/bin/ruff check hwlib tests benchmarks tools setup.py
	$(VENV)/bin/mypy hwlib
	$(VENV)/bin/mypy --follow-imports=silent benchmarks
	@echo "make test: the fast subset; the tests marked slow are deselected (make test-all runs every test)"
	$(PYTEST) -q -m "not slow" --durations=20

test-all: setup
	$(VENV)/bin/ruff check hwlib tests benchmarks tools setup.py
	$(VENV)/bin/mypy hwlib
	$(VENV)/bin/mypy --follow-imports=silent benchmarks
	$(PYTEST) -q

bench: setup
	$(PY) benchmarks/engine.py
	$(PY) benchmarks/sweep.py
	$(PY) benchmarks/explorer.py
	$(PY) benchmarks/check.py

lint: setup
	$(VENV)/bin/ruff check hwlib tests benchmarks tools setup.py
	$(VENV)/bin/mypy hwlib
	$(VENV)/bin/mypy --follow-imports=silent benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
