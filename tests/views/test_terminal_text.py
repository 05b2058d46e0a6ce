"""What hwlib's commands print, read as a terminal shows it: 100 columns, no word cut, tables as tables."""

from __future__ import annotations

import pytest

import hwlib
from hwlib.cli import main
from hwlib.views.text import WIDTH

SCENARIOS = sorted(hwlib.scenario.builtin_scenarios())


def _printed(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _fits(text: str) -> None:
    long = [line for line in text.splitlines() if len(line) > WIDTH]
    assert long == [], long[:3]


@pytest.mark.parametrize("argv", [["scenarios"], ["protocols"], ["releases"], ["profiles"]])
def test_each_listing_fits_the_terminal(capsys, argv):
    out = _printed(capsys, *argv)
    _fits(out)
    assert "|---" not in out                      # a table rendered as a table, not Markdown


def test_each_scenario_s_summary_is_printed_whole(capsys):
    words = " ".join(_printed(capsys, "scenarios").split())
    for name in SCENARIOS:
        scenario = hwlib.load_scenario(name)
        summary = " ".join((scenario.summary or scenario.description).split())
        assert summary in words, name


@pytest.mark.parametrize("release", ["0.10.2", "3.7-kraft"])
@pytest.mark.parametrize("name", SCENARIOS)
def test_each_run_fits_the_terminal_and_says_what_each_anomaly_is(capsys, name, release):
    out = _printed(capsys, "run", name, "--release", release)
    _fits(out)
    assert "[(" not in out                         # logs as words, not Python tuples
    said = [line for line in out.splitlines() if line.startswith(("ANOMALY", "EFFECT"))]
    result = hwlib.run_scenario(hwlib.load_scenario(name).with_release(release))
    assert len(said) == len(result.anomalies) and (said or "no anomalies" in out)
    for line, anomaly in zip(said, result.anomalies, strict=True):
        assert line.startswith("ANOMALY") is hwlib.anomalies.is_safety(anomaly.kind), line
        assert f"step {anomaly.step} {anomaly.kind}" in line


def test_notebooks_says_how_to_open_them_with_what_is_installed(tmp_path, capsys):
    import importlib.util

    out = _printed(capsys, "notebooks", "--to", str(tmp_path / "nb"))
    assert str(tmp_path / "nb") in out
    _fits(out.replace(str(tmp_path), "/tmp/x"))     # the words around the path, not pytest's long one
    if importlib.util.find_spec("jupyterlab") is None:
        assert "pip install 'hwlib[lab]'" in out
    else:
        assert "open them with: jupyter lab" in out


def test_a_check_that_finds_nothing_says_what_would_settle_it(capsys):
    """hwlib check's "holds" is within its bounds: the text says so, and names larger bounds and
    --sweep DIR (the report's reconciliation) as what would settle it."""
    out = _printed(capsys, "check", "--release", "2.8-zk", "--acks", "all", "--max-records", "1", "--max-epoch", "1")
    _fits(out)
    assert "lost-write           holds (complete)" in out
    words = " ".join(out.split())
    assert "holds within the bounds above" in words and "--sweep DIR" in words and "--max-records" in words
    assert "The report asks its question with --acks all" not in words      # it ran with acks=all


def test_a_check_under_acks_1_says_the_report_asks_with_acks_all(capsys):
    """A release's default acks=1 (before 3.0) loses a write by design: the text says that is
    what the setting allows, and how to ask the report's question."""
    out = _printed(capsys, "check", "--release", "2.8-zk", "--max-records", "1", "--max-epoch", "1")
    _fits(out)
    words = " ".join(out.split())
    assert "ran with acks=1" in words and "The report asks its question with --acks all" in words
