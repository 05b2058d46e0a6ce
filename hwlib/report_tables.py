"""The fault-sweep report's tables: every cell, fault coverage, every paired test, as sortable offline HTML.

A few lines of inline script, no CDN.

Clicking a column header sorts by it (numbers by value, percentages and intervals by their first
number, text alphabetically); clicking again reverses. Without script the table reads as is.
"""

from __future__ import annotations

import html
import re

import pandas as pd

from .faults import FAULT_KINDS
from .findings import ALPHA, Sweep, interval, param_columns

#: one sorter for every table on the page, installed once (tables carry class hwl-sortable)
_SORT_SCRIPT = """<script>
(function () {
  if (window.hwlSortable) { window.hwlSortable(); return; }
  function key(text) {
    var m = text.replace(/,/g, "").match(/^\\s*(-?\\d+(?:\\.\\d+)?(?:e[-+]?\\d+)?)/);
    return m ? [0, parseFloat(m[1])] : [1, text.trim().toLowerCase()];
  }
  function sort(table, col, th) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var dir = th.getAttribute("data-dir") === "asc" ? "desc" : "asc";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("data-dir"); });
    th.setAttribute("data-dir", dir);
    rows.sort(function (a, b) {
      var x = key(a.cells[col].textContent), y = key(b.cells[col].textContent);
      var c = x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
      return dir === "asc" ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  window.hwlSortable = function () {
    document.querySelectorAll("table.hwl-sortable:not([data-ready])").forEach(function (table) {
      table.setAttribute("data-ready", "1");
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
        th.style.cursor = "pointer";
        th.title = "sort";
        th.addEventListener("click", function () { sort(table, col, th); });
      });
    });
  };
  window.hwlSortable();
})();
</script>"""

_STYLE = ("<style>table.hwl-sortable{border-collapse:collapse;font-size:12px}"
          "table.hwl-sortable th,table.hwl-sortable td{padding:2px 8px;border-bottom:1px solid #eee;text-align:right}"
          "table.hwl-sortable th{background:#f6f6f6;position:sticky;top:0}"
          'table.hwl-sortable th[data-dir="asc"]::after{content:" \\25B2"}'
          'table.hwl-sortable th[data-dir="desc"]::after{content:" \\25BC"}</style>')


def sortable_html(table: pd.DataFrame, summary_line: str, open_: bool = False) -> str:
    """``table`` inside a collapsed ``<details>`` whose summary is ``summary_line``; its
    headers sort the rows."""
    body = table.to_html(index=False, border=0, classes="hwl-sortable", escape=True)
    body = re.sub(r'<table border="0" class="dataframe hwl-sortable">|<table class="dataframe hwl-sortable">',
                  '<table class="hwl-sortable">', body)
    return (f'<details{" open" if open_ else ""} class="hwl-details"><summary>{html.escape(summary_line)}</summary>'
            f'{_STYLE}<div style="max-height:32em;overflow:auto">{body}</div>{_SORT_SCRIPT}</details>')


def config_columns(summary: pd.DataFrame) -> list[str]:
    """The cell parameters that vary (protocol always first)."""
    varying = [c for c in param_columns(summary) if summary[c].nunique() > 1]
    return ["protocol"] + [c for c in varying if c != "protocol"]


def cell_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Per cell: acknowledged-loss rate, divergence rate (95% intervals), unavailability,
    produce errors per run."""
    keys = config_columns(summary)
    table = summary[["cell", *keys]].copy()
    table["runs"] = summary["runs"]
    table["acked data lost"] = [interval(r, lo, hi) for r, lo, hi in
                                zip(summary["lost_rate"], summary["lost_lo"], summary["lost_hi"], strict=True)]
    table["replicas diverged"] = [interval(r, lo, hi) for r, lo, hi in
                                  zip(summary["diverged_rate"], summary["diverged_lo"], summary["diverged_hi"],
                                      strict=True)]
    table["unavailable (steps without leader)"] = summary["unavailability"].map(lambda v: f"{v:.1%}")
    table["produce errors / run"] = summary["produce_errors_per_run"].map(lambda v: f"{v:.1f}")
    table["worst HW lag p90"] = summary["hw_lag_max_p90"]
    return table.reset_index(drop=True)


def coverage(summary: pd.DataFrame) -> pd.DataFrame:
    """Which fault kinds fired, as the share of runs per cell where each did (kinds that never
    fired anywhere are left out)."""
    keys = config_columns(summary)
    table = summary[["cell", *keys]].copy()
    for kind in FAULT_KINDS:
        if summary[f"fired_{kind}"].max() > 0:
            table[kind.replace("_", " ")] = summary[f"fired_{kind}"].map(lambda v: f"{v:.0%}")
    return table.reset_index(drop=True)


def paired_tests(summary: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Every pair of consecutive generations in every scope and setting, compared on their
    shared schedules (McNemar's exact test on runs that lost data under one only)."""
    sweep = Sweep(summary, runs)
    rows = []
    for key, scope in sweep.scopes():
        for (acks, min_isr), setting in scope.groupby(["acks", "min_insync_replicas"], sort=True):
            cells = sweep.by_protocol(setting)
            names = list(cells)
            for older, newer in zip(names, names[1:], strict=False):
                test = sweep.paired(cells[older]["cell"], cells[newer]["cell"])
                rows.append({**dict(zip(sweep.scope_columns, key, strict=True)), "acks": acks,
                             "min ISR": min_isr, "older": older, "newer": newer, "shared runs": test["runs"],
                             "lost under older only": test["a_only"], "lost under newer only": test["b_only"],
                             "p (exact McNemar)": f"{test['p']:.2g}",
                             "difference": "significant" if test["p"] < ALPHA else "not shown"})
    return pd.DataFrame(rows)
