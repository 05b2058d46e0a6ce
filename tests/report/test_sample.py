"""The committed sample report is what its spec renders today: its sweep's cell counts and its model check's numbers
recomputed here (no Spark: the same runs, drawn as a sweep draws them) must equal the page's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from hwlib.report import document
from hwlib.report import model_check as report_check
from hwlib.report.findings import by_rules
from hwlib.sweep import load_spec, parse_spec
from hwlib.sweep.runs import run_one, to_frame

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "reports" / "sample-fault-sweep.html"


def _key(row: dict) -> tuple:
    return (row["profile"], row["rules"], row["acks"], row["min_insync_replicas"])


def _recomputed(releases: list[str] | None) -> tuple[dict, list[dict]]:
    """The default spec's cells of ``releases`` (None: every one) run here, counted as the
    sweep's summary counts them, and its model check of those releases, reconciled with them."""
    spec = load_spec("default")
    if releases is not None:
        spec = parse_spec(dict(spec.raw, grid=dict(spec.raw["grid"], release=releases)))
    rows = [run_one(spec, cell, run) for cell in spec.cells for run in range(spec.runs)]
    runs = by_rules(to_frame(spec, rows))
    cells = {}
    for (profile, rules, acks, min_isr), group in runs.groupby(["profile", "protocol", "acks", "min_insync_replicas"],
                                                                sort=False):
        cells[(profile, rules, str(acks), int(min_isr))] = {
            "runs": len(group), "runs_lost": int((group["lost"] > 0).sum()),
            "runs_diverged": int((group["n_log_divergence"] > 0).sum()), "acked": int(group["acked"].sum()),
            "lost": int(group["lost"].sum())}
    checks = report_check.run(spec)
    report_check.reconcile(checks, spec, runs)
    return cells, report_check.metrics(checks)


def _compare(releases: list[str] | None) -> None:
    page = document.read_metrics(SAMPLE)
    assert page["spec_hash"] == load_spec("default").spec_hash(), "the sample was rendered from another default spec"
    cells, checks = _recomputed(releases)
    shown = {_key(row): {k: row[k] for k in ("runs", "runs_lost", "runs_diverged", "acked", "lost")}
             for row in page["by_cell"] if releases is None or row["rules"] in releases}
    assert shown == cells
    page_checks = [c for c in page["model_check"] if releases is None or c["rules"] in releases]
    assert page_checks == checks


def test_the_sample_reports_numbers_are_todays_for_0_11():
    """One release's twelve cells (6,000 runs) and its three searches: what drifts first (an
    engine change moves a state count or a rate) shows here in make test."""
    _compare(["0.11"])


@pytest.mark.slow
def test_the_sample_reports_numbers_are_todays_for_every_release():
    _compare(None)


def test_a_page_without_metrics_is_one_line(tmp_path):
    page = tmp_path / "old.html"
    page.write_text("<html><p>a report</p></html>")
    with pytest.raises(document.ReportParameterError, match="no metrics in this page"):
        document.read_metrics(page)
