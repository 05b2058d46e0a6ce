"""The fault-sweep report's tables: the fault profiles, every cell, fault coverage, every paired test, offline HTML.

A few lines of inline script, no CDN.

Clicking a column header sorts by it (numbers by value, percentages and intervals by their first
number, text alphabetically); clicking again reverses. Without script the table reads as is.
"""

from __future__ import annotations

import html
import re

import pandas as pd

from ..faults import FAULT_KINDS, step_action
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


def _headed(table: pd.DataFrame) -> pd.DataFrame:
    """In a sweep over releases (``findings.by_rules``) the rules column is headed "release"."""
    return table.rename(columns={"protocol": "release"}) if "generation" in table.columns else table


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
    return _headed(table.reset_index(drop=True))


def coverage(summary: pd.DataFrame) -> pd.DataFrame:
    """Which fault kinds fired, as the share of runs per cell where each did (kinds that never
    fired anywhere are left out)."""
    keys = config_columns(summary)
    table = summary[["cell", *keys]].copy()
    for kind in FAULT_KINDS:                 # a sweep made before a kind existed has no column for it
        if f"fired_{kind}" in summary.columns and summary[f"fired_{kind}"].max() > 0:
            table[kind.replace("_", " ")] = summary[f"fired_{kind}"].map(lambda v: f"{v:.0%}")
    return _headed(table.reset_index(drop=True))


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


#: each action in the report's words
ACTION_WORDS = {
    "produce": "the producer sends one record", "replication_round": "every replica fetches once",
    "fetch": "one replica fetches", "fetch_split": "a fetch whose response arrives a few steps later",
    "flush": "a replica flushes its log and HW checkpoint", "crash": "a crash the controller notices",
    "quick_restart": "a crash within the session timeout, not noticed", "power_loss": "a power loss: the "
    "unflushed log is gone", "replace_disk": "a broker comes back on a new, empty disk",
    "controlled_shutdown": "a broker shuts down cleanly after handing over its leadership (a rolling restart)",
    "leader_move": "an operator moves leadership (clean election)",
    "tick": "time passes", "isolate": "a broker loses the controller", "lost_ack": "an acknowledgement is lost",
    "consume": "the consumer polls", "consumer_crash": "the consumer dies", "deliver": "a cut-off broker "
    "applies a queued LeaderAndIsr late", "controller_failover": "a new controller takes over",
    "stale_produce": "a produce goes to a broker a stale client believes leads",
    "retention": "a broker's retention deletes old segments, or DeleteRecords: a log start moves",
}
#: the actions counted as faults in "faults per run" (time passing, flushes, split fetches and
#: consumer polls are counted apart)
FAULTS_PER_RUN = ("crash", "quick_restart", "power_loss", "replace_disk", "controlled_shutdown", "leader_move",
                  "isolate", "deliver", "controller_failover", "lost_ack", "stale_produce", "consumer_crash",
                  "retention")


def profile_table(spec, max_runs: int = 500) -> str:
    """Every fault profile of ``spec``: what it models, how long a run is, each action it draws
    with its weight and share of the draws, and how often each fired per run (mean, min-max,
    over the schedules of the sweep's first ``max_runs`` runs of a cell with that profile)."""
    from ..faults import derive_seed, generate
    rows = []
    for name, profile in spec.profiles().items():
        cell = next(c for c in spec.cells if c.profile.name == name)
        runs = min(spec.runs, max_runs)
        counts = []
        for run in range(runs):
            schedule = generate(profile, derive_seed(spec.seed, cell.schedule_key, run), cell.config.replicas)
            drawn: dict[str, int] = {}
            for step in schedule.steps:
                action = step_action(step)
                if action is not None:
                    drawn[action] = drawn.get(action, 0) + 1
            counts.append(drawn)
        total = sum(profile.weights.values())
        items = []
        for action, weight in profile.weights.items():
            if weight <= 0:
                continue
            line = f"<b>{html.escape(action.replace('_', ' '))}</b> {weight:g} ({weight / total:.0%})"
            line += f' <span style="color:#555">- {html.escape(ACTION_WORDS[action])}</span>'
            per_run = [c.get(action, 0) for c in counts]
            if action not in ("produce", "replication_round", "fetch"):
                line += f": {sum(per_run) / runs:.1f} per run ({min(per_run)}-{max(per_run)})"
            items.append(f"<li>{line}</li>")
        faults = [sum(c.get(a, 0) for a in FAULTS_PER_RUN) for c in counts]
        detected = []
        if profile.weights.get("power_loss", 0) > 0:
            detected.append(f"a power loss is noticed by the controller with probability "
                            f"{profile.power_loss_detected:g}")
        if profile.weights.get("isolate", 0) > 0:
            detected.append(f"an isolated broker's session expires with probability {profile.isolate_detected:g}")
        timing = (f"restarts follow {profile.restart_delay[0]}-{profile.restart_delay[1]} steps later; ticks of "
                  + ", ".join(f"{ms / 1000:g}" for ms in profile.tick_ms) + " s" + ("; " if detected else "")
                  + "; ".join(detected))
        rows.append(
            f'<tr><td style="text-align:left;vertical-align:top;white-space:nowrap"><b>{html.escape(name)}</b></td>'
            f'<td style="text-align:left;vertical-align:top;max-width:22em">'
            f'{html.escape(" ".join(profile.description.split()))}</td>'
            f'<td style="text-align:left;vertical-align:top">{profile.steps} random steps'
            f'{"; each fault kind switched on or off per run (swarm)" if profile.swarm else ""}<br>'
            f'<b>{sum(faults) / runs:.1f} faults</b> ({min(faults)}-{max(faults)})<br>'
            f'<span style="color:#555;font-size:11px">{html.escape(timing)}</span></td>'
            f'<td style="text-align:left;vertical-align:top"><ul style="margin:0;padding-left:1.2em">'
            f'{"".join(items)}</ul></td></tr>')
    return ('<table class="hwl-profiles" style="border-collapse:collapse;font-size:12px;text-align:left">'
            '<tr style="text-align:left"><th>profile</th><th>what it models</th>'
            '<th>one run (faults: mean, min-max)</th>'
            '<th>actions: weight (share of draws): times per run, mean (min-max)</th></tr>'
            + "".join(rows) + "</table>"
            '<p style="font-size:12px;color:#444">Faults counted: '
            f'{", ".join(a.replace("_", " ") for a in FAULTS_PER_RUN)}. '
            f"Counts are over the schedules of the first {min(spec.runs, max_runs):,} runs of each profile; "
            "a replication round is every replica fetching once.</p>")
