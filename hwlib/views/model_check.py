"""Model-checking verdicts for people: the verdict matrix as HTML, each shortest counterexample stepped.

The matrix is a self-contained HTML table, every cell saying what it covers; safety
properties are red (violated) or green (holds, the search was complete), expected effects are
drawn apart in grey with the reason they are not data loss. Each shortest counterexample is a
step-through beside the first later generation where the kind holds, with its scenario file.

Used by ``notebooks/03_model_check.ipynb`` and the fault-sweep report's "Can it happen at
all?" section; offline like every hwlib view (inline styles, no script from outside).
"""

from __future__ import annotations

import html

from ..anomalies.checker import EFFECT_NOTES, is_safety
from ..anomalies.kinds import BY_NAME
from ..check import CheckResult, Verdict, cell_verdict, counterexample, coverage_text, short_coverage
from ..run import run_steps
from ..scenario import Scenario
from .stepper import StepperView

#: cell colours by verdict state (safety kinds); expected effects are always grey
_COLOURS = {"violated": "#fbd5d5", "holds": "#d7f2dc", "partial": "#fdf0c4", "beyond": "#fde0c2",
            "effect": "#e8e8ee"}
#: what each colour means, in the order a legend names them
LEGEND = {
    "violated": "Red: it happens, first after that many steps (the shortest schedule, below).",
    "holds": "Green: it cannot happen within these bounds (the search was complete).",
    "partial": "Yellow: it did not happen as deep as the search went.",
    "beyond": ("Orange: not within these bounds, but the sweep's longer random runs show it - the bounds are too "
               "small to see it."),
    "effect": "Grey: an expected effect of the protocol, not a safety failure.",
}


def shown_state(verdict: Verdict, kind: str) -> str:
    """The colour a cell is drawn in: its verdict's, or grey for an expected effect."""
    return verdict.state if is_safety(kind) else "effect"


def legend_html(states: set[str] | list[str]) -> str:
    """The legend for the colours that appear, and only those."""
    said = " ".join(text for state, text in LEGEND.items() if state in set(states))
    return f'<p class="hwl-legend" style="font-size:12px;color:#444;max-width:60em">{said}</p>' if said else ""


Verdicts = dict[tuple[str, str], Verdict]


def _cell(verdict: Verdict, kind: str, result: CheckResult, caption: str | None, untried: str) -> str:
    state = shown_state(verdict, kind)
    short = short_coverage(result)
    covers = "" if short == caption else f'<br><span style="color:#555;font-size:11px">{html.escape(short)}</span>'
    if untried and verdict.state in ("holds", "partial"):
        covers += f'<br><span class="untried" style="color:#8a4b00;font-size:11px">{html.escape(untried)}</span>'
    return (f'<td class="hwl-verdict" data-state="{verdict.state}" title="{html.escape(coverage_text(result))}" '
            f'style="background:{_COLOURS[state]};padding:3px 8px;vertical-align:top;text-align:left">'
            f'<b>{html.escape(verdict.text)}</b>{covers}</td>')


def matrix_states(results: list[CheckResult], kinds: tuple[str, ...] | list[str],
                  verdicts: Verdicts | None = None) -> set[str]:
    """The colours a matrix draws (for a legend that names only those)."""
    verdicts = verdicts or {}
    return {shown_state(verdicts.get((r.protocol, kind)) or cell_verdict(r, kind), kind)
            for kind in kinds for r in results}


def matrix_html(results: list[CheckResult], kinds: tuple[str, ...] | list[str], verdicts: Verdicts | None = None,
                legend: bool = True, captioned: bool = False, untried: list[str] | tuple[str, ...] = ()) -> str:
    """Rows: anomaly kinds (safety properties, then expected effects with why they are not data
    loss); columns: generations in release order. Every cell says what it covers, in short
    (the whole line on hover) - or, ``captioned`` (a caption above the table gives the
    coverage), only where it differs from that. ``verdicts`` overrides cells ((protocol, kind)
    -> Verdict: the report's reconciliation with its sweep). ``legend``: the colours this table
    draws, explained under it. ``untried``: fault classes the search left out (``model.vocabulary.untried``
    against the default report): every "holds" names them, never green on its own."""
    verdicts = verdicts or {}
    caption = short_coverage(results[0]) if captioned and results else None
    head = "".join(f'<th style="padding:3px 8px;text-align:left">{html.escape(r.protocol)}</th>' for r in results)
    rows = []
    for kind in kinds:
        label = html.escape(kind) if is_safety(kind) else (
            f'{html.escape(kind)}<br><span style="font-weight:normal;color:#555;font-size:11px">'
            f'{BY_NAME[kind].effect_words}: '
            f'{html.escape(EFFECT_NOTES[kind])}</span>')
        left_out = f"not tried: {', '.join(untried)}" if untried else ""
        cells = "".join(_cell(verdicts.get((r.protocol, kind)) or cell_verdict(r, kind), kind, r, caption, left_out)
                        for r in results)
        rows.append(f'<tr><th style="text-align:left;padding:3px 8px;max-width:22em;vertical-align:top">{label}</th>'
                    f'{cells}</tr>')
    states = "".join(f'<td style="padding:3px 8px;color:#555;text-align:left">{r.distinct:,} distinct<br>'
                     f'{r.generated:,} generated'
                     f'<br>depth {r.depth} · {r.seconds:.1f} s<br>{html.escape(r.ending)}</td>' for r in results)
    rows.append(f'<tr><th style="text-align:left;padding:3px 8px;color:#555">states searched</th>{states}</tr>')
    note = legend_html(matrix_states(results, kinds, verdicts)) if legend else ""
    # many releases share the page's width in equal columns (a long cell wraps, a long setting
    # such as min.insync.replicas=1 breaks only where it would overflow); a few keep their width
    wide = len(results) > 4
    layout = ";table-layout:fixed;width:100%" if wide else ""
    corner = '<th style="width:8em"></th>' if wide else "<th></th>"
    return (f'<table class="hwl-matrix" style="border-collapse:collapse;font-size:13px;overflow-wrap:break-word'
            f'{layout}"><tr>{corner}{head}</tr>{"".join(rows)}</table>{note}')


def first_holding(results: list[CheckResult], kind: str, after: str,
                  verdicts: Verdicts | None = None) -> CheckResult | None:
    """The first generation after ``after`` (release order of ``results``) where ``kind`` holds
    with a complete search (and no sweep contradicts it: ``verdicts``)."""
    verdicts = verdicts or {}
    names = [r.protocol for r in results]
    for r in results[names.index(after) + 1:]:
        shown = verdicts.get((r.protocol, kind)) or cell_verdict(r, kind)
        if shown.state == "holds":
            return r
    return None


def counterexample_view(results: list[CheckResult], result: CheckResult, kind: str,
                        verdicts: Verdicts | None = None) -> tuple[str, StepperView, Scenario, str | None]:
    """A caption, the step-through of ``result``'s shortest ``kind`` counterexample beside the
    same schedule under the first later generation that holds (if one does), the scenario, and
    that generation's name. The stepper opens at the step that shows the anomaly."""
    scenario = counterexample(result, kind)
    runs = [run_steps(scenario.config, scenario.steps, scenario.name)]
    titles = [f"{result.protocol}: {kind} at step {len(scenario.steps)}"]
    fixed = first_holding(results, kind, result.protocol, verdicts)
    if fixed is not None:
        runs.append(run_steps(scenario.config.with_rules(fixed.protocol), scenario.steps, scenario.name))
        titles.append(f"{fixed.protocol}: the same steps")
    later = [r.protocol for r in results[[r.protocol for r in results].index(result.protocol) + 1:]]
    beside = (f" Beside it, the same steps under {fixed.protocol}, the first later generation where {kind} "
              f"cannot happen within these bounds." if fixed is not None else
              f" None of the later ones checked here ({', '.join(later)}) closes it within these bounds; a release "
              "not checked may." if later else " No later generation was checked here.")
    caption = (f"**{result.protocol} · {kind}** in {len(scenario.steps)} steps: "
               f"{result.violations[kind].detail}.{beside}")
    return caption, StepperView(runs, titles, start=len(scenario.steps)), scenario, \
        None if fixed is None else fixed.protocol


def earliest_violations(results: list[CheckResult],
                        kinds: tuple[str, ...] | list[str]) -> list[tuple[CheckResult, str]]:
    """Per safety kind, the generation (release order) with the shortest counterexample:
    earliest generation on ties. One example per kind, for a report."""
    chosen = []
    for kind in kinds:
        found = [r for r in results if kind in r.violations]
        if found and is_safety(kind):
            chosen.append((min(found, key=lambda r: r.violations[kind].depth), kind))
    return chosen
