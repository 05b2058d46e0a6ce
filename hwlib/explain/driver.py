"""``explain(spec)``: the five stages run for each partition, and the answer - the explanation, or the line it stops at.

Read (``read``: any layout, streamed) and recognise (``recognise``: the format table) every
line; attribute each file to its broker and project onto one partition, the lines becoming
observations in their order (``project``); search (``search.ExplainSearch``) the candidates in
order (``candidates``: each distinct rule set of the releases whose code writes the lines, the
settings the logs cannot show, faults and bounds widening). The first explanation found is
made a shortest one (breadth first within its length), replayed, and each anomaly it shows
is marked ``necessary`` when a second search that forbids it finds no explanation within the
same bounds. Not explained: the line the furthest search stopped at, what it needs, and what
the model could do there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..anomalies.checker import EFFECTS, SEVERITY
from ..check.model import Bounds
from ..engine.config import ClusterConfig
from ..engine.releases import Release
from ..engine.steps import Step
from ..run import run_steps
from .candidates import NEEDS, attempts, bound_caps, candidate_rules, release_range, unmakeable
from .formats import RCM
from .observations import KINDS, Maps, Observation
from .project import observed_of, partition_lines, partitions_of, read_lines, target_of
from .recognise import Line
from .search import ExplainSearch, Outcome, Target
from .spec import ExplainSpec
from .stated import emit, emit_target

#: the loggers only a KRaft cluster writes with (a line of one rules out ZooKeeper mode)
KRAFT_LOGGERS = ("kafka.server.BrokerServer", "kafka.server.KafkaRaftServer", RCM)

#: the nodes the second search that decides whether an anomaly is necessary may meet, each (a
#: budget of states, not seconds: the same answer on any machine)
NECESSITY_STATES = 60_000


@dataclass
class Answer:
    """One partition's answer."""

    partition: str
    verdict: str                       # explained, not-explainable, outside-model, inconclusive, nothing
    sentence: str
    lines: list[Line]
    release: str | None = None
    rules_label: str = ""
    protocol: str | None = None
    config: ClusterConfig | None = None
    maps: Maps = field(default_factory=Maps)
    steps: list[tuple[Step, tuple[int, ...]]] = field(default_factory=list)
    anomalies: list[dict] = field(default_factory=list)
    expected_effects: list[dict] = field(default_factory=list)
    failed_at: dict | None = None
    prefix: list[Step] = field(default_factory=list)
    search: dict = field(default_factory=dict)
    #: the observations explained, in order, each with its lines
    observed: list[tuple[Observation, list[Line]]] = field(default_factory=list)
    release_range: tuple[str, str] | None = None

    @property
    def exit_code(self) -> int:
        return {"explained": 0, "nothing": 0, "not-explainable": 3, "outside-model": 4, "inconclusive": 5}[self.verdict]

    @property
    def explains(self) -> bool:
        """Whether ``steps`` explain every line they stand for: the whole answer (explained) or
        the lines before one outside the model (else they are the prefix before a failing line)."""
        return self.verdict == "explained" or (self.verdict == "outside-model" and bool(self.steps))


@dataclass
class ExplainRun:
    """What ``explain`` found: every line read (kept), counts of the lines not kept, an answer per partition."""

    answers: list[Answer]
    lines: list[Line]
    omitted: dict[str, int]
    seconds: float
    release_range: tuple[str, str] | None = None

    @property
    def exit_code(self) -> int:
        codes = [a.exit_code for a in self.answers] or [0]
        for code in (5, 3, 4):
            if code in codes:
                return code
        return 0


def explain(spec: ExplainSpec, progress: Callable[[str], None] | None = None) -> ExplainRun:
    """The answer for each partition (the spec's partition, else every partition the logs name)."""
    started = time.perf_counter()
    if spec.emit_observations is not None:
        emit_target(spec.emit_observations)          # refused before anything is read
    lines, omitted = read_lines(spec, progress)
    if spec.emit_observations is not None:
        path, count = emit(lines, spec.emit_observations)
        if progress is not None:
            progress(f"wrote {count} observations to {path}")
    partitions = [spec.partition] if spec.partition is not None else partitions_of(lines)
    deadline = started + spec.time_limit
    answers = [answer_partition(spec, lines, p, deadline, progress) for p in partitions]
    if not answers:
        answers = [Answer("-", "nothing", "no line names a partition hwlib can explain: nothing to explain", lines)]
    span = release_range([line for line in lines if line.format is not None])
    named = _named(span) if any(line.releases for line in lines) else None
    return ExplainRun(answers, lines, omitted, time.perf_counter() - started, named)


def answer_partition(spec: ExplainSpec, lines: list[Line], partition: str, deadline: float,
                     progress: Callable[[str], None] | None) -> Answer:
    own = partition_lines(lines, partition)
    observed = observed_of(own)
    cut = first_outside(own)
    if cut is not None:
        observed = [(o, seen) for o, seen in observed if before(seen[0], cut)]
    brokers = sorted({o.broker for o, _ in observed if o.broker is not None}, key=lambda b: (len(b), b))
    replicas = spec.replicas or max(2, min(5, len(brokers) or 2))
    span = release_range(own)
    kraft_seen = any(line.format is not None and line.format.logger in KRAFT_LOGGERS for line in own)
    candidates = candidate_rules(spec, span, kraft_seen)
    answer = Answer(partition, "inconclusive", "", own, observed=observed,
                    release_range=_named(span) if any(line.releases for line in own) else None)
    if not observed:
        if cut is not None:
            return _outside(answer, cut)
        answer.verdict = "nothing"
        answer.sentence = f"{partition}: no line about it states anything the model has: nothing to explain"
        return answer
    target = target_of(observed, spec.skew_ms)
    caps = bound_caps(spec, observed)
    plans: list[tuple[Release | None, str | None, str]] = []
    if spec.protocol is not None:
        plans.append((None, spec.protocol, spec.protocol))
    for rules in candidates:
        plans.append((rules.rows[0], None, rules.label))
    best: tuple[Outcome, ClusterConfig, str, ExplainSearch] | None = None
    totals: dict[str, object] = {"states": 0, "transitions": 0, "seconds": 0.0, "searches": 0}
    found: tuple[Outcome, ClusterConfig, str, ExplainSearch] | None = None
    # rounds of growing state budgets over every search not yet finished: an explanation cheap
    # under any settings, faults or bounds is found before an expensive search elsewhere runs out
    # the time (a search that finishes without one is never run again)
    pending = list(attempts(spec, plans, observed, replicas))
    budget = FIRST_BUDGET
    while pending and found is None and time.perf_counter() <= deadline:
        unfinished = []
        for attempt in pending:
            if time.perf_counter() > deadline:
                unfinished.append(attempt)
                continue
            tier, records, epochs, label, config = attempt
            bounds = Bounds(replicas=replicas, max_records=records, max_epoch=epochs,
                            max_ticks=1 if "tick" in tier else 0, depth=spec.depth)
            search = ExplainSearch(config, bounds, tier, target, spec.max_silent, deadline=deadline,
                                   max_states=budget)
            impossible = unmakeable(config, target)
            if impossible is not None:
                if best is None or impossible > _progress(best[0]):
                    stuck = Outcome(None, None, True)
                    stuck.impossible = impossible
                    best = (stuck, config, label, search)
                continue
            outcome = search.run(greedy=True)
            for name, amount in (("states", outcome.states), ("transitions", outcome.transitions),
                                 ("seconds", outcome.seconds), ("searches", 1)):
                totals[name] = totals[name] + amount          # type: ignore[operator]
            if progress is not None:
                progress(f"{partition}: {label}, {'unclean' if config.unclean_leader_election else 'clean'} "
                         f"election, min ISR {config.min_insync_replicas}, acks {config.acks}, faults "
                         f"{'/'.join(tier)}, {records} records, epoch <= {epochs}: {outcome.states:,} states "
                         f"(budget {budget:,}), {outcome.seconds:.1f} s"
                         + (" - explained" if outcome.goal is not None else ""))
            if outcome.goal is not None:
                found = (outcome, config, label, search)
                found, proven = shorten(found, deadline)
                totals["shortest"] = "proven" if proven else \
                    f"not proven (the breadth-first search met its budget of {SHORTEN_STATES:,} states)"
                break
            if outcome.stopped == "state budget reached":
                unfinished.append(attempt)
            if best is None or _progress(outcome) > _progress(best[0]):
                best = (outcome, config, label, search)
        pending = unfinished
        budget *= BUDGET_GROWTH
    complete_everywhere = not pending
    answer.search = {**totals, "seconds": round(float(totals["seconds"]), 2),       # type: ignore[arg-type]
                     "complete": complete_everywhere,
                     "bounds": {"replicas": replicas, "max_records": caps[0], "max_epoch": caps[1],
                                "max_silent": spec.max_silent, "depth": spec.depth, "time_limit": spec.time_limit}}
    if found is not None:
        answer = _explained(answer, found, spec, deadline)
        return answer if cut is None else _outside(answer, cut)
    return _unexplained(answer, best, target, complete_everywhere)


def first_outside(own: list[Line]) -> Line | None:
    """The first line that says Kafka did something the model does not have (by timestamp where
    the lines carry one, else in the order read)."""
    outside = [(index, line) for index, line in enumerate(own) if line.status == "outside-model"]
    if not outside:
        return None
    stamped = [(line.record.timestamp, index, line) for index, line in outside if line.record.timestamp is not None]
    return min(stamped, key=lambda item: item[:2])[2] if stamped else outside[0][1]


def before(line: Line, cut: Line) -> bool:
    """Whether ``line`` is known to come before ``cut``: earlier in the same file, or earlier by
    timestamp in another (a line whose order against it is unknown is not before it)."""
    if line.record.file == cut.record.file:
        return line.record.line < cut.record.line
    stamp, limit = line.record.timestamp, cut.record.timestamp
    return stamp is not None and limit is not None and stamp < limit


def _outside(answer: Answer, cut: Line) -> Answer:
    """The answer at a line outside the model: the lines before it explained (if any), the
    line named with what Kafka did there, every later line left unmatched."""
    where = f"line {cut.record.line} of {cut.record.file}"
    explained = answer.verdict == "explained"
    answer.verdict = "outside-model"
    answer.failed_at = {"file": cut.record.file, "line": cut.record.line, "text": cut.record.text,
                        "category": "outside-model", "needs": cut.reason, "model_can": []}
    for line in answer.lines:
        if line.status == "recognised" and not line.reason:
            line.reason = f"not matched: the answer stops at {where}, outside hwlib's model"
    head = f"outside hwlib's model at {where}: {cut.reason}"
    if explained:
        answer.sentence = f"{head}. Before it: {answer.sentence}"
    else:
        answer.sentence = f"{head}; no line before it states anything the model has"
    return answer


def _named(span: tuple[tuple[int, ...], tuple[int, ...]] | None) -> tuple[str, str] | None:
    """A range of releases as text (None: no release writes every line)."""
    return None if span is None else (".".join(map(str, span[0])), ".".join(map(str, span[1])))


#: the states each search may meet in the first round, and how the budget grows each round after
FIRST_BUDGET = 20_000
BUDGET_GROWTH = 4

#: the nodes each greedy search for a shorter explanation may meet
DESCENT_STATES = 40_000

#: the nodes the search for a shorter explanation may meet (a budget of states, not seconds)
SHORTEN_STATES = 150_000


def shorten(found: tuple[Outcome, ClusterConfig, str, ExplainSearch], deadline: float
            ) -> tuple[tuple[Outcome, ClusterConfig, str, ExplainSearch], bool]:
    """A shorter explanation under the same rules, settings and bounds, and whether it is a
    shortest one. First greedy searches, each no deeper than one step less than the last
    explanation found (``DESCENT_STATES`` each), while they find one; then breadth first no
    deeper than the shortest so far, whose first goal is a shortest one - proven if it finishes
    within ``SHORTEN_STATES`` (else the shortest found stands, not known to be shortest)."""
    outcome, config, label, search = found
    assert outcome.goal is not None
    length = len(outcome.goal.schedule(search.steps))

    def bounded(depth: int) -> Bounds:
        return Bounds(replicas=search.bounds.replicas, max_records=search.bounds.max_records,
                      max_epoch=search.bounds.max_epoch, max_ticks=search.bounds.max_ticks, depth=depth)

    while length > 1 and time.perf_counter() <= deadline:
        descent = ExplainSearch(config, bounded(length - 1), search.faults, search.target, search.max_silent,
                                deadline=deadline, max_states=DESCENT_STATES)
        shorter = descent.run(greedy=True)
        if shorter.goal is None:
            break
        found = (shorter, config, label, descent)
        length = len(shorter.goal.schedule(descent.steps))
    breadth = ExplainSearch(config, bounded(length), search.faults, search.target, search.max_silent,
                            deadline=deadline, max_states=SHORTEN_STATES)
    result = breadth.run()
    if result.goal is not None:
        result.complete = True                 # breadth first: the first goal is a shortest one
        return (result, config, label, breadth), True
    return found, False


def _progress(outcome: Outcome) -> int:
    if outcome.impossible is not None:
        return outcome.impossible
    best = outcome.best
    return 0 if best is None else sum(best.cursors)


def _explained(answer: Answer, found: tuple[Outcome, ClusterConfig, str, ExplainSearch], spec: ExplainSpec,
               deadline: float) -> Answer:
    """The answer of an explanation found: its schedule, the lines each step matched, the
    anomalies of its replay (each marked necessary when a search that forbids it, within the
    same bounds, finds no explanation), and the sentence."""
    outcome, config, label, search = found
    goal = outcome.goal
    assert goal is not None
    schedule = goal.schedule(search.steps)
    answer.verdict = "explained"
    answer.config, answer.rules_label, answer.maps, answer.steps = config, label, goal.maps, schedule
    answer.release = config.release
    answer.protocol = config.rules().name if hasattr(config.rules(), "name") else config.protocol
    for number, (_, matched) in enumerate(schedule, 1):
        for index in matched:
            for line in answer.observed[index][1]:
                line.status, line.step = "matched", number
    result = run_steps(config, [step for step, _ in schedule], name="explanation")
    kinds: list[str] = []
    for anomaly in result.anomalies:
        if anomaly.kind in kinds:
            continue
        kinds.append(anomaly.kind)
        entry = {"kind": anomaly.kind, "step": anomaly.step, "detail": anomaly.detail, "necessary": None}
        if anomaly.kind in EFFECTS:
            answer.expected_effects.append(entry)
        else:
            answer.anomalies.append(entry)
    answer.anomalies.sort(key=lambda entry: SEVERITY.index(str(entry["kind"])))
    bounds = Bounds(replicas=search.bounds.replicas, max_records=search.bounds.max_records,
                    max_epoch=search.bounds.max_epoch, max_ticks=search.bounds.max_ticks, depth=spec.depth)
    for entry in answer.anomalies:
        if time.perf_counter() > deadline:
            break
        forbid = ExplainSearch(config, bounds, search.faults, search.target, search.max_silent,
                               forbid=str(entry["kind"]), deadline=deadline, max_states=NECESSITY_STATES)
        other = forbid.run(greedy=True)
        if other.goal is not None:
            entry["necessary"] = False
        elif other.complete:
            entry["necessary"] = True
    explained_lines = sum(len(lines) for _, lines in answer.observed)
    total = len(answer.lines)
    offsets = ", ".join(f"{real:,} -> {model}" for real, model in answer.maps.offsets if real not in (0, -1))
    epochs = ", ".join(f"{real} -> {model}" for real, model in answer.maps.epochs if real not in (0, -1))
    marks = {True: " (necessary)", False: " (not necessary)", None: ""}
    kinds_said = ", ".join(f"{a['kind']}{marks[a['necessary']]}" for a in necessary_first(answer.anomalies))
    loses = any(a["kind"] == "lost-write" and a["necessary"] is True for a in answer.anomalies)
    answer.sentence = (f"hwlib's model of Kafka {label} ({rules_words(config)} rules) explains {explained_lines} of "
                       f"{total} lines in {len(schedule)} steps"
                       + (f"; offsets {offsets}" if offsets else "") + (f"; epochs {epochs}" if epochs else "")
                       + (f"; it loses acknowledged writes: {kinds_said}" if loses
                          else (f"; anomalies: {kinds_said}" if kinds_said else "; no anomaly")))
    return answer


def rules_words(config: ClusterConfig) -> str:
    """The rules a config runs, with the protocol version that selects older ones where set (a
    cluster part way through an upgrade)."""
    said = config.rules_name
    if config.inter_broker_protocol_version is not None:
        said += f", inter.broker.protocol.version={config.inter_broker_protocol_version}"
    if config.metadata_version is not None:
        said += f", metadata.version={config.metadata_version}"
    return said


def necessary_first(anomalies: list[dict]) -> list[dict]:
    """An answer's anomalies as its sentence names them: the necessary, the undecided, the not
    necessary (each group in severity order)."""
    rank = {True: 0, None: 1, False: 2}
    return sorted(anomalies, key=lambda entry: rank[entry["necessary"]])


def _unexplained(answer: Answer, best: tuple[Outcome, ClusterConfig, str, ExplainSearch] | None, target: Target,
                 complete: bool) -> Answer:
    if best is None:
        answer.verdict = "inconclusive"
        answer.sentence = f"{answer.partition}: no search ran within the time limit"
        return answer
    outcome, config, label, search = best
    node = outcome.best
    if outcome.impossible is not None:
        index = outcome.impossible
    else:
        assert node is not None
        waiting = target.next_ones(node.cursors)
        index = min(i for _, i in waiting) if waiting else 0
    wanted, lines = answer.observed[index]
    first = lines[0]
    kind_text = KINDS[wanted.kind][0]
    needs = NEEDS.get(wanted.kind, f"{kind_text}: {wanted.describe()}")
    same = [o for o in outcome.frontier if o.kind == wanted.kind]
    can = sorted({o.describe() for o in (same or outcome.frontier)})[:6]
    if outcome.impossible is not None:
        can = [f"never make it: Kafka {label}'s rules have no such line"
               + (" with unclean.leader.election.enable=true"
                  if wanted.kind == "halt" and config.unclean_leader_election else "")]
    answer.verdict = "not-explainable" if complete else "inconclusive"
    answer.config, answer.rules_label = config, label
    if node is not None:
        answer.maps = node.maps
        answer.prefix = [step for step, _ in node.schedule(search.steps)]
        answer.steps = node.schedule(search.steps)
    for number, (_, matched) in enumerate(answer.steps, 1):
        for index in matched:
            for line in answer.observed[index][1]:
                line.status, line.step = "matched", number
    answer.failed_at = {"file": first.record.file, "line": first.record.line, "text": first.record.text,
                        "category": wanted.kind, "needs": needs, "model_can": can}
    first.reason = f"needs {needs}"
    where = f"line {first.record.line} of {first.record.file}"
    for line in answer.lines:
        if line.status == "recognised" and line is not first and not line.reason:
            line.reason = f"not matched: the answer stops at {where}"
    if outcome.impossible is not None:
        answer.sentence = (f"not explainable under Kafka {label}: {where} needs {needs}; Kafka {label}'s rules never "
                           f"make such a line" + (" with unclean.leader.election.enable=true"
                                                  if wanted.kind == "halt" and config.unclean_leader_election
                                                  else ""))
    elif complete:
        answer.sentence = (f"not explainable under Kafka {label}: {where} needs {needs}; at that point the model can "
                           f"only {', '.join(can) if can else 'do nothing more within the bounds'}")
    else:
        answer.sentence = (f"inconclusive: no explanation within the bounds and time; the furthest search (Kafka "
                           f"{label}) stopped before {where} ({wanted.describe()})")
    return answer


