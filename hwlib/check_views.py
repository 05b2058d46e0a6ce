"""Model-checking verdicts for people: the verdict matrix as HTML, each shortest counterexample stepped.

The matrix is a self-contained HTML table; each shortest counterexample is a step-through
beside the first later generation that holds.

Used by ``notebooks/03_model_check.ipynb`` and the fault-sweep report's "Can it happen at
all?" section; offline like every hwlib view (inline styles, no script from outside).
"""

from __future__ import annotations

import html

from .check import CheckResult
from .run import run_steps
from .verdicts import counterexample, verdict
from .views import StepperView

_COLOURS = {"violated": "#fbd5d5", "complete": "#d7f2dc", "depth": "#fdf0c4"}


def _cell(result: CheckResult, kind: str) -> str:
    text = verdict(result, kind)
    colour = _COLOURS["violated" if kind in result.violations else "complete" if result.complete else "depth"]
    return f'<td style="background:{colour};padding:3px 8px">{html.escape(text)}</td>'


def matrix_html(results: list[CheckResult], kinds: tuple[str, ...] | list[str]) -> str:
    """Rows: anomaly kinds; columns: generations in release order. Red: violated (at the
    depth of the shortest counterexample); green: holds, the search was complete; yellow:
    holds as deep as the search went."""
    head = "".join(f'<th style="padding:3px 8px">{html.escape(r.protocol)}</th>' for r in results)
    rows = [f'<tr><th style="text-align:left;padding:3px 8px">{html.escape(kind)}</th>'
            + "".join(_cell(r, kind) for r in results) + "</tr>" for kind in kinds]
    states = "".join(f'<td style="padding:3px 8px;color:#555">{r.distinct:,} distinct<br>{r.generated:,} generated'
                     f'<br>depth {r.depth} · {r.seconds:.1f} s</td>' for r in results)
    rows.append(f'<tr><th style="text-align:left;padding:3px 8px;color:#555">states searched</th>{states}</tr>')
    return ('<table class="hwl-matrix" style="border-collapse:collapse;font-size:13px">'
            f'<tr><th></th>{head}</tr>{"".join(rows)}</table>')


def bounds_text(result: CheckResult) -> str:
    """``2 replicas, <= 2 records, leader epochs <= 2, faults: elect, isolate``, one line."""
    b = result.bounds
    parts = [f"{b.replicas} replicas", f"<= {b.max_records} records", f"leader epochs <= {b.max_epoch}"]
    if b.max_ticks:
        parts.append(f"<= {b.max_ticks} ticks")
    if b.depth is not None:
        parts.append(f"<= {b.depth} steps")
    config = result.config
    parts.append(f"acks={config.acks}, min.insync.replicas={config.min_insync_replicas}, unclean election "
                 f"{'on' if config.unclean_leader_election else 'off'}")
    return ", ".join(parts) + "; faults: " + (", ".join(result.faults) or "none") + \
        " (besides produce and fetches)"


def first_holding(results: list[CheckResult], kind: str, after: str) -> CheckResult | None:
    """The first generation after ``after`` (release order of ``results``) where ``kind`` holds."""
    names = [r.protocol for r in results]
    later = results[names.index(after) + 1:]
    return next((r for r in later if kind not in r.violations), None)


def counterexample_view(results: list[CheckResult], result: CheckResult, kind: str) -> tuple[str, StepperView]:
    """A caption and the step-through of ``result``'s shortest ``kind`` counterexample, beside
    the same schedule under the first later generation that holds (if one does)."""
    scenario = counterexample(result, kind)
    runs = [run_steps(scenario.config, scenario.steps, scenario.name)]
    titles = [f"{result.protocol}: {kind} at step {len(scenario.steps)}"]
    fixed = first_holding(results, kind, result.protocol)
    if fixed is not None:
        runs.append(run_steps(scenario.config.replace(protocol=fixed.protocol), scenario.steps, scenario.name))
        titles.append(f"{fixed.protocol}: the same steps")
    beside = (f" Beside it, the same steps under {fixed.protocol}, the first later generation where {kind} "
              f"cannot happen within these bounds." if fixed is not None else
              " No later generation closes it within these bounds.")
    caption = (f"**{result.protocol} · {kind}** in {len(scenario.steps)} steps: "
               f"{result.violations[kind].detail}.{beside}")
    return caption, StepperView(runs, titles, start=len(scenario.steps))


def earliest_violations(results: list[CheckResult],
                        kinds: tuple[str, ...] | list[str]) -> list[tuple[CheckResult, str]]:
    """Per kind, the generation (release order) with the shortest counterexample: earliest
    generation on ties. One example per kind, for a report."""
    chosen = []
    for kind in kinds:
        found = [r for r in results if kind in r.violations]
        if found:
            chosen.append((min(found, key=lambda r: r.violations[kind].depth), kind))
    return chosen
