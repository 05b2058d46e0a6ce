"""Model-checking verdicts per generation and anomaly kind (violated at depth d, or holds), and the files for them.

``check_all`` runs ``check.explore`` for each generation; ``write_outputs`` writes the
shortest counterexample of each (generation, kind) as a scenario (``expect:`` from replaying
it under that generation, which must show the kind: the search and ``hwlib run`` agree, or
this fails), ``matrix.json`` (one object per generation: the CLI's ``--json`` lines),
``matrix.parquet`` (one row per generation x kind) and ``matrix.md``. The output directory
is one this module made (it carries ``check.json``) or a new or empty one.
"""

from __future__ import annotations

import json
from pathlib import Path

from .check import Bounds, CheckError, CheckResult, explore
from .config import ClusterConfig
from .files import write_text_atomically
from .run import run_steps
from .scenario import Scenario

MARKER = "check.json"


def check_all(config: ClusterConfig, protocols: list[str], bounds: Bounds, faults: tuple[str, ...],
              kinds: tuple[str, ...], exhaustive: bool = False, progress=None) -> list[CheckResult]:
    return [explore(config.replace(protocol=p), bounds, faults, kinds, exhaustive,
                    None if progress is None else progress(p)) for p in protocols]


def verdict(result: CheckResult, kind: str) -> str:
    """``violated at depth 5``, ``holds (complete)`` or ``holds to depth 9``."""
    found = result.violations.get(kind)
    if found is not None:
        return f"violated at depth {found.depth}"
    return "holds (complete)" if result.complete else f"holds to depth {result.depth}"


def matrix_markdown(results: list[CheckResult], kinds: tuple[str, ...]) -> str:
    rows = ["| kind | " + " | ".join(r.protocol for r in results) + " |", "|---|" + "---|" * len(results)]
    for kind in kinds:
        rows.append(f"| {kind} | " + " | ".join(verdict(r, kind) for r in results) + " |")
    rows.append("| states | " + " | ".join(f"{r.distinct:,} distinct, {r.generated:,} generated" for r in results)
                + " |")
    return "\n".join(rows)


def counterexample(result: CheckResult, kind: str) -> Scenario:
    """The shortest schedule found for ``kind`` as a scenario, its expectations from a replay."""
    found = result.violations[kind]
    config = result.config
    replay = run_steps(config, found.steps, record=False)
    shows = replay.anomaly_kinds()
    if kind not in shows:
        raise AssertionError(f"the search found {kind} under {config.protocol} at depth {found.depth}, "
                             f"but a replay of its schedule shows {shows}")
    bounds = result.bounds
    description = (f"Found by hwlib check: the shortest schedule that shows {kind} under {config.protocol} "
                   f"({bounds.replicas} replicas, <= {bounds.max_records} records, leader epochs <= "
                   f"{bounds.max_epoch}, faults {', '.join(result.faults) or 'none'}; depth {found.depth}). "
                   f"{found.detail}")
    return Scenario(f"check-{config.protocol}-{kind}", config, tuple(found.steps), description,
                    {config.protocol: tuple(shows)}, summary=f"shortest {kind} under {config.protocol}")


def _prepare(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise CheckError(f"out: {out} is a file; give a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise CheckError(f"out: {out} holds other files and no {MARKER}; give a new or empty directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CheckError(f"out: cannot create {out}: {exc.strerror}") from None


def write_outputs(out: Path, results: list[CheckResult], kinds: tuple[str, ...]) -> list[Path]:
    """Counterexample scenarios, matrix.json / .parquet / .md and the directory's marker."""
    import pandas as pd

    _prepare(out)
    written = []
    for result in results:
        for kind in result.violations:
            path = out / f"{result.protocol}-{kind}.yaml"
            counterexample(result, kind).save(path)
            written.append(path)
    records = [r.as_dict() for r in results]
    write_text_atomically(out / "matrix.json", "\n".join(json.dumps(r) for r in records) + "\n")
    rows = [{"protocol": r.protocol, "kind": kind, "verdict": verdict(r, kind),
             "violated": kind in r.violations, "depth": r.violations[kind].depth if kind in r.violations else None,
             "complete": r.complete, "distinct": r.distinct, "generated": r.generated, "seconds": r.seconds}
            for r in results for kind in kinds]
    frame = pd.DataFrame(rows)
    frame["depth"] = frame["depth"].astype("Int64")
    tmp = out / "matrix.parquet.tmp"
    frame.to_parquet(tmp, index=False)
    tmp.replace(out / "matrix.parquet")
    write_text_atomically(out / "matrix.md", matrix_markdown(results, kinds) + "\n")
    first = results[0]
    write_text_atomically(out / MARKER, json.dumps({
        "tool": "hwlib check", "protocols": [r.protocol for r in results], "kinds": list(kinds),
        "bounds": {k: getattr(first.bounds, k) for k in ("replicas", "max_records", "max_epoch", "max_ticks",
                                                        "depth", "tick_ms")},
        "faults": list(first.faults), "config": first.config.to_dict()}, indent=2) + "\n")
    return written + [out / "matrix.json", out / "matrix.parquet", out / "matrix.md"]

