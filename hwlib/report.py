"""The fault-sweep report: parameters, tables, figures, counterexample stories, metrics, and
rendering the parameterised notebook (papermill) to shareable offline HTML (nbconvert).

The notebook ``notebooks/10_fault_sweep_report.ipynb`` is short: it validates its parameters
here, runs or loads a sweep, and calls the functions below, which the tests call directly.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import yaml

from .errors import HwlibError
from .faults import FAULT_KINDS
from .files import check_writable, write_text_atomically
from .scenario import load_scenario
from .yamlfile import parse_yaml

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = REPO / "notebooks" / "10_fault_sweep_report.ipynb"

#: the notebook's parameters and their defaults (a test holds the notebook's cell to these)
PARAMETERS = {
    "spec": "default",          # a built-in sweep spec name or a YAML file
    "grid": None,               # inline grid (mapping) replacing the spec's grid
    "runs": 40,                 # runs per cell (None: the spec's)
    "master": None,             # Spark master URL (None: $HWLIB_SPARK_MASTER or local[*])
    "sweep_dir": None,          # an existing sweep directory to load instead of running
    "sweep_out": None,          # where a new sweep goes (None: data/sweeps/report-<spec name>)
    "title": "Kafka replication under faults",
    "max_counterexamples": 6,   # failing cells shown as step-throughs (most serious first)
    "metrics_path": None,       # where the notebook writes its metrics JSON (None: not written)
    "model_check": True,        # the "Can it happen at all?" section (hwlib check at small bounds)
    "overwrite": False,         # replace a sweep already in sweep_out (the default directory is the report's own)
}


class ReportParameterError(HwlibError, ValueError):
    """A report parameter is unknown or has a value it cannot take."""


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
        if not isinstance(data, dict) or not {"name", "cells", "rows"} <= set(data):
            raise ReportParameterError(f"parameter sweep_dir: {manifest} is not a sweep's manifest")
    return out


def precheck(params: dict) -> dict:
    """``validate``, then what the notebook would find out only after starting: the spec (and
    grid, runs) resolve, the master URL is one Spark takes, ``sweep_out`` is free or holds a
    sweep ``overwrite`` may replace. One line naming the parameter; nothing is written."""
    from .sweep.directory import SweepDir
    from .sweep.spark import SparkSetupError, check_master
    from .sweep.spec import SweepSpecError

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
        target = SweepDir(out["sweep_out"])
        if target.out.exists() and not target.out.is_dir():
            raise ReportParameterError(f"parameter sweep_out: {out['sweep_out']!r} is a file; give a directory")
        if not target.is_empty():
            if target.marker() is None:
                raise ReportParameterError(f"parameter sweep_out: {out['sweep_out']!r} is not a sweep directory; "
                                           "give a new or empty directory")
            if not out["overwrite"]:
                raise ReportParameterError(f"parameter sweep_out: {out['sweep_out']!r} already holds a sweep; "
                                           "pass overwrite=true to replace it, or load it with sweep_dir")
    return out


#: the anomaly kinds the report's model check looks for
CHECK_KINDS = ("lost-write", "log-divergence", "committed-truncated", "strong-isr")


def model_check() -> list:
    """``hwlib check`` over every generation at the small bounds the TLA+ specification is
    checked at: 2 replicas, <= 2 records, leader epochs <= 2, leader moves, isolation (the
    session expiring or not) and late LeaderAndIsr delivery; acks=all, min.insync.replicas=1."""
    from .check import DEFAULT_FAULTS, Bounds
    from .check_parallel import cores
    from .config import PROTOCOLS, ClusterConfig
    from .verdicts import check_all

    config = ClusterConfig(replicas=("A", "B"), acks="all", min_insync_replicas=1)
    return check_all(config, list(PROTOCOLS), Bounds(replicas=2, max_records=2, max_epoch=2), DEFAULT_FAULTS,
                     CHECK_KINDS, exhaustive=True, workers=cores())


def resolve_spec(params: dict):
    """The sweep spec the parameters describe (spec file/name, inline grid, runs)."""
    from .sweep import load_spec, parse_spec

    spec = load_spec(params["spec"])
    if params["grid"] is not None or params["runs"] is not None:
        raw = dict(spec.raw)
        if params["grid"] is not None:
            raw["grid"] = params["grid"]
        if params["runs"] is not None:
            raw["runs"] = params["runs"]
        spec = parse_spec(raw)
    return spec


# --------------------------------------------------------------------------------- tables
def _interval(rate: float, lo: float, hi: float) -> str:
    return f"{rate:.1%} [{lo:.1%}, {hi:.1%}]"


def config_columns(summary: pd.DataFrame) -> list[str]:
    """The cell parameters that vary (protocol always first)."""
    columns = list(summary.columns)
    candidates = columns[1:columns.index("runs")]     # summarize: cell, the settings, then runs ...
    varying = [c for c in candidates if summary[c].nunique() > 1]
    return ["protocol"] + [c for c in varying if c != "protocol"]


def headline(summary: pd.DataFrame) -> pd.DataFrame:
    """Per cell: acknowledged-loss rate, divergence rate (95% intervals), unavailability,
    produce errors per run."""
    keys = config_columns(summary)
    table = summary[keys].copy()
    table["runs"] = summary["runs"]
    table["acked data lost"] = [_interval(r, lo, hi) for r, lo, hi in
                                zip(summary["lost_rate"], summary["lost_lo"], summary["lost_hi"], strict=True)]
    table["replicas diverged"] = [_interval(r, lo, hi) for r, lo, hi in
                                  zip(summary["diverged_rate"], summary["diverged_lo"], summary["diverged_hi"],
                                      strict=True)]
    table["unavailable (steps without leader)"] = summary["unavailability"].map(lambda v: f"{v:.1%}")
    table["produce errors / run"] = summary["produce_errors_per_run"].map(lambda v: f"{v:.1f}")
    return table.reset_index(drop=True)


def coverage(summary: pd.DataFrame) -> pd.DataFrame:
    """Which fault kinds fired, as the share of runs per cell where each did."""
    keys = config_columns(summary)
    table = summary[keys].copy()
    for kind in FAULT_KINDS:
        table[kind.replace("_", " ")] = summary[f"fired_{kind}"].map(lambda v: f"{v:.0%}")
    return table.reset_index(drop=True)


def metrics(summary: pd.DataFrame, manifest: dict) -> dict:
    """Numbers a dashboard or a test can read without parsing HTML."""
    by_protocol = {}
    for protocol, rows in summary.groupby("protocol", sort=False):
        runs = int(rows["runs"].sum())
        by_protocol[protocol] = {
            "runs": runs,
            "runs_lost": int(rows["runs_lost"].sum()),
            "runs_diverged": int(rows["runs_diverged"].sum()),
            "loss_rate": float(rows["runs_lost"].sum() / runs) if runs else math.nan,
            "unavailability": float((rows["unavailability"] * rows["runs"]).sum() / runs) if runs else math.nan,
        }
    return {"sweep": manifest.get("name"), "rows": manifest.get("rows"), "cells": manifest.get("cells"),
            "spec_hash": manifest.get("spec_hash"), "git_commit": manifest.get("git_commit"),
            "by_protocol": by_protocol}


def write_metrics(path, data: dict) -> Path:
    return write_text_atomically(path, json.dumps(data, indent=2, default=str))


# -------------------------------------------------------------------------------- figures
def _protocol_order(values) -> list[str]:
    from .config import PROTOCOLS

    return [p for p in PROTOCOLS if p in set(values)]


def plot_loss_heatmaps(summary: pd.DataFrame):
    """Acknowledged-loss rate over acks x min.insync.replicas, one panel per protocol
    (averaged over the other settings of the grid)."""
    import matplotlib.pyplot as plt

    protocols = _protocol_order(summary["protocol"])
    fig, axes = plt.subplots(1, len(protocols), figsize=(2.3 * len(protocols) + 1, 2.6), squeeze=False,
                             sharey=True)
    acks = sorted(summary["acks"].astype(str).unique(), key=lambda a: {"0": 0, "1": 1, "all": 2}.get(a, 3))
    mins = sorted(summary["min_insync_replicas"].unique())
    image = None
    for ax, protocol in zip(axes[0], protocols, strict=True):
        rows = summary[summary["protocol"] == protocol]
        grid = [[rows[(rows["acks"].astype(str) == a) & (rows["min_insync_replicas"] == m)]["lost_rate"].mean()
                 for a in acks] for m in mins]
        image = ax.imshow(grid, vmin=0, vmax=1, cmap="Reds", aspect="auto")
        for i, row in enumerate(grid):
            for j, value in enumerate(row):
                if not math.isnan(value):
                    ax.text(j, i, f"{value:.0%}", ha="center", va="center", fontsize=8,
                            color="white" if value > 0.5 else "black")
        ax.set_xticks(range(len(acks)), [f"acks={a}" for a in acks], fontsize=8)
        ax.set_yticks(range(len(mins)), [f"min ISR {m}" for m in mins], fontsize=8)
        ax.set_title(protocol, fontsize=9)
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, label="runs losing acked data")
    return fig


def plot_lag_cdf(runs: pd.DataFrame):
    """CDF of each run's largest HW lag (leader LEO - partition HW), per protocol."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3))
    for protocol in _protocol_order(runs["protocol"]):
        values = sorted(runs.loc[runs["protocol"] == protocol, "hw_lag_max"])
        n = len(values)
        ax.step(values, [(i + 1) / n for i in range(n)], where="post", label=protocol)
    ax.set_xlabel("largest HW lag in the run (records)")
    ax.set_ylabel("share of runs")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def plot_tradeoff(summary: pd.DataFrame):
    """Durability vs availability: each cell's loss rate against its unavailability."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    for protocol in _protocol_order(summary["protocol"]):
        rows = summary[summary["protocol"] == protocol]
        ax.scatter(rows["unavailability"], rows["lost_rate"], label=protocol, alpha=0.75)
    ax.set_xlabel("unavailability (share of steps without an online leader)")
    ax.set_ylabel("runs losing acked data")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


# ---------------------------------------------------------------------- counterexamples
_SERIOUS = ("lost-write", "log-divergence", "duplicate", "reordered", "unseen", "inconsistent-offsets",
            "committed-truncated", "strong-isr", "nonmonotonic-poll", "epoch-cache-order")
_STORY_EVENTS = ("ack", "crash", "restart", "leader", "truncate", "isr", "elr", "isolate", "reconnect",
                 "refused", "diverging", "epoch_request", "bounced", "detected", "produce_error",
                 "leader_and_isr", "controller_failover", "metadata")


def counterexamples(sweep_dir, limit: int) -> list[dict]:
    """The shrunk reproducers of a sweep worth reading first: acks=all cells before the rest
    (losing an acks=1 write when the leader dies is the setting, not a bug), the most serious
    kind first, stronger min.insync.replicas first; one per (protocol, kind)."""
    manifest = json.loads((Path(sweep_dir) / "manifest.json").read_text())
    items = [{**i, "scenario": load_scenario(Path(sweep_dir) / i["path"])} for i in manifest.get("shrunk") or []]
    items.sort(key=lambda i: (i["scenario"].config.acks != "all",
                              _SERIOUS.index(i["kind"]) if i["kind"] in _SERIOUS else 99,
                              -i["scenario"].config.min_insync_replicas, i["cell"]))
    chosen, seen = [], set()
    for item in items:
        key = (item["scenario"].config.protocol, item["kind"])
        if key not in seen:
            seen.add(key)
            chosen.append(item)
    return chosen[:limit]


def explain(result, item: dict) -> str:
    """One paragraph from the run's own events: what was acknowledged, which faults and
    elections followed, what each replica truncated, and what the checker found."""
    from .events import describe

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


def render(params: dict, out_html, progress: bool = True) -> dict:
    """Execute the report notebook with ``params`` (papermill) and export it with the code
    hidden; the executed notebook and the metrics JSON are written beside the HTML. Returns
    the paths."""
    import papermill

    from .notebooks import export_html

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
    papermill.execute_notebook(str(NOTEBOOK), str(executed), parameters=params, cwd=str(REPO),
                               progress_bar=progress, kernel_name="python3")
    export_html(executed, out_html, hide_code=True)
    return {"html": out_html, "notebook": executed, "metrics": metrics_path}
