"""Exhaustive bounded model checking of the engine: breadth-first search over every schedule within bounds.

The search runs the engine itself: from the initial cluster it applies every step of the
alphabet that can act (``state.skip_reason`` says none) to a clone, judges the new state with a clone
of the run's own ``AnomalyChecker`` (the same checks a sweep makes, and the run-end checks as
if the schedule ended there), and keeps it when its fingerprint - Python's ``hash`` of
``state.state_key`` plus the checker's memory, integers only, so the same in any process - is
new. Breadth first: the first state that shows an anomaly kind ends the shortest schedule
that shows it, written as a scenario ``hwlib run`` replays.

Bounds: records produced (``max_records``), the controller's leader epoch (``max_epoch``:
states beyond it are cut), ``tick`` steps (``max_ticks``) and the depth. Within them a search
that empties its frontier is *complete*: what it did not find cannot happen there.

No symmetry reduction: the replicas are never interchangeable here - assignment order makes
the first replica the initial leader and decides every clean election (first live ISR
member), so swapping two replicas changes what happens next.
"""

from __future__ import annotations

import gc
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .anomalies.checker import KINDS, AnomalyChecker
from .engine.cluster import Cluster
from .engine.config import ClusterConfig
from .engine.steps import Step, parse_steps
from .errors import HwlibError
from .state import skip_reason, state_key


class CheckError(HwlibError, ValueError):
    """Bad bounds or fault names."""


#: fault names for ``--faults`` -> what they add to the alphabet (besides produce and fetches);
#: together they can fire every action of a fault profile (``profile_faults``)
FAULTS = {
    "elect": "the controller moves leadership to a replica (clean: ISR members only)",
    "isolate": "the controller loses a broker and its session expires; reconnect later",
    "isolate_unseen": "the controller loses a broker whose session holds; reconnect later",
    "deliver": "a cut-off broker applies its oldest queued LeaderAndIsr request",
    "controller_failover": "a new controller: queued requests dropped, current state only",
    "crash": "a process crash the controller notices; restart later",
    "quick_restart": "a crash the controller does not notice; restart later",
    "power_loss": "a crash that loses the unflushed log, noticed by the controller; restart later",
    "power_loss_unseen": "a power loss the controller does not notice (back within the session); restart later",
    "flush": "a replica flushes its log and HW checkpoint",
    "tick": "time passes (tick_ms): ISR expiry, timeouts, checkpoints",
    "lost_ack": "a produce whose acknowledgement is lost; the producer may retry it",
    "stale_produce": "a produce sent to one broker, as a client with stale metadata sends it",
    "consume": "the consumer polls the leader",
    "consumer_crash": "the consumer dies; a new one resumes from the committed offset",
}
#: each fault in plain words, for the line that says what a verdict covers (a noticed and an
#: unnoticed variant share theirs: ``verdicts.coverage_text`` says which of them it covers)
FAULT_WORDS = {
    "elect": "leader moves", "isolate": "isolation", "isolate_unseen": "isolation",
    "deliver": "late LeaderAndIsr delivery", "controller_failover": "controller failovers",
    "crash": "crashes", "quick_restart": "quick restarts", "power_loss": "power loss",
    "power_loss_unseen": "power loss", "flush": "flushes", "tick": "time passing",
    "lost_ack": "lost acknowledgements", "stale_produce": "produces to a stale leader",
    "consume": "consumer polls", "consumer_crash": "consumer crashes",
}
#: the faults of the TLA+ specification of Kafka replication (hachikuji/kafka-specification):
#: leader moves, isolation and late LeaderAndIsr delivery, no crashes - for comparisons with TLC
TLA_FAULTS = ("elect", "isolate", "isolate_unseen", "deliver")
#: what ``--faults`` means when not given: the TLA+ set plus process crashes and quick restarts
#: (KIP-101's lost write needs a quick restart)
DEFAULT_FAULTS = TLA_FAULTS + ("crash", "quick_restart")
#: the anomaly kinds ``--kinds`` means when not given: the broker-side safety properties
DEFAULT_KINDS = ("lost-write", "log-divergence", "committed-truncated", "strong-isr")


def profile_faults(profile) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The faults that can fire every step a fault profile (``profiles.FaultProfile``) can
    draw, and the profile's actions none of them covers (none today). Produces, replication
    rounds, fetches and split fetches are the alphabet's produce and fetch halves."""
    faults: list[str] = []
    for action, weight in profile.weights.items():
        if weight <= 0 or action in ("produce", "replication_round", "fetch", "fetch_split"):
            continue
        if action == "leader_move":
            faults.append("elect")
        elif action == "power_loss":
            if profile.power_loss_detected > 0:
                faults.append("power_loss")
            if profile.power_loss_detected < 1:
                faults.append("power_loss_unseen")
        elif action == "isolate":
            if profile.isolate_detected > 0:
                faults.append("isolate")
            if profile.isolate_detected < 1:
                faults.append("isolate_unseen")
        else:
            faults.append(action)
    uncovered = tuple(f for f in faults if f not in FAULTS)
    return tuple(f for f in FAULTS if f in faults), uncovered


@dataclass(frozen=True)
class Bounds:
    replicas: int = 2
    max_records: int = 2
    max_epoch: int = 2
    max_ticks: int = 0
    #: None: until the frontier is empty
    depth: int | None = None
    #: how much time one ``tick`` step passes (default: 1.5 x replica.lag.time.max.ms + 1, so a
    #: tick always runs an ISR check that finds a silent follower lagging)
    tick_ms: int | None = None
    #: stop after the level at which this many distinct states are known (None: no limit); a
    #: search stopped so is not complete, and its verdicts say how deep it went
    max_states: int | None = None

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in ("replicas", "max_records", "max_epoch", "max_ticks",
                                                       "depth", "tick_ms", "max_states")}

    def __reduce__(self):
        """By the constructor (see ``Step.__reduce__``)."""
        return (Bounds, (self.replicas, self.max_records, self.max_epoch, self.max_ticks, self.depth, self.tick_ms,
                         self.max_states))

    def __post_init__(self) -> None:
        for name, low in (("replicas", 1), ("max_records", 0), ("max_epoch", 0), ("max_ticks", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise CheckError(f"{name.replace('_', '-')}: must be an integer >= {low}, got {value!r}")
        if self.replicas > 5:
            raise CheckError(f"replicas: at most 5 (the state space explodes beyond), got {self.replicas}")
        for name in ("depth", "tick_ms", "max_states"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise CheckError(f"{name.replace('_', '-')}: must be an integer >= 1, got {value!r}")


def parse_faults(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    names = [f.strip() for f in (text.split(",") if isinstance(text, str) else text) if f.strip()]
    for name in names:
        if name not in FAULTS:
            raise CheckError(f"faults: {name!r} is not a fault; allowed: {', '.join(FAULTS)}")
    return tuple(dict.fromkeys(names))


def _check_kinds(kinds: list[str] | tuple[str, ...]) -> None:
    for kind in kinds:
        if kind not in KINDS:
            raise CheckError(f"kinds: {kind!r} is not an anomaly kind; allowed: {', '.join(KINDS)}")


def parse_kinds(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``lost-write,strong-isr`` (or a list) -> the anomaly kinds, each checked."""
    names = [k.strip() for k in (text.split(",") if isinstance(text, str) else text) if k.strip()]
    if not names:
        raise CheckError(f"kinds: name at least one of {', '.join(KINDS)}")
    _check_kinds(names)
    return tuple(dict.fromkeys(names))


def alphabet(replicas: tuple[str, ...], faults: tuple[str, ...], tick_ms: int) -> list[Step]:
    """Every step the search tries, in a fixed order (a produce is a placeholder: the search
    gives each produce the next value, m1, m2, ...)."""
    steps = [Step("produce", value="")]
    for kind in ("fetch", "fetch_request", "fetch_response"):
        steps += [Step(kind, replica=r) for r in replicas]
    for r in replicas:
        if "elect" in faults:
            steps.append(Step("elect", replica=r))
        if "isolate" in faults:
            steps.append(Step("isolate", replica=r))
        if "isolate_unseen" in faults:
            steps.append(Step("isolate", replica=r, detected=False))
        if "isolate" in faults or "isolate_unseen" in faults:
            steps.append(Step("reconnect", replica=r))
        if "deliver" in faults:
            steps.append(Step("deliver", replica=r))
        if "crash" in faults:
            steps.append(Step("crash", replica=r))
        if "quick_restart" in faults:
            steps.append(Step("crash", replica=r, detected=False))
        if "power_loss" in faults:
            steps.append(Step("crash", replica=r, lose_unflushed=True))
        if "power_loss_unseen" in faults:
            steps.append(Step("crash", replica=r, lose_unflushed=True, detected=False))
        if {"crash", "quick_restart", "power_loss", "power_loss_unseen"} & set(faults):
            steps.append(Step("restart", replica=r))
        if "flush" in faults:
            steps.append(Step("flush", replica=r))
        if "stale_produce" in faults:
            steps.append(Step("produce", value="", replica=r))
    if "lost_ack" in faults:
        steps += [Step("produce", value="", lose_ack=True), Step("retry")]
    if "controller_failover" in faults:
        steps.append(Step("controller_failover"))
    if "consume" in faults:
        steps.append(Step("consume"))
    if "consumer_crash" in faults:
        steps.append(Step("consumer_crash"))
    if "tick" in faults:
        steps.append(Step("tick", ms=tick_ms))
    return steps


def step_fault(step: Step) -> str | None:
    """The fault under whose name ``alphabet`` holds ``step``; None for what every alphabet
    has (produce, the fetch halves) and for a fault's follow-up (restart, reconnect, retry)."""
    kind = step.kind
    if kind == "crash":
        name = "power_loss" if step.lose_unflushed else "crash" if step.detected else "quick_restart"
        return name + "_unseen" if step.lose_unflushed and not step.detected else name
    if kind == "isolate":
        return "isolate" if step.detected else "isolate_unseen"
    if kind == "produce":
        return "lost_ack" if step.lose_ack else "stale_produce" if step.replica is not None else None
    if kind in ("elect", "deliver", "controller_failover", "flush", "tick", "consume", "consumer_crash"):
        return kind
    return None


@dataclass
class Violation:
    kind: str
    depth: int
    steps: list[Step]
    detail: str


@dataclass
class CheckResult:
    protocol: str
    config: ClusterConfig
    bounds: Bounds
    faults: tuple[str, ...]
    complete: bool = False
    distinct: int = 0
    generated: int = 0
    depth: int = 0
    seconds: float = 0.0
    violations: dict[str, Violation] = field(default_factory=dict)

    @property
    def states_per_second(self) -> float:
        return self.generated / self.seconds if self.seconds else 0.0

    @property
    def ending(self) -> str:
        """How the search ended: ``complete``, or why it stopped before."""
        if self.complete:
            return "complete"
        if self.stopped_by_budget:
            return f"not complete: stopped at {self.bounds.max_states:,} states"
        if self.bounds.depth is not None and self.depth >= self.bounds.depth:
            return f"not complete: depth bound {self.bounds.depth} reached"
        return "not complete: stopped once every kind was found"

    @property
    def stopped_by_budget(self) -> bool:
        """The search ended at its ``max_states`` bound, not complete."""
        limit = self.bounds.max_states
        return not self.complete and limit is not None and self.distinct >= limit

    def as_dict(self) -> dict:
        return {"protocol": self.protocol, "complete": self.complete, "distinct": self.distinct,
                "generated": self.generated, "depth": self.depth, "seconds": round(self.seconds, 3),
                "violations": {k: {"depth": v.depth, "steps": [s.to_obj() for s in v.steps], "detail": v.detail}
                               for k, v in self.violations.items()}}


class _Node:
    """A frontier state: its cluster and checker, the records produced and ticks passed on the
    way, its number (-1 until it is kept), fingerprint, parent and the step index from it."""
    __slots__ = ("cluster", "checker", "records", "ticks", "index", "key", "parent", "step")

    def __init__(self, cluster: Cluster, checker: AnomalyChecker, records: int, ticks: int, index: int,
                 key: int, parent: int = -1, step: int = -1) -> None:
        self.cluster = cluster
        self.checker = checker
        self.records = records
        self.ticks = ticks
        self.index = index
        self.key = key
        self.parent = parent
        self.step = step


def _anomalies_here(checker: AnomalyChecker, depth: int) -> list:
    """What a run ending in this state reports at its last step: the checks of the step,
    then the run-end checks (lost-write, duplicates, order, unseen), undone afterwards."""
    found = list(checker.anomalies)
    mark = len(checker.anomalies)
    checker.finish(depth)
    found += checker.anomalies[mark:]
    del checker.anomalies[:]
    return found


def _fingerprint(cluster: Cluster, checker: AnomalyChecker, values: dict[str, int], ticks: int,
                 reduced: bool = True) -> int:
    """Python's hash of integers only: the same in every process and either engine."""
    return hash((state_key(cluster, values, reduced), checker.state_key(values), ticks))


def explore(config: ClusterConfig, bounds: Bounds = Bounds(), faults: tuple[str, ...] = DEFAULT_FAULTS,
            kinds: tuple[str, ...] = KINDS, exhaustive: bool = False,
            progress: Callable[[int, int, int], None] | None = None,
            level_done: Callable[[Search], None] | None = None, restore: dict | None = None,
            workers: int = 1, levels: Callable[[Search], Any] | None = None, reduced: bool = True) -> CheckResult:
    """Breadth-first search from the initial state of ``config`` (its replicas are the
    bounds' count). Stops when every kind in ``kinds`` was found (unless ``exhaustive``),
    the frontier is empty (complete), or the depth bound is reached. ``level_done`` is called
    after each level (a checkpoint writer); ``restore`` is a ``Search.snapshot()`` to go on
    from; with ``workers`` > 1 a frontier of ``check_parallel.SPLIT_AT`` states or more is
    shared with that many processes (same result); ``levels``, if given, builds what runs the
    levels from that size on instead (``sweep.check_levels.SparkLevels``: a Spark cluster).
    ``reduced=False`` fingerprints the whole state (``state.state_key``: the equivalence tests
    of its reductions)."""
    _check_kinds(kinds)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise CheckError(f"workers: must be an integer >= 1, got {workers!r}")
    search = Search(config, bounds, faults, kinds, exhaustive, reduced)
    started = time.perf_counter()
    collecting = gc.isenabled()
    gc.disable()                # nothing cyclic is left behind (see Search): no collector needed
    coordinator: Any = None     # a check_parallel.Coordinator once the frontier is shared
    try:
        if restore is None:
            search.start()
        else:
            search.restore(restore)
        earlier = search.result.seconds
        while True:
            if coordinator is None and (workers > 1 or levels is not None):
                from .check_parallel import SPLIT_AT, Coordinator

                if search.frontier_size() >= SPLIT_AT:
                    coordinator = levels(search) if levels is not None else Coordinator(search, workers)
            if not (search.next_level() if coordinator is None else coordinator.next_level()):
                break
            search.result.seconds = earlier + time.perf_counter() - started
            if progress is not None:
                progress(search.depth, len(search.seen), search.result.generated)
            if level_done is not None:
                level_done(search)
        search.finish()
        search.result.seconds = earlier + time.perf_counter() - started
    finally:
        if coordinator is not None:
            coordinator.close()
        search.drop_frontier()      # freed here, not left to the collector (seconds on a big frontier)
        if collecting:
            gc.enable()
    return search.result


class Search:
    """The search itself, a level at a time. A cluster and its checker hold reference cycles
    (each part refers to the whole), so every state that is dropped - a duplicate, one past
    the epoch bound, a frontier state once expanded - is ``release``d: freed at once. So the
    cycle collector has nothing to do; left on, it would spend most of the time re-scanning
    the frontier.

    What it keeps besides the frontier is small and plain: the fingerprints seen and, per
    state, its parent and the step that led to it - enough to write a checkpoint and to
    rebuild any state by replaying its schedule (``restore``)."""

    def __init__(self, config: ClusterConfig, bounds: Bounds, faults: tuple[str, ...], kinds: tuple[str, ...],
                 exhaustive: bool, reduced: bool = True) -> None:
        replicas = tuple("ABCDE"[:bounds.replicas])
        self.config = config.replace(replicas=list(replicas))
        self.bounds = bounds
        self.steps = alphabet(replicas, faults, bounds.tick_ms or self.config.replica_lag_time_max_ms * 3 // 2 + 1)
        self.values = {f"m{i}": i for i in range(1, bounds.max_records + 1)}
        self.kinds = kinds
        self.exhaustive = exhaustive
        self.reduced = reduced
        self.result = CheckResult(self.config.protocol, self.config, bounds, faults)
        self.seen: set[int] = set()
        self.parents: list[tuple[int, int]] = []      # per state: (parent state, step index)
        self.frontier: list[_Node] = []
        self.depth = 0
        #: this level's first transition per kind not found before: kind -> (parent state,
        #: step index, position among the transition's anomalies, detail)
        self.level_found: dict[str, tuple[int, int, int, str]] = {}
        #: the kinds found at earlier levels
        self.known: set[str] = set()
        #: when worker processes hold the frontier (``check_parallel``): its (number, fingerprint)s
        self.remote: list[tuple[int, int]] | None = None

    def _root(self) -> tuple[Cluster, AnomalyChecker]:
        root = Cluster(self.config)
        checker = AnomalyChecker(root)
        checker.observe(0)
        del checker.anomalies[:]
        return root, checker

    def start(self) -> None:
        root, checker = self._root()
        key = _fingerprint(root, checker, self.values, 0, self.reduced)
        self.seen = {key}
        self.parents = [(-1, -1)]
        self.frontier = [_Node(root, checker, 0, 0, 0, key)]

    def more(self) -> bool:
        """Whether another level is to be expanded (and, if so, the depth moves on)."""
        if not self.frontier_size():
            return False
        if self.bounds.depth is not None and self.depth >= self.bounds.depth:
            return False
        if self.bounds.max_states is not None and len(self.seen) >= self.bounds.max_states:
            return False
        if set(self.kinds) <= set(self.result.violations) and not self.exhaustive:
            return False
        self.depth += 1
        self.result.depth = self.depth
        return True

    def frontier_size(self) -> int:
        return len(self.frontier) if self.remote is None else len(self.remote)

    def successors(self, node: _Node, depth: int) -> list[_Node]:
        """Every state one enabled step of the alphabet leads to from ``node`` within the
        bounds, judged - the first transition of the level that shows a kind not found yet is
        noted in ``level_found`` - and fingerprinted; not yet numbered (index -1)."""
        bounds, result, values = self.bounds, self.result, self.values
        found = self.level_found
        out: list[_Node] = []
        for index, step in enumerate(self.steps):
            records, ticks = node.records, node.ticks
            if step.kind == "produce":
                if records >= bounds.max_records:
                    continue
                records += 1
                step = _numbered(step, records)
            elif step.kind == "tick":
                if ticks >= bounds.max_ticks:
                    continue
                ticks += 1
            elif skip_reason(node.cluster, step) is not None:
                continue
            cluster = node.cluster.clone()
            watch = AnomalyChecker(cluster, node.checker)
            cluster.apply(step)
            result.generated += 1
            if cluster.controller.leader_epoch > bounds.max_epoch:
                _drop(cluster, watch)
                continue
            watch.observe(depth)
            # every transition is judged, a duplicate's too: what a step reports depends on
            # where it came from, not only on the state it reaches
            for order, anomaly in enumerate(_anomalies_here(watch, depth)):
                kind = anomaly.kind
                if kind in self.kinds and kind not in self.known and kind not in found:
                    found[kind] = (node.index, index, order, anomaly.detail)
            key = _fingerprint(cluster, watch, values, ticks, self.reduced)
            out.append(_Node(cluster, watch, records, ticks, -1, key, node.index, index))
        return out

    def next_level(self) -> bool:
        """Expands the frontier by one level in this process; False when the search is over."""
        if not self.more():
            return False
        seen, parents = self.seen, self.parents
        following: list[_Node] = []
        for node in self.frontier:
            for child in self.successors(node, self.depth):
                if child.key in seen:
                    _drop(child.cluster, child.checker)
                    continue
                seen.add(child.key)
                parents.append((child.parent, child.step))
                child.index = len(parents) - 1
                following.append(child)
            _drop(node.cluster, node.checker)
        self.frontier = following
        self.close_level(self.level_found)
        return True

    def close_level(self, found: dict[str, tuple[int, int, int, str]]) -> None:
        """Records the level's first transition per kind (``found``: kind -> parent state,
        step index, position among the transition's anomalies, detail) as its violation, in
        the order a sequential search meets them."""
        for kind, (parent, index, _, detail) in sorted(found.items(), key=lambda item: item[1][:3]):
            if kind not in self.result.violations:
                path = self.path(parent)
                self.result.violations[kind] = Violation(kind, self.depth, path + self.steps_of([index], path),
                                                         detail)
        self.known = set(self.result.violations)
        self.level_found = {}

    def drop_frontier(self) -> None:
        for node in self.frontier:
            release_node(node)
        self.frontier = []

    def finish(self) -> None:
        self.result.complete = not self.frontier_size()
        self.result.distinct = len(self.seen)

    def indices(self, state: int) -> list[int]:
        """The step indices from the initial state to ``state``."""
        out = []
        while self.parents[state][0] >= 0:
            parent, index = self.parents[state]
            out.append(index)
            state = parent
        out.reverse()
        return out

    def path(self, state: int) -> list[Step]:
        """The schedule from the initial state to ``state`` (produces numbered in order)."""
        return self.steps_of(self.indices(state))

    def steps_of(self, indices: list[int], before: list[Step] | None = None) -> list[Step]:
        """The steps of ``indices`` following the schedule ``before``: each produce gives the
        next value, m1, m2, ..."""
        records = sum(1 for step in before or () if step.kind == "produce")
        out = []
        for index in indices:
            step = self.steps[index]
            if step.kind == "produce":
                records += 1
                step = _numbered(step, records)
            out.append(step)
        return out

    def frontier_ids(self) -> list[tuple[int, int]]:
        """The frontier's states as (number, fingerprint)."""
        return [(n.index, n.key) for n in self.frontier] if self.remote is None else list(self.remote)

    def snapshot(self) -> dict:
        """Everything but the frontier's clusters, in plain values (a checkpoint's content)."""
        flat = [x for pair in self.parents for x in pair]
        return {"depth": self.depth, "generated": self.result.generated, "seconds": self.result.seconds,
                "seen": array("q", self.seen), "parents": array("q", flat),
                "frontier": array("q", [index for index, _ in self.frontier_ids()]),
                "frontier_keys": array("q", [key for _, key in self.frontier_ids()]),
                "violations": {k: {"depth": v.depth, "steps": [s.to_obj() for s in v.steps], "detail": v.detail}
                               for k, v in self.result.violations.items()}}

    def restore(self, snapshot: dict) -> None:
        """Goes on from ``snapshot``: each frontier state is rebuilt by replaying its schedule
        from the initial state, exactly as the search made it, and must have the fingerprint
        it had (else the checkpoint belongs to another engine: CheckError)."""
        self.depth = snapshot["depth"]
        self.result.generated = snapshot["generated"]
        self.result.seconds = snapshot["seconds"]
        self.result.depth = self.depth
        self.seen = set(snapshot["seen"])
        flat = snapshot["parents"]
        self.parents = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
        self.result.violations = {k: Violation(k, v["depth"], parse_steps(v["steps"]), v["detail"])
                                  for k, v in snapshot["violations"].items()}
        self.known = set(self.result.violations)
        self.frontier = [self._replay(index, key)
                         for index, key in zip(snapshot["frontier"], snapshot["frontier_keys"], strict=True)]

    def _replay(self, index: int, key: int) -> _Node:
        return self.replay(index, self.indices(index), key)

    def replay(self, index: int, indices: list[int], key: int) -> _Node:
        """State ``index`` rebuilt by running its schedule (step ``indices``) from the initial
        state as the search did; it must have fingerprint ``key`` (else CheckError)."""
        cluster, checker = self._root()
        records = ticks = 0
        for depth, step in enumerate(self.steps_of(indices), 1):
            if step.kind == "produce":
                records += 1
            elif step.kind == "tick":
                ticks += 1
            cluster.apply(step)
            checker.observe(depth)
            _anomalies_here(checker, depth)
        if _fingerprint(cluster, checker, self.values, ticks, self.reduced) != key:
            raise CheckError(f"resume: the checkpoint's state {index} does not replay to the same state; "
                             f"it was written by another version of hwlib's engine")
        return _Node(cluster, checker, records, ticks, index, key)


def _numbered(produce: Step, records: int) -> Step:
    """A produce of the alphabet as the ``records``-th record: value m1, m2, ..."""
    return Step("produce", value=f"m{records}", replica=produce.replica, lose_ack=produce.lose_ack)


def _drop(cluster: Cluster, checker: AnomalyChecker) -> None:
    checker.release()
    cluster.release()


def release_node(node: _Node) -> None:
    """Frees a state at once (see ``Search``)."""
    _drop(node.cluster, node.checker)

