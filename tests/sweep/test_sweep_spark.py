"""Sweeps on Spark: local end to end, a real standalone cluster, resume after a kill, shrinking."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import hwlib
from hwlib.sweep import load_spec, parse_spec, plan, read_runs, read_summary, run_sweep
from hwlib.sweep.driver import SweepDirError

from ..helpers.files import tree
from ..helpers.releases import DEFAULT_RELEASES
from ..helpers.standalone import standalone_cluster

SPEC = {"name": "t-data-loss", "seed": 1, "runs": 30, "profile": "kip101-data-loss",
        "grid": {"protocol": ["hw", "kip101"], "replicas": [2], "acks": ["all"]}}


@pytest.fixture(scope="module")
def spark():
    from hwlib.sweep.spark import start_session

    session = start_session("local[2]")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def local_sweep(spark, tmp_path_factory):
    out = tmp_path_factory.mktemp("sweeps") / "local"
    return run_sweep(parse_spec(SPEC), out, spark=spark, progress=False, check_determinism=10)


def key_sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["cell", "run"]).reset_index(drop=True)


def test_local_sweep_rows_signs_summary_and_manifest(local_sweep, spark):
    out = local_sweep.out
    runs = read_runs(out)
    assert len(runs) == 2 * 30 and not runs.duplicated(["cell", "run"]).any()
    hw, kip101 = (key_sorted(runs[runs["protocol"] == p]) for p in ("hw", "kip101"))
    assert list(hw["schedule_hash"]) == list(kip101["schedule_hash"])   # the same schedules ...
    assert (hw["lost"] > 0).sum() >= 3                                   # ... lose acked data under hw
    assert (kip101["lost"] == 0).all() and (kip101["n_log_divergence"] == 0).all()   # ... not kip101
    assert (runs["acked"] > 0).all() and runs["faults_fired"].str.contains("quick_restart").any()
    assert spark.read.parquet(str(out / "runs")).count() == 60          # Spark reads it too

    summary = read_summary(out)
    assert list(summary["cell"]) == ["c000", "c001"] and list(summary["runs"]) == [30, 30]
    hw_row, kip_row = summary.iloc[0], summary.iloc[1]
    assert hw_row["lost_rate"] == pytest.approx((hw["lost"] > 0).mean())
    assert hw_row["lost_lo"] < hw_row["lost_rate"] < hw_row["lost_hi"]
    assert kip_row["lost_rate"] == 0 and kip_row["lost_lo"] == 0 and 0.05 < kip_row["lost_hi"] < 0.2
    assert hw_row["hw_lag_max_p50"] <= hw_row["hw_lag_max_p90"] <= hw_row["hw_lag_max"]

    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rows"] == 60 and manifest["cells"] == 2 and manifest["spark_version"]
    assert manifest["hwlib_version"] == hwlib.__version__ and manifest["python_version"].startswith("3.")
    assert manifest["determinism"] == {"checked": 10, "mismatches": []}
    assert manifest["engine"] == {"driver": str(hwlib.ENGINE), "executors": {hwlib.ENGINE.kind: 60}}
    assert manifest["hash_version"] == 2


def test_failing_cells_are_shrunk_to_reproducers(local_sweep):
    (item,) = local_sweep.shrunk                    # only the hw cell fails
    assert item["cell"] == "c000" and item["kind"] == "lost-write"
    assert item["after"] < 20 < item["before"] == 200
    scenario = hwlib.load_scenario(local_sweep.out / item["path"])
    assert "lost-write" in hwlib.run_scenario(scenario).anomaly_kinds()
    runs = read_runs(local_sweep.out)
    first = runs[(runs["cell"] == "c000") & (runs["lost"] > 0)]["run"].min()
    assert item["run"] == first


@pytest.mark.slow
def test_a_real_standalone_cluster_gives_identical_rows(local_sweep, tmp_path):
    out = tmp_path / "standalone"
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(SPEC))                  # JSON is YAML
    with standalone_cluster(tmp_path) as url:
        done = subprocess.run([sys.executable, "-m", "hwlib.cli", "sweep", str(spec_file), "--out", str(out),
                               "--master", url, "--quiet", "--no-shrink"],
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["spark_master"] == url
    # the executors ran the driver's engine: a compiled one is shipped (spark.archives)
    assert manifest["engine"]["executors"] == {hwlib.ENGINE.kind: 60}
    pd.testing.assert_frame_equal(key_sorted(read_runs(out)), key_sorted(read_runs(local_sweep.out)))


def test_a_killed_sweep_resumes_to_exactly_cells_times_runs(spark, tmp_path):
    spec = {"name": "t-resume", "seed": 5, "runs": 200, "batch_size": 25, "profile": "power-loss",
            "grid": {"protocol": ["hw", "kip101", "kip320", "kip966"], "replicas": [3]}}
    chunks = len(plan(parse_spec(spec)))
    assert chunks == 4
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "hwlib.cli", "sweep", str(spec_file), "--out", str(out),
                             "--quiet", "--no-shrink"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 180
    while not (out / "runs" / "chunk=00000").exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the sweep ended before its first chunk"
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = sorted(p.name for p in (out / "runs").glob("chunk=*"))
    assert 1 <= len(finished) < chunks and not (out / "manifest.json").exists()

    with pytest.raises(SweepDirError, match="already holds a sweep; pass --resume to continue it, --overwrite"):
        run_sweep(parse_spec(spec), out, spark=spark, progress=False)
    not_a_sweep = tmp_path / "elsewhere"
    (not_a_sweep / "keep.txt").parent.mkdir()
    (not_a_sweep / "keep.txt").write_text("mine")
    with pytest.raises(SweepDirError, match="is not a sweep directory"):
        run_sweep(parse_spec(spec), not_a_sweep, spark=spark, progress=False, overwrite=True)
    assert (not_a_sweep / "keep.txt").read_text() == "mine"
    with pytest.raises(SweepDirError, match="holds a different sweep"):
        run_sweep(parse_spec({**spec, "seed": 6}), out, spark=spark, progress=False, resume=True)

    result = run_sweep(parse_spec(spec), out, spark=spark, progress=False, resume=True, shrink_failures=False)
    assert result.chunks_skipped == len(finished) and result.chunks_run == chunks - len(finished)
    runs = read_runs(out)
    assert len(runs) == 4 * 200 and not runs.duplicated(["cell", "run"]).any()
    assert not list((out / "runs").glob("_tmp-*"))
    fresh = run_sweep(parse_spec(spec), tmp_path / "fresh", spark=spark, progress=False, shrink_failures=False)
    pd.testing.assert_frame_equal(key_sorted(runs), key_sorted(read_runs(fresh.out)))


def test_overwrite_replaces_a_sweep_and_resume_of_a_finished_one_only_reaggregates(spark, tmp_path):
    tiny = {"name": "t-tiny", "seed": 1, "runs": 3, "grid": {"protocol": ["hw"], "replicas": [2]}}
    first = run_sweep(parse_spec(tiny), tmp_path, spark=spark, progress=False)
    again = run_sweep(parse_spec(tiny), tmp_path, spark=spark, progress=False, resume=True)
    assert (again.chunks_run, again.chunks_skipped, again.rows) == (0, first.chunks_run, 3)
    other = run_sweep(parse_spec({**tiny, "seed": 2, "runs": 4}), tmp_path, spark=spark, progress=False,
                      overwrite=True)
    assert other.rows == 4 and set(read_runs(tmp_path)["run"]) == {0, 1, 2, 3}
    with pytest.raises(SweepDirError, match="choose one"):
        run_sweep(parse_spec(tiny), tmp_path, spark=spark, resume=True, overwrite=True)


def test_cli_sweep_bad_input_is_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("grid: {protocol: [hw], replicas: [2], min_insync_replicas: [3]}\n")
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "sweep", str(bad), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "spec.grid: no valid cell" in done.stderr
    assert not (tmp_path / "o").exists()


def test_builtin_default_spec_is_the_embedded_default():
    """The releases people run, one per generation at least, unclean election off in all."""
    spec = load_spec("default")
    assert {c.config.rules_name for c in spec.cells} == set(DEFAULT_RELEASES)
    assert {c.config.protocol for c in spec.cells} == set(hwlib.PROTOCOLS) - {"kip841"}     # 3.3 / 3.4 KRaft
    assert not any(c.config.unclean_leader_election for c in spec.cells)


# ------------------------------------------------------------------ an owned, locked, sealed directory
TINY = {"name": "t-tiny", "seed": 3, "runs": 20, "batch_size": 2,
        "grid": {"protocol": ["hw", "kip320"], "replicas": [2]}}



def _cli_sweep(spec_file, out, *args):
    return subprocess.run([sys.executable, "-m", "hwlib.cli", "sweep", str(spec_file), "--out", str(out), "--quiet",
                           "--no-shrink", *args], capture_output=True, text=True, timeout=300)


def test_overwrite_never_deletes_a_directory_hwlib_did_not_make(tmp_path):
    """A user's folder with a file that happens to be called spec.json: refused in one line,
    every file byte for byte as it was, nothing added."""
    spec_file = tmp_path / "tiny.yaml"
    spec_file.write_text(json.dumps(TINY))
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "notes.txt").write_text("precious")
    (proj / "spec.json").write_text('{"tool": "other"}')
    before = tree(proj)
    done = _cli_sweep(spec_file, proj, "--overwrite")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"hwlib: error: out: {proj} is not a sweep directory (it holds a spec.json that "
                                  "is not an hwlib sweep's")
    assert tree(proj) == before and sorted(p.name for p in proj.iterdir()) == ["notes.txt", "spec.json"]


def test_overwrite_of_a_real_sweep_keeps_the_users_own_files_in_it(spark, tmp_path):
    out = tmp_path / "sweep"
    run_sweep(parse_spec(TINY), out, spark=spark, progress=False, shrink_failures=False)
    (out / "my-notes.md").write_text("analysis")
    (out / "runs" / "mine.txt").write_text("keep")
    again = run_sweep(parse_spec({**TINY, "seed": 4}), out, spark=spark, progress=False, overwrite=True,
                      shrink_failures=False)
    assert again.rows == 40 and (out / "my-notes.md").read_text() == "analysis"
    assert (out / "runs" / "mine.txt").read_text() == "keep"


@pytest.mark.slow
def test_a_second_writer_is_refused_at_once_and_the_first_finishes_whole(tmp_path):
    spec_file = tmp_path / "tiny.yaml"
    spec_file.write_text(json.dumps({**TINY, "runs": 400}))
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "hwlib.cli", "sweep", str(spec_file), "--out", str(out),
                              "--quiet", "--no-shrink"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (out / "spec.json").exists():
        assert first.poll() is None and time.monotonic() < deadline, "the first sweep did not start"
        time.sleep(0.02)
    started = time.monotonic()
    second = _cli_sweep(spec_file, out, "--resume")
    assert second.returncode == 2 and time.monotonic() - started < 30
    assert second.stderr.startswith(f"hwlib: error: out: {out} is being written by another hwlib sweep (pid "
                                    f"{first.pid} on ") and second.stderr.count("\n") == 1
    assert first.wait(timeout=300) == 0, first.stderr.read()
    runs = read_runs(out)
    assert len(runs) == 2 * 400 and not runs.duplicated(["cell", "run"]).any()
    assert not list((out / "runs").glob("_tmp-*"))


def test_resume_reruns_damaged_chunks_and_ignores_strays(spark, tmp_path):
    """A part file deleted, a parquet truncated, a seal edited, a stray chunk directory: resume
    re-runs exactly the damaged chunks and ends with the rows of an uninterrupted sweep; the
    stray stays where it is and is not read."""
    whole = run_sweep(parse_spec(TINY), tmp_path / "whole", spark=spark, progress=False, shrink_failures=False)
    out = tmp_path / "damaged"
    run_sweep(parse_spec(TINY), out, spark=spark, progress=False, shrink_failures=False)
    chunks = sorted((out / "runs").glob("chunk=*"))
    assert len(chunks) >= 3
    parts = lambda chunk: sorted(p for p in chunk.iterdir() if p.suffix == ".parquet")   # noqa: E731
    parts(chunks[0])[0].unlink()
    victim = parts(chunks[1])[0]
    victim.write_bytes(victim.read_bytes()[:40])
    seal = chunks[2] / "_hwlib_chunk.json"
    seal.write_text(seal.read_text().replace('"rows": ', '"rows": 1'))
    stray = out / "runs" / "chunk=00099"
    stray.mkdir()
    (stray / "part-junk.parquet").write_bytes(b"not parquet")
    result = run_sweep(parse_spec(TINY), out, spark=spark, progress=False, resume=True, shrink_failures=False)
    assert result.chunks_run == 3 and result.rows == 40
    pd.testing.assert_frame_equal(key_sorted(read_runs(out)), key_sorted(read_runs(whole.out)))
    assert (stray / "part-junk.parquet").read_bytes() == b"not parquet"


def test_resume_after_the_profile_file_was_edited_is_refused(tmp_path):
    """The spec names a profile file; editing that file changes the sweep, so --resume must not
    mix rows of two profiles (the spec's own text did not change)."""
    profile = tmp_path / "mine.yaml"
    profile.write_text("name: mine\nweights: {produce: 3, replication_round: 3, crash: 1}\n")
    spec = {**TINY, "profile": str(profile)}
    before = parse_spec(spec).spec_hash()
    profile.write_text("name: mine\nweights: {produce: 3, replication_round: 3, crash: 1, power_loss: 1}\n")
    assert parse_spec(spec).spec_hash() != before


def test_several_failing_cells_are_shrunk_as_spark_tasks(spark, tmp_path):
    """Two failing cells: the shrinks run on the executors and come back pickled (compiled
    frozen steps included); each reproducer replays its anomaly."""
    spec = {"name": "t-two", "seed": 1, "runs": 30, "profile": "kip101-data-loss",
            "grid": {"protocol": ["hw"], "replicas": [2], "acks": ["all", "1"]}}
    result = run_sweep(parse_spec(spec), tmp_path / "s", spark=spark, progress=False)
    assert len(result.shrunk) == 2
    for item in result.shrunk:
        replay = hwlib.run_scenario(hwlib.load_scenario(tmp_path / "s" / item["path"]))
        assert item["kind"] in replay.anomaly_kinds()


def test_check_levels_on_spark_find_exactly_what_one_process_finds(monkeypatch, spark):
    """``hwlib check --master``: the frontier (from 50 states on) partitioned by number over
    Spark tasks, the visited set on the driver - the same state counts, violations and
    counterexample schedules as one process, step for step. Also when the frontier handed over
    is mostly cold (a tiny memory limit): those states have no fingerprint kept, their tasks
    return the one each replay made and the driver checks it."""
    from hwlib.check import Bounds, spark_levels, workers

    from ..check.test_check import NO_CRASHES, config
    from ..helpers.check import explored

    monkeypatch.setattr(workers, "SPLIT_AT", 50)
    monkeypatch.setattr(spark_levels, "MIN_STATES_PER_TASK", 40)
    jobs = []

    class Counted(spark_levels.SparkLevels):
        def __init__(self, search, spec, session):
            super().__init__(search, spec, session, partitions=6)

        def next_level(self):
            jobs.append(self.search.frontier_size())
            return super().next_level()

    monkeypatch.setattr(spark_levels, "SparkLevels", Counted)
    alone = explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, exhaustive=True)
    on_spark = explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, exhaustive=True, spark=spark)
    cold = explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, exhaustive=True, spark=spark, memory=1e-9)
    one, many, handed_cold = alone.as_dict(), on_spark.as_dict(), cold.as_dict()
    del one["seconds"], many["seconds"], handed_cold["seconds"]
    assert one == many == handed_cold and one["complete"] and one["violations"] and one["distinct"] > 10 * 50
    assert len(jobs) >= 3 and max(jobs) >= 6 * 40          # levels ran as Spark jobs of several tasks


def test_check_with_a_bad_master_is_one_line_and_writes_nothing(tmp_path):
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--master", "bogus://x", "--out",
                           str(tmp_path / "c")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and not list(tmp_path.iterdir())
    line = done.stderr.strip()
    assert line.startswith("hwlib: error: master: 'bogus://x' is not a Spark master URL") and "\n" not in line
