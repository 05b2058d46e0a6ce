"""The fault-sweep report's counterexample stories: which reproducers to show, their anchors, telling and fix.

Those the findings link to come first; each run is told in one paragraph from its own events
and shown beside the first later generation that fixed its kind.

Each shown reproducer gets the anchor ``cx-<cell>`` so a finding can link to its step-through.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..anomalies.checker import SEVERITY
from ..scenario import load_scenario

_STORY_EVENTS = ("ack", "crash", "restart", "replace_disk", "leader", "truncate", "isr", "elr", "isolate", "reconnect",
                 "refused", "diverging", "epoch_request", "bounced", "detected", "produce_error",
                 "leader_and_isr", "controller_failover", "metadata")


def anchor(cell: str) -> str:
    """The HTML id of a cell's step-through in the report."""
    return f"cx-{cell}"


def counterexamples(sweep_dir, limit: int, linked: list[str] | tuple[str, ...] = ()) -> list[dict]:
    """The shrunk reproducers of a sweep worth reading: first those of the ``linked`` cells (the
    findings point at them), in that order; then up to ``limit`` in all, acks=all cells before
    the rest (losing an acks=1 write when the leader dies is the setting, not a bug), the most
    serious kind first, stronger min.insync.replicas first, one per (protocol, kind)."""
    manifest = json.loads((Path(sweep_dir) / "manifest.json").read_text())
    items = [{**i, "scenario": load_scenario(Path(sweep_dir) / i["path"])} for i in manifest.get("shrunk") or []]
    items.sort(key=lambda i: (i["scenario"].config.acks != "all",
                              SEVERITY.index(i["kind"]),
                              -i["scenario"].config.min_insync_replicas, i["cell"]))
    by_cell = {i["cell"]: i for i in items}
    chosen = [by_cell[c] for c in dict.fromkeys(linked) if c in by_cell]
    seen = {(i["scenario"].config.protocol, i["kind"]) for i in chosen}
    for item in items:
        if len(chosen) >= limit:
            break
        key = (item["scenario"].config.protocol, item["kind"])
        if key not in seen:
            seen.add(key)
            chosen.append(item)
    return chosen


def fixed_by(spec, runs, item: dict) -> str | None:
    """The first later generation that fixed a shown reproducer's kind: its cell at the same
    profile and settings had no run showing the kind, and this schedule does not show it
    either (so the step-through beside it shows the fix). None when no later generation did."""
    from ..engine.config import PROTOCOLS
    from ..run import run_steps
    from ..sweep.runs import anomaly_column

    scenario, kind = item["scenario"], item["kind"]
    cell = next(c for c in spec.cells if c.id == item["cell"])
    context = {k: v for k, v in cell.params.items() if k != "protocol"}
    column = anomaly_column(kind)
    for protocol in PROTOCOLS[PROTOCOLS.index(scenario.config.protocol) + 1:]:
        twin = next((c for c in spec.cells if c.config.protocol == protocol
                     and {k: v for k, v in c.params.items() if k != "protocol"} == context), None)
        if twin is None or (runs.loc[runs["cell"] == twin.id, column] > 0).any():
            continue
        replay = run_steps(scenario.config.replace(protocol=protocol), scenario.steps, record=False)
        if kind not in replay.anomaly_kinds():
            return protocol
    return None


def explain(result, item: dict) -> str:
    """One paragraph from the run's own events: what was acknowledged, which faults and
    elections followed, what each replica truncated, and what the checker found."""
    from ..engine.events import describe

    trace = result.trace
    config = result.config
    sentences = [f"Under {config.protocol} with acks={config.acks} and min.insync.replicas="
                 f"{config.min_insync_replicas} on {len(config.replicas)} replicas, the sweep's run "
                 f"{item['run']} of cell {item['cell']} shrinks from {item['before']} to {item['after']} steps."]
    for i in range(1, len(trace)):
        told = [describe(e) for e in trace.events[i] if e[0] in _STORY_EVENTS]
        if told:
            sentences.append(f"Step {i} ({trace.steps[i - 1].describe()}): " + "; ".join(told) + ".")
    found = [a for a in result.anomalies if a.kind == item["kind"]] or result.anomalies
    if found:
        sentences.append(f"The checker reports {found[0].kind} at step {found[0].step}: {found[0].detail}.")
    return " ".join(sentences)
