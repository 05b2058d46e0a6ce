"""The command line: run (text and --json), scenarios, compare; errors exit 2 with one line."""

from __future__ import annotations

import json
import subprocess
import sys

from hwlib import PROTOCOLS
from hwlib.cli import main


def hwlib_cli(*args: str):
    return subprocess.run([sys.executable, "-m", "hwlib.cli", *args], capture_output=True, text=True)


def test_run_json(capsys):
    assert main(["run", "data-loss", "--protocol", "hw", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["leader"] == "B" and out["acked"] == ["m1", "m2"] and out["elr"] == []
    assert [r[2] for r in out["replicas"]["B"]["log"]] == ["m1"]
    lost = [a for a in out["anomalies"] if a["kind"] == "lost-write"]
    assert lost[0]["value"] == "m2" and lost[0]["offset"] == 1 and lost[0]["step"] == 11


def test_run_text_shows_steps_events_and_anomalies(capsys):
    assert main(["run", "divergence"]) == 0
    out = capsys.readouterr().out
    assert "14. restart A" in out and "ANOMALY step 14 log-divergence" in out


def test_run_file_path_and_protocol_override(capsys, repo):
    path = repo / "data" / "scenarios" / "data-loss.yaml"
    assert main(["run", str(path), "--protocol", "kip101", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["anomalies"] == []


def test_scenarios_lists_builtins(capsys):
    assert main(["scenarios"]) == 0
    out = capsys.readouterr().out
    assert "data-loss" in out and "expected anomalies" in out


def test_compare_writes_text_and_png(tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", "data-loss", "divergence", "--out", str(out)]) == 0
    text = (tmp_path / "cmp.txt").read_text()
    assert "== data-loss" in text and "lost 1 (m2)" in text
    png = (tmp_path / "cmp.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_errors_exit_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nconfig: {replicas: [A, B]}\nsteps: [{fetch: C}]\n")
    for args, needle in [
        (["run", "nope"], "'nope' is neither a file nor a built-in"),
        (["run", "data-loss", "--protocol", "kip999"], "'kip999' is not known; allowed: " + ", ".join(PROTOCOLS)),
        (["run", str(bad)], "steps[0].fetch: 'C' is not a replica; allowed: A, B"),
        (["frobnicate"], "invalid choice"),
    ]:
        proc = hwlib_cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], proc.stderr
        assert proc.stdout == ""


def test_atomic_write_leaves_nothing_behind_on_failure(tmp_path):
    import pytest

    from hwlib.files import atomic_path, write_text_atomically

    target = tmp_path / "sub" / "out.yaml"
    write_text_atomically(target, "old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old" and sorted(p.name for p in target.parent.iterdir()) == ["out.yaml"]
