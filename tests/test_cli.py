"""The command line: run (text and --json), scenarios, compare; errors exit 2 with one line."""

from __future__ import annotations

import json
import subprocess
import sys

import hwlib
from hwlib import PROTOCOLS
from hwlib.cli import main

from .helpers.files import tree


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


def test_a_comparison_plot_leaves_the_callers_matplotlib_alone(tmp_path):
    """In a notebook: the backend stays the user's and no pyplot figure is left open or closed."""
    import matplotlib
    import matplotlib.pyplot as plt

    from hwlib.views.compare import plot, run_matrix

    before = matplotlib.get_backend()
    plt.switch_backend("svg")                        # the user's, not the Agg a PNG needs
    try:
        mine = plt.figure()
        scenarios = [hwlib.load_scenario("data-loss")]
        plot(scenarios, run_matrix(scenarios, ("hw", "2.1")), tmp_path / "p.png", ("hw", "2.1"))
        assert matplotlib.get_backend() == "svg" and plt.get_fignums() == [mine.number]
        assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"
        plt.close(mine)
    finally:
        plt.switch_backend(before)


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

    from hwlib.util.files import atomic_path, write_text_atomically

    target = tmp_path / "sub" / "out.yaml"
    write_text_atomically(target, "old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old" and sorted(p.name for p in target.parent.iterdir()) == ["out.yaml"]



def _refused(done, message: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("hwlib: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_unwritable_outputs_are_one_line_before_any_work(tmp_path):
    """Under /dev/null, onto a directory, under a read-only folder (when not root), a name too
    long, under a file: compare and shrink refuse before running anything, write nothing."""
    (tmp_path / "plain").write_text("x")
    (tmp_path / "dir.txt").mkdir()
    long_name = "n" * 300
    cases = [("/dev/null/out", "/dev/null is not a directory"),
             (str(tmp_path / "dir"), "dir.txt: it is a directory"),
             (str(tmp_path / long_name), "a name in it is longer than 255 bytes"),
             (str(tmp_path / "plain" / "out"), "plain is not a directory")]
    before = tree(tmp_path)
    for out, message in cases:
        _refused(hwlib_cli("compare", "data-loss", "--out", out), message)
        _refused(hwlib_cli("shrink", "data-loss", "--kind", "lost-write", "--protocol", "hw",
                           "--out", out + ".yaml" if "dir" not in out else str(tmp_path / "dir.txt")),
                 message.replace("dir.txt: ", ""))
    assert tree(tmp_path) == before


def test_compare_with_no_protocol_is_one_line_and_writes_nothing(tmp_path):
    done = hwlib_cli("compare", "data-loss", "--protocols", ",", "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and "--protocols: name at least one of hw, kip101" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_sweep_bad_master_and_overlong_name_write_nothing(tmp_path):
    """A master URL Spark cannot take: one line naming --master, no JVM started, no directory;
    a 300-character spec name with no --out: one line, no data/sweeps left behind."""
    spec = tmp_path / "s.yaml"
    spec.write_text("name: s\nruns: 2\ngrid: {protocol: [hw], replicas: [2]}\n")
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "sweep", str(spec), "--master", "bogus://x",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=tmp_path)
    _refused(done, "master: 'bogus://x' is not a Spark master URL; use local, local[N]")
    spec.write_text("name: " + "n" * 300 + "\nruns: 2\ngrid: {protocol: [hw], replicas: [2]}\n")
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "sweep", str(spec)], capture_output=True, text=True,
                          cwd=tmp_path)
    _refused(done, "spec.name: 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn... (300 characters)' is not a valid name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml"]


def test_sweep_resume_of_a_corrupt_or_unwritable_directory_is_one_line(tmp_path):
    """--resume where spec.json is garbage (not hwlib's marker): refused, the files as they
    were; an --out under /dev/null or under a file: refused, nothing created."""
    spec = tmp_path / "s.yaml"
    spec.write_text("name: s\nruns: 2\ngrid: {protocol: [hw], replicas: [2]}\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "spec.json").write_text("{garbage")
    (out / "runs").mkdir()
    before = tree(tmp_path)
    _refused(hwlib_cli("sweep", str(spec), "--out", str(out), "--resume"),
             "is not a sweep directory (it holds a spec.json that is not an hwlib sweep's")
    _refused(hwlib_cli("sweep", str(spec), "--out", "/dev/null/sweep"), "out: cannot write /dev/null/sweep")
    _refused(hwlib_cli("sweep", str(spec), "--out", str(spec / "sweep")), f"out: cannot write {spec / 'sweep'}")
    assert tree(tmp_path) == before and sorted(p.name for p in out.iterdir()) == ["runs", "spec.json"]


def test_every_directory_a_user_gives_is_checked_before_anything_runs(tmp_path, monkeypatch, capsys):
    """sweep --out, check --out and the report's sweep_out / --sweep: a name too long, a path
    under a file, a read-only folder (when not root), a file where a directory belongs - one
    line naming the option, exit 2, nothing written anywhere (a fresh working directory stays
    empty too)."""
    import os

    spec = tmp_path / "s.yaml"
    spec.write_text("name: s\nruns: 2\ngrid: {protocol: [hw], replicas: [2]}\n")
    (tmp_path / "plain").write_text("x")
    work = tmp_path / "work"
    work.mkdir()
    long_name = str(tmp_path / ("n" * 300))
    cases = [(long_name, "a name in it is longer than 255 bytes"),
             (str(tmp_path / "plain" / "sub"), "plain is not a directory"),
             (str(tmp_path / "plain"), "plain is a file; give a directory")]
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((str(locked / "sub"), "locked is not writable"))
    before = tree(tmp_path)
    monkeypatch.chdir(work)
    for path, message in cases:
        for args, field in ((["sweep", str(spec), "--out", path], "out: "),
                            (["check", "--protocol", "hw", "--out", path], "out: "),
                            (["report", "--param", f"sweep_out={path}", "--out", str(work / "r.html")],
                             "parameter sweep_out: ")):
            done = _in_process(args, capsys)
            _refused(done, field)
            assert message in done.stderr, (args, done.stderr)
    _refused(_in_process(["run", long_name], capsys), "scenario: ")
    _refused(_in_process(["report", "--sweep", long_name, "--out", str(work / "r.html")], capsys),
             "parameter sweep_dir: ")
    # and once through the real command line, in its own process
    _refused(subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--protocol", "hw", "--out", long_name],
                            capture_output=True, text=True, cwd=work), "out: ")
    assert tree(tmp_path) == before and not list(work.iterdir())


def _in_process(args: list[str], capsys) -> subprocess.CompletedProcess:
    """hwlib's command line called in this process (argparse's refusals exit): its code and output."""
    try:
        code = main(args)
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def test_compare_prints_and_writes_files_only_with_out(tmp_path):
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "compare", "data-loss", "--protocols", "hw,kip101"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and "== data-loss" in done.stdout and "lost 1 (m2)" in done.stdout
    assert "wrote" not in done.stdout and list(tmp_path.iterdir()) == []


def test_check_help_says_the_checks_defaults_from_its_vocabulary():
    """``hwlib check --help`` takes its defaults from the check's vocabulary (one source)."""
    help_text = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--help"], capture_output=True,
                               text=True)
    words = " ".join(help_text.stdout.split())
    assert help_text.returncode == 0
    assert "(default: elect, isolate, isolate_unseen, deliver, crash, quick_restart)" in words


def test_a_holds_says_which_fault_classes_of_the_default_report_it_did_not_try(tmp_path):
    """``hwlib check --protocol kip595`` with its default faults (no power loss): each "holds"
    line names what the default report sweeps and this search left out, and how to try it."""
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--protocol", "kip595", "--quiet"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    verdicts: list[str] = []                 # a verdict's words wrap under its column
    for line in done.stdout.splitlines():
        if line.startswith(" " * 23) and verdicts:
            verdicts[-1] += " " + line.strip()
        elif line.startswith("  ") and not line.startswith("   "):
            verdicts.append(line)
    lines = [line for line in verdicts if "holds" in line]
    assert len(lines) == 4
    for line in lines:
        assert line.endswith("holds (complete) - time passing, power loss and flushes not tried: "
                             "check with --profile power-loss --max-ticks 1"), line
    # with every fault class the default report fires, nothing is left to say
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--protocol", "kip966", "--quiet",
                           "--faults", "crash,quick_restart,power_loss,power_loss_unseen,flush,tick,elect",
                           "--max-ticks", "1", "--depth", "6", "--json"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0 and json.loads(done.stdout)["not_tried"] == []


def test_check_sweep_must_be_a_finished_sweep_with_a_profile_it_searches(tmp_path):
    (tmp_path / "empty").mkdir()
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--protocol", "hw", "--sweep",
                           str(tmp_path / "empty")], capture_output=True, text=True, cwd=tmp_path)
    _refused(done, "sweep: ")
    assert "holds no finished sweep (no manifest.json)" in done.stderr


def test_releases_lists_every_release_from_0_9_to_4_1_in_both_modes(capsys):
    assert main(["releases", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    keys = [r["release"] for r in rows]
    assert keys[0] == "0.9.0" and keys[-1] == "4.1"
    assert {"3.7-zk", "3.7-kraft", "2.0.0", "2.0.1", "1.0.0", "1.0.2", "1.1.0", "1.1.1", "2.7", "3.3-kraft",
            "4.0"} <= set(keys)
    assert not any(k.startswith(("2.8-", "3.2-")) for k in keys)       # early-access KRaft is not a row
    by_key = {r["release"]: r for r in rows}
    unclean = {k: r["unclean_leader_election_default"] for k, r in by_key.items()}
    assert unclean["0.10.2"] and not unclean["0.11.0"]
    assert {d["flag"] for d in by_key["2.0.1"]["differs"]} == {"out_of_range_exits_broker", "caches_epoch_on_election",
                                                               "isr_join_needs_epoch_start"}
    assert main(["releases"]) == 0
    text = capsys.readouterr().out
    assert "3.7-kraft" in text and "KAFKA-15583" in text and "read at" in text


def test_a_release_with_two_modes_needs_one_named():
    done = hwlib_cli("run", "data-loss", "--release", "3.7.1")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "3.7.1-zk or 3.7.1-kraft" in done.stderr
    for bad, words in (("2.8-kraft", "early access"), ("3.7.9-zk", "3.7.0, 3.7.1, 3.7.2"), ("5.0", "0.9.0 - 4.1"),
                       ("4.1-zk", "only on KRaft")):
        done = hwlib_cli("run", "data-loss", "--release", bad)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and words in done.stderr, (bad, done.stderr)


def test_run_under_a_release_records_it(capsys):
    assert main(["run", "data-loss", "--release", "3.7.1-kraft", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["release"] == "3.7.1-kraft" and out["protocol"] == "kip903" and out["anomalies"] == []
    assert main(["run", "data-loss", "--release", "0.10.2.1"]) == 0
    assert "release 0.10.2 (rules hw, read at 0.10.2.2)" in capsys.readouterr().out


def test_compare_by_release(capsys):
    assert main(["compare", "kafka-7128-stale-hw-isr-join", "--releases", "2.0.0,2.0.1"]) == 0
    out = capsys.readouterr().out
    assert "2.0.0" in out and "2.0.1" in out and "lost-write" in out


def test_compare_names_the_settings_each_column_ran_with_where_they_differ(capsys):
    """Each release runs its own defaults: where the columns differ, each says what it ran and
    whose default it is; settings they share are not repeated; lines stay within the width,
    and an expected effect is tagged as one."""
    assert main(["compare", "last-replica-standing", "--releases", "4.0,4.1"]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    assert "ran eligible.leader.replicas.version=0 (4.0's default)" in flat
    assert "ran eligible.leader.replicas.version=1 (4.1's default: a cluster created on 4.1)" in flat
    assert "hw-regression (expected, not a safety violation)" in flat
    assert "replica.lag.time.max.ms" not in out                       # the same in both: not repeated
    assert max(map(len, out.splitlines())) <= 100
    assert main(["compare", "data-loss", "--releases", "2.4,2.8"]) == 0
    flat = " ".join(capsys.readouterr().out.split())
    assert "ran replica.lag.time.max.ms=10000 (2.4.1's default) session timeout=6000 (2.4.1's default)" in flat
    assert "ran replica.lag.time.max.ms=30000 (2.8.1's default) session timeout=18000 (2.8.1's default)" in flat


def test_notebooks_copies_hwlibs_notebooks_and_never_replaces_a_users_file(tmp_path, capsys):
    """``hwlib notebooks --to DIR``: the package's four notebooks, byte for byte; again: nothing to
    do; a file of the user's with a notebook's name stops it, one line, exit 2, nothing written."""
    from hwlib.util.paths import builtin_files

    sources = builtin_files("notebooks")
    target = tmp_path / "nb"
    assert main(["notebooks", "--to", str(target)]) == 0
    assert capsys.readouterr().out.startswith(f"{len(sources)} notebooks copied into ")
    assert {p.name: p.read_bytes() for p in target.iterdir()} == {p.name: p.read_bytes() for p in sources.values()}
    assert main(["notebooks", "--to", str(target)]) == 0
    assert f"0 notebooks copied into {target} ({len(sources)} already there)" in capsys.readouterr().out
    other = tmp_path / "mine"
    other.mkdir()
    (other / "03_model_check.ipynb").write_text("my own notes")
    before = tree(other)
    done = hwlib_cli("notebooks", "--to", str(other))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "03_model_check.ipynb exists and is not hwlib's 03_model_check.ipynb" in done.stderr
    assert tree(other) == before
