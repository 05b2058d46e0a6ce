"""The fault-sweep report: parameters (checked before any work), model check, metrics, rendering to offline HTML.

The parameterised notebook runs under papermill and is exported by nbconvert.

The notebook ``notebooks/10_fault_sweep_report.ipynb`` is short: it validates its parameters
here, runs or loads a sweep, and calls ``hwlib.report.findings`` (what the data say),
``report_figures``, ``report_tables`` and ``report_stories``, which the tests call directly.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import pandas as pd
import yaml

from ..engine.config import ClusterConfig
from ..errors import HwlibError
from ..util.extras import require
from ..util.files import OutputError, check_directory, check_writable, write_text_atomically
from ..util.paths import builtin_dir, project_root
from ..util.progress import check_mode
from ..util.yamlfile import parse_yaml
from . import model_check

#: the report notebook: the checkout's, or the installed package's copy
NOTEBOOK = builtin_dir("notebooks") / "10_fault_sweep_report.ipynb"

#: the notebook's parameters and their defaults (a test holds the notebook's cell to these)
PARAMETERS = {
    "spec": "default",          # a built-in sweep spec name or a YAML file
    "grid": None,               # inline grid (mapping) replacing the spec's grid
    "runs": None,               # runs per cell (None: the spec's)
    "master": None,             # Spark master URL (None: $HWLIB_SPARK_MASTER or local[*])
    "sweep_dir": None,          # an existing sweep directory to load instead of running
    "sweep_out": None,          # where a new sweep goes (None: data/sweeps/report-<spec name>)
    "title": "Kafka replication under faults",
    "max_counterexamples": 6,   # failing cells shown as step-throughs (most serious first)
    "metrics_path": None,       # where the notebook writes its metrics JSON (None: not written)
    "model_check": True,        # the "Can it happen at all?" section (hwlib check at small bounds)
    "overwrite": False,         # replace a sweep already in sweep_out (the default directory is the report's own)
    "progress": "notebook",     # the sweep's and the check's progress: notebook, bar or lines (on the kernel's
                                # terminal: what `hwlib report` asks for), or null
}


class ReportParameterError(HwlibError, ValueError):
    """A report parameter is unknown or has a value it cannot take."""


class NotebookFailed(RuntimeError):
    """The report notebook raised (papermill's ``PapermillExecutionError``, whose module takes
    seconds to import - so a refused parameter is told before it is): the notebook's own
    exception's name and value, and the executed notebook that shows where."""

    def __init__(self, ename: str, evalue: str, notebook: Path) -> None:
        super().__init__(f"{ename}: {evalue}")
        self.ename, self.evalue, self.notebook = ename, evalue, notebook


def parse_param(text: str) -> tuple[str, object]:
    """``k=v`` from the command line; ``v`` is read as YAML (numbers, null, lists, mappings)."""
    if "=" not in text:
        raise ReportParameterError(f"--param {text!r}: expected NAME=VALUE; names: {', '.join(PARAMETERS)}")
    name, raw = text.split("=", 1)
    try:
        value = parse_yaml(raw) if raw.strip() else None
    except yaml.YAMLError:
        value = raw
    return name.strip(), value


def validate(params: dict) -> dict:
    """All parameters with defaults filled in, or a one-line error naming the bad one."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ReportParameterError(f"parameter {unknown[0]!r}: unknown; allowed: {', '.join(PARAMETERS)}")
    out = {**PARAMETERS, **params}
    runs = out["runs"]
    if runs is not None and (isinstance(runs, bool) or not isinstance(runs, int) or runs < 1):
        raise ReportParameterError(f"parameter runs: must be an integer >= 1 or null, got {runs!r}")
    limit = out["max_counterexamples"]
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ReportParameterError(f"parameter max_counterexamples: must be an integer >= 0, got {limit!r}")
    if out["grid"] is not None and not isinstance(out["grid"], dict):
        raise ReportParameterError(f"parameter grid: must be a mapping of setting -> values, got {out['grid']!r}")
    try:
        check_mode(out["progress"], "parameter progress")
    except ValueError as exc:
        raise ReportParameterError(str(exc)) from None
    for name in ("model_check", "overwrite"):
        if not isinstance(out[name], bool):
            raise ReportParameterError(f"parameter {name}: must be true or false, got {out[name]!r}")
    for name in ("spec", "title"):
        if not isinstance(out[name], str) or not out[name].strip():
            raise ReportParameterError(f"parameter {name}: must be a non-empty text, got {out[name]!r}")
    for name in ("master", "sweep_dir", "sweep_out", "metrics_path"):
        if out[name] is not None and not isinstance(out[name], str):
            raise ReportParameterError(f"parameter {name}: must be a text or null, got {out[name]!r}")
    if out["sweep_dir"] is not None:
        manifest = Path(out["sweep_dir"]) / "manifest.json"
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ReportParameterError(f"parameter sweep_dir: {out['sweep_dir']!r} holds no finished sweep "
                                       "(no manifest.json); run `hwlib sweep` first or leave it null") from None
        except (OSError, ValueError) as exc:
            raise ReportParameterError(f"parameter sweep_dir: {manifest} is not a sweep's manifest ({exc})") from None
        if not isinstance(data, dict) or not {"name", "cells", "rows", "spec"} <= set(data):
            raise ReportParameterError(f"parameter sweep_dir: {manifest} is not a sweep's manifest")
        from ..sweep import SweepSpecError, parse_spec

        try:
            parse_spec(data["spec"])
        except SweepSpecError as exc:
            raise ReportParameterError(f"parameter sweep_dir: {out['sweep_dir']!r} was made with a spec this hwlib "
                                       f"cannot read ({exc})") from None
    return out


def precheck(params: dict) -> dict:
    """``validate``, then what the notebook would find out only after starting: the spec (and
    grid, runs) resolve, the master URL is one Spark takes, ``sweep_out`` is free or holds a
    sweep ``overwrite`` may replace. One line naming the parameter; nothing is written."""
    from ..sweep.directory import SweepDir
    from ..sweep.spark import SparkSetupError, check_master
    from ..sweep.spec import SweepSpecError

    out = validate(params)
    if out["sweep_dir"] is not None:
        return out
    try:
        check_master(out["master"], "parameter master")
    except SparkSetupError as exc:
        raise ReportParameterError(str(exc)) from None
    try:
        resolve_spec(out)
    except SweepSpecError as exc:
        raise ReportParameterError(f"parameter spec: {exc}") from None
    if out["sweep_out"] is not None:
        try:
            check_directory(out["sweep_out"], "parameter sweep_out")
        except OutputError as exc:
            raise ReportParameterError(str(exc)) from None
        target = SweepDir(out["sweep_out"])
        if not target.is_empty():
            if target.marker() is None:
                raise ReportParameterError(f"parameter sweep_out: {out['sweep_out']!r} is not a sweep directory; "
                                           "give a new or empty directory")
            if not out["overwrite"]:
                raise ReportParameterError(f"parameter sweep_out: {out['sweep_out']!r} already holds a sweep; "
                                           "pass overwrite=true to replace it, or load it with sweep_dir")
    return out


def resolve_spec(params: dict):
    """The sweep spec the parameters describe (spec file/name, inline grid, runs)."""
    from ..sweep import load_spec, parse_spec

    spec = load_spec(params["spec"])
    if params["grid"] is not None or params["runs"] is not None:
        raw = dict(spec.raw)
        if params["grid"] is not None:
            raw["grid"] = params["grid"]
        if params["runs"] is not None:
            raw["runs"] = params["runs"]
        spec = parse_spec(raw)
    return spec


# ------------------------------------------------------------------------------- the page
def simulated_line(spec, manifest: dict) -> str:
    """What the numbers are, in one paragraph (HTML): a simulation by hwlib's model of one
    partition - not measurements of a Kafka cluster - with its generations and the Kafka
    releases they model, the runs and what one run is, the fault profiles."""
    from .findings import join, release, rules_order, rules_word

    protocols = rules_order(c.config.rules_name for c in spec.cells)
    kind = rules_word(protocols)
    unclean = sorted({bool(c.config.unclean_leader_election) for c in spec.cells})
    election = ("" if len(unclean) > 1 else
                f" Unclean leader election is {'on' if unclean[0] else 'off'} in every cell"
                + ("" if unclean[0] or kind == "generation" else
                   " (Kafka's default from 0.11, KIP-106; before 0.11 it was on)") + ".")
    defaults = defaults_line(spec, protocols) if kind == "release" else ""
    replicas = sorted({len(c.config.replicas) for c in spec.cells})
    steps = sorted({c.profile.steps for c in spec.cells})
    profiles = [f'<a href="#fault-profiles">{html.escape(name)}</a>' for name in spec.profiles()]
    return (f"<p class=\"hwl-simulated\"><b>What this is:</b> a simulation, not measurements of a Kafka cluster. "
            f"hwlib's model of one partition's replication on {join([str(r) for r in replicas])} brokers ran "
            f"<b>{manifest['rows']:,} runs</b> ({manifest['cells']} cells of "
            f"{manifest['runs_per_cell']:,} runs; a cell is one {kind} at one setting under one fault "
            f"profile). Each run is {join([str(s) for s in steps])} random steps - produces, fetches and faults "
            f"drawn from its fault profile ({join(profiles)}, defined below) - replayed exactly under "
            f"the replication rules of {join([release(p) for p in protocols])}, each read from Kafka's code at "
            f"that release (<code>hwlib releases</code>). Cells that differ only in the {kind} or the settings ran "
            f"the same schedules, so their differences are the {kind}s'.{election}{defaults}</p>")


def defaults_line(spec, protocols: list[str]) -> str:
    """The settings the grid leaves to each release, with the values they took: `` The other
    settings are each release's defaults: replica.lag.time.max.ms 10 s (Kafka 0.10.2 - ...)``."""
    from .findings import join, name

    first: dict[str, ClusterConfig] = {}
    for cell in spec.cells:
        first.setdefault(cell.config.rules_name, cell.config)
    parts = []
    for setting, words in (("replica_lag_time_max_ms", "replica.lag.time.max.ms"),
                           ("session_timeout_ms", "the session timeout (zookeeper.session.timeout.ms, under KRaft "
                                                  "broker.session.timeout.ms)")):
        if any(setting in c.config.given for c in spec.cells):
            continue
        values: dict[int, list[str]] = {}
        for rules in protocols:
            values.setdefault(getattr(first[rules], setting), []).append(name(rules))
        parts.append(f"{words} " + ", ".join(f"{value / 1000:g} s ({join(names)})" for value, names in values.items()))
    gated = [rules for rules in protocols if first[rules].eligible_leader_replicas_version is None
             and first[rules].gate_level("eligible_leader_replicas_version")]
    if gated:
        parts.append(f"Eligible Leader Replicas on in {join([name(r) for r in gated])}, as on a cluster created on "
                     "4.1 (eligible.leader.replicas.version=1; one upgraded to 4.1 runs without them until the "
                     "feature is enabled)")
    return f" The other settings are each release's defaults: {'; '.join(html.escape(p) for p in parts)}." \
        if parts else ""


# -------------------------------------------------------------------------------- metrics
def metrics(summary: pd.DataFrame, manifest: dict, findings: list | None = None, checks: list | None = None) -> dict:
    """Numbers a dashboard or a test can read without parsing HTML, each with its setting: per
    generation at the durable setting (acks=all, min.insync.replicas=2) and pooled over every
    setting (acks=1 included, labelled so); each cell's counts; with the findings, each one's
    text, cells and numbers; with the model check (``model_check.ProfileCheck``s), each
    search's state counts, depth, completeness, coverage and shown verdicts."""
    from .findings import DURABLE_ACKS, DURABLE_MIN_ISR

    def per_protocol(rows: pd.DataFrame) -> dict:
        out = {}
        for protocol, group in rows.groupby("protocol", sort=False):
            runs = int(group["runs"].sum())
            out[protocol] = {
                "runs": runs,
                "runs_lost": int(group["runs_lost"].sum()),
                "runs_diverged": int(group["runs_diverged"].sum()),
                "loss_rate": float(group["runs_lost"].sum() / runs) if runs else math.nan,
                "unavailability": float((group["unavailability"] * group["runs"]).sum() / runs) if runs else math.nan,
            }
        return out

    durable = summary[(summary["acks"].astype(str) == DURABLE_ACKS)
                      & (summary["min_insync_replicas"] == DURABLE_MIN_ISR)]
    return {"sweep": manifest.get("name"), "rows": manifest.get("rows"), "cells": manifest.get("cells"),
            "spec_hash": manifest.get("spec_hash"), "git_commit": manifest.get("git_commit"),
            "durable_setting": {"acks": DURABLE_ACKS, "min_insync_replicas": DURABLE_MIN_ISR,
                                "by_protocol": per_protocol(durable)},
            "every_setting": {"note": "pooled over every cell, acks=1 included", "by_protocol": per_protocol(summary)},
            "by_cell": [{"cell": row.cell, "profile": row.profile, "rules": row.protocol, "acks": str(row.acks),
                         "min_insync_replicas": int(row.min_insync_replicas), "runs": int(row.runs),
                         "runs_lost": int(row.runs_lost), "runs_diverged": int(row.runs_diverged),
                         "acked": int(row.acked), "lost": int(row.lost)}
                        for row in summary.itertuples(index=False)],
            "model_check": model_check.metrics(checks or []),
            "findings": [f.as_dict() for f in findings or []]}



#: the id of the page's element holding its metrics JSON (``metrics``), which a tool or a test reads
METRICS_ID = "hwl-metrics"


def footer(metrics_data: dict, manifest: dict) -> str:
    """The closing lines: per generation at the durable setting (stated), and how the report was
    made (sweep, seed, Spark, wall time, commit); after them, unseen, the metrics JSON."""
    durable = metrics_data["durable_setting"]
    setting = f"acks={durable['acks']}, min.insync.replicas={durable['min_insync_replicas']}"
    counts = "; ".join(f"{p} {m['runs_lost']:,} of {m['runs']:,}" for p, m in durable["by_protocol"].items())
    made = (f"Sweep {manifest['name']} (seed {manifest['spec'].get('seed', 0)}, spec hash {manifest.get('spec_hash')}) "
            f"on Spark {manifest['spark_version']} ({manifest['spark_master']}) in {manifest['wall_s']:.0f} s; "
            f"hwlib {manifest['hwlib_version']} at commit {(manifest.get('git_commit') or 'unknown')[:12]}.")
    first = (f"Runs that lost acknowledged data at {setting}, all profiles pooled: {counts}." if counts else
             f"No cell at {setting}.")
    numbers = json.dumps(metrics_data, default=str).replace("</", "<\\/")      # the metrics JSON, for tools
    return (f'<p class="hwl-footer" style="font-size:12px;color:#444">{html.escape(first)} {html.escape(made)}</p>'
            f'<script type="application/json" id="{METRICS_ID}">{numbers}</script>')


def read_metrics(page) -> dict:
    """The metrics JSON a rendered report page carries (``footer``), or one line saying the page
    has none."""
    import re

    text = Path(page).read_text(encoding="utf-8")
    found = re.search(f'<script[^>]*\\bid="{METRICS_ID}"[^>]*>(.*?)</script>', text, re.S)   # any attribute order
    if found is None:
        raise ReportParameterError(f"{page}: no metrics in this page (a report rendered before they were embedded)")
    return json.loads(found.group(1))


def write_metrics(path, data: dict) -> Path:
    return write_text_atomically(path, json.dumps(data, indent=2, default=str))


def render(params: dict, out_html, progress: bool = True) -> dict:
    """Execute the report notebook with ``params`` (papermill) and export it with the code
    hidden; the executed notebook and the metrics JSON are written beside the HTML. Returns
    the paths. ``progress``: the sweep's and the model check's progress on this process's
    stderr (a bar on a terminal, plain lines elsewhere), then a line per phase after them."""
    import sys

    require("report", "the report")
    if progress:
        params = {**params, "progress": "bar" if sys.stderr.isatty() else "lines"}
    else:
        params = {**params, "progress": None}
    params = precheck(params)
    out_html = Path(out_html)
    if out_html.suffix != ".html":
        raise ReportParameterError(f"out: {str(out_html)!r} must end in .html")
    for path in (out_html, out_html.with_suffix(".ipynb"), out_html.with_suffix(".metrics.json")):
        check_writable(path)
    out_html.parent.mkdir(parents=True, exist_ok=True)
    executed = out_html.with_suffix(".ipynb")
    metrics_path = out_html.with_suffix(".metrics.json")
    params["metrics_path"] = str(metrics_path.resolve())
    for name in ("sweep_dir", "sweep_out"):
        if params[name] is not None:
            params[name] = str(Path(params[name]).resolve())
    def phase(text: str) -> None:
        if progress:
            print(f"report: {text}", file=sys.stderr, flush=True)

    # after every refusal: papermill takes seconds to import
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from ..views.notebooks import QUIET_KERNEL, export_html

    phase("running the report notebook (the sweep, the model check, the findings, the figures)")
    try:
        papermill.execute_notebook(str(NOTEBOOK), str(executed), parameters=params,
                                   cwd=str(project_root()),
                                   progress_bar=False, kernel_name="python3", extra_arguments=QUIET_KERNEL)
    except PapermillExecutionError as exc:     # papermill wraps the notebook's own error
        raise NotebookFailed(exc.ename, str(exc.evalue), executed) from exc
    phase(f"writing {out_html}")
    export_html(executed, out_html, hide_code=True, title=params["title"])
    return {"html": out_html, "notebook": executed, "metrics": metrics_path}


# ------------------------------------------------------------------------- navigation
#: the report's sections: (anchor, title) in page order
SECTIONS = (("short-answer", "Short answer"), ("by-release", "By release"), ("findings", "Findings"),
            ("fault-profiles", "Fault profiles"), ("hw-lag", "HW lag"), ("can-it-happen", "Can it happen at all?"),
            ("counterexamples", "Counterexamples"), ("details", "Details"))


def contents_html(sections: tuple[tuple[str, str], ...] = SECTIONS) -> str:
    """A contents bar fixed to the top of the page (it stays reachable while reading), with a
    way back to the top; jumps leave room for it."""
    links = " · ".join(f'<a href="#{anchor}">{html.escape(title)}</a>' for anchor, title in sections)
    return ('<style>html{scroll-padding-top:44px}'
            '.hwl-contents{position:fixed;top:0;left:0;right:0;z-index:100;background:rgba(255,255,255,.97);'
            'border-bottom:1px solid #ccd;padding:6px 18px;font:13px/1.4 system-ui,sans-serif}'
            '.hwl-contents a{color:#2659a6;text-decoration:none}.hwl-contents a:hover{text-decoration:underline}'
            '@media print{.hwl-contents{display:none}}</style>'
            f'<nav class="hwl-contents" aria-label="contents"><b>Contents:</b> {links} · '
            '<a href="#report-title">back to top ↑</a></nav>')
