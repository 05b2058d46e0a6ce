"""Model-checking verdicts per generation and anomaly kind (violated at depth d, or holds), and the files for them.

``write_outputs`` writes the
shortest counterexample of each (generation, kind) as a scenario (``expect:`` from replaying
it under that generation, which must show the kind: the search and ``hwlib run`` agree, or
this fails), ``matrix.json`` (one object per generation: the CLI's ``--json`` lines),
``matrix.parquet`` (one row per generation x kind) and ``matrix.md``, into a directory
``checkpoints.CheckDir`` has opened.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..anomalies import is_safety
from ..model.vocabulary import FAULT_WORDS, ONE_FAULT, times
from ..run import run_steps
from ..scenario import Scenario
from ..util.files import atomic_path, write_text_atomically
from .search import CheckResult

if TYPE_CHECKING:
    from ..model.space import Bounds


@dataclass(frozen=True)
class Verdict:
    """One cell of the verdict matrix: ``state`` is ``violated``, ``holds`` (complete search),
    ``partial`` (holds as deep as the search went), ``effect`` (an expected effect happens),
    or ``beyond`` (the search did not find it within its bounds, but the sweep's runs show it:
    the bounds are too small, and ``text`` says by how much); ``text`` is what the cell says."""

    state: str
    text: str
    depth: int | None = None


def cell_verdict(result: CheckResult, kind: str) -> Verdict:
    """``result``'s verdict on ``kind`` as a matrix cell."""
    found = result.violations.get(kind)
    if found is not None:
        return Verdict("violated" if is_safety(kind) else "effect", verdict(result, kind), found.depth)
    return Verdict("holds" if result.complete else "partial", verdict(result, kind))


def verdict(result: CheckResult, kind: str) -> str:
    """``violated at depth 5``, ``holds (complete)``, ``holds to depth 9`` (with why the search
    stopped when a state budget stopped it). An expected effect (``checks.EFFECTS``) is not a
    property that holds or fails: it ``happens at depth 4 (expected effect)`` or ``does not happen``."""
    found = result.violations.get(kind)
    safety = is_safety(kind)
    if found is not None:
        return f"violated at depth {found.depth}" if safety else f"happens at depth {found.depth} (expected effect)"
    word = "holds" if safety else "does not happen"
    if result.complete:
        return f"{word} (complete)"
    if result.stopped_by_budget:
        return f"{word} to depth {result.depth} (stopped past {result.bounds.max_states:,} states)"
    return f"{word} to depth {result.depth}"


#: how a search's faults qualify a shared word: (noticed variant, unnoticed variant) -> words
_QUALIFIERS = {("isolate", "isolate_unseen"): ("session expired", "session held", "session expired or held"),
               ("power_loss", "power_loss_unseen"): ("noticed", "unnoticed", "noticed or not")}


def _fault_words(faults: tuple[str, ...], qualified: bool) -> list[str]:
    words: list[str] = []
    for fault in faults:
        word = FAULT_WORDS[fault]
        if qualified:
            for (seen, unseen), (alone, unseen_alone, both) in _QUALIFIERS.items():
                if fault in (seen, unseen):
                    pair = seen in faults and unseen in faults
                    word += f" ({both if pair else alone if fault == seen else unseen_alone})"
            if fault == "tick":
                continue
        if word not in words:
            words.append(word)
    return words


def coverage_text(result: CheckResult, others: Sequence[CheckResult] = ()) -> str:
    """What a verdict covers, in one line: ``2 replicas (acks=all, min.insync.replicas=1), <= 2
    records, leader epochs <= 2; produces, fetches and crashes, quick restarts and time passing
    (<= 1 tick of 45 s)``. With ``others`` (the same check of other rules), a tick whose length
    differs between them (each release's replica.lag.time.max.ms) is named per rules."""
    b = result.bounds
    config = result.config
    faults = _fault_words(result.faults, qualified=True)
    every = (result, *[r for r in others if r is not result])
    acks: dict[str, list[str]] = {}
    for each in every:
        acks.setdefault(each.config.acks, []).append(each.protocol)
    if len(acks) > 1:
        acks_words = "acks=" + ", ".join(f"{value} under {join_words(names)}" for value, names in acks.items()) + \
            " (each release's default)"
    elif len(every) > 1 and "acks" not in config.given and config.release_row is not None:
        acks_words = f"acks={config.acks} (each release's default)"
    else:
        acks_words = config.setting_words("acks")
    gates: dict[str, list[str]] = {}
    for each in every:
        for words in each.config.gate_words():
            gates.setdefault(words, []).append(each.protocol)
    gate_words = "".join(f", {words}" + ("" if len(names) == len(every) else f" under {join_words(names)}")
                         for words, names in gates.items())
    if "tick" in result.faults:
        lengths: dict[int, list[str]] = {}
        for each in every:
            lengths.setdefault(each.bounds.tick_length(each.config), []).append(each.protocol)
        count = "1 tick" if b.max_ticks == 1 else f"{b.max_ticks} ticks"
        of = (f"{b.tick_length(config) / 1000:.0f} s" if len(lengths) == 1 else
              ", ".join(f"{ms / 1000:.0f} s under {join_words(names)}" for ms, names in lengths.items()))
        faults.append(f"time passing (<= {count} of {of})")
    parts = [f"{b.replicas} replicas ({acks_words}, {config.min_isr_words()}"
             + (", unclean election on" + config.default_note("unclean_leader_election")
                if config.unclean_leader_election else "")
             + (f", log.flush.interval.messages={config.log_flush_interval_messages}"
                if config.log_flush_interval_messages is not None else "") + gate_words + ")",
             f"<= {records_words(b.max_records)}", f"leader epochs <= {b.max_epoch}"]
    parts.extend(budget_words(b))
    if b.depth is not None:
        parts.append(f"<= {b.depth} steps")
    return ", ".join(parts) + "; produces, fetches" + (f" and {join_words(faults)}" if faults else " only")


def budget_words(bounds: Bounds) -> list[str]:
    """The bounds counted along a schedule, in words: the queue bound, each fault's budget
    (``--fault-budget``) and the AlterPartition bound - ``each at most once: isolation (session
    expired), power loss (noticed)``,
    ``<= 1 ISR change sent by a leader (AlterPartition, AlterIsr, ZooKeeper write)``."""
    out = [] if bounds.max_queued is None else [f"<= {queued_words(bounds.max_queued)}"]
    limits: dict[int, list[str]] = {}
    for fault, limit in bounds.fault_budget:
        limits.setdefault(limit, []).append(ONE_FAULT[fault])
    for limit, names in limits.items():
        listed = ", ".join(names)
        out.append(f"never: {listed}" if not limit else
                   f"{'each ' if len(names) > 1 else ''}at most {times(limit)}: {listed}")
    count = bounds.max_alter_partitions
    if count is not None:
        out.append(f"<= {count} ISR change{'' if count == 1 else 's'} sent by a leader (AlterPartition, AlterIsr, "
                   f"ZooKeeper write)")
    return out


def records_words(count: int) -> str:
    """``1 record``, ``2 records``."""
    return f"{count} record" + ("" if count == 1 else "s")


def queued_words(count: int) -> str:
    """``1 change queued for a cut-off broker``, ``2 changes ...`` (the queue bound, or a
    run's longest queue, in words)."""
    return f"{count} change" + ("" if count == 1 else "s") + " queued for a cut-off broker"


def short_coverage(result: CheckResult) -> str:
    """The same, short enough for a matrix cell: ``with crashes, quick restarts, time passing;
    <= 2 records, 2 replicas``."""
    faults = _fault_words(result.faults, qualified=False)
    return (f"with {', '.join(faults)}; " if faults else "with no faults; ") + \
        f"<= {result.bounds.max_records} records, {result.bounds.replicas} replicas"


def join_words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


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
        raise AssertionError(f"the search found {kind} under {config.rules_name} at depth {found.depth}, "
                             f"but a replay of its schedule shows {shows}")
    bounds = result.bounds
    counted = "".join(f", {words}" for words in budget_words(bounds))
    description = (f"Found by hwlib check: the shortest schedule that shows {kind} under {config.rules_name} "
                   f"({bounds.replicas} replicas, <= {records_words(bounds.max_records)}, leader epochs <= "
                   f"{bounds.max_epoch}{counted}, faults {', '.join(result.faults) or 'none'}; depth {found.depth}). "
                   f"{found.detail}")
    return Scenario(f"check-{config.rules_name}-{kind}", config, tuple(found.steps), description,
                    {config.protocol: tuple(shows)}, summary=f"shortest {kind} under {config.rules_name}")


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

