"""The fault-sweep report's figures (matplotlib): headline by generation, HW lag, heatmaps per profile, trade-off.

Generations are always laid out in release order; colours per fault profile in the headline,
per generation elsewhere. Every figure is computed from the sweep's tables only.
"""

from __future__ import annotations

import math

import pandas as pd

from ..engine.config import PROTOCOLS
from .findings import DURABLE_ACKS, DURABLE_MIN_ISR, KIPS, Sweep, generation_of, plain, rules_order, rules_word


def tick(rules: str) -> str:
    """A figure's label for rules: a generation's name, or a release over its rules' KIP."""
    if rules in PROTOCOLS:
        return rules
    from ..engine.releases import release

    return f"{release(rules).label.replace('ZooKeeper', 'ZK')}\n{KIPS[generation_of(rules)]}"




#: the headline's panels: (title, rate column, interval columns or None)
HEADLINE_PANELS = (
    ("acknowledged data lost", "lost_rate", ("lost_lo", "lost_hi")),
    ("replica logs diverged", "diverged_rate", ("diverged_lo", "diverged_hi")),
    ("steps without an online leader", "unavailability", None),
)


def plot_headline(summary: pd.DataFrame):
    """Share of runs losing acknowledged data, share whose logs diverged, and the share of steps
    without an online leader, by generation (release order), one colour per fault profile:
    the durable setting (acks=all, min.insync.replicas=2) bold with Wilson 95% intervals, the
    other acks / min.insync.replicas settings as faint lines."""
    import matplotlib.pyplot as plt

    sweep = Sweep(summary, pd.DataFrame())
    protocols = sweep.protocols
    by = rules_word(protocols)
    x = {p: i for i, p in enumerate(protocols)}
    fig, axes = plt.subplots(1, len(HEADLINE_PANELS), figsize=(12, 3.6), sharex=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for (title, column, bounds), ax in zip(HEADLINE_PANELS, axes, strict=True):
        for index, (key, rows) in enumerate(sweep.scopes()):
            colour = colours[index % len(colours)]
            for (acks, min_isr), setting in rows.groupby(["acks", "min_insync_replicas"], sort=True):
                cells = sweep.by_protocol(setting)
                xs = [x[p] for p in cells]
                ys = [float(r[column]) for r in cells.values()]
                if acks == DURABLE_ACKS and min_isr == DURABLE_MIN_ISR:
                    errors = None
                    if bounds:
                        errors = [[y - float(r[bounds[0]]) for y, r in zip(ys, cells.values(), strict=True)],
                                  [float(r[bounds[1]]) - y for y, r in zip(ys, cells.values(), strict=True)]]
                    ax.errorbar(xs, ys, yerr=errors, color=colour, marker="o", linewidth=2, capsize=3,
                                label=plain(sweep.scope_text(key)), zorder=3)
                else:
                    ax.plot(xs, ys, color=colour, alpha=0.25, linewidth=1, linestyle="--", zorder=1)
        ax.set_title(title, fontsize=10)
        ax.set_xticks(range(len(protocols)), [tick(p) for p in protocols], fontsize=7,
                      rotation=0 if by == "generation" else 50, ha="center" if by == "generation" else "right",
                      rotation_mode="anchor")
        ax.set_ylim(-0.02, 1.02)
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of runs / steps")
    handles, labels = axes[0].get_legend_handles_labels()
    handles.append(plt.Line2D([], [], color="grey", alpha=0.4, linestyle="--"))
    labels.append("other acks / min.insync.replicas")
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.suptitle(f"By {by}, acks={DURABLE_ACKS} and min.insync.replicas={DURABLE_MIN_ISR} "
                 "(bars: 95% intervals)", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def plot_lag_over_steps(table: pd.DataFrame):
    """Partition HW lag (leader LEO - HW) and follower HW lag (HW - lowest ISR follower's HW)
    at each step: one panel per generation and lag, the median as a line and the band up to
    the 90th percentile across runs."""
    import matplotlib.pyplot as plt

    protocols = rules_order(table["protocol"])
    rows = (("partition", "partition HW lag\n(leader LEO - HW)"),
            ("follower", "follower HW lag\n(HW - lowest ISR follower HW)"))
    fig, axes = plt.subplots(len(rows), max(1, len(protocols)), figsize=(12, 4.6), sharex=True, sharey=True,
                             squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for r, (name, label) in enumerate(rows):
        for c, protocol in enumerate(protocols):
            ax = axes[r][c]
            data = table[table["protocol"] == protocol]
            colour = colours[c % len(colours)]
            ax.fill_between(data["step"], data[f"{name}_p50"], data[f"{name}_p90"], step="mid", color=colour,
                            alpha=0.25, linewidth=0)
            ax.step(data["step"], data[f"{name}_p50"], where="mid", color=colour, linewidth=1.3)
            ax.grid(alpha=0.3)
            if r == 0:
                ax.set_title(tick(protocol), fontsize=8)
            if r == len(rows) - 1:
                ax.set_xlabel("step", fontsize=8)
            ax.tick_params(labelsize=7)
        axes[r][0].set_ylabel(label + "\nrecords", fontsize=8)
    fig.suptitle("line: median across runs; band: up to the 90th percentile", fontsize=9)
    fig.tight_layout()
    return fig


def plot_lag_cdf(runs: pd.DataFrame):
    """CDF of each run's largest HW lag (leader LEO - partition HW), per generation."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3))
    for protocol in rules_order(runs["protocol"]):
        values = sorted(runs.loc[runs["protocol"] == protocol, "hw_lag_max"])
        n = len(values)
        ax.step(values, [(i + 1) / n for i in range(n)], where="post", label=tick(protocol).replace("\n", " · "))
    ax.set_xlabel("largest HW lag in the run (records)")
    ax.set_ylabel("share of runs")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def plot_loss_heatmaps(summary: pd.DataFrame):
    """Acknowledged-loss rate over acks x min.insync.replicas: one row of panels per fault
    profile (scope), one panel per generation - never averaged across profiles."""
    import matplotlib.pyplot as plt

    sweep = Sweep(summary, pd.DataFrame())
    scopes = sweep.scopes()
    protocols = sweep.protocols
    fig, axes = plt.subplots(len(scopes), len(protocols), figsize=(1.9 * len(protocols) + 1.4, 1.9 * len(scopes) + 0.4),
                             squeeze=False, sharex=True, sharey=True)
    acks = sorted(sweep.summary["acks"].unique(), key=lambda a: {"0": 0, "1": 1, "all": 2}.get(a, 3))
    mins = sorted(sweep.summary["min_insync_replicas"].unique())
    image = None
    for row_axes, (key, rows) in zip(axes, scopes, strict=True):
        for ax, protocol in zip(row_axes, protocols, strict=True):
            cells = rows[rows["protocol"] == protocol]
            grid = [[_mean(cells[(cells["acks"] == a) & (cells["min_insync_replicas"] == m)]["lost_rate"])
                     for a in acks] for m in mins]
            image = ax.imshow(grid, vmin=0, vmax=1, cmap="Reds", aspect="auto")
            for i, line in enumerate(grid):
                for j, value in enumerate(line):
                    if not math.isnan(value):
                        ax.text(j, i, f"{value:.0%}", ha="center", va="center", fontsize=7,
                                color="white" if value > 0.5 else "black")
            ax.set_xticks(range(len(acks)), [f"acks={a}" for a in acks], fontsize=7)
            ax.set_yticks(range(len(mins)), [f"min ISR {m}" for m in mins], fontsize=7)
            if ax is axes[0][list(protocols).index(protocol)]:
                ax.set_title(tick(protocol), fontsize=8)
        row_axes[0].set_ylabel(plain(sweep.scope_text(key)), fontsize=8)
    if image is not None:             # a summary with rows always draws one
        fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="runs losing acked data")
    return fig


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if len(values) else math.nan


#: one marker per rules row of the trade-off plot, so rows whose cells fall on one another stay
#: told apart (hollow, each its own shape and colour)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")


def plot_tradeoff(summary: pd.DataFrame):
    """Durability vs availability: each cell's loss rate against its unavailability - each
    release a hollow marker of its own shape and colour, so cells that coincide (several
    releases often lose nothing at the same unavailability) show every release there; the
    legend beside the axes."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.6, 3.4))
    colours = [plt.get_cmap("tab10")(k) for k in range(10)]
    for i, protocol in enumerate(rules_order(summary["protocol"])):
        rows = summary[summary["protocol"] == protocol]
        ax.scatter(rows["unavailability"], rows["lost_rate"], label=tick(protocol).replace("\n", " · "),
                   marker=MARKERS[i % len(MARKERS)], facecolors="none", edgecolors=colours[i % len(colours)],
                   s=36 + 10 * (i % 3), linewidths=1.2)
    ax.set_xlabel("unavailability (share of steps without an online leader)")
    ax.set_ylabel("runs losing acked data")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
