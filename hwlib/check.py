"""Exhaustive bounded model checking of the engine: breadth-first search over every schedule within bounds.

The search runs the engine itself: from the initial cluster it applies every step of the
alphabet that can act (``state.enabled_steps``) to a clone, judges the new state with a clone
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
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .checks import KINDS, AnomalyChecker
from .cluster import Cluster
from .config import ClusterConfig
from .errors import HwlibError
from .state import enabled_steps, state_key
from .steps import Step


class CheckError(HwlibError, ValueError):
    """Bad bounds or fault names."""


#: fault names for ``--faults`` -> what they add to the alphabet (besides produce and fetches)
FAULTS = {
    "elect": "the controller moves leadership to a replica (clean: ISR members only)",
    "isolate": "the controller loses a broker and its session expires; reconnect later",
    "isolate_unseen": "the controller loses a broker whose session holds; reconnect later",
    "deliver": "a cut-off broker applies its oldest queued LeaderAndIsr request",
    "controller_failover": "a new controller: queued requests dropped, current state only",
    "crash": "a process crash the controller notices; restart later",
    "quick_restart": "a crash the controller does not notice; restart later",
    "power_loss": "a crash that loses the unflushed log (noticed); restart later",
    "flush": "a replica flushes its log and HW checkpoint",
    "tick": "time passes (tick_ms): ISR expiry, timeouts, checkpoints",
    "consume": "the consumer polls the leader",
}
#: what ``--faults`` means when not given
DEFAULT_FAULTS = ("elect", "isolate", "deliver", "isolate_unseen")


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

    def __post_init__(self) -> None:
        for name, low in (("replicas", 1), ("max_records", 0), ("max_epoch", 0), ("max_ticks", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise CheckError(f"{name.replace('_', '-')}: must be an integer >= {low}, got {value!r}")
        if self.replicas > 5:
            raise CheckError(f"replicas: at most 5 (the state space explodes beyond), got {self.replicas}")
        for name in ("depth", "tick_ms"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise CheckError(f"{name.replace('_', '-')}: must be an integer >= 1, got {value!r}")


def parse_faults(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    names = [f.strip() for f in (text.split(",") if isinstance(text, str) else text) if f.strip()]
    for name in names:
        if name not in FAULTS:
            raise CheckError(f"faults: {name!r} is not a fault; allowed: {', '.join(FAULTS)}")
    return tuple(dict.fromkeys(names))


def alphabet(replicas: tuple[str, ...], faults: tuple[str, ...], tick_ms: int) -> list[Step]:
    """Every step the search tries, in a fixed order (produce is a placeholder: the search
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
        if {"crash", "quick_restart", "power_loss"} & set(faults):
            steps.append(Step("restart", replica=r))
        if "flush" in faults:
            steps.append(Step("flush", replica=r))
    if "controller_failover" in faults:
        steps.append(Step("controller_failover"))
    if "consume" in faults:
        steps.append(Step("consume"))
    if "tick" in faults:
        steps.append(Step("tick", ms=tick_ms))
    return steps


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

    def as_dict(self) -> dict:
        return {"protocol": self.protocol, "complete": self.complete, "distinct": self.distinct,
                "generated": self.generated, "depth": self.depth, "seconds": round(self.seconds, 3),
                "violations": {k: {"depth": v.depth, "steps": [s.to_obj() for s in v.steps], "detail": v.detail}
                               for k, v in self.violations.items()}}


class _Node:
    __slots__ = ("cluster", "checker", "records", "ticks", "index")

    def __init__(self, cluster: Cluster, checker: AnomalyChecker, records: int, ticks: int, index: int) -> None:
        self.cluster = cluster
        self.checker = checker
        self.records = records
        self.ticks = ticks
        self.index = index


def _anomalies_here(checker: AnomalyChecker, depth: int) -> list:
    """What a run ending in this state reports at its last step: the checks of the step,
    then the run-end checks (lost-write, duplicates, order, unseen), undone afterwards."""
    found = list(checker.anomalies)
    mark = len(checker.anomalies)
    checker.finish(depth)
    found += checker.anomalies[mark:]
    del checker.anomalies[:]
    return found


def explore(config: ClusterConfig, bounds: Bounds = Bounds(), faults: tuple[str, ...] = DEFAULT_FAULTS,
            kinds: tuple[str, ...] = KINDS, exhaustive: bool = False,
            progress: Callable[[int, int, int], None] | None = None) -> CheckResult:
    """Breadth-first search from the initial state of ``config`` (its replicas are the
    bounds' count). Stops when every kind in ``kinds`` was found (unless ``exhaustive``),
    the frontier is empty (complete), or the depth bound is reached."""
    for kind in kinds:
        if kind not in KINDS:
            raise CheckError(f"kinds: {kind!r} is not an anomaly kind; allowed: {', '.join(KINDS)}")
    replicas = tuple("ABCDE"[:bounds.replicas])
    config = config.replace(replicas=list(replicas))
    tick_ms = bounds.tick_ms or config.replica_lag_time_max_ms * 3 // 2 + 1
    steps = alphabet(replicas, faults, tick_ms)
    values = {f"m{i}": i for i in range(1, bounds.max_records + 1)}
    result = CheckResult(config.protocol, config, bounds, faults)
    started = time.perf_counter()

    collecting = gc.isenabled()
    gc.disable()                # nothing cyclic is left behind (see _search): no collector needed
    try:
        _search(config, bounds, steps, values, kinds, exhaustive, progress, result)
    finally:
        if collecting:
            gc.enable()
    result.seconds = time.perf_counter() - started
    return result


def _search(config: ClusterConfig, bounds: Bounds, steps: list[Step], values: dict[str, int],
            kinds: tuple[str, ...], exhaustive: bool, progress: Callable[[int, int, int], None] | None,
            result: CheckResult) -> None:
    """The search itself. A cluster and its checker hold reference cycles (each part refers
    to the whole), so every state that is dropped - a duplicate, one past the epoch bound, a
    frontier state once expanded - is ``release``d: freed at once. So the cycle collector has
    nothing to do; left on, it would spend most of the time re-scanning the frontier."""
    produce = steps[0]
    root = Cluster(config)
    checker = AnomalyChecker(root)
    checker.observe(0)
    del checker.anomalies[:]
    seen = {hash((state_key(root, values), checker.state_key(values), 0))}
    parents: list[tuple[int, int]] = [(-1, -1)]          # per state: (parent state, step index)
    frontier = [_Node(root, checker, 0, 0, 0)]
    wanted = set(kinds)
    depth = 0
    while frontier:
        if bounds.depth is not None and depth >= bounds.depth:
            break
        if wanted <= set(result.violations) and not exhaustive:
            break
        depth += 1
        following: list[_Node] = []
        for node in frontier:
            for index, step in enumerate(steps):
                records, ticks = node.records, node.ticks
                if step is produce:
                    if records >= bounds.max_records:
                        continue
                    records += 1
                    step = Step("produce", value=f"m{records}")
                elif step.kind == "tick":
                    if ticks >= bounds.max_ticks:
                        continue
                    ticks += 1
                elif not enabled_steps(node.cluster, [step]):
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
                for anomaly in _anomalies_here(watch, depth):
                    if anomaly.kind in wanted and anomaly.kind not in result.violations:
                        path = _path(parents, node.index, steps, produce) + [step]
                        result.violations[anomaly.kind] = Violation(anomaly.kind, depth, path, anomaly.detail)
                key = hash((state_key(cluster, values), watch.state_key(values), ticks))
                if key in seen:
                    _drop(cluster, watch)
                    continue
                seen.add(key)
                parents.append((node.index, index))
                following.append(_Node(cluster, watch, records, ticks, len(parents) - 1))
            _drop(node.cluster, node.checker)
        frontier = following
        result.depth = depth
        if progress is not None:
            progress(depth, len(seen), result.generated)
    result.complete = not frontier
    result.distinct = len(seen)


def _drop(cluster: Cluster, checker: AnomalyChecker) -> None:
    checker.release()
    cluster.release()


def _path(parents: list[tuple[int, int]], state: int, steps: list[Step], produce: Step) -> list[Step]:
    """The schedule from the initial state to ``state`` (produces numbered in order)."""
    indices = []
    while parents[state][0] >= 0:
        parent, index = parents[state]
        indices.append(index)
        state = parent
    out, records = [], 0
    for index in reversed(indices):
        step = steps[index]
        if step is produce:
            records += 1
            step = Step("produce", value=f"m{records}")
        out.append(step)
    return out


def report_progress(depth: int, distinct: int, generated: int) -> None:
    print(f"\rdepth {depth}: {distinct:,} distinct states, {generated:,} generated", end="", file=sys.stderr,
          flush=True)
