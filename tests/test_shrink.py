"""Shrinking keeps the anomaly, ends 1-minimal, and writes a scenario `hwlib run` reproduces."""

from __future__ import annotations

import json

import pytest

import hwlib
from hwlib.cli import main
from hwlib.shrink import shrink, shrink_scenario


def noisy(name: str) -> hwlib.Scenario:
    """A built-in with irrelevant steps mixed in."""
    s = hwlib.load_scenario(name)
    noise = hwlib.parse_steps([{"tick": 100}, {"consume": {}}, {"flush": "A"}], s.config.replicas)
    steps = []
    for step in s.steps:
        steps += [step, *noise]
    return hwlib.Scenario(s.name, s.config, tuple(steps), s.description, s.expect)


def test_shrinks_to_a_1_minimal_schedule_that_keeps_the_kind():
    scenario = noisy("data-loss")
    result = shrink(scenario.config, scenario.steps, "lost-write")
    steps = list(result.steps)
    assert result.before == 60 and len(steps) < 15 and result.runs > 0
    config = scenario.config

    def shows(candidate):
        return "lost-write" in hwlib.run_steps(config, candidate, record=False).anomaly_kinds()

    assert shows(steps)
    assert not any(shows(steps[:i] + steps[i + 1:]) for i in range(len(steps)))
    assert shrink(config, scenario.steps, "lost-write").steps == result.steps      # deterministic


def test_shrunk_scenario_records_what_it_shows_and_round_trips(tmp_path):
    shrunk, result = shrink_scenario(noisy("kip101-undefined-epoch-truncation"), "lost-write")
    assert "lost-write" in shrunk.expect["kip101"]
    again = hwlib.load_scenario(shrunk.save(tmp_path / "s.yaml"))
    assert again.steps == shrunk.steps
    assert hwlib.run_scenario(again).anomaly_kinds() == list(shrunk.expect["kip101"])


def test_cli_shrink_writes_a_reproducer(tmp_path, capsys):
    out = tmp_path / "repro.yaml"
    assert main(["shrink", "divergence", "--kind", "log-divergence", "--out", str(out)]) == 0
    assert "shrank 17 -> " in capsys.readouterr().out
    assert main(["run", str(out), "--json"]) == 0
    kinds = {a["kind"] for a in json.loads(capsys.readouterr().out)["anomalies"]}
    assert "log-divergence" in kinds


@pytest.mark.parametrize(("args", "message"), [
    (["--kind", "data-loss"], "kind: 'data-loss' is not an anomaly kind; allowed: lost-write"),
    (["--kind", "lost-write", "--protocol", "kip101"],
     "kind: the schedule does not show 'lost-write' under protocol kip101"),
])
def test_cli_shrink_errors(tmp_path, capsys, args, message):
    out = tmp_path / "x.yaml"
    assert main(["shrink", "data-loss", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and not out.exists()
