"""Running a sweep into a directory: plan, resume, progress, summary, shrinking, manifest.

Layout of ``DIR``::

    spec.json                the marker: resolved spec, its hash, the run plan (written first)
    .hwlib-lock              held (flock) while a sweep writes here
    runs/chunk=00000/...     parquet parts and their seal, one directory per finished chunk
    summary.parquet          one row per cell (Spark SQL aggregation)
    shrunk/<cell>-<kind>.yaml  a minimal reproducer per failing cell (hwlib run FILE)
    manifest.json            written last: versions, counts, wall time, shrink results

A chunk becomes visible only when complete (Spark writes it under ``runs/_tmp-...``, then it is
renamed), so a killed sweep leaves whole chunks; ``resume`` skips those whose seal still
matches (``directory``), re-runs the others, and the rows end up exactly cells x runs, none
twice.
"""

from __future__ import annotations

import json
import math
import platform
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import compiled
from ..anomalies.checker import SAFETY
from ..faults import derive_seed, generate
from ..run import HASH_VERSION, run_steps
from ..scenario import Scenario
from ..shrink import shrink
from ..util.files import atomic_path, write_text_atomically
from ..util.progress import check_mode, progress
from ..version import __version__
from .directory import FORMAT, LOCK, TOOL, SweepDir, SweepDirError
from .runs import anomaly_column, run_one, schema
from .spec import SweepSpec

#: anomaly kinds that count as a violation for shrinking, most serious first (the expected
#: effects - hw-regression - are not violations)
VIOLATIONS = SAFETY
MAX_CHUNKS = 20
MIN_BATCHES_PER_CHUNK = 8


def plan(spec: SweepSpec) -> list[list[tuple[int, int]]]:
    """Chunks of batches (first run, count) over the sweep's runs numbered across cells (see
    ``run_batch``): at most ``batch_size`` runs per batch, at least ~16 batches when the sweep
    is small enough to need them for balance. A function of the spec alone, so a resumed sweep
    has the same chunks."""
    total = spec.total_runs
    size = max(1, min(spec.batch_size, math.ceil(total / 16)))
    batches = [(first, min(size, total - first)) for first in range(0, total, size)]
    # a multiple of 4 batches per chunk: on 1, 2 or 4 cores no chunk ends with an idle core
    per_chunk = max(MIN_BATCHES_PER_CHUNK, 4 * math.ceil(len(batches) / MAX_CHUNKS / 4))
    return [batches[i:i + per_chunk] for i in range(0, len(batches), per_chunk)]


@dataclass
class SweepResult:
    out: Path
    spec: SweepSpec
    rows: int
    chunks_run: int
    chunks_skipped: int
    wall_s: float
    summary: pd.DataFrame
    shrunk: list[dict] = field(default_factory=list)
    determinism: dict | None = None
    #: engine kind -> rows it produced (each executor says which engine it ran)
    engines: dict[str, int] = field(default_factory=dict)


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _git_commit() -> str | None:
    """HEAD of the checkout hwlib runs from, with ``+dirty`` when hwlib/ has local changes."""
    head = _git("rev-parse", "HEAD")
    if head and _git("status", "--porcelain", "--", str(Path(__file__).resolve().parents[1])):
        head += "+dirty"
    return head


def _prepare_dir(directory: SweepDir, spec: SweepSpec, chunks, resume: bool, overwrite: bool) -> set[int]:
    """Check ``directory`` (locked by the caller) for this sweep, write its marker; returns the
    chunks already done."""
    out = directory.out
    state = {"tool": TOOL, "format": FORMAT, "name": spec.name, "spec_hash": spec.spec_hash(), "runs": spec.runs,
             "batch_size": spec.batch_size, "chunks": len(chunks), "hash_version": HASH_VERSION,
             "columns": [name for name, _ in schema(spec)], "spec": spec.raw}
    old = directory.marker()
    if old is None:
        others = sorted(p.name for p in out.iterdir() if p.name != LOCK)
        if others:
            what = ("a spec.json that is not an hwlib sweep's (or from an older hwlib)" if "spec.json" in others
                    else f"{len(others)} other file(s), e.g. {others[0]}")
            raise SweepDirError(f"out: {out} is not a sweep directory (it holds {what}); "
                                "choose an empty or new directory")
        directory.fresh = True
    elif overwrite:                            # only ever delete what hwlib wrote
        directory.remove_own()
        directory.fresh = True
    elif not resume:
        raise SweepDirError(f"out: {out} already holds a sweep; pass --resume to continue it, "
                            "--overwrite to replace it, or choose another directory")
    else:
        for key in ("spec_hash", "runs", "batch_size", "chunks", "hash_version", "columns"):
            if old.get(key) != state[key]:
                raise SweepDirError(f"out: {out} holds a different sweep ({key} {old.get(key)!r}, this one "
                                    f"{state[key]!r}); use another directory")
    write_text_atomically(out / "spec.json", json.dumps(state, indent=2, default=str))
    runs = out / "runs"
    runs.mkdir(exist_ok=True)
    for tmp in runs.glob("_tmp-chunk=*"):       # what a killed run left half-written
        shutil.rmtree(tmp, ignore_errors=True)
    done, _ = directory.finished_chunks(chunks)
    return done


def run_sweep(spec: SweepSpec, out, *, master: str | None = None, resume: bool = False,
              overwrite: bool = False, progress: bool | str | None = True, progress_file=None,
              shrink_failures: bool = True, check_determinism: int = 0, spark=None) -> SweepResult:
    """Run ``spec`` into ``out`` on Spark. ``resume``: continue a sweep there; ``overwrite``:
    replace a sweep there; ``spark``: an existing session to use (and keep). ``progress``: a
    mode of ``util.progress`` (True: a bar on a terminal, plain lines elsewhere), shown on
    ``progress_file`` (default stderr)."""
    check_mode(progress)
    if resume and overwrite:
        raise SweepDirError("out: --resume continues the sweep in the directory, --overwrite replaces it; "
                            "choose one")
    from .spark import start_session

    started = time.perf_counter()
    out = Path(out)
    chunks = plan(spec)
    directory = SweepDir(out)
    directory.lock()
    try:
        done = _prepare_dir(directory, spec, chunks, resume, overwrite)
        own_session = spark is None
        if own_session:
            spark = start_session(master)
    except BaseException:
        directory.abandon()                    # a sweep that did not start leaves nothing of its own
        raise
    try:
        return _run(spec, directory, chunks, done, spark, own_session, (progress, progress_file), shrink_failures,
                    check_determinism, started)
    finally:
        directory.unlock()


def _run(spec: SweepSpec, directory: SweepDir, chunks, done: set[int], spark, own_session: bool, shown: tuple,
         shrink_failures: bool, check_determinism: int, started: float) -> SweepResult:
    from .spark import run_chunk, summarize

    out = directory.out
    mode, file = shown
    bar = progress(spec.total_runs, f"sweep {spec.name}", "run", mode, file)
    bar.update(sum(c for i in done for _, c in chunks[i]))
    ran = 0
    try:
        for index, batches in enumerate(chunks):
            if index in done:
                continue
            final = directory.chunk_path(index)
            tmp = out / "runs" / f"_tmp-{final.name}"
            shutil.rmtree(tmp, ignore_errors=True)
            run_chunk(spark, spec, batches, str(tmp))
            directory.seal(tmp, sum(count for _, count in batches))
            tmp.rename(final)
            ran += 1
            bar.update(sum(c for _, c in batches))
        bar.note("summarizing")
        paths = directory.chunk_paths(len(chunks))
        summary = summarize(spark, paths, list(spec.cells[0].params))
        rows = int(summary["runs"].sum())
        with atomic_path(out / "summary.parquet") as tmp_path:
            summary.to_parquet(tmp_path, index=False)
        master_url = spark.sparkContext.master
        spark_version = spark.version
        result = SweepResult(out, spec, rows, ran, len(done), 0.0, summary)
        result.engines = {row["engine"]: row["count"] for row in
                          spark.read.parquet(*paths).groupBy("engine").count().collect()}
        if shrink_failures:
            bar.note("shrinking each failing cell's first failing run")
            result.shrunk = shrink_failing_cells(spec, out, spark)
    finally:
        bar.close()
        if own_session:
            spark.stop()
    if check_determinism:
        result.determinism = check_runs(spec, out, check_determinism)
    result.wall_s = time.perf_counter() - started
    manifest = {
        "name": spec.name, "description": spec.description, "spec": spec.raw,
        "spec_hash": spec.spec_hash(), "hash_version": HASH_VERSION, "hwlib_version": __version__,
        "engine": {"driver": str(compiled.active()), "executors": result.engines},
        "git_commit": _git_commit(),
        "spark_version": spark_version, "spark_master": master_url,
        "python_version": platform.python_version(), "pandas_version": pd.__version__,
        "cells": len(spec.cells), "runs_per_cell": spec.runs, "rows": rows,
        "skipped_cells": [{"cell": c, "why": w} for c, w in spec.skipped],
        "chunks": len(chunks), "chunks_run": ran, "chunks_resumed": len(done),
        "wall_s": round(result.wall_s, 3), "shrunk": result.shrunk,
        "determinism": result.determinism,
    }
    write_text_atomically(out / "manifest.json", json.dumps(manifest, indent=2, default=str))
    return result


def read_runs(out, columns: list[str] | None = None) -> pd.DataFrame:
    """The run table of a sweep directory: its planned chunks in order (a stray directory under
    ``runs/`` is not part of the sweep)."""
    out = Path(out)
    try:
        count = int(json.loads((out / "spec.json").read_text(encoding="utf-8"))["chunks"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SweepDirError(f"sweep: {out} has no readable spec.json ({exc})") from None
    frames = [pd.read_parquet(path, columns=columns) for path in SweepDir(out).chunk_paths(count)]
    return pd.concat(frames, ignore_index=True)


def read_summary(out) -> pd.DataFrame:
    return pd.read_parquet(Path(out) / "summary.parquet")


def failing_runs(spec: SweepSpec, out) -> list[tuple[int, int, str]]:
    """Per cell with a violation: (cell index, its first failing run, the most serious kind it shows)."""
    columns = ["cell", "run"] + [anomaly_column(k) for k in VIOLATIONS]
    runs = read_runs(out, columns)
    found = []
    for cell in spec.cells:
        rows = runs[runs["cell"] == cell.id]
        for kind in VIOLATIONS:
            failing = rows[rows[anomaly_column(kind)] > 0]
            if len(failing):
                found.append((cell.index, int(failing["run"].min()), kind))
                break
    return found


def shrink_run(spec: SweepSpec, cell_index: int, run: int, kind: str) -> tuple[Scenario, dict]:
    """Regenerate a run's schedule and shrink it to a 1-minimal scenario that keeps ``kind``."""
    cell = spec.cells[cell_index]
    schedule = generate(cell.profile, derive_seed(spec.seed, cell.schedule_key, run), cell.config.replicas)
    shrunk = shrink(cell.config, schedule.steps, kind)
    shows = run_steps(cell.config, shrunk.steps, record=False).anomaly_kinds()
    label = ", ".join(f"{k}={v}" for k, v in cell.params.items())
    scenario = Scenario(
        name=f"{spec.name}-{cell.id}-{kind}",
        config=cell.config, steps=shrunk.steps,
        description=(f"Sweep {spec.name}, cell {cell.id} ({label}), run {run}: {kind}, shrunk from "
                     f"{shrunk.before} to {len(shrunk.steps)} steps ({shrunk.runs} runs)."),
        expect={cell.config.protocol: tuple(shows)})
    return scenario, {"cell": cell.id, "run": run, "kind": kind, "before": shrunk.before,
                      "after": len(shrunk.steps), "shrink_runs": shrunk.runs, "shows": shows}


def shrink_failing_cells(spec: SweepSpec, out, spark=None) -> list[dict]:
    """For each cell with a violation: its first failing run, shrunk, saved as
    ``shrunk/<cell>-<kind>.yaml``. With a Spark session the shrinks run as parallel tasks."""
    todo = failing_runs(spec, out)
    if spark is not None and len(todo) > 1:
        shrunk = spark.sparkContext.parallelize(todo, len(todo)).map(lambda t: shrink_run(spec, *t)).collect()
    else:
        shrunk = [shrink_run(spec, *t) for t in todo]
    results = []
    for scenario, info in shrunk:
        path = scenario.save(Path(out) / "shrunk" / f"{info['cell']}-{info['kind']}.yaml")
        results.append({**info, "path": str(path.relative_to(out))})
    return results


def check_runs(spec: SweepSpec, out, sample: int) -> dict:
    """Re-run ``sample`` runs spread over the sweep in this process and compare every column
    with the stored rows (trace hashes included)."""
    stored = read_runs(out)
    total = len(spec.cells) * spec.runs
    picks = sorted({(i * total) // sample for i in range(min(sample, total))})
    mismatches = []
    by_key = stored.set_index(["cell", "run"])
    for flat in picks:
        cell = spec.cells[flat // spec.runs]
        run = flat % spec.runs
        fresh = run_one(spec, cell, run)
        row = by_key.loc[(cell.id, run)]
        diffs = [k for k, v in fresh.items() if k not in ("cell", "run") and not _same(row[k], v)]
        if diffs:
            mismatches.append({"cell": cell.id, "run": run, "columns": diffs})
    return {"checked": len(picks), "mismatches": mismatches}


def _same(stored, fresh) -> bool:
    if isinstance(fresh, float):
        return math.isclose(float(stored), fresh, rel_tol=0, abs_tol=0)
    return stored == fresh

