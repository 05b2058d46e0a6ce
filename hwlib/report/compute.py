"""The report's data, computed before anything is shown: ``compute(params) -> ReportData``; notebook 10 displays it.

From the validated parameters (``document.validate``): the sweep (run, or loaded), its
summary and runs keyed by the rules each row ran, the model check of each fault profile's
faults reconciled with the runs (a contradiction stops the report), the short answer, the
findings with their links, the counterexamples told as stories, the recommendations (with, for
a report that ran its sweep, the power-loss cells swept again with every message flushed:
``mitigations``), the HW lag replayed step by step, and the metrics the footer and the metrics
file carry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..sweep import SweepSpec, parse_spec, read_runs, read_summary, run_sweep
from ..util.cores import cores
from ..util.paths import resolve
from . import answer as short
from . import document, lag_series, mitigations, stories
from . import findings as fnd
from . import model_check as report_check


@dataclass
class ReportData:
    """Everything the report shows, by section."""

    params: dict
    out: Path                              # the sweep's directory
    manifest: dict
    spec: SweepSpec
    summary: pd.DataFrame                  # one row per cell, keyed by rules
    runs: pd.DataFrame                     # one row per run
    answer: short.ShortAnswer
    lags: lag_series.LagSeries                          # the HW lag, step by step, of the durable cells
    checks: list[report_check.ProfileCheck] = field(default_factory=list)     # one per fault group
    check_shown: list = field(default_factory=list)     # the shortest counterexample per kind
    shown: list[dict] = field(default_factory=list)     # counterexamples shown (most serious first)
    told: list[stories.Story] = field(default_factory=list)     # ... grouped as stories
    found: list[fnd.Finding] = field(default_factory=list)      # the findings, in order
    todo: list = field(default_factory=list)            # the recommendations
    #: the lossy power-loss cells again with every message flushed (a report that ran its sweep)
    flushed: list[mitigations.Flushed] = field(default_factory=list)
    metrics: dict = field(default_factory=dict)


def compute(params: dict, progress_file=None) -> ReportData:
    """The report's data for validated ``params``; the sweep's and the check's progress go to
    ``progress_file`` (None: the cell that runs)."""
    if params["sweep_dir"] is not None:
        out = resolve(params["sweep_dir"])
    else:
        sweep_spec = document.resolve_spec(params)
        # relative paths mean the project's (the kernel may run in notebooks/)
        out = resolve(params["sweep_out"] or Path("data") / "sweeps" / f"report-{sweep_spec.name}")
        run_sweep(sweep_spec, out, master=params["master"], progress=params["progress"], progress_file=progress_file,
                  overwrite=params["overwrite"] or params["sweep_out"] is None)
    manifest = json.loads((out / "manifest.json").read_text())
    # keyed by the rules each row ran: the release where the sweep is over releases
    summary, runs_table = fnd.by_rules(read_summary(out)), fnd.by_rules(read_runs(out))
    spec = parse_spec(manifest["spec"])
    durable = [c for c in spec.cells if c.config.acks == fnd.DURABLE_ACKS
               and c.config.min_insync_replicas == fnd.DURABLE_MIN_ISR]
    data = ReportData(params, out, manifest, spec, summary, runs_table, short.build(summary, runs_table),
                      lag_series.replay(spec, durable, runs_table))
    # "Can it happen at all?" searches every schedule with the faults of each of the sweep's
    # profiles, and each verdict is reconciled with the sweep's runs (a contradiction stops the report)
    if params["model_check"]:
        data.checks = report_check.run(spec, workers=cores(), progress=params["progress"], file=progress_file)
        report_check.reconcile(data.checks, spec, runs_table)
    data.check_shown = report_check.shortest(data.checks)
    linked = fnd.linked_cells(summary)
    data.shown = stories.counterexamples(out, params["max_counterexamples"], linked)
    links = {item["cell"]: stories.anchor(item["cell"]) for item in data.shown}
    data.told = stories.group(spec, runs_table, data.shown)
    data.answer.explanations = stories.explain_losses(out, data.answer, links)
    divergence_anchor = next((f"check-{kind}" for _, _, kind in data.check_shown if kind == "log-divergence"), None)
    found = fnd.with_stragglers(fnd.compute(summary, runs_table, links, divergence_anchor),
                                short.straggler_findings(data.answer))
    found += report_check.findings(data.checks, report_check.KINDS, "can-it-happen")
    data.found = found
    if params["sweep_dir"] is None:
        # what helps before an upgrade, measured: the same schedules with every message flushed
        data.flushed = mitigations.measure(manifest["spec"], spec, data.answer, out.parent / f"{out.name}-flush",
                                           master=params["master"], progress=params["progress"],
                                           progress_file=progress_file)
    data.todo = mitigations.attach_words(
        short.recommendations(data.answer, next((f.numbers for f in found if f.key == "acks-1"), None),
                              report_check.lost_writes(data.checks)),
        data.answer, data.flushed)
    short.attach(found, data.todo)          # each also under its finding
    data.metrics = document.metrics(summary, manifest, found, data.checks)
    return data
