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
    from hwlib.protocols import generations_table

    assert generations_table() in (repo / "README.md").read_text()


def test_readme_lists_every_builtin_scenario(repo):
    import hwlib

    readme = (repo / "README.md").read_text()
    for name in hwlib.builtin_scenarios():
        assert f"| `{name}` |" in readme, name


ABBREVIATIONS = {"lost-write": "**lost**", "log-divergence": "**diverge**", "committed-truncated": "trunc",
                 "strong-isr": "isr", "hw-regression": "hw↓", "duplicate": "**dup**", "reordered": "**reorder**",
                 "inconsistent-offsets": "**inconsistent**", "nonmonotonic-poll": "**nonmonotonic**",
                 "unseen": "**unseen**"}


def test_readme_scenario_table_cells_match_the_expectations(repo):
    import hwlib

    assert set(ABBREVIATIONS) == set(hwlib.ANOMALY_KINDS) - {"epoch-cache-order"}
    rows = {line.split("|")[1].strip(" `"): [c.strip() for c in line.split("|")[3:-1]]
            for line in (repo / "README.md").read_text().splitlines() if line.startswith("| `")}
    for name in hwlib.builtin_scenarios():
        expect = hwlib.load_scenario(name).expect
        cells = [", ".join(ABBREVIATIONS[k] for k in expect[p]) or "—" for p in hwlib.PROTOCOLS]
        assert rows[name] == cells, name
