"""The findings of a fault sweep, computed from its tables, each stated only when its interval or test supports it.

What each generation lost at the durable setting, which upgrade made the difference (paired
exact tests), what acks=1 costs, divergence, and the availability price of closing a loss.

Every number in a finding is read from the sweep's summary (per-cell counts and the Wilson 95%
intervals it stores) or, for the paired tests, from its run table: cells that differ only in
cluster settings ran the *same* schedules (run ``i`` of each), so a pair of cells is compared
run by run with McNemar's exact test on the discordant runs (statsmodels).

A finding is only stated when the data support it: a loss is stated when at least one run lost
data (a witness; the interval says how often); "lost none" is stated when the 95% upper bound is
below ``CLAIM_BOUND``; otherwise the finding says the sweep is too small to tell and how many
runs per cell would. A difference between generations is stated when its paired test gives
p < ``ALPHA``.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

import pandas as pd

from ..engine.config import PROTOCOLS
from .statistics import ALPHA, CLAIM_BOUND, paired_test, runs_needed, wilson

#: the durable setting the findings are about
DURABLE_ACKS = "all"
DURABLE_MIN_ISR = 2
#: settings that vary within a scope (everything else - profile, replicas ... - is the scope); in a
#: sweep over releases ``protocol`` holds the release and ``generation`` its rule set (``by_rules``)
SETTINGS = ("protocol", "generation", "acks", "min_insync_replicas")


@dataclass
class Finding:
    """One statement with its evidence. ``html`` is the sentence (links included); ``numbers``
    holds every number the sentence shows, keyed by what it is (tests compare them with the
    summary); ``cells`` are the sweep cells it rests on; ``conclusive`` is False for "too small
    to tell"."""

    key: str
    html: str
    cells: list[str] = field(default_factory=list)
    numbers: dict = field(default_factory=dict)
    conclusive: bool = True
    #: what a reader can do about it, where this sweep's data say (``answer.recommendations``)
    todo: str = ""

    def as_dict(self) -> dict:
        return {"key": self.key, "text": plain(self.html), "cells": self.cells, "numbers": self.numbers,
                "conclusive": self.conclusive, "todo": plain(self.todo)}


def plain(text: str) -> str:
    """The sentence without its markup (for the metrics JSON)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def percent(value: float) -> str:
    return f"{value:.1%}"


def bound(value: float) -> str:
    """An upper bound: two decimals below 10% (0.95% must not read as 1.0%)."""
    return f"{value:.2%}" if value < 0.1 else f"{value:.1%}"


def interval(rate: float, lo: float, hi: float) -> str:
    return f"{percent(rate)} [{percent(lo)}, {percent(hi)}]"


def p_text(p: float) -> str:
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}" if p < 0.01 else f"p = {p:.3f}"


def join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def by_rules(frame: pd.DataFrame) -> pd.DataFrame:
    """A sweep table keyed by the rules each row ran: in a sweep over releases (a ``release``
    column) ``protocol`` becomes the release (``3.7-kraft``) and ``generation`` the rule set its
    rules come from; a sweep over generations is returned as it is."""
    if "release" not in frame.columns:
        return frame
    columns = ["protocol" if c == "release" else "generation" if c == "protocol" else c for c in frame.columns]
    return frame.set_axis(columns, axis=1)


def _release_row(name: str):
    from ..engine.releases import release as release_row

    return release_row(name)


def rules_rank(name: str) -> tuple[int, int]:
    """Release order for a generation (``kip320``) or a release (``3.7-kraft``): a generation
    sorts with the release it names."""
    from ..engine.releases import RELEASES, REPRESENTATIVE

    if name in PROTOCOLS:
        return RELEASES.index(_release_row(REPRESENTATIVE[name])), 0
    return RELEASES.index(_release_row(name)), 1


def rules_order(values) -> list[str]:
    """The rule names present in ``values`` (generations or releases), in release order."""
    return sorted(set(values), key=rules_rank)


def generation_of(name: str) -> str:
    """The generation a release's rules come from (a generation is its own)."""
    return name if name in PROTOCOLS else _release_row(name).generation


def rules_word(names) -> str:
    """What rule names (``kip320``, ``3.7-kraft``) are, in one word for a sentence or a title:
    ``generation`` when every one is, else ``release``."""
    return "generation" if all(n in PROTOCOLS for n in names) else "release"


def name(rules: str) -> str:
    """How a sentence names rules: a generation by its name (``kip320``), a release as Kafka
    does (``Kafka 3.7 KRaft``)."""
    return rules if rules in PROTOCOLS else f"Kafka {_release_row(rules).label}"


def param_columns(summary: pd.DataFrame) -> list[str]:
    """The cells' parameter columns of a sweep summary (``summarize``: cell, the parameters,
    then runs and the measurements)."""
    columns = list(summary.columns)
    return columns[1:columns.index("runs")]


class Sweep:
    """The summary and run table of one sweep, indexed for findings: scopes (the cells' fixed
    context: profile, replicas ...), generations in release order, and the cell of each
    (scope, protocol, acks, min ISR)."""

    def __init__(self, summary: pd.DataFrame, runs: pd.DataFrame, links: dict[str, str] | None = None) -> None:
        self.summary = summary.assign(acks=summary["acks"].astype(str))
        self.runs = runs.assign(acks=runs["acks"].astype(str)) if "acks" in runs else runs
        #: cell -> anchor of its step-through in the report
        self.links = links or {}
        self.scope_columns = [c for c in param_columns(summary)
                              if c not in SETTINGS and (c == "profile" or summary[c].nunique() > 1)]
        #: the rules present (generations or releases), in release order
        self.protocols = rules_order(summary["protocol"])

    def scopes(self) -> list[tuple[tuple, pd.DataFrame]]:
        if not self.scope_columns:
            return [((), self.summary)]
        return [(key if isinstance(key, tuple) else (key,), rows)
                for key, rows in self.summary.groupby(self.scope_columns, sort=False)]

    def scope_text(self, key: tuple) -> str:
        if not key:
            return "the sweep's faults"
        parts = []
        for name, value in zip(self.scope_columns, key, strict=True):
            parts.append(f"<b>{html.escape(str(value))}</b>" if name == "profile" else f"{name}={value}")
        return ", ".join(parts)

    @staticmethod
    def setting(rows: pd.DataFrame, acks: str, min_isr: int | None = None) -> pd.DataFrame:
        chosen = rows[rows["acks"] == acks]
        if min_isr is not None:
            chosen = chosen[chosen["min_insync_replicas"] == min_isr]
        return chosen

    def by_protocol(self, rows: pd.DataFrame) -> dict[str, pd.Series]:
        """One cell per generation (the first, if the grid has several)."""
        out = {}
        for protocol in self.protocols:
            match = rows[rows["protocol"] == protocol]
            if len(match):
                out[protocol] = match.iloc[0]
        return out

    def outcome(self, cell: str, column: str) -> tuple[pd.Series, pd.Series]:
        """Per run of ``cell`` (indexed by run): did ``column`` > 0, with its schedule hash."""
        rows = self.runs[self.runs["cell"] == cell].set_index("run").sort_index()
        return rows[column] > 0, rows["schedule_hash"]

    def paired(self, cell_a: str, cell_b: str, column: str = "lost") -> dict:
        """McNemar's exact test of ``column`` > 0 between two cells over their shared schedules."""
        a, hash_a = self.outcome(cell_a, column)
        b, hash_b = self.outcome(cell_b, column)
        shared = a.index.intersection(b.index)
        same = shared[(hash_a[shared] == hash_b[shared]).to_numpy()]
        return paired_test(a[same], b[same])

    def link(self, cell: str, label: str = "step-through") -> str:
        anchor = self.links.get(cell)
        return f' (<a href="#{anchor}">{label}</a>)' if anchor else ""


def durable_findings(sweep: Sweep) -> list[Finding]:
    """Per scope: each generation's loss at acks=all, min.insync.replicas=2 - the losses with
    their intervals, "lost none" with its upper bound where the bound supports it, otherwise
    the runs it would take - then the consecutive upgrades that changed it (paired tests) and
    what closing it cost in availability."""
    out = []
    needed = runs_needed()
    for key, rows in sweep.scopes():
        cells = sweep.by_protocol(sweep.setting(rows, DURABLE_ACKS, DURABLE_MIN_ISR))
        if not cells:
            continue
        where = sweep.scope_text(key)
        lossy, clean, unsure, numbers = [], [], [], {}
        for protocol, row in cells.items():
            k, n = int(row["runs_lost"]), int(row["runs"])
            numbers[protocol] = {"cell": row["cell"], "runs": n, "runs_lost": k, "lost_rate": float(row["lost_rate"]),
                                 "lost_lo": float(row["lost_lo"]), "lost_hi": float(row["lost_hi"])}
            if k > 0:
                lossy.append(f"{name(protocol)} in {interval(row['lost_rate'], row['lost_lo'], row['lost_hi'])} of "
                             f"{n} runs{sweep.link(row['cell'])}")
            elif row["lost_hi"] < CLAIM_BOUND:
                clean.append((protocol, n, float(row["lost_hi"])))
            else:
                unsure.append((protocol, n, float(row["lost_hi"])))
        sentences = [f"Under {where} with acks=all and min.insync.replicas={DURABLE_MIN_ISR}:"]
        if lossy:
            sentences.append("acknowledged data was lost by " + join(lossy) + ".")
        if clean:
            names = [name(p) for p, _, _ in clean]
            runs = sorted({n for _, n, _ in clean})
            highest = max(h for _, _, h in clean)
            suffix = [p for p, _, _ in clean] == list(cells)[len(cells) - len(names):] and len(names) > 1
            who = f"Every {rules_word(cells)} from {names[0]} on" if suffix else join(names)
            each = " each" if len(names) > 1 else ""
            sentences.append(f"{who} lost none, in {join([f'{n:,}' for n in runs])} runs{each} "
                             f"(95% upper bound {bound(highest)}).")
        if unsure:
            names = [name(p) for p, _, _ in unsure]
            highest = max(h for _, _, h in unsure)
            sentences.append(f'<span class="hwl-unsure">{join(names)} lost none, but in too few runs to tell: the 95% '
                             f"upper bound is {bound(highest)}; {needed:,} runs per cell would bound it below "
                             f"{CLAIM_BOUND:.0%}.</span>")
        out.append(Finding(f"durable:{'/'.join(map(str, key))}", " ".join(sentences),
                           [r["cell"] for r in cells.values()], numbers, conclusive=not unsure))
        out.extend(upgrade_findings(sweep, key, cells))
    if not out:
        out.append(Finding("durable", f"This sweep has no cell at the durable setting (acks={DURABLE_ACKS}, "
                           f"min.insync.replicas={DURABLE_MIN_ISR}): nothing can be said about it; add those "
                           "values to the grid's acks and min_insync_replicas.", conclusive=False))
    return out


def upgrade_findings(sweep: Sweep, key: tuple, cells: dict[str, pd.Series]) -> list[Finding]:
    """The consecutive generations whose loss differs on the same schedules (p < ALPHA), each
    with its availability price: the change in the share of steps without an online leader."""
    out = []
    names = list(cells)
    tested = []
    for older, newer in zip(names, names[1:], strict=False):
        a, b = cells[older], cells[newer]
        test = sweep.paired(a["cell"], b["cell"])
        tested.append((older, newer, test))
        if test["p"] >= ALPHA:
            continue
        safer = test["a_only"] > test["b_only"]
        better, worse = (name(newer), name(older)) if safer else (name(older), name(newer))
        cost = float(b["unavailability"]) - float(a["unavailability"])
        if not safer:
            price = ""
        elif cost >= 0.01:
            price = (f" It costs availability: the partition had no online leader in {percent(b['unavailability'])} "
                     f"of steps under {name(newer)}, against {percent(a['unavailability'])} under {name(older)}.")
        else:
            price = (f" At no cost in availability: {percent(b['unavailability'])} of steps without an online "
                     f"leader under {name(newer)}, {percent(a['unavailability'])} under {name(older)}.")
        text = (f"Under {sweep.scope_text(key)} (durable setting), <b>{better} is safer than {worse}</b>: of "
                f"{test['runs']:,} shared schedules, {test['a_only']} lost data under {name(older)} only and "
                f"{test['b_only']} under {name(newer)} only (McNemar's exact test, {p_text(test['p'])}).{price}")
        out.append(Finding(f"upgrade:{'/'.join(map(str, key))}:{older}-{newer}", text, [a["cell"], b["cell"]],
                           {**test, "older": older, "newer": newer,
                            "unavailability_older": float(a["unavailability"]),
                            "unavailability_newer": float(b["unavailability"])}))
    if tested and not out and any(t["a_only"] + t["b_only"] for _, _, t in tested):
        spread = max(tested, key=lambda t: t[2]["a_only"] + t[2]["b_only"])
        older, newer, test = spread
        out.append(Finding(f"upgrade:{'/'.join(map(str, key))}", (
            f"Under {sweep.scope_text(key)} (durable setting) no upgrade made a difference the sweep can "
            f"show: the largest, {name(older)} to {name(newer)}, differs in {test['a_only'] + test['b_only']} of "
            f"{test['runs']:,} shared schedules ({p_text(test['p'])})."),
            [cells[older]["cell"], cells[newer]["cell"]], {**test, "older": older, "newer": newer},
            conclusive=False))
    return out


def acks_findings(sweep: Sweep) -> list[Finding]:
    """acks=1 against acks=all: does acks=1 lose in every generation of every scope, and by how
    much more than acks=all on the same schedules."""
    rows = sweep.setting(sweep.summary, "1")
    if not len(rows):
        return []
    lossy = rows[rows["runs_lost"] > 0]
    lo, hi = float(rows["lost_rate"].min()), float(rows["lost_rate"].max())
    numbers = {"cells": len(rows), "cells_losing": len(lossy), "min_rate": lo, "max_rate": hi}
    example = lossy.sort_values("lost_rate", ascending=False).iloc[0] if len(lossy) else None
    link = sweep.link(example["cell"], "a step-through") if example is not None else ""
    if len(lossy) == len(rows):
        shown = rules_order(rows["protocol"])
        generations = [name(p) for p in shown]
        everywhere = f"every {rules_word(shown)}" + (" under every profile" if len(sweep.scopes()) > 1 else "")
        text = (f"<b>acks=1 lost acknowledged data in {everywhere}</b> ({join(generations)}): in "
                f"{percent(lo)} to {percent(hi)} of runs per cell{link}. The leader acknowledges before any "
                f"follower has the record; the setting, not the protocol, loses it.")
    else:
        clean = rows[rows["runs_lost"] == 0]
        text = (f"acks=1 lost acknowledged data in {len(lossy)} of {len(rows)} cells ({percent(lo)} to "
                f"{percent(hi)} of runs){link}; none in "
                + join([f"{name(r['protocol'])} ({sweep.scope_text(_key(sweep, r))}, min.insync.replicas="
                        f"{r['min_insync_replicas']}, {int(r['runs'])} runs)" for _, r in clean.iterrows()]) + ".")
    out = [Finding("acks-1", text, list(rows["cell"]), numbers, conclusive=True)]
    # the same schedules with acks=all: pooled over the cells that have both settings
    pairs = []
    for _, row in rows.iterrows():
        twin = sweep.summary[(sweep.summary["acks"] == DURABLE_ACKS)
                             & _same(sweep.summary, row, [*sweep.scope_columns, "protocol", "min_insync_replicas"])]
        if len(twin):
            pairs.append((row["cell"], twin.iloc[0]["cell"]))
    if pairs:
        tests = [sweep.paired(a, b) for a, b in pairs]
        a_only, b_only = sum(t["a_only"] for t in tests), sum(t["b_only"] for t in tests)
        out[0].numbers.update({"paired_cells": len(pairs), "acks1_only": a_only, "acks_all_only": b_only})
        out[0].html += (f" On the same schedules, {a_only:,} runs lost data with acks=1 only and "
                        f"{b_only:,} with acks=all only ({len(pairs)} pairs of cells).")
    return out


def _key(sweep: Sweep, row: pd.Series) -> tuple:
    return tuple(row[c] for c in sweep.scope_columns)


def _same(frame: pd.DataFrame, row: pd.Series, columns: list[str]) -> pd.Series:
    mask = pd.Series(True, index=frame.index)
    for column in columns:
        mask &= frame[column] == row[column]
    return mask


def divergence_findings(sweep: Sweep, check_anchor: str | None = None) -> list[Finding]:
    """Per generation over every cell: runs whose replicas held different records below both
    HWs; the generations that never diverged, with the pooled upper bound."""
    numbers: dict[str, dict] = {}
    diverged: list[str] = []
    never: list[str] = []
    for protocol in sweep.protocols:
        rows = sweep.summary[sweep.summary["protocol"] == protocol]
        k, n = int(rows["runs_diverged"].sum()), int(rows["runs"].sum())
        lo, hi = wilson(k, n)
        numbers[protocol] = {"runs": n, "runs_diverged": k, "rate": k / n, "lo": lo, "hi": hi}
        (diverged if k else never).append(protocol)
    if not diverged:
        highest = max(numbers[p]["hi"] for p in never)
        return [Finding("divergence", f"No replica logs diverged under any rules, in "
                        f"{min(numbers[p]['runs'] for p in never):,} or more runs each (95% upper bound "
                        f"{bound(highest)}).", [], numbers, conclusive=highest < CLAIM_BOUND)]
    link = f' (<a href="#{check_anchor}">the shortest way, from the model check</a>)' if check_anchor else ""
    parts = [f"{name(p)} in {interval(numbers[p]['rate'], numbers[p]['lo'], numbers[p]['hi'])} of "
             f"{numbers[p]['runs']:,} runs" for p in diverged]
    text = (f"<b>Replica logs diverged</b> (two replicas hold different records below both their HWs) under "
            f"{join(parts)}, pooled over every setting{link}.")
    conclusive = True
    if never:
        highest = max(numbers[p]["hi"] for p in never)
        runs = min(numbers[p]["runs"] for p in never)
        if highest < CLAIM_BOUND:
            text += (f" {join([name(p) for p in never])}: never, in {runs:,} runs each (95% upper bound "
                     f"{bound(highest)}).")
        else:
            conclusive = False
            text += (f' <span class="hwl-unsure">{join([name(p) for p in never])}: never, but in too few runs to tell '
                     "(95% upper bound "
                     f"{bound(highest)}; {runs_needed():,} runs would bound it below {CLAIM_BOUND:.0%}).</span>")
    return [Finding("divergence", text, [], numbers, conclusive=conclusive)]


def compute(summary: pd.DataFrame, runs: pd.DataFrame, links: dict[str, str] | None = None,
            check_anchor: str | None = None) -> list[Finding]:
    """Every finding of a sweep, most important first: the durable setting per scope with the
    upgrades that changed it, acks=1, divergence. ``links``: cell -> anchor of its
    step-through; ``check_anchor``: where the model check's shortest divergence is shown."""
    sweep = Sweep(summary, runs, links)
    return durable_findings(sweep) + acks_findings(sweep) + divergence_findings(sweep, check_anchor)


def linked_cells(summary: pd.DataFrame) -> list[str]:
    """The cells whose step-throughs the findings link to: each generation that lost data at
    the durable setting, per scope, and the acks=1 cell that lost most often."""
    sweep = Sweep(summary, pd.DataFrame())
    cells = []
    for _, rows in sweep.scopes():
        for row in sweep.by_protocol(sweep.setting(rows, DURABLE_ACKS, DURABLE_MIN_ISR)).values():
            if row["runs_lost"] > 0:
                cells.append(row["cell"])
    ones = sweep.setting(sweep.summary, "1")
    ones = ones[ones["runs_lost"] > 0]
    if len(ones):
        cells.append(ones.sort_values("lost_rate", ascending=False).iloc[0]["cell"])
    return cells


def findings_html(findings: list[Finding]) -> str:
    """The findings as an ordered list (``class="hwl-findings"``): the paired comparisons and
    stragglers of a scope nested under that scope's durable-setting finding; an inconclusive one
    marked, where its text does not already say which of its parts is unsure."""
    def item(f: Finding, nested: list[Finding]) -> str:
        # a finding that says inline which of its parts are unsure is tagged there, not as a whole
        tagged = f.conclusive or "hwl-unsure" in f.html
        mark = "" if tagged else ' <span class="hwl-unsure">(inconclusive)</span>'
        inner = ('<ul style="margin:.4em 0 0;padding-left:1.4em">' + "".join(item(n, []) for n in nested) + "</ul>"
                 if nested else "")
        todo = (f'<div class="hwl-todo-line" style="margin:.2em 0 0"><b>What to do:</b> {f.todo}</div>'
                if f.todo else "")
        return f'<li data-key="{html.escape(f.key)}" style="margin:0 0 .5em">{f.html}{mark}{todo}{inner}</li>'

    groups: list[tuple[Finding, list[Finding]]] = []
    for f in findings:
        parent = groups[-1][0] if groups else None
        if (f.key.startswith(("upgrade:", "straggler:")) and parent is not None and parent.key.startswith("durable:")
                and f.key.split(":")[1] == parent.key.split(":")[1]):
            groups[-1][1].append(f)
        else:
            groups.append((f, []))
    return ('<style>.hwl-unsure{color:#8a6d00}</style>'
            '<ol class="hwl-findings" style="line-height:1.45;max-width:62em">'
            + "".join(item(f, nested) for f, nested in groups) + "</ol>")


#: the KIP each generation's rules are named after, in words
KIPS = {"hw": "pre-KIP-101", "kip101": "KIP-101", "kip279": "KIP-279", "kip320": "KIP-320", "kip595": "KIP-595",
        "kip841": "KIP-841", "kip903": "KIP-903", "kip966": "KIP-966"}


def release(protocol: str) -> str:
    """``kip101 (Kafka 0.11 - 1.1)``: a generation with the Kafka releases it models, in plain
    words and one bracket level (``kip595 (Kafka 2.8 - 3.2, ZooKeeper)``, ``hw (Kafka up to
    0.10.2)``); a release with the KIP its rules come from (``Kafka 3.7 KRaft (KIP-903 rules)``)."""
    from ..engine.protocols import get_protocol

    if protocol not in PROTOCOLS:
        return f"{name(protocol)} ({KIPS[generation_of(protocol)]} rules)"
    words = get_protocol(protocol).kafka.replace("<=", "up to").replace(" (", ", ").replace(")", "")
    return f"{protocol} (Kafka {words})"


def with_stragglers(found: list[Finding], stragglers: list[Finding]) -> list[Finding]:
    """``found`` with each straggler finding placed after its scope's durable-setting finding
    and that scope's upgrades (where ``findings_html`` nests it)."""
    out = list(found)
    for extra in stragglers:
        scope = extra.key.split(":")[1]
        at = max((i for i, f in enumerate(out) if f.key.startswith(("durable:", "upgrade:", "straggler:"))
                  and f.key.split(":")[1] == scope), default=len(out) - 1)
        out.insert(at + 1, extra)
    return out
