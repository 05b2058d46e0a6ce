"""pyproject.toml is the single source of dependencies; environment.yml and README follow it."""

from __future__ import annotations

import re
import tomllib

import yaml


def test_environment_yml_mirrors_pyproject(repo):
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((repo / "environment.yml").read_text())
    deps = env["dependencies"]
    conda = [d for d in deps if isinstance(d, str)]
    (pip,) = [d["pip"] for d in deps if isinstance(d, dict)]
    assert "python=3.11" in conda and "openjdk=17" in conda and "pip" in conda
    assert project["requires-python"] == ">=3.11"
    assert len(pip) == 1, "environment.yml must not list packages itself: pyproject is the source"
    match = re.fullmatch(r"-e \.\[(?P<extras>[a-z,]+)\]", pip[0])
    assert match, pip[0]
    assert set(match["extras"].split(",")) == set(project["optional-dependencies"])


def test_readme_front_door_commands(repo):
    readme = (repo / "README.md").read_text()
    first_screen = "\n".join(readme.splitlines()[:40])
    assert "make report" in first_screen and "make test" in first_screen
    makefile = (repo / "Makefile").read_text()
    assert re.search(r"^report: setup$", makefile, re.M) and re.search(r"^test: setup$", makefile, re.M)
    assert "make test" in (repo / ".ci" / "run").read_text()


def test_readme_generations_table_comes_from_the_code(repo):
    from hwlib.engine.releases import generations_table

    assert generations_table() in (repo / "README.md").read_text()


def test_readme_scenario_table_is_the_generated_one(repo):
    """The README's table is ``hwlib scenarios --markdown``: every built-in, its summary, and
    exactly the anomalies it states (and the tests hold it to) per generation."""
    import hwlib
    from hwlib.scenario import SHORT_KINDS, scenario_table

    assert set(SHORT_KINDS) == set(hwlib.ANOMALY_KINDS)
    table = scenario_table()
    assert table in (repo / "README.md").read_text()
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
