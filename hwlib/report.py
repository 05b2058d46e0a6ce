"""The fault-sweep report: parameters (checked before any work), model check, metrics, rendering to offline HTML.

The parameterised notebook runs under papermill and is exported by nbconvert.

The notebook ``notebooks/10_fault_sweep_report.ipynb`` is short: it validates its parameters
here, runs or loads a sweep, and calls ``hwlib.findings`` (what the data say),
``report_figures``, ``report_tables`` and ``report_stories``, which the tests call directly.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import yaml

from .errors import HwlibError
from .files import check_writable, write_text_atomically
from .yamlfile import parse_yaml

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = REPO / "notebooks" / "10_fault_sweep_report.ipynb"

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
    checked at (~15 s on 2 cores): 2 replicas, <= 2 records, leader epochs <= 2, leader moves, isolation (the
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


# -------------------------------------------------------------------------------- metrics
def metrics(summary: pd.DataFrame, manifest: dict, findings: list | None = None) -> dict:
    """Numbers a dashboard or a test can read without parsing HTML (with the findings: each
    one's text, cells and numbers)."""
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
            "by_protocol": by_protocol, "findings": [f.as_dict() for f in findings or []]}


def write_metrics(path, data: dict) -> Path:
    return write_text_atomically(path, json.dumps(data, indent=2, default=str))


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
