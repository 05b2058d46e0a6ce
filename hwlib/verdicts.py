"""Model-checking verdicts per generation and anomaly kind (violated at depth d, or holds), and the files for them.

``check_all`` runs ``check.explore`` for each generation; ``write_outputs`` writes the
shortest counterexample of each (generation, kind) as a scenario (``expect:`` from replaying
it under that generation, which must show the kind: the search and ``hwlib run`` agree, or
this fails), ``matrix.json`` (one object per generation: the CLI's ``--json`` lines),
``matrix.parquet`` (one row per generation x kind) and ``matrix.md``, into a directory
``check_dir`` has opened.
"""

from __future__ import annotations

import json
from pathlib import Path

from .check import Bounds, CheckError, CheckResult, explore
from .check_dir import CheckDir
from .config import PROTOCOLS, ClusterConfig
from .files import atomic_path, write_text_atomically
from .run import run_steps
from .scenario import Scenario


def parse_protocols(text: str | list[str] | tuple[str, ...]) -> list[str]:
    """``all`` or ``hw,kip320`` (or a list) -> generations, in release order."""
    if text == "all":
        return list(PROTOCOLS)
    names = {p.strip() for p in (text.split(",") if isinstance(text, str) else text) if p.strip()}
    for name in names:
        if name not in PROTOCOLS:
            raise CheckError(f"protocols: {name!r} is not a generation; allowed: all, {', '.join(PROTOCOLS)}")
    if not names:
        raise CheckError(f"protocols: name at least one of all, {', '.join(PROTOCOLS)}")
    return [p for p in PROTOCOLS if p in names]


def check_all(config: ClusterConfig, protocols: list[str], bounds: Bounds, faults: tuple[str, ...],
              kinds: tuple[str, ...], exhaustive: bool = False, progress=None, directory: CheckDir | None = None,
              resume: bool = False, checkpoint_every: float = 10.0, workers: int = 1,
              levels=None) -> list[CheckResult]:
    """``explore`` per generation (on ``workers`` processes, or what ``levels`` builds: a
    Spark cluster); with ``directory``, each search checkpoints there and each finished
    generation is recorded, and ``resume`` goes on from what it holds."""
    results = []
    for protocol in protocols:
        generation = config.replace(protocol=protocol)
        if directory is None:
            results.append(explore(generation, bounds, faults, kinds, exhaustive,
                                   None if progress is None else progress(protocol), workers=workers,
                                   levels=levels))
            continue
        result = directory.finished(protocol, generation.replace(replicas=list("ABCDE"[:bounds.replicas])),
                                    bounds, faults) if resume else None
        if result is None:
            result = explore(generation, bounds, faults, kinds, exhaustive,
                             None if progress is None else progress(protocol),
                             level_done=directory.checkpointer(protocol, checkpoint_every),
                             restore=directory.saved_search(protocol) if resume else None, workers=workers,
                             levels=levels)
            directory.done(result)
        results.append(result)
    return results


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


def write_outputs(out: Path, results: list[CheckResult], kinds: tuple[str, ...]) -> list[Path]:
    """Counterexample scenarios and matrix.json / .parquet / .md."""
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
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
    with atomic_path(out / "matrix.parquet") as tmp:
        frame.to_parquet(tmp, index=False)
    write_text_atomically(out / "matrix.md", matrix_markdown(results, kinds) + "\n")
    return written + [out / "matrix.json", out / "matrix.parquet", out / "matrix.md"]

