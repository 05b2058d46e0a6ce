"""pyproject.toml is the source of dependencies (environment.yml: the same for conda); README, version, license."""

from __future__ import annotations

import re
import tomllib

import yaml

#: pip's name -> conda-forge's, where they differ (pyspark[sql]'s extra is pyarrow and pandas, listed anyway)
CONDA_NAMES = {"mypy-extensions": "mypy_extensions", "pyspark[sql]": "pyspark"}
#: what the conda environment adds: the interpreter, Java for Spark, a C compiler for the engine
CONDA_ONLY = {"python=3.11", "openjdk=17", "c-compiler", "pip"}


def _requirement(text: str) -> tuple[str, str]:
    match = re.fullmatch(r"([A-Za-z0-9_.\-]+(?:\[[a-z,]+\])?)\s*(.*)", text)
    assert match, text
    return CONDA_NAMES.get(match[1], match[1]).lower(), match[2].replace(" ", "")


def test_environment_yml_lists_pyprojects_packages_with_the_same_bounds(repo):
    """environment.yml is a real conda environment: conda-forge's packages for the core and the
    [all] extra, with pyproject's bounds (mypy and setuptools from [dev], to compile the engine),
    Python 3.11, Java 17 and a C compiler; then pip installs hwlib alone (--no-deps), as its
    first lines say."""
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert extras["all"] == ["hwlib[spark,report,lab]"]
    wanted = [*project["dependencies"], *extras["spark"], *extras["report"], *extras["lab"],
              *(d for d in extras["dev"] if d.startswith(("mypy", "setuptools")))]
    env = yaml.safe_load((repo / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    deps = env["dependencies"]
    assert all(isinstance(d, str) for d in deps), "no pip section: pip installs hwlib alone, after conda"
    conda = list(deps)
    assert CONDA_ONLY <= set(conda) and project["requires-python"] == ">=3.11"
    assert dict(map(_requirement, (c for c in conda if c not in CONDA_ONLY))) == dict(map(_requirement, wanted))
    assert len(conda) - len(CONDA_ONLY) == len(set(map(_requirement, wanted))), "a package listed twice"
    assert "conda env create -f environment.yml && conda activate hwlib && pip install -e . --no-deps" in \
        (repo / "environment.yml").read_text()


def test_readme_front_door_commands(repo):
    readme = (repo / "README.md").read_text()
    first_screen = "\n".join(readme.splitlines()[:40])
    assert "make report" in first_screen and "make test" in first_screen
    makefile = (repo / "Makefile").read_text()
    assert re.search(r"^report: setup$", makefile, re.M) and re.search(r"^test: setup$", makefile, re.M)
    assert "make test" in (repo / ".ci" / "run").read_text()


def test_the_generations_table_in_docs_comes_from_the_code(repo):
    from hwlib.engine.releases import generations_table

    assert generations_table() in (repo / "docs" / "generations-and-releases.md").read_text()


def test_the_scenario_table_in_docs_is_the_generated_one(repo):
    """docs/scenarios.md's table is ``hwlib scenarios --markdown``: every built-in, its summary, and
    exactly the anomalies it states (and the tests hold it to) per generation."""
    import hwlib
    from hwlib.scenario import SHORT_KINDS, scenario_table

    assert set(SHORT_KINDS) == set(hwlib.ANOMALY_KINDS)
    table = scenario_table()
    assert table in (repo / "docs" / "scenarios.md").read_text()
    assert len(table.splitlines()) == 2 + len(hwlib.builtin_scenarios())


def test_one_version_a_license_type_hints_and_python_m(repo):
    """pyproject reads the version from hwlib/version.py (no second copy); the LICENSE file is the
    Apache License 2.0 that pyproject names; the package says it is typed (PEP 561); ``python -m
    hwlib`` is the ``hwlib`` command."""
    import subprocess
    import sys

    import hwlib

    pyproject = tomllib.loads((repo / "pyproject.toml").read_text())
    project = pyproject["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "hwlib.version.__version__"}
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    license_text = (repo / "LICENSE").read_text()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert "END OF TERMS AND CONDITIONS" in license_text
    assert (repo / "hwlib" / "py.typed").is_file()
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["hwlib"]
    done = subprocess.run([sys.executable, "-m", "hwlib", "--version"], capture_output=True, text=True, cwd=repo)
    assert done.returncode == 0 and done.stdout.startswith(f"hwlib {hwlib.__version__}, ")
    bad = subprocess.run([sys.executable, "-m", "hwlib", "run"], capture_output=True, text=True, cwd=repo)
    assert bad.returncode == 2 and "scenario" in bad.stderr


def test_the_readme_is_a_front_door_and_every_reference_page_is_reachable(repo):
    """The README stays short (what it is, the two commands, start here, the notebooks, the
    commands, pointers); every page of docs/ and benchmarks/README.md is linked from it, and
    every relative link in them leads to a file that exists."""
    readme = (repo / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    pages = [repo / "README.md", repo / "benchmarks" / "README.md", *sorted((repo / "docs").glob("*.md"))]
    for page in pages[1:]:
        assert page.relative_to(repo).as_posix() in readme, page
    for page in pages:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
            assert (page.parent / target).exists(), (page.name, target)
    assert not (repo / "OPERATIONS.md").exists()
