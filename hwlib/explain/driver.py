"""``explain(spec)``: the stages run for each partition - read, project, search in rounds, shorten, decide necessity.

Read (``read``: any layout, streamed), assemble and recognise (``recognise``) every line;
attribute each file to its broker and project onto one partition (``project``); search
(``search.ExplainSearch``) the candidates in order (``candidates``: each distinct rule set of the
releases whose code writes the lines, the settings the logs cannot show, faults and bounds
widening) in rounds of growing state budgets. The first explanation found is made a shortest
one, replayed, and each anomaly it shows is marked necessary when a second search that forbids
it finds no explanation within the same bounds. ``conclude`` builds the answer from what was
found; the views say it in words.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..anomalies.checker import EFFECTS, SEVERITY
from ..engine.releases import Release
from ..model.space import Bounds
from ..run import run_steps
from . import conclude
from .answer import Anomaly, Answer, Attempt, ExplainRun, Search
from .candidates import attempts, bound_caps, candidate_rules, release_range, unmakeable
from .conclude import Found, Partition
from .formats import RCM, about
from .observations import Observation
from .project import observed_of, ordered, partition_lines, partitions_of, read_lines, target_of, to_explain
from .recognise import Line
from .search import ExplainSearch, Outcome, Target
from .spec import ExplainError, ExplainSpec
from .stated import emit, emit_target

#: the loggers only a KRaft cluster writes with (a line of one rules out ZooKeeper mode)
KRAFT_LOGGERS = ("kafka.server.BrokerServer", "kafka.server.KafkaRaftServer", RCM)

#: the states a search may meet in the round it joins, how the budget grows each round after, and
#: how many searches join each round (``_search_rounds``)
FIRST_BUDGET = 20_000
BUDGET_GROWTH = 4
STAGGER = 3
#: the nodes each greedy search for a shorter explanation may meet
DESCENT_STATES = 40_000
#: the nodes the breadth-first search for a shortest explanation may meet
SHORTEN_STATES = 150_000
#: the nodes the second search that decides whether an anomaly is necessary may meet, each (a
#: budget of states, not seconds: the same answer on any machine)
NECESSITY_STATES = 60_000

Progress = Callable[[str], None] | None


def explain(spec: ExplainSpec, progress: Progress = None) -> ExplainRun:
    """The answer for each partition (the spec's partition, else every partition the logs name)."""
    started = time.perf_counter()
    if spec.emit_observations is not None:
        emit_target(spec.emit_observations)          # refused before anything is read
    lines, omitted, physical = read_lines(spec, progress)
    if spec.emit_observations is not None:
        path, count = emit(lines, spec.emit_observations, spec.partition)
        if progress is not None:
            progress(f"wrote {count} observations to {path}")
    named = partitions_of(lines)
    if spec.partition is not None and lines and not any(_is(line, spec.partition) for line in lines):
        raise ExplainError(f"partition: no line names {spec.partition}; the logs name "
                           + (_listed(named) if named else "no partition"))
    partitions = [spec.partition] if spec.partition is not None else to_explain(lines)
    deadline = started + spec.time_limit
    alone = len(partitions) == 1 and len(named) <= 1
    answers = [answer_partition(spec, lines, p, alone, deadline, progress) for p in partitions]
    if not answers:                     # no partition named: a line outside the model still says so
        part = Partition("-", lines, frozenset(range(len(lines))), (), None)
        answers = [conclude.nothing(part, named)]
        outside = next((i for i, line in enumerate(lines) if line.status == "outside-model"), None)
        if outside is not None:
            answers = [conclude.outside(answers[0], part, outside)]
    span = release_range([line for line in lines if line.format is not None])
    return ExplainRun(tuple(answers), tuple(lines), omitted, time.perf_counter() - started,
                      span if any(line.releases for line in lines) else None, physical)


def _is(line: Line, partition: str) -> bool:
    return line.partition is not None and about(line.partition, partition)


def _listed(named: dict[str, int]) -> str:
    shown = [f"{name} ({count} line{'s' if count != 1 else ''})" for name, count in list(named.items())[:12]]
    more = len(named) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def named_brokers(observed: Sequence[tuple[Observation, tuple[int, ...]]]) -> list[str]:
    """Every broker the observations name: the brokers that wrote them, the leaders and the
    members of the replica sets (ISR, old and new) they name."""
    brokers: set[str] = set()
    for seen, _ in observed:
        if seen.broker is not None:
            brokers.add(seen.broker)
        for name, value in seen.values:
            if isinstance(value, tuple):
                brokers.update(str(member) for member in value)
            elif name == "leader" and value is not None:
                brokers.add(str(value))
    return sorted(brokers, key=lambda b: (len(b), b))


def single_replica(observed: Sequence[tuple[Observation, tuple[int, ...]]]) -> bool:
    """Whether the lines name one broker only and an ISR of it alone: a partition that may have
    one replica (a one-broker cluster's), searched first with one (then as many as usual)."""
    sets = [value for seen, _ in observed for _, value in seen.values if isinstance(value, tuple)]
    return len(named_brokers(observed)) == 1 and bool(sets) and all(len(members) == 1 for members in sets)


def answer_partition(spec: ExplainSpec, lines: list[Line], partition: str, alone: bool, deadline: float,
                     progress: Progress) -> Answer:
    own = partition_lines(lines, partition, alone)
    observed = observed_of(lines, own)
    cut = first_outside(lines, own)
    if cut is not None:
        observed = [(o, refs) for o, refs in observed if before(lines[refs[0]], lines[cut])]
    span = release_range([lines[ref] for ref in own])
    order = ordered(lines, observed)
    observed = order.observed
    part = Partition(partition, lines, frozenset(own), tuple(observed),
                     span if any(lines[ref].releases for ref in own) else None, order.notes)
    if not observed:
        answer = conclude.nothing(part, partitions_of(lines))
        return answer if cut is None else conclude.outside(answer, part, cut)
    brokers = named_brokers(observed)
    replicas = spec.replicas or max(2, min(5, len(brokers) or 2))
    kraft_seen = any((fmt := lines[ref].format) is not None and fmt.logger in KRAFT_LOGGERS for ref in own)
    plans: list[tuple[Release | None, str | None, str]] = []
    if spec.protocol is not None:
        plans.append((None, spec.protocol, spec.protocol))
    plans += [(rules.rows[0], None, rules.label) for rules in candidate_rules(spec, span, kraft_seen)]
    target = target_of(order, spec.skew_ms)
    for count in ([1] if spec.replicas is None and single_replica(observed) else []) + [replicas]:
        replicas = count
        found, best, totals, complete = _search_rounds(
            spec, [Attempt(*a) for a in attempts(spec, plans, observed, replicas, lines)],
            target, replicas, partition, deadline, progress)
        if found is not None:
            break
    caps = bound_caps(spec, observed)
    bounds = {"replicas": replicas, "max_records": caps[0], "max_epoch": caps[1], "max_silent": spec.max_silent,
              "depth": spec.depth, "time_limit": spec.time_limit}
    if found is None:
        return conclude.unexplained(part, best, target, complete, Search(**totals, complete=complete, bounds=bounds))
    if progress is not None:
        progress(f"{partition}: explained under {found.label}; looking for a shorter explanation "
                 f"(greedy, then breadth first, at most {SHORTEN_STATES:,} states)")
    started = time.perf_counter()
    found, proven = shorten(found, deadline)
    shortest = "proven" if proven else \
        f"not proven (the breadth-first search would need more than its budget of {SHORTEN_STATES:,} states)"
    if progress is not None and found.outcome.goal is not None:
        progress(f"{partition}: the shortest explanation has {len(found.outcome.goal.schedule(found.search.steps))} "
                 f"steps ({'proven' if proven else 'not proven'} shortest, {time.perf_counter() - started:.1f} s)")
    anomalies, effects = _anomalies(spec, found, deadline, progress)
    answer = conclude.explained(part, found, anomalies, effects,
                                Search(**totals, complete=complete, shortest=shortest, bounds=bounds))
    return answer if cut is None else conclude.outside(answer, part, cut)


def _search_rounds(spec: ExplainSpec, pending: list[Attempt], target: Target, replicas: int, partition: str,
                   deadline: float, progress: Progress) -> tuple[Found | None, Found | None, dict, bool]:
    """Rounds of growing state budgets over the searches not yet finished, the likeliest first
    and deepest: in round r, the search at position i of the order (``candidates.attempts``)
    runs with ``FIRST_BUDGET * BUDGET_GROWTH ** (r - i // STAGGER)`` states, joining at round
    ``i // STAGGER`` - an explanation cheap under any settings, faults or bounds is found before
    an expensive search elsewhere runs out the time, and the searches the lines point to first
    go deepest (a search that finishes without an explanation is never run again). The budgets
    count states, not seconds: the same answer on any machine. The explanation found (or None),
    the search that got furthest, the totals, and whether every search finished."""
    best: Found | None = None
    totals = {"states": 0, "transitions": 0, "seconds": 0.0, "searches": 0}
    waiting = list(enumerate(pending))
    round_ = 0
    while waiting and time.perf_counter() <= deadline:
        unfinished = []
        for rank, attempt in waiting:
            joins = rank // STAGGER
            if time.perf_counter() > deadline or joins > round_:
                unfinished.append((rank, attempt))
                continue
            budget = FIRST_BUDGET * BUDGET_GROWTH ** (round_ - joins)
            bounds = Bounds(replicas=replicas, max_records=attempt.records, max_epoch=attempt.epochs,
                            max_ticks=1 if "tick" in attempt.faults else 0, depth=spec.depth)
            search = ExplainSearch(attempt.config, bounds, attempt.faults, target, spec.max_silent, deadline=deadline,
                                   max_states=budget)
            impossible = unmakeable(attempt.config, target)
            if impossible is not None:
                if best is None or impossible > _progress(best.outcome):
                    best = Found(Outcome(None, None, True, impossible=impossible), attempt, search)
                continue
            outcome = search.run(greedy=True)
            totals["states"] += outcome.states
            totals["transitions"] += outcome.transitions
            totals["seconds"] += outcome.seconds
            totals["searches"] += 1
            if progress is not None:
                progress(_tried(partition, attempt, outcome, budget))
            if outcome.goal is not None:
                return Found(outcome, attempt, search), best, totals, False
            if outcome.stopped == "state budget reached":
                unfinished.append((rank, attempt))
            if best is None or _progress(outcome) > _progress(best.outcome):
                best = Found(outcome, attempt, search)
        waiting = unfinished
        round_ += 1
    return None, best, totals, not waiting


def _tried(partition: str, attempt: Attempt, outcome: Outcome, budget: int) -> str:
    config = attempt.config
    return (f"{partition}: {attempt.label}, {'unclean' if config.unclean_leader_election else 'clean'} election, "
            f"min ISR {config.min_insync_replicas}, acks {config.acks}, faults {'/'.join(attempt.faults)}, "
            f"{attempt.records} records, epoch <= {attempt.epochs}: {outcome.states:,} states (budget {budget:,}), "
            f"{outcome.seconds:.1f} s" + (" - explained" if outcome.goal is not None else ""))


def first_outside(lines: list[Line], own: list[int]) -> int | None:
    """The first line that says Kafka did something the model does not have (by timestamp where
    the lines carry one, else in the order read)."""
    outside = [ref for ref in own if lines[ref].status == "outside-model"]
    if not outside:
        return None
    stamped = [(lines[ref].record.timestamp, ref) for ref in outside if lines[ref].record.timestamp is not None]
    return min(stamped)[1] if stamped else outside[0]


def before(line: Line, cut: Line) -> bool:
    """Whether ``line`` is known to come before ``cut``: earlier in the same file, or earlier by
    timestamp in another (a line whose order against it is unknown is not before it)."""
    if line.record.file == cut.record.file:
        return line.record.line < cut.record.line
    stamp, limit = line.record.timestamp, cut.record.timestamp
    return stamp is not None and limit is not None and stamp < limit


def shorten(found: Found, deadline: float) -> tuple[Found, bool]:
    """A shorter explanation under the same rules, settings and bounds, and whether it is a
    shortest one. First greedy searches, each no deeper than one step less than the last
    explanation found (``DESCENT_STATES`` each), while they find one; then breadth first no
    deeper than the shortest so far, whose first goal is a shortest one - proven if it finishes
    within ``SHORTEN_STATES`` (else the shortest found stands, not known to be shortest)."""
    goal = found.outcome.goal
    assert goal is not None
    length = len(goal.schedule(found.search.steps))
    if length == 0:                            # the partition's creation alone: nothing shorter
        return found, True
    while length > 1 and time.perf_counter() <= deadline:
        descent = _again(found, length - 1, deadline, DESCENT_STATES)
        shorter = descent.run(greedy=True)
        if shorter.goal is None:
            break
        found = Found(shorter, found.attempt, descent)
        length = len(shorter.goal.schedule(descent.steps))
    breadth = _again(found, length, deadline, SHORTEN_STATES)
    result = breadth.run()
    if result.goal is not None:
        result.complete = True                 # breadth first: the first goal is a shortest one
        return Found(result, found.attempt, breadth), True
    return found, False


def _again(found: Found, depth: int, deadline: float, states: int, forbid: str | None = None) -> ExplainSearch:
    """The search of ``found`` again, no deeper than ``depth`` (forbidding an anomaly kind)."""
    search = found.search
    bounds = Bounds(replicas=search.bounds.replicas, max_records=search.bounds.max_records,
                    max_epoch=search.bounds.max_epoch, max_ticks=search.bounds.max_ticks, depth=depth)
    return ExplainSearch(found.config, bounds, search.faults, search.target, search.max_silent, forbid=forbid,
                         deadline=deadline, max_states=states)


def _progress(outcome: Outcome) -> int:
    if outcome.impossible is not None:
        return outcome.impossible
    best = outcome.best
    return 0 if best is None else sum(best.cursors)


def _anomalies(spec: ExplainSpec, found: Found, deadline: float, progress: Progress
               ) -> tuple[tuple[Anomaly, ...], tuple[Anomaly, ...]]:
    """The anomalies and expected effects the explanation's replay shows (each kind once, the
    first), each anomaly marked necessary when a search that forbids it, within the same bounds,
    finds no explanation (``NECESSITY_STATES`` each)."""
    goal = found.outcome.goal
    assert goal is not None
    result = run_steps(found.config, [step for step, _ in goal.schedule(found.search.steps)], name="explanation")
    seen: list[str] = []
    anomalies: list[Anomaly] = []
    effects: list[Anomaly] = []
    for anomaly in result.anomalies:
        if anomaly.kind in seen:
            continue
        seen.append(anomaly.kind)
        (effects if anomaly.kind in EFFECTS else anomalies).append(Anomaly(anomaly.kind, anomaly.step, anomaly.detail))
    anomalies.sort(key=lambda entry: SEVERITY.index(entry.kind))
    decided = []
    for entry in anomalies:
        if time.perf_counter() > deadline:
            decided.append(entry)
            if progress is not None:
                progress(f"{found.label}: is {entry.kind} necessary? not searched: the time limit "
                         f"({spec.time_limit:g} s) ran out")
            continue
        started = time.perf_counter()
        if progress is not None:
            progress(f"{found.label}: is {entry.kind} necessary? searching for an explanation without it "
                     f"(at most {NECESSITY_STATES:,} states)")
        other = _again(found, spec.depth, deadline, NECESSITY_STATES, forbid=entry.kind).run(greedy=True)
        necessary = False if other.goal is not None else (True if other.complete else None)
        decided.append(replace(entry, necessary=necessary))
        if progress is not None:
            progress(f"{found.label}: is {entry.kind} necessary? "
                     f"{ {True: 'yes', False: 'no', None: 'not decided'}[necessary]} "
                     f"({other.states:,} states, {time.perf_counter() - started:.1f} s)")
    return tuple(decided), tuple(effects)
