"""An explain answer as values: each partition's verdict, explanation or failure, and every line's verdict in it.

``explain`` returns an ``ExplainRun``: every line read (``Line``, recognised once and never
changed; a ``LineRef`` is its index) and one ``Answer`` per partition, each built once and
frozen. An answer keeps its own verdict for every line (``Answer.lines``: a line matched by a
step of this answer, informational, about another partition ...), so several partitions'
answers never share or overwrite a line's verdict. The words - the sentence, the JSON, the
page - are the views' (``views.explain_words``, ``views.explain_out``, ``views.incident``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from ..engine.config import ClusterConfig
from ..engine.steps import Step
from .formats import Releases
from .observations import Maps, Observation
from .recognise import Line

#: a line of the run, by its index in ``ExplainRun.lines``
LineRef = int

#: a line's verdict in an answer, best known first
LINE_STATUSES = ("matched", "informational", "other-partition", "unattributed", "unrecognised", "outside-model",
                 "not-matched", "failed")


@dataclass(frozen=True)
class LineVerdict:
    """What became of one line in one answer: its status, why, and the step that matched it."""

    status: str
    reason: str = ""
    step: int | None = None


@dataclass(frozen=True)
class Attempt:
    """One search to run: the faults, the records and epoch bounds, the rules' label and the config."""

    faults: tuple[str, ...]
    records: int
    epochs: int
    label: str
    config: ClusterConfig


@dataclass(frozen=True)
class Anomaly:
    """An anomaly the explanation's replay shows: its kind, step, detail, and whether every
    explanation within the bounds shows it (None: not decided within its budget)."""

    kind: str
    step: int
    detail: str
    necessary: bool | None = None

    def as_dict(self) -> dict:
        return {"kind": self.kind, "step": self.step, "detail": self.detail, "necessary": self.necessary}


@dataclass(frozen=True)
class Failure:
    """Where an answer stops: the line, what kind of line it is (``outside-model`` for a line
    outside the model), what it needs, what the model can do there instead, and whether the
    rules tried can never make it (decided without a search)."""

    line: LineRef
    category: str
    needs: str
    model_can: tuple[str, ...] = ()
    never: bool = False


@dataclass(frozen=True)
class Search:
    """What the searches of one answer cost and proved."""

    states: int = 0
    transitions: int = 0
    seconds: float = 0.0
    searches: int = 0
    #: every search ran to its end within its bounds (nothing was cut by a budget or the time)
    complete: bool = False
    #: "proven" (breadth first), or why not ("" where nothing was explained)
    shortest: str = ""
    bounds: Mapping[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict:
        out = {"states": self.states, "transitions": self.transitions, "seconds": round(self.seconds, 2),
               "searches": self.searches, "complete": self.complete, "bounds": dict(self.bounds)}
        if self.shortest:
            out["shortest"] = self.shortest
        return out


@dataclass(frozen=True)
class Answer:
    """One partition's answer, built once (see the module docstring)."""

    partition: str
    #: explained, not-explainable, outside-model, inconclusive, nothing
    verdict: str
    #: every line of the run, by reference, with its verdict in this answer
    lines: Mapping[LineRef, LineVerdict]
    #: the observations to explain, in order, each with the lines that show it
    observed: tuple[tuple[Observation, tuple[LineRef, ...]], ...] = ()
    #: the releases whose code writes every recognised line of the partition
    release_range: Releases | None = None
    #: the rule set that explained the lines (or that the furthest search ran), and its config
    rules_label: str = ""
    config: ClusterConfig | None = None
    maps: Maps = field(default_factory=Maps)
    #: the explanation (or the prefix before the failing line): each step with the observations it matched
    steps: tuple[tuple[Step, tuple[int, ...]], ...] = ()
    anomalies: tuple[Anomaly, ...] = ()
    expected_effects: tuple[Anomaly, ...] = ()
    failure: Failure | None = None
    search: Search = field(default_factory=Search)
    #: what the reading did that the reader should know (lines reordered, a release range narrowed)
    notes: tuple[str, ...] = ()
    #: the partitions the lines name and how many lines each (said when there is nothing to explain)
    partitions: Mapping[str, int] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return {"explained": 0, "nothing": 0, "not-explainable": 3, "outside-model": 4, "inconclusive": 5}[self.verdict]

    @property
    def explains(self) -> bool:
        """Whether ``steps`` explain every line they stand for: the whole answer (explained) or
        the lines before one outside the model (else they are the prefix before a failing line)."""
        return self.verdict == "explained" or (self.verdict == "outside-model" and bool(self.steps))

    @property
    def protocol(self) -> str | None:
        return None if self.config is None else self.config.rules_name

    @property
    def explained_lines(self) -> int:
        """How many lines the explanation's steps matched."""
        return sum(1 for verdict in self.lines.values() if verdict.status == "matched")

    @property
    def own_lines(self) -> int:
        """How many lines are about this partition (or about every partition of a broker)."""
        return sum(1 for verdict in self.lines.values() if verdict.status != "other-partition")


@dataclass(frozen=True)
class ExplainRun:
    """What ``explain`` found: every line read (kept), counts of the lines not kept, an answer per partition."""

    answers: tuple[Answer, ...]
    lines: tuple[Line, ...]
    omitted: Mapping[str, int]
    seconds: float
    release_range: Releases | None = None
    #: each file's physical lines (every one is accounted for: in a record, joined into one, or empty)
    physical: Mapping[str, int] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        codes = [a.exit_code for a in self.answers] or [0]
        for code in (5, 3, 4):
            if code in codes:
                return code
        return 0

    def verdicts(self, answer: Answer) -> Iterator[tuple[Line, LineVerdict]]:
        """Every line of the run with its verdict in ``answer``, in the order read."""
        for ref, line in enumerate(self.lines):
            yield line, answer.lines[ref]
