"""One partition's answer concluded from its searches: the explanation, the failing line or the one outside the model.

Each function builds a whole ``Answer`` once - the verdict, the schedule, the maps, the
failure, and every line's verdict in this answer (``verdicts``) - from what the searches found
(``Found``: a search's outcome, the attempt it ran, the search itself). Nothing here searches;
the driver runs the searches and decides necessity, the views say it in words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..engine.config import ClusterConfig
from .answer import Anomaly, Answer, Attempt, Failure, LineRef, LineVerdict, Search
from .candidates import NEEDS, no_offset
from .formats import Releases, about
from .observations import CONTROLLER_LEVEL, KINDS, Maps, Observation
from .recognise import Line
from .search import ExplainSearch, Outcome, Target

Observed = Sequence[tuple[Observation, tuple[LineRef, ...]]]


@dataclass(frozen=True)
class Found:
    """What one search found: its outcome, the attempt it ran, the search (its steps and bounds)."""

    outcome: Outcome
    attempt: Attempt
    search: ExplainSearch

    @property
    def config(self) -> ClusterConfig:
        return self.attempt.config

    @property
    def label(self) -> str:
        return self.attempt.label


@dataclass(frozen=True)
class Partition:
    """What an answer is about: the partition, every line of the run, the lines that are its own
    (by reference), its observations and the releases whose code writes its lines."""

    name: str
    lines: Sequence[Line]
    own: frozenset[LineRef]
    observed: tuple[tuple[Observation, tuple[LineRef, ...]], ...]
    release_range: Releases | None
    notes: tuple[str, ...] = ()


def verdicts(part: Partition, matched: Mapping[LineRef, int], stop: tuple[LineRef, str] | None = None,
             failed: tuple[LineRef, str] | None = None) -> dict[LineRef, LineVerdict]:
    """Every line's verdict in an answer: ``matched`` lines with their step; the ``failed`` line
    with what it needs; recognised lines not matched - after the answer ``stop``s at a line, or
    naming no broker, or said by another line; the rest as recognition left them (about another
    partition where they name one)."""
    out: dict[LineRef, LineVerdict] = {}
    for ref, line in enumerate(part.lines):
        if ref in matched:
            out[ref] = LineVerdict("matched", "", matched[ref])
        elif failed is not None and ref == failed[0]:
            out[ref] = LineVerdict("failed", f"needs {failed[1]}")
        elif ref not in part.own:
            out[ref] = _elsewhere(line, part.name)
        elif line.status == "recognised":
            if stop is not None:
                out[ref] = LineVerdict("not-matched", f"not matched: the answer stops at {stop[1]}")
            elif line.observation is not None and line.observation.broker is None \
                    and line.observation.kind not in CONTROLLER_LEVEL:
                out[ref] = LineVerdict("unattributed", "no broker could be named for it")
            else:
                out[ref] = LineVerdict("informational", line.reason or "another line shows the same fact")
        else:
            out[ref] = LineVerdict(line.status, line.reason)
    return out


def _elsewhere(line: Line, partition: str) -> LineVerdict:
    """The verdict of a line that is not about the partition."""
    if line.partition is not None and not about(line.partition, partition):
        return LineVerdict("other-partition", f"about {line.partition}")
    if line.status == "recognised":
        return LineVerdict("unattributed", "names no partition, and the logs name several")
    return LineVerdict(line.status, line.reason)


def nothing(part: Partition, partitions: Mapping[str, int]) -> Answer:
    """No line of the partition states anything the model has."""
    return Answer(part.name, "nothing", verdicts(part, {}), part.observed, part.release_range,
                  partitions=dict(partitions), notes=part.notes)


def _matched(part: Partition, steps: Sequence[tuple[object, tuple[int, ...]]]) -> dict[LineRef, int]:
    out: dict[LineRef, int] = {}
    for number, (_, indexes) in enumerate(steps, 1):
        for index in indexes:
            for ref in part.observed[index][1]:
                out[ref] = number
    return out


def explained(part: Partition, found: Found, anomalies: tuple[Anomaly, ...], effects: tuple[Anomaly, ...],
              search: Search) -> Answer:
    """The answer of an explanation found: its schedule, maps and the lines each step matched."""
    goal = found.outcome.goal
    assert goal is not None
    steps = tuple(goal.schedule(found.search.steps))
    matched = _matched(part, steps)
    for index in goal.created():            # the partition's creation, the initial state: step 0
        for ref in part.observed[index][1]:
            matched[ref] = 0
    return Answer(part.name, "explained", verdicts(part, matched), part.observed, part.release_range,
                  found.label, found.config, goal.maps, steps, anomalies, effects, search=search, notes=part.notes)


def where(line: Line) -> str:
    """A line's place as the answer names it."""
    return f"line {line.record.line} of {line.record.file}"


def outside(answer: Answer, part: Partition, cut: LineRef) -> Answer:
    """``answer`` stopped at ``cut``, a line outside the model: the lines before it explained (if
    any), the line named with what Kafka did there, every later recognised line not matched."""
    line = part.lines[cut]
    matched = {ref: v.step for ref, v in answer.lines.items() if v.status == "matched" and v.step is not None}
    return replace(answer, verdict="outside-model",
                   lines=verdicts(part, matched, (cut, f"{where(line)}, outside hwlib's model")),
                   failure=Failure(cut, "outside-model", line.reason))


def unexplained(part: Partition, best: Found | None, target: Target, complete: bool, search: Search) -> Answer:
    """Not explained: the line the furthest search stopped at, what it needs, what the model
    can do there instead (or that the rules never make it); the schedule matching every line
    before it. Inconclusive when a search was cut short by its budget or the time."""
    if best is None:
        return Answer(part.name, "inconclusive", verdicts(part, {}), part.observed, part.release_range, search=search,
                      notes=part.notes)
    outcome, config, label = best.outcome, best.config, best.label
    node = outcome.best
    if outcome.impossible is not None:
        index = outcome.impossible
    else:
        assert node is not None
        waiting = target.next_ones(node.cursors)
        index = min(i for _, i in waiting) if waiting else 0
    wanted, refs = part.observed[index]
    first = refs[0]
    key = "offset -1" if outcome.impossible is not None and no_offset(wanted) else wanted.kind
    needs = NEEDS.get(key, f"{KINDS[wanted.kind][0]}: {wanted.describe()}")
    same = [o for o in outcome.frontier if o.kind == wanted.kind]
    can = tuple(sorted({o.describe() for o in (same or outcome.frontier)})[:6])
    never = outcome.impossible is not None
    if never:
        can = ()
    steps = tuple(node.schedule(best.search.steps)) if node is not None else ()
    lines = verdicts(part, _matched(part, steps), (first, where(part.lines[first])), (first, needs))
    return Answer(part.name, "not-explainable" if complete else "inconclusive", lines, part.observed,
                  part.release_range, label, config, node.maps if node is not None else Maps(), steps,
                  failure=Failure(first, wanted.kind, needs, can, never), search=search, notes=part.notes)
