"""The fault-sweep report's counterexamples: which to show, the Kafka issue a loss shows, the stories they are told in.

Those the findings link to come first; each run is told in one paragraph from its own events
and shown beside the first later generation that fixed its kind. Shown reproducers are grouped
by story (fault profile, kind, setting) behind one selector; each loss a known Kafka issue
explains says so (``explain_losses``).

Each shown reproducer gets the anchor ``cx-<cell>`` so a finding can link to its step-through.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

from ..anomalies.checker import SEVERITY
from ..scenario import load_scenario
from .findings import name

_STORY_EVENTS = ("ack", "crash", "shutdown", "stopped", "restart", "replace_disk", "leader", "truncate", "isr", "elr",
                 "isolate", "reconnect",
                 "refused", "diverging", "epoch_request", "bounced", "detected", "produce_error",
                 "leader_and_isr", "controller_failover", "metadata")


def anchor(cell: str) -> str:
    """The HTML id of a cell's step-through in the report."""
    return f"cx-{cell}"


def shrunk(sweep_dir) -> list[dict]:
    """The sweep's shrunk reproducers, as its manifest lists them (cell, run, kind, path ...)."""
    return json.loads((Path(sweep_dir) / "manifest.json").read_text()).get("shrunk") or []


def counterexamples(sweep_dir, limit: int, linked: list[str] | tuple[str, ...] = ()) -> list[dict]:
    """The shrunk reproducers of a sweep worth reading: first those of the ``linked`` cells (the
    findings point at them), in that order; then up to ``limit`` in all, acks=all cells before
    the rest (losing an acks=1 write when the leader dies is the setting, not a bug), the most
    serious kind first, stronger min.insync.replicas first, one per (protocol, kind)."""
    items = [{**i, "scenario": load_scenario(Path(sweep_dir) / i["path"])} for i in shrunk(sweep_dir)]
    items.sort(key=lambda i: (i["scenario"].config.acks != "all",
                              SEVERITY.index(i["kind"]),
                              -i["scenario"].config.min_insync_replicas, i["cell"]))
    by_cell = {i["cell"]: i for i in items}
    chosen = [by_cell[c] for c in dict.fromkeys(linked) if c in by_cell]
    seen = {(i["scenario"].config.rules_name, i["kind"]) for i in chosen}
    for item in items:
        if len(chosen) >= limit:
            break
        key = (item["scenario"].config.rules_name, item["kind"])
        if key not in seen:
            seen.add(key)
            chosen.append(item)
    return chosen


def fixed_by(spec, runs, item: dict) -> str | None:
    """The first later generation that fixed a shown reproducer's kind: its cell at the same
    profile and settings had no run showing the kind, and this schedule does not show it
    either (so the step-through beside it shows the fix). None when no later generation did."""
    from ..run import run_steps
    from ..sweep.runs import anomaly_column
    from .findings import rules_order, rules_rank

    scenario, kind = item["scenario"], item["kind"]
    cell = next(c for c in spec.cells if c.id == item["cell"])
    rules = ("protocol", "release")
    context = {k: v for k, v in cell.params.items() if k not in rules}
    column = anomaly_column(kind)
    own = rules_rank(scenario.config.rules_name)
    for protocol in rules_order(c.config.rules_name for c in spec.cells):
        if rules_rank(protocol) <= own:
            continue
        twin = next((c for c in spec.cells if c.config.rules_name == protocol
                     and {k: v for k, v in c.params.items() if k not in rules} == context), None)
        if twin is None or (runs.loc[runs["cell"] == twin.id, column] > 0).any():
            continue
        replay = run_steps(scenario.config.with_rules(protocol), scenario.steps, record=False)
        if kind not in replay.anomaly_kinds():
            return protocol
    return None


def explain(result, item: dict) -> str:
    """One paragraph from the run's own events: what was acknowledged, which faults and
    elections followed, what each replica truncated, and what the checker found."""
    from ..engine.events import describe

    trace = result.recorded()
    config = result.config
    sentences = [f"Under {name(config.rules_name)} with acks={config.acks} and min.insync.replicas="
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


def explain_losses(sweep_dir, answer, anchors: dict[str, str] | None = None) -> dict:
    """(profile, protocol) -> Explanation for the losses of ``answer`` that a known Kafka issue
    explains (``known_issues.diagnose`` on the cell's shrunk counterexample), and for every
    straggler (a generation that lost acknowledged writes after an earlier one lost none)
    whether one does or not - the report then flags a possible model defect. ``anchors``:
    cell -> its step-through."""
    from .answer import Explanation
    from .known_issues import diagnose

    anchors = anchors or {}
    losses = {i["cell"]: i for i in shrunk(sweep_dir) if i["kind"] == "lost-write"}
    stragglers = {(c.profile, c.protocol) for c in answer.stragglers}
    out = {}
    for story in answer.stories:
        for cell in story.lossy:
            item = losses.get(cell.cell)
            issue = None if item is None else diagnose(load_scenario(Path(sweep_dir) / item["path"]), "lost-write")
            if issue is not None:
                out[(cell.profile, cell.protocol)] = Explanation(issue.key, issue.text, issue.fixed_in,
                                                                 anchors.get(cell.cell))
            elif (cell.profile, cell.protocol) in stragglers:
                out[(cell.profile, cell.protocol)] = Explanation(None, "", anchor=anchors.get(cell.cell))
    return out


@dataclass
class Variant:
    """Shown reproducers with the same steps (cells that share schedules often shrink to one):
    stepped once, under the first one's generation."""

    items: list[dict]
    fixer: str | None

    @property
    def scenario(self):
        return self.items[0]["scenario"]

    @property
    def protocols(self) -> list[str]:
        return [i["scenario"].config.rules_name for i in self.items]


@dataclass
class Story:
    """The counterexamples of one (profile, kind, setting), shortest first."""

    profile: str
    kind: str
    setting: str
    variants: list[Variant]

    @property
    def anchor(self) -> str:
        return "cxg-" + "-".join("".join(c if c.isalnum() else "-" for c in part)
                                 for part in (self.profile, self.kind, self.setting))


def group(spec, runs, shown: list[dict]) -> list[Story]:
    """The shown reproducers by story: one group per (profile, kind, setting) in the order the
    first of each was chosen; within a group, reproducers with identical steps merged, the
    shortest first (then release order)."""
    from .findings import rules_rank

    cells = {c.id: c for c in spec.cells}
    stories: dict[tuple[str, str, str], list[dict]] = {}
    for item in shown:
        config = item["scenario"].config
        setting = f"acks={config.acks}, min.insync.replicas={config.min_insync_replicas}"
        stories.setdefault((cells[item["cell"]].profile.name, item["kind"], setting), []).append(item)
    out = []
    for (profile, kind, setting), items in stories.items():
        items = sorted(items, key=lambda i: (len(i["scenario"].steps), rules_rank(i["scenario"].config.rules_name)))
        merged: dict[tuple, list[dict]] = {}
        for item in items:
            merged.setdefault(tuple(item["scenario"].steps), []).append(item)
        out.append(Story(profile, kind, setting, [Variant(same, fixed_by(spec, runs, same[0]))
                                                  for same in merged.values()]))
    return out


def story_html(story: Story, explanations: dict | None = None) -> str:
    """One story as HTML: a heading, a selector over its variants (shortest first) and each
    variant - who shows it, its explanation where a straggler has one, the run in words
    (collapsed), the step-through beside the generation that fixed it, the scenario file. Only
    the selected variant is visible; ``#cx-<cell>`` in the URL selects that cell's."""
    from ..scenario import run_scenario
    from ..views import picker_html, scenario_file_html, stepper_html
    from .findings import join, release

    explanations = explanations or {}
    variants = []
    for variant in story.variants:
        first = variant.items[0]
        result = run_scenario(variant.scenario)
        runs = [result] + ([run_scenario(variant.scenario.with_rules(variant.fixer))] if variant.fixer else [])
        at = min((a.step for a in result.anomalies if a.kind == story.kind), default=len(variant.scenario.steps))
        who = join([f"<b>{html.escape(release(p))}</b>" for p in variant.protocols])
        cells = join([f"cell {i['cell']} run {i['run']}" for i in variant.items])
        beside = (f" Beside it, the same steps under {html.escape(name(variant.fixer))}, the first later rules in this "
                  f"sweep that fixed it." if variant.fixer else " No later rules in this sweep fixed it.")
        why = "".join(f'<p class="hwl-why" style="margin:.3em 0">{explanations[(story.profile, p)].html()}</p>'
                      for p in variant.protocols if (story.profile, p) in explanations)
        markers = "".join(f'<span id="{anchor(i["cell"])}"></span>' for i in variant.items[1:])
        filename = f"{first['cell']}-{story.kind}.yaml"
        titles = [f"{name(result.config.rules_name)}: {story.kind} at step {at}"]
        titles += [f"{name(variant.fixer)}: the same steps"] if variant.fixer else []
        body = (f'{markers}<p style="margin:.3em 0">{who}: {html.escape(story.kind)} at step {at} ({cells}, shrunk '
                f'from {first["before"]} to {first["after"]} steps).{beside}</p>{why}'
                f'<details style="margin:.2em 0 .4em"><summary style="cursor:pointer">The run in words</summary>'
                f'<p style="max-width:62em">{html.escape(explain(result, first))}</p></details>'
                f'{stepper_html(runs, titles, start=at, sequence_open=False, link_name=first["scenario"].name)}'
                f'{scenario_file_html(variant.scenario, filename, variant.fixer)}')
        variants.append((anchor(first["cell"]), f"{join([name(p) for p in variant.protocols])} · "
                                                f"{len(variant.scenario.steps)} steps",
                         body))
    heading = (f'<h3 style="margin:1.2em 0 .3em">{html.escape(story.kind)} under {html.escape(story.profile)} '
               f'({html.escape(story.setting)})</h3>')
    return picker_html(story.anchor, heading, picker_prompt(story), variants)


def picker_prompt(story: Story) -> str:
    """What the selector over a story's reproducers says: how many cells showed the story and,
    where some share their steps (one option each), in how many different schedules."""
    cells = sum(len(v.items) for v in story.variants)
    schedules = len(story.variants)
    shown = f"{cells} cell{'s' if cells != 1 else ''} show{'' if cells != 1 else 's'} it"
    if schedules == cells:
        return f"{shown}; pick one (shortest first):"
    return f"{shown}, with {schedules} different schedules; pick one (shortest first):"
