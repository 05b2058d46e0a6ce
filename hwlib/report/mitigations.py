"""What helps before an upgrade: lossy power-loss cells swept again on the same schedules, every message flushed.

A power loss takes a broker's unflushed suffix (Kafka leaves flushing to the OS page cache by
default: 2.8.0 ``KafkaConfig`` ``Defaults.LogFlushIntervalMessages = Long.MaxValue``). With
``log.flush.interval.messages=1`` the leader and the followers fsync every record they append
(2.8.0 ``Log.append``: ``if (unflushedMessages >= config.flushInterval) flush()``, on the
leader's and the follower's path alike), so a power loss takes nothing already written - at a
throughput cost. The report measures it rather than saying it: the lossy cells of every fault
profile with power losses are swept again with ``log_flush_interval_messages: 1``, with the same
seed, profile and replicas, hence the same schedules (``SweepSpec``: cells that differ only in
cluster settings share schedules), and the "what to do" names the releases it closed.
"""

from __future__ import annotations

import copy
import html
from dataclasses import dataclass
from pathlib import Path

from ..sweep import SweepSpec, parse_spec, read_summary, run_sweep
from .answer import Cell, ShortAnswer
from .findings import by_rules, join, name, percent

#: the setting tried: fsync after every record (Kafka's log.flush.interval.messages)
FLUSH_EVERY = 1


@dataclass(frozen=True)
class Flushed:
    """One lossy durable cell and the same schedules run with every message flushed."""

    before: Cell
    runs: int
    lost: int

    @property
    def closed(self) -> bool:
        return self.lost == 0


def lossy_power_cells(spec: SweepSpec, answer: ShortAnswer) -> list[Cell]:
    """The durable cells that lost acknowledged writes under a profile with power losses."""
    with_power = {c.profile.name for c in spec.cells if c.profile.weights.get("power_loss", 0) > 0}
    return [cell for story in answer.stories if story.profile in with_power for cell in story.lossy]


def flush_spec(manifest_spec: dict, spec: SweepSpec, cells: list[Cell]) -> SweepSpec | None:
    """The sweep that runs ``cells`` again with every message flushed: the report's own spec
    with its grid cut to those profiles and rules, at their durable setting. None: no cell."""
    if not cells:
        return None
    by_id = {c.id: c for c in spec.cells}
    data = copy.deepcopy(manifest_spec)
    grid = data["grid"]
    rules_key = "release" if "release" in grid else "protocol"
    chosen = [by_id[c.cell] for c in cells]
    grid["profile"] = sorted({c.params.get("profile", c.profile.name) for c in chosen}, key=str)
    grid[rules_key] = list(dict.fromkeys(c.params[rules_key] for c in chosen))
    for key in ("acks", "min_insync_replicas"):
        grid[key] = list(dict.fromkeys(c.params[key] for c in chosen))
    grid["log_flush_interval_messages"] = [FLUSH_EVERY]
    data["name"] = f"{data['name']}-flush"
    data["description"] = (f"The lossy durable cells of sweep {manifest_spec['name']!r} under power loss, on "
                           "the same schedules with log.flush.interval.messages=1.")
    return parse_spec(data)


def measure(manifest_spec: dict, spec: SweepSpec, answer: ShortAnswer, out: Path, *, master: str | None,
            progress, progress_file=None) -> list[Flushed]:
    """Run ``flush_spec`` into ``out`` (replaced: hwlib's own directory) and pair each lossy
    cell with its flushed twin."""
    cells = lossy_power_cells(spec, answer)
    flushed = flush_spec(manifest_spec, spec, cells)
    if flushed is None:
        return []
    run_sweep(flushed, out, master=master, progress=progress, progress_file=progress_file, overwrite=True,
              shrink_failures=False)
    summary = by_rules(read_summary(out))
    rows = {(r["profile"], r["protocol"]): r for _, r in summary.iterrows()}
    out_cells = []
    for cell in cells:
        row = rows[(cell.profile, cell.protocol)]
        out_cells.append(Flushed(cell, int(row["runs"]), int(row["runs_lost"])))
    return out_cells


def _span(cells: list[Flushed], lossy: list[Flushed]) -> str:
    """The releases, named; a run of more than three that are consecutive among the lossy ones
    as ``every one from X to Y``."""
    names = [html.escape(name(f.before.protocol)) for f in cells]
    first = lossy.index(cells[0])
    if len(cells) > 3 and lossy[first:first + len(cells)] == cells:
        return f"every one from {names[0]} to {names[-1]}"
    return join(names)


def _rates(cells: list[Flushed]) -> str:
    low, high = min(f.before.rate for f in cells), max(f.before.rate for f in cells)
    return percent(low) if low == high else f"{percent(low)} - {percent(high)}"


def words(flushed: list[Flushed], profile: str) -> str:
    """The sentence "what to do" adds for ``profile``: which releases flushing every message
    closed on the same schedules, and which it did not, with the numbers; empty when none ran."""
    mine = [f for f in flushed if f.before.profile == profile]
    if not mine:
        return ""
    runs = mine[0].runs
    closed, open_ = [f for f in mine if f.closed], [f for f in mine if not f.closed]
    out = (" Until you can upgrade: flushing every message (<code>log.flush.interval.messages=1</code>, an fsync per "
           "record, at a cost in throughput) ")
    parts = []
    if closed:
        parts.append(f"kept every acknowledged write on the same {runs:,} schedules under {_span(closed, mine)} "
                     f"({_rates(closed)} of runs lost without it)")
    if open_:
        still = "; ".join(f"{html.escape(name(f.before.protocol))}: {percent(f.lost / f.runs)} of runs still lost, "
                          f"against {percent(f.before.rate)}" for f in open_)
        parts.append(f"{'but not under' if closed else 'did not close it under'} {still}")
    return out + ", ".join(parts) + "."


def attach_words(todo: list[tuple[str, str]], answer: ShortAnswer, flushed: list[Flushed]) -> list[tuple[str, str]]:
    """The recommendations with each power-loss story's flush sentence added to its item."""
    scope = {story.scope: story.profile for story in answer.stories}
    out = []
    for key, text in todo:
        kind, _, name_ = key.partition(":")
        extra = words(flushed, scope[name_]) if kind == "durable" and name_ in scope else ""
        out.append((key, text + extra))
    return out
