"""Side-by-side view of scenarios under each protocol: a text table and one PNG of HW over steps."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from ..anomalies.checker import effect_tag, is_safety
from ..engine.config import PROTOCOLS
from ..engine.releases import GATES
from ..run import RunResult
from ..scenario import Scenario, run_scenario
from ..util.files import atomic_path, write_text_atomically


def run_matrix(scenarios: list[Scenario], protocols=PROTOCOLS) -> dict[tuple[str, str], RunResult]:
    """Each scenario under each of ``protocols``: generations (``kip320``) or releases (``3.7-kraft``)."""
    return {(s.name, p): run_scenario(s.with_rules(p)) for s in scenarios for p in protocols}


def _logs(result: RunResult) -> str:
    return "  ".join(f"{rid}:[{','.join(rec[2] for rec in rep['log'])}]"
                     for rid, rep in result.final["replicas"].items())


#: the settings a column names when the columns ran them differently (Kafka's names)
SETTINGS = (("acks", "acks"), ("min_insync_replicas", "min.insync.replicas"),
            ("unclean_leader_election", "unclean.leader.election.enable"),
            ("replica_lag_time_max_ms", "replica.lag.time.max.ms"), ("session_timeout_ms", "session timeout"),
            ("retries", "retries"))


def _settings(result: RunResult) -> list[tuple[object, str]]:
    """Each setting's value and its words (``acks=1 (2.8's default)``), then each feature level."""
    config = result.config
    out: list[tuple[object, str]] = [(getattr(config, name), config.setting_words(name, kafka))
                                     for name, kafka in SETTINGS]
    words = config.gate_words()
    for gate in GATES:
        out.append((config.gate_level(gate.setting),
                    next((w for w in words if w.startswith(gate.kafka + "=")), f"{gate.kafka}: none")))
    return out


def text_table(scenarios: list[Scenario], results: dict, protocols=PROTOCOLS) -> str:
    """Per scenario, its description, then per column the outcome; where the columns ran with
    different settings (each release's defaults: acks=1 up to 2.8, all from 3.0), each column
    names its own and whose default each is."""
    from .text import wrapped

    lines = []
    for s in scenarios:
        lines += wrapped(f"== {s.name}:", " ".join(s.description.split()), 4)
        ran = {p: _settings(results[(s.name, p)]) for p in protocols}
        differ = [i for i in range(len(SETTINGS) + len(GATES)) if len({v[i][0] for v in ran.values()}) > 1]
        for p in protocols:
            r = results[(s.name, p)]
            kinds = ", ".join(r.anomaly_kinds()) or "none"
            lost = sorted({a.value for a in r.anomalies if a.kind == "lost-write"})
            lines.append(f"  {p:<11} leader {r.final['leader'] or '-'} epoch {r.final['leader_epoch']}"
                         f"  HW {r.final['partition_hw']}  acked {len(r.acked)}"
                         f"  lost {len(lost)}{' (' + ','.join(lost) + ')' if lost else ''}")
            if differ:
                lines += wrapped("              ran", "  ".join(ran[p][i][1] for i in differ), 18)
            lines.append(f"              logs {_logs(r)}")
            lines.append(f"              anomalies: {kinds}")
            for a in r.anomalies:
                tag = "" if is_safety(a.kind) else f" ({effect_tag(a.kind)})"
                lines += wrapped(f"                step {a.step:>2} {a.kind}{tag}:", a.detail, 20)
        lines.append("")
    return "\n".join(lines)


def plot(scenarios: list[Scenario], results: dict, path: str | os.PathLike,
         protocols=PROTOCOLS) -> Path:
    """One PNG: a row per scenario, a column per protocol; partition HW, leader LEO and each
    follower's HW over the steps, anomalies marked where they appear. Drawn with matplotlib's
    object API: a user's notebook keeps its backend and its pyplot figures."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    rows, cols = len(scenarios), len(protocols)
    fig = Figure(figsize=(3.4 * cols, 2.3 * rows))
    axes = fig.subplots(rows, cols, squeeze=False, sharey="row")
    for i, s in enumerate(scenarios):
        for j, p in enumerate(protocols):
            ax = axes[i][j]
            r = results[(s.name, p)]
            frame = r.trace.to_dataframe()
            steps = sorted(frame["step"].unique())
            per_step = frame.groupby("step").first()
            ax.step(steps, per_step["leader_leo"].astype("float"), where="post",
                    label="leader LEO", color="0.6", linestyle="--")
            ax.step(steps, per_step["partition_hw"].astype("float"), where="post",
                    label="partition HW", color="black", linewidth=2)
            for rid in r.config.replicas:
                sub = frame[frame["replica"] == rid]
                ax.step(sub["step"], sub["hw"], where="post", label=f"{rid} HW", alpha=0.7)
            for a in r.anomalies:
                ax.axvline(a.step, color="red", alpha=0.25, linewidth=3)
            kinds = textwrap.fill(", ".join(r.anomaly_kinds()) or "no anomalies", 40)
            ax.set_title(f"{s.name} [{p}]\n{kinds}", fontsize=7)
            ax.tick_params(labelsize=7)
            if i == rows - 1:
                ax.set_xlabel("step", fontsize=8)
            if j == 0:
                ax.set_ylabel("offset", fontsize=8)
    legend: dict = {}
    for ax in axes.flat:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(label, handle)
    fig.legend(legend.values(), legend.keys(), loc="upper center", ncol=len(legend), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=90)
    return Path(path)


def write_comparison(scenarios: list[Scenario], out: str | os.PathLike,
                     protocols=PROTOCOLS) -> tuple[Path, Path, str]:
    """Write ``OUT.txt`` and ``OUT.png``; returns their paths and the text."""
    results = run_matrix(scenarios, protocols)
    text = text_table(scenarios, results, protocols)
    out = Path(out)
    txt = write_text_atomically(out.with_suffix(".txt"), text)
    png = plot(scenarios, results, out.with_suffix(".png"), protocols)
    return txt, png, text
