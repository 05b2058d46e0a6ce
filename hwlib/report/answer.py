"""The report's short answer: data built from the sweep's durable cells, rendered as clauses that carry their numbers.

What a reader who stops after the first box must take away, at acks=all with
min.insync.replicas=2 (the setting that promises not to lose an acknowledged write):

1. KIP-101's result first, where the sweep ran both ``hw`` and ``kip101``: each one's loss rate
   under the profile that shows the difference, and the paired test on the same schedules.
2. Per fault profile: which generations lost and how often, the generation that stopped it
   (and at what price in availability), every later generation that lost again ("stragglers",
   each explained by a Kafka issue or flagged as a possible model defect), and the first
   generation from which every later one lost none.

Every number is a :class:`Clause`'s: a clause names the profile, the generations its numbers
belong to and which measure each number is, so a test can hold every percentage on the page to
the summary row it came from. Claims follow the findings' rules: "lost none" only where the
Wilson 95% upper bound is below ``CLAIM_BOUND``; otherwise "in too few runs to tell".
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import pandas as pd

from ..engine.config import PROTOCOLS, ClusterConfig
from ..engine.releases import GATES
from .findings import (
    DURABLE_ACKS,
    DURABLE_MIN_ISR,
    Sweep,
    generation_of,
    join,
    p_text,
    percent,
    plain,
    release,
    rules_word,
)
from .findings import name as rules_name
from .statistics import CLAIM_BOUND

#: an availability difference below this is "no cost" (one point of the share of steps)
COST_POINT = 0.01
#: below this many runs, a loss is said in runs ("1 of 500 runs (0.2%)"), not as a bare share
FEW = 5


@dataclass(frozen=True)
class Cell:
    """One generation's durable cell under one profile, as the summary has it."""

    profile: str
    protocol: str
    cell: str
    runs: int
    lost: int
    rate: float
    hi: float
    unavailability: float

    @property
    def lossy(self) -> bool:
        return self.lost > 0

    @property
    def clean(self) -> bool:
        """Lost none, with a 95% upper bound that supports saying so."""
        return self.lost == 0 and self.hi < CLAIM_BOUND


@dataclass(frozen=True)
class Explanation:
    """Why a later generation lost where an earlier one had not: the Kafka issue that explains
    it (``issue`` with ``text`` and the release that fixed it), or ``issue`` None - the loss is
    not explained and may be a defect of the model. ``anchor``: where the report steps through
    its counterexample."""

    issue: str | None
    text: str
    fixed_in: str | None = None
    anchor: str | None = None

    def html(self) -> str:
        """The explanation beside its counterexample: the issue and what it does, or the flag."""
        if self.issue is None:
            return ("<b>No known Kafka issue explains this loss: it may be a defect of this model.</b> Read the "
                    "steps below before trusting the number.")
        fixed = f" Fixed from Kafka {html.escape(self.fixed_in)}." if self.fixed_in else ""
        return f"<b>{html.escape(self.issue)}</b>: {html.escape(self.text)}.{fixed}"


@dataclass(frozen=True)
class Clause:
    """A piece of a sentence and the numbers in it: ``measures`` pairs each generation named
    with the summary column its percentage comes from (``lost_rate`` or ``unavailability``)."""

    html: str
    profile: str
    measures: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Sentence:
    clauses: tuple[Clause, ...]
    lead: str = ""

    @property
    def html(self) -> str:
        return self.lead + "; ".join(c.html for c in self.clauses) + "."


@dataclass
class ProfileStory:
    """One profile's durable cells in release order, and what they say."""

    profile: str
    cells: list[Cell]
    #: the findings' name of this scope (``durable:<scope>``)
    scope: str = ""

    @property
    def lossy(self) -> list[Cell]:
        return [c for c in self.cells if c.lossy]

    @property
    def stopper(self) -> Cell | None:
        """The first generation after the first loss that lost none (with confidence)."""
        if not self.lossy:
            return None
        first = self.cells.index(self.lossy[0])
        return next((c for c in self.cells[first + 1:] if c.clean), None)

    @property
    def before_stop(self) -> list[Cell]:
        """The losing generations before the stopper (all of them when nothing stopped it)."""
        stop = self.stopper
        end = self.cells.index(stop) if stop else len(self.cells)
        return [c for c in self.cells[:end] if c.lossy]

    @property
    def stragglers(self) -> list[Cell]:
        """Generations that lost after an earlier one lost none."""
        stop = self.stopper
        return [] if stop is None else [c for c in self.cells[self.cells.index(stop) + 1:] if c.lossy]

    @property
    def clean_from(self) -> Cell | None:
        """The first generation from which every later one lost none (with confidence)."""
        for index, cell in enumerate(self.cells):
            if all(c.clean for c in self.cells[index:]):
                return cell
        return None

    @property
    def unsure(self) -> list[Cell]:
        return [c for c in self.cells if not c.lossy and not c.clean]


@dataclass
class Kip101Result:
    """hw against kip101 under one profile, on the same schedules."""

    profile: str
    hw: Cell
    kip101: Cell
    test: dict


@dataclass
class ShortAnswer:
    """The short answer as data; ``explanations`` ((profile, protocol) -> Explanation) are
    filled in by the report before rendering: every straggler's, and every loss a known Kafka
    issue explains (``stories.explain_losses``)."""

    stories: list[ProfileStory]
    kip101: Kip101Result | None
    explanations: dict[tuple[str, str], Explanation] = field(default_factory=dict)

    @property
    def stragglers(self) -> list[Cell]:
        return [c for story in self.stories for c in story.stragglers]

    def sentences(self) -> list[Sentence]:
        if not self.stories:
            return []
        out = []
        if self.kip101 is not None:
            out.append(_kip101_sentence(self.kip101))
        told = ({(self.kip101.profile, c.protocol) for c in (self.kip101.hw, self.kip101.kip101)} if self.kip101
                else set())
        for story in self.stories:
            sentence = _story_sentence(story, told, self.explanations)
            if sentence is not None:
                out.append(sentence)
        return out

    def html(self) -> str:
        """The sentences, or one sentence saying the sweep has no durable cell."""
        if not self.stories:
            return (f"This sweep has no cell at acks={DURABLE_ACKS} and min.insync.replicas={DURABLE_MIN_ISR}, "
                    "the setting that promises not to lose acknowledged writes, so it cannot say whether they "
                    "were lost there; add those values to its grid.")
        items = "".join(f'<li style="margin:.15em 0">{s.html}</li>' for s in self.sentences())
        return f'<ul class="hwl-answer-list" style="margin:.3em 0 0;padding-left:1.2em">{items}</ul>'

    def text(self) -> str:
        """The sentences as plain text, one after the other."""
        return " ".join(plain(s.html) for s in self.sentences()) if self.stories else plain(self.html())


def build(summary: pd.DataFrame, runs: pd.DataFrame) -> ShortAnswer:
    """The short answer of a sweep (summary and run table)."""
    sweep = Sweep(summary, runs)
    stories = []
    for key, rows in sweep.scopes():
        cells = sweep.by_protocol(sweep.setting(rows, DURABLE_ACKS, DURABLE_MIN_ISR))
        if not cells:
            continue
        profile = ", ".join(str(v) for v in key) if key else "the sweep's faults"
        stories.append(ProfileStory(profile, scope="/".join(map(str, key)), cells=[
            Cell(profile, p, r["cell"], int(r["runs"]), int(r["runs_lost"]), float(r["lost_rate"]),
                 float(r["lost_hi"]), float(r["unavailability"])) for p, r in cells.items()]))
    return ShortAnswer(stories, _kip101(sweep, stories))


def _kip101(sweep: Sweep, stories: list[ProfileStory]) -> Kip101Result | None:
    """The profile that shows KIP-101's result best: hw lost and kip101 did not (the largest hw
    rate); else the largest surplus of runs lost under hw only; None without both generations
    or a profile where hw lost. In a sweep over releases, the first release of each generation
    (0.10.2 and 0.11, say) stands for it."""
    candidates = []
    for story in stories:
        cells: dict[str, Cell] = {}
        for c in story.cells:
            cells.setdefault(generation_of(c.protocol), c)
        if "hw" in cells and "kip101" in cells and cells["hw"].lossy:
            test = sweep.paired(cells["hw"].cell, cells["kip101"].cell) if len(sweep.runs) else \
                {"runs": 0, "a_only": 0, "b_only": 0, "p": 1.0}
            candidates.append(Kip101Result(story.profile, cells["hw"], cells["kip101"], test))
    if not candidates:
        return None
    return max(candidates, key=lambda r: (not r.kip101.lossy, r.test["a_only"] - r.test["b_only"], r.hw.rate))


def _name(protocol: str) -> str:
    return html.escape(release(protocol))


def _gate_words(protocol: str) -> str:
    """What the release measured needs turned on that a cluster may not have: ``; the sweep ran
    it with eligible.leader.replicas.version=1 - level 1 is the default only on a cluster created
    on 4.1 ...`` (the sweep ran the release's default level; an upgraded cluster runs another)."""
    if protocol in PROTOCOLS:
        return ""
    config = ClusterConfig(release=protocol)
    on = [g for g in GATES if config.gate_level(g.setting)]
    return "".join(f"; the sweep ran it with {html.escape(g.kafka)}=1 - {html.escape(g.note)}" for g in on)


def _short(protocol: str) -> str:
    return html.escape(rules_name(protocol))


def _lost(cell: Cell) -> str:
    """``10.8% of 500 runs``; ``1 of 500 runs (0.2%)`` for a handful of runs."""
    if cell.lost < FEW:
        return f"{cell.lost} of {cell.runs:,} runs ({percent(cell.rate)})"
    return f"{percent(cell.rate)} of {cell.runs:,} runs"


def _share(cell: Cell) -> str:
    """A loss as a share (``33.8%``), or as runs where they are few (``1 run (0.2%)``)."""
    if cell.lost < FEW:
        return f"{cell.lost} run{'s' if cell.lost > 1 else ''} ({percent(cell.rate)})"
    return percent(cell.rate)


def _kip101_sentence(result: Kip101Result) -> Sentence:
    hw, new, test = result.hw, result.kip101, result.test
    profile = f"<b>{html.escape(result.profile)}</b>"
    if not new.lossy:
        lead = "<b>KIP-101 closed the loss it was written for:</b> "
        second = f"{_name(new.protocol)} none"
    else:
        lead = "<b>KIP-101 narrowed the loss it was written for:</b> "
        second = f"{_name(new.protocol)} in {_lost(new)}"
    paired = ""
    if test["runs"]:
        paired = (f" (on the same schedules, {test['a_only']} runs lost under {_short(hw.protocol)} only and "
                  f"{test['b_only']} under {_short(new.protocol)} only: McNemar's exact test, "
                  f"{html.escape(p_text(test['p']))})")
    clause = Clause(f"under {profile}, {_name(hw.protocol)} lost an acknowledged write in {_lost(hw)} and "
                    f"{second}{paired}", result.profile, ((hw.protocol, "lost_rate"), (new.protocol, "lost_rate")))
    return Sentence((clause,), lead)


def _span(cells: list[Cell]) -> str:
    """``every generation from hw (...) to kip903 (...)``: consecutive generations, first to last."""
    return f"every {_kind(cells)} from {_name(cells[0].protocol)} to {_name(cells[-1].protocol)}"


def _kind(cells: list[Cell]) -> str:
    """What the sweep's rows are: generations (``kip320``) or releases (``3.7-kraft``)."""
    return rules_word(c.protocol for c in cells)


def _story_sentence(story: ProfileStory, told: set[tuple[str, str]],
                    explanations: dict[tuple[str, str], Explanation]) -> Sentence | None:
    profile = story.profile
    lead = f"Under <b>{html.escape(profile)}</b>, "
    clauses = []
    if not story.lossy:
        if story.unsure:
            names = join([_short(c.protocol) for c in story.unsure])
            return Sentence((Clause(f"no {_kind(story.cells)} lost an acknowledged write, but {names} ran too few runs "
                                    "to tell",
                                    profile),), lead)
        return Sentence((Clause(f"no {_kind(story.cells)} lost an acknowledged write ({story.cells[0].runs:,} runs "
                                "each)",
                                profile),), lead)
    before = [c for c in story.before_stop if (profile, c.protocol) not in told]
    if before:
        if len(before) <= 3:
            parts = [f"{_name(c.protocol)} {'lost ' if i == 0 else ''}{_share(c)}" for i, c in enumerate(before)]
            each = " each" if len(before) > 1 else ""
            clauses.append(Clause(f"{join(parts)} of {before[0].runs:,} runs{each}", profile,
                                  tuple((c.protocol, "lost_rate") for c in before)))
        else:
            low, high = min(before, key=lambda c: c.rate), max(before, key=lambda c: c.rate)
            consecutive = story.cells[story.cells.index(before[0]):story.cells.index(before[-1]) + 1] == before
            who = _span(before) if consecutive else join([_name(c.protocol) for c in before])
            clauses.append(Clause(f"{who} lost, in {percent(low.rate)} ({_short(low.protocol)}) to "
                                  f"{percent(high.rate)} "
                                  f"({_short(high.protocol)}) of {before[0].runs:,} runs", profile,
                                  ((low.protocol, "lost_rate"), (high.protocol, "lost_rate"))))
    stop = story.stopper
    if stop is None:
        clauses.append(Clause(f"no {_kind(story.cells)} in this sweep stopped it", profile))
    else:
        last = story.before_stop[-1]
        cost = stop.unavailability - last.unavailability
        if (profile, stop.protocol) not in told:         # KIP-101's sentence told kip101's
            if cost >= COST_POINT:
                clauses.append(Clause(f"{_name(stop.protocol)} lost none, at a price: no online leader in "
                                      f"{percent(stop.unavailability)} of steps against "
                                      f"{percent(last.unavailability)} under {_short(last.protocol)}", profile,
                                      ((stop.protocol, "unavailability"), (last.protocol, "unavailability"))))
            else:
                clauses.append(Clause(f"{_name(stop.protocol)} stopped it, at no cost in availability", profile))
        for cell in story.stragglers:
            why = explanations.get((profile, cell.protocol))
            clauses.append(Clause(f"{_name(cell.protocol)} still lost {_lost(cell)} after {_short(stop.protocol)} "
                                  f"had lost "
                                  f"none{_because(why)}", profile,
                                  ((cell.protocol, "lost_rate"),)))
        clean_from = story.clean_from
        if story.stragglers and clean_from is not None:
            clauses.append(Clause(f"none lost from {_name(clean_from.protocol)} on", profile))
        elif story.stragglers:
            clauses.append(Clause(f"losses went on to the last {_kind(story.cells)} in this sweep", profile))
    if story.unsure:
        clauses.append(Clause(f"{join([_short(c.protocol) for c in story.unsure])} lost none, but in too few runs "
                              "to tell",
                              profile))
    return Sentence(tuple(clauses), lead) if clauses else None


def _because(why: Explanation | None) -> str:
    if why is None:
        return ""
    link = f' (<a href="#{why.anchor}">its counterexample</a>)' if why.anchor else ""
    if why.issue is None:
        return f": no known Kafka issue explains it, so it may be a defect of this model{link}"
    fixed = f", fixed from Kafka {why.fixed_in}" if why.fixed_in else ""
    return f": {html.escape(why.issue)}{fixed}{link}"


# ------------------------------------------------------------------- what to do, and why
def recommendations(answer: ShortAnswer, acks_one: dict | None = None,
                    checked: dict[str, dict[str, int]] | None = None) -> list[tuple[str, str]]:
    """What a reader can do about each finding that has a remedy in this sweep's data, with the
    release numbers: the first release from which every later one lost none under a profile
    (and the cheaper fix where an explained straggler names one), what the profiles no
    generation closed need, and acks. ``acks_one``: the acks=1 finding's numbers. ``checked``:
    the model check's lost writes (profile -> rules -> the shortest schedule's steps): a release
    the runs found clean but the check found a lost write in is not recommended - the first
    release after the last such one is, with what the check found. Each comes with the key of
    the finding it belongs to (``durable:<scope>``, ``acks-1``)."""
    out = []
    for story in answer.stories:
        if not story.lossy:
            continue
        where = f"Against the faults of <b>{html.escape(story.profile)}</b>"
        clean_from = story.clean_from
        if clean_from is None:
            out.append((f"durable:{story.scope}", f"{where}: no release in this sweep kept every acknowledged write; "
                       "the counterexamples below show what loses them."))
            continue
        found = (checked or {}).get(story.profile, {})
        unsafe = [c for c in story.cells[story.cells.index(clean_from):] if c.protocol in found]
        caveat = ""
        if unsafe:
            after = story.cells.index(unsafe[-1]) + 1
            steps = min(found[c.protocol] for c in unsafe)
            caveat = (f"; {join([_name(c.protocol) for c in unsafe])}, where these runs lost none, can still lose one: "
                      f'the <a href="#can-it-happen">model check</a> finds a schedule of {steps} steps that no run '
                      "drew")
            if after == len(story.cells):
                out.append((f"durable:{story.scope}", f"{where}: no release in this sweep is clear of lost writes"
                            f"{caveat}."))
                continue
            clean_from = story.cells[after]
        earlier = story.cells[:story.cells.index(clean_from)]
        issues: dict[tuple[str, str], list[str]] = {}
        for cell in earlier:
            why = answer.explanations.get((story.profile, cell.protocol))
            if why is not None and why.issue is not None and why.fixed_in:
                issues.setdefault((why.issue, why.fixed_in), []).append(_short(cell.protocol))
        fixes = [f"{issue}, which {join(names)} lost to here, is fixed from Kafka {fixed}"
                 for (issue, fixed), names in issues.items()]
        also = f" ({'; '.join(fixes)})" if fixes else ""
        last = [c for c in earlier if c.lossy][-1]
        price = clean_from.unavailability - last.unavailability
        cost = (f"; expect the partition to be without a leader longer ({percent(clean_from.unavailability)} of steps "
                f"here, against {percent(last.unavailability)} under {_short(last.protocol)})"
                if price >= COST_POINT else "")
        out.append((f"durable:{story.scope}", f"{where}: run {_name(clean_from.protocol)} or later{also}{caveat}"
                    f"{cost}{_gate_words(clean_from.protocol)}."))
    if acks_one and acks_one.get("cells_losing"):
        out.append(("acks-1", f"Produce with acks=all and min.insync.replicas={DURABLE_MIN_ISR} on three replicas: "
                    f"acks=1 lost acknowledged writes in {acks_one['cells_losing']} of {acks_one['cells']} cells "
                    f"({percent(acks_one['min_rate'])} to {percent(acks_one['max_rate'])} of runs), whatever the "
                    "release."))
    return out


def recommendations_html(items: list[tuple[str, str]]) -> str:
    """The recommendations as the first screen's list."""
    if not items:
        return ""
    return ('<div class="hwl-todo" style="max-width:62em;margin:.4em 0 .8em"><b>What to do.</b>'
            '<ul style="margin:.2em 0 0;padding-left:1.4em">' + "".join(f"<li>{text}</li>" for _, text in items)
            + "</ul></div>")


def attach(found: list, items: list[tuple[str, str]]) -> None:
    """Each recommendation also under the finding it belongs to (``Finding.todo``)."""
    by_key = {f.key: f for f in found}
    for key, text in items:
        if key in by_key:
            by_key[key].todo = text


def straggler_findings(answer: ShortAnswer):
    """One finding per straggler: the Kafka issue that explains it, or a plain flag that it may
    be a defect of the model."""
    from .findings import Finding

    out = []
    for story in answer.stories:
        for cell in story.stragglers:
            why = answer.explanations.get((story.profile, cell.protocol))
            stop = story.stopper
            assert stop is not None
            head = (f"Under <b>{html.escape(story.profile)}</b> (durable setting), {_name(cell.protocol)} lost "
                    f"{_lost(cell)} although {_name(stop.protocol)} lost none")
            link = f' (<a href="#{why.anchor}">its counterexample</a>)' if why and why.anchor else ""
            why = why or Explanation(None, "")
            text = f"{head}. {why.html()}{link}"
            out.append(Finding(f"straggler:{story.profile}:{_short(cell.protocol)}", text, [cell.cell],
                               {"runs": cell.runs, "runs_lost": cell.lost, "issue": why.issue if why else None},
                               conclusive=why is not None and why.issue is not None))
    return out
