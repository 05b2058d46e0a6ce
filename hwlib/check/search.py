"""The search: breadth-first over every schedule within bounds, one level at a time, the same for every runner.

From the initial cluster it applies every step of the alphabet that can act (the engine's
guard says so) to a clone, judges the new state with a clone of the run's own
``AnomalyChecker`` (the same checks a sweep makes, and the run-end checks as if the schedule
ended there), and keeps it when its fingerprint (``model.fingerprint``) is new. Breadth
first: the first state that shows an anomaly kind ends the shortest schedule that shows it.
``expand`` is the one expansion loop - the in-process level (``next_level``), the worker
processes and the Spark tasks all use it - and ``LevelMerge`` the one merge of a level expanded
in parts (workers, Spark), numbering its new states in the order one process numbers them as it
makes them, so each runner finds the same states, numbered alike.

Bounds: records produced (``max_records``), the controller's leader epoch (``max_epoch``:
states beyond it are cut), the changes queued for a broker cut off from the controller
(``max_queued``: likewise), ``tick`` steps (``max_ticks``), each budgeted fault
(``fault_budget``) and the ISR changes leaders send (``max_alter_partitions``) - counters each
state carries (``model.budget``) -, the depth and the states known (``max_states``). Within
them a search that empties its frontier is *complete*: what it did not find cannot happen
there. No symmetry reduction: assignment order makes the first replica
the initial leader and decides every clean election, so replicas are never interchangeable.
"""

from __future__ import annotations

import dataclasses
import tracemalloc
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..anomalies import AnomalyChecker
from ..engine.cluster import Cluster
from ..engine.config import ClusterConfig
from ..engine.steps import Step, parse_steps
from ..model.reductions import flushes_nothing, refused, settles_at_once
from ..model.space import Bounds, fingerprint, key_context, settled_epoch
from ..model.transition import KafkaModel
from ..model.vocabulary import CheckError
from ..util.resident import resident_bytes
from .fingerprints import Fingerprints
from .level_merge import LevelMerge

#: how many new live states an expansion makes between two reads of the process's resident memory
RESIDENT_EVERY = 512

#: a level's candidates, as one runner's part gives them (``LevelMerge``): two ``array('q')`` of
#: the same length - each one's rank, parent state * 256 + step index (its parent table entry,
#: should it be kept), and its fingerprint -, in rank order
Candidates = tuple[array, array]


@dataclass
class Violation:
    """A kind's shortest counterexample: the depth it was found at, its schedule, what the
    checker said. ``to_dict`` / ``from_dict`` are its one written form (results, checkpoints)."""

    kind: str
    depth: int
    steps: list[Step]
    detail: str

    def to_dict(self) -> dict:
        return {"depth": self.depth, "steps": [s.to_obj() for s in self.steps], "detail": self.detail}

    @classmethod
    def from_dict(cls, kind: str, data: dict) -> Violation:
        return cls(kind, data["depth"], parse_steps(data["steps"]), data["detail"])


@dataclass
class CheckResult:
    """One generation's search: its settings, how it ended, its state counts, its violations."""

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
    #: what share of the reachable states a fault profile's random runs visit
    #: (``coverage.Coverage``; measured only when asked for and the search completed)
    coverage: Any = None

    @property
    def states_per_second(self) -> float:
        return self.generated / self.seconds if self.seconds else 0.0

    @property
    def ending(self) -> str:
        """How the search ended: ``complete``, or why it stopped before."""
        if self.complete:
            return "complete"
        if self.stopped_by_budget:
            return f"not complete: stopped past {self.bounds.max_states:,} states"
        if self.bounds.depth is not None and self.depth >= self.bounds.depth:
            return f"not complete: depth bound {self.bounds.depth} reached"
        return "not complete: stopped once every kind was found"

    @property
    def stopped_by_budget(self) -> bool:
        """The search ended at its ``max_states`` bound, not complete."""
        limit = self.bounds.max_states
        return not self.complete and limit is not None and self.distinct >= limit

    def as_dict(self) -> dict:
        out = {"protocol": self.protocol, "complete": self.complete, "distinct": self.distinct,
               "generated": self.generated, "depth": self.depth, "seconds": round(self.seconds, 3),
               "violations": {k: v.to_dict() for k, v in self.violations.items()}}
        if self.coverage is not None:
            out["coverage"] = dataclasses.asdict(self.coverage)
        return out


class Node:
    """A frontier state: its cluster and checker, the records produced and the bounds' counters
    spent on the way (``budget.Counters``: ticks, budgeted faults, AlterPartitions), its number
    (-1 until it is kept), fingerprint (None: a cold state's, not kept), parent and the step
    index from it. A *cold* node holds no cluster (None): it is rebuilt from the schedule the
    parent table gives when it is expanded (``Search.rebuild``)."""
    __slots__ = ("cluster", "checker", "records", "spent", "index", "key", "parent", "step")

    def __init__(self, cluster: Cluster | None, checker: AnomalyChecker | None, records: int, spent: int,
                 index: int, key: int | None, parent: int = -1, step: int = -1) -> None:
        self.cluster = cluster
        self.checker = checker
        self.records = records
        self.spent = spent
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


class Search:
    """The search itself, a level at a time. A cluster and its checker hold reference cycles
    (each part refers to the whole), so every state that is dropped - a duplicate, one past
    the epoch bound, a frontier state once expanded - is ``release``d: freed at once. So the
    cycle collector has nothing to do; left on, it would spend most of the time re-scanning
    the frontier.

    What it keeps besides the frontier is small and plain: the fingerprints seen (11 - 21
    bytes a state) and, per state, its parent and the step that led to it (``parents``, one
    int64: parent * 256 + step) - enough to write a checkpoint and to rebuild any state by
    replaying its schedule (``restore``, a cold state). The frontier is always the states the
    last level numbered, so its numbers are a ``range``: the last ones of ``parents``.

    The frontier is what takes memory (a live cluster and checker, ~9 KB at 3 replicas): with
    ``hot_limit`` set, each expansion keeps at most that many new states live and the rest
    *cold* - nothing but their number, in a ``range`` (``cold``) -, rebuilt by replaying the
    schedule ``parents`` gives when they are expanded in turn (as Spark tasks rebuild every
    state); the fingerprint a rebuilt state has must be in the visited set, where it was put
    when the state was made. The same states, numbered alike, whatever the limit: it trades
    time (a replay costs about a third of an expansion) for memory.

    ``hot_limit`` is an estimate (a state's size measured on the initial one); with
    ``resident_limit`` set, the process's resident memory itself is read as an expansion makes
    live states, and once it is past that many bytes *and* has grown since the expansion began,
    ``hot_limit`` comes down to the states made live so far, for the rest of the search. (Its
    resident memory rarely shrinks, so being past the limit alone says nothing: a new level
    reuses the memory the states of the last one freed. Growth past it is what must stop.)
    What the limit cannot stop is the bookkeeping every state needs, live or cold - the
    visited set, the frontier's schedules."""

    def __init__(self, config: ClusterConfig, bounds: Bounds, faults: tuple[str, ...], kinds: tuple[str, ...],
                 exhaustive: bool, reduced: bool = True, hot_limit: int | None = None) -> None:
        replicas = bounds.replica_ids
        self.config = config.replace(replicas=list(replicas))
        self.bounds = bounds
        #: how much time one ``tick`` step passes
        self.tick_ms = bounds.tick_length(self.config)
        #: the transition, shared with ``hwlib explain``'s search
        self.model = KafkaModel(self.config, bounds, faults, self.tick_ms)
        self.steps = self.model.steps
        if len(self.steps) > 256:       # a schedule is kept one byte per step
            raise CheckError(f"faults: {len(self.steps)} steps to try, at most 256; fewer replicas or faults")
        #: new states an expansion keeps live at most (None: all); see the class docstring
        self.hot_limit = hot_limit
        #: the bytes this process may hold resident (None: not watched); see the class docstring
        self.resident_limit: int | None = None
        #: how the process's resident memory is read (bytes, None: cannot be)
        self.resident: Callable[[], int | None] = resident_bytes
        self.values = {f"m{i}": i for i in range(1, bounds.max_records + 1)}
        self.kinds = kinds
        self.exhaustive = exhaustive
        self.reduced = reduced
        self.settled = settled_epoch(self.config.rules(), bounds, faults) if reduced else None
        #: how its states' keys are taken (the reductions, or the whole state)
        self.context = key_context(replicas, self.values, reduced, self.settled)
        #: whether a step whose outcome is known without taking it is left untaken: one that
        #: surely leaves the bounds (``Bounds.cuts``) or makes the state it leaves
        #: (``settles_at_once``, a whole fetch ``refused``, a flush with nothing to make durable:
        #: ``flushes_nothing``); either makes no new state, only a transition counted
        self.foresee = True
        #: the transitions this process left untaken so
        self.untaken = 0
        #: whether a fetch request that is refused is left untaken, as the state it makes - a
        #: follower waiting for the refusal - need not be kept: its twin without the refusal is
        #: met a level before (reduction 8, ``reductions.refused``)
        self.refusals_answered = reduced
        self.result = CheckResult(self.config.rules_name, self.config, bounds, faults)
        self.seen = Fingerprints()
        #: per state (by number), how it was first reached: its parent's number * 256 + the step
        #: index (-1: the initial state) - 8 bytes a state. An ``array('q')``; on workers the
        #: coordinator's ``shared_parents.SharedParents`` and a worker's view of it (in shared
        #: memory, so typed loosely)
        self.parents: Any = array("q")
        #: the frontier's live states (see the class docstring), in number order; the states
        #: after them are ``cold``
        self.frontier: list[Node] = []
        #: the frontier's cold states by number, in number order, rebuilt from ``parents`` when
        #: expanded: here the level's last numbers (a ``range``: no bytes a state, all after the
        #: live ones); a worker's part of the frontier, an ``array('q')`` (8 bytes a state)
        self.cold: Sequence[int] = range(0)
        self.depth = 0
        #: whether the search goes on from a checkpoint (``restore``): a state that does not
        #: replay is then the checkpoint's fault (``replay_error``)
        self.resumed = False
        #: this level's first transition per kind not found before: kind -> (parent state,
        #: step index, position among the transition's anomalies, detail)
        self.level_found: dict[str, tuple[int, int, int, str]] = {}
        #: the kinds found at earlier levels
        self.known: set[str] = set()
        #: when another runner holds the frontier (worker processes, Spark): its numbers and
        #: fingerprints (a ``range`` and an ``array('q')``), in number order
        self.remote: tuple[range, array] | None = None

    def initial(self) -> tuple[Cluster, AnomalyChecker]:
        """The initial cluster and its checker, having observed it (every search and walk starts
        here: ``KafkaModel.initial``)."""
        return self.model.initial()

    def state_bytes(self) -> float:
        """The memory a live state (cluster and checker) takes, in bytes as the allocator
        counts them: measured on clones of the initial state."""
        root, checker = self.initial()
        tracing = tracemalloc.is_tracing()
        if not tracing:
            tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            clones = [root.clone() for _ in range(32)]
            copies = [(clone, AnomalyChecker(clone, checker)) for clone in clones]
            size = (tracemalloc.get_traced_memory()[0] - before) / len(copies)
        finally:
            if not tracing:
                tracemalloc.stop()
        for clone, copy in copies:
            _drop(clone, copy)
        _drop(root, checker)
        return max(size, 1.0)

    def key(self, cluster: Cluster, checker: AnomalyChecker, spent: int) -> int:
        """A state's fingerprint as this search takes it (``model.fingerprint``, with its
        reductions and the counters ``spent``)."""
        return fingerprint(cluster, checker, self.context, spent)

    def start(self) -> None:
        root, checker = self.initial()
        key = self.key(root, checker, 0)
        self.seen = Fingerprints((key,))
        self.parents = array("q", (-1,))
        self.frontier = [Node(root, checker, 0, 0, 0, key)]
        self.cold = range(0)

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
        return len(self.frontier) + len(self.cold) if self.remote is None else len(self.remote[0])

    def successors(self, node: Node, depth: int, seen: Fingerprints, level: Fingerprints) -> list[Node]:
        """Every state one enabled step of the alphabet leads to from ``node`` within the
        bounds whose fingerprint is neither in ``seen`` nor in ``level`` (each is added to
        ``level``, which may be ``seen`` itself; the others are released at once), not yet
        numbered (index -1). Every transition is judged - the first transition of the level
        that shows a kind not found yet is noted in ``level_found`` -, a duplicate's too: what
        a step reports depends on where it came from, not only on the state it reaches.

        Except the run-end checks (``AnomalyChecker.finish``: lost-write, duplicates, order,
        unseen), judged only for a state not met before. They read nothing but the state they
        judge, cluster and checks' memory alike - what its fingerprint stands for, as every
        search assumes when it prunes a state met before - and write nothing, so a duplicate
        reports what the state's first transition reported: at the same level, earlier in
        (parent, step) order, or at an earlier level, where each kind it showed was found
        (the initial state, met again by a schedule that undoes itself, has no record to judge).
        So the verdicts, depths and schedules are the same; the work is skipped for the
        three transitions in four that lead to a state met before."""
        found = self.level_found
        out: list[Node] = []
        for index in range(len(self.steps)):
            made = self.transition(node, index, depth)
            if made is None:
                continue
            cluster, watch, records, spent = made
            key = self.key(cluster, watch, spent)
            # one probe where the level's states go straight into the visited set (``next_level``)
            new = seen.added(key) if level is seen else key not in seen and level.added(key)
            anomalies = _anomalies_here(watch, depth) if new else watch.anomalies
            for order, anomaly in enumerate(anomalies):
                kind = anomaly.kind
                if kind in self.kinds and kind not in self.known and kind not in found:
                    found[kind] = (node.index, index, order, anomaly.detail)
            if not new:
                _drop(cluster, watch)
                continue
            out.append(Node(cluster, watch, records, spent, -1, key, node.index, index))
        return out

    def transition(self, node: Node, index: int, depth: int) -> tuple[Cluster, AnomalyChecker, int, int] | None:
        """Step ``index`` of the alphabet from ``node`` at ``depth``, on a clone, observed by a
        clone of its checker (what it reported is in the checker's ``anomalies``): (cluster,
        checker, records, counters), or None if the step cannot act, leaves the bounds, makes the
        state it leaves, or makes one the search need not keep (a refused fetch request:
        ``refusals_answered``) - the last three, where known without taking it (``foresee``:
        the bounds left, a settled isolation, a whole fetch refused, a flush with nothing to
        flush and no budget to charge), are counted as generated but not taken."""
        bounds = self.bounds
        parent, checker = node.cluster, node.checker
        assert parent is not None and checker is not None         # expanded nodes are live
        model = self.model
        taken = model.guard(parent, index, node.records, node.spent)
        if taken is None:
            return None
        step, records, spent = taken
        kind = step.kind
        if kind != "produce" and kind != "tick":
            if self.foresee and (bounds.cuts(parent, step) or settles_at_once(parent, step, self.settled)
                                 or (kind == "fetch" and refused(parent, step))
                                 or (kind == "flush" and spent == node.spent and flushes_nothing(parent, step))):
                self.result.generated += 1
                self.untaken += 1
                return None
            if self.refusals_answered and kind == "fetch_request" and refused(parent, step):
                self.result.generated += 1
                return None
        cluster, watch = model.make(parent, step, checker)
        assert watch is not None                                  # made with a checker
        self.result.generated += 1
        admitted = model.admits(step, cluster, spent)
        if admitted is None:
            _drop(cluster, watch)
            return None
        watch.observe(depth)
        return cluster, watch, records, admitted

    def expand(self, nodes: Iterable[Node], depth: int, seen: Fingerprints,
               level: Fingerprints | None = None) -> Iterator[Node]:
        """The one expansion loop (every runner uses it): each node's successors in
        (node, step) order, except those whose fingerprint is in ``seen`` or met before in this
        call (in ``level``, to which each new one is added: by default a set of this call's own;
        ``seen`` itself where the caller numbers the states as they come); the others are
        released at once. Each node is rebuilt first if it is cold and released once expanded.
        Past ``hot_limit`` new states - or once the process's resident memory has grown past
        ``resident_limit`` (see the class docstring) -, the rest are yielded cold."""
        if level is None:
            level = Fingerprints()      # 16 - 32 bytes a new state (a set of ints: ~70)
        limit = self.hot_limit
        guard, resident = self.resident_limit, self.resident
        began = resident() if guard is not None else None
        live = 0
        for node in nodes:
            if node.cluster is None:
                node = self.rebuild(node)
            for child in self.successors(node, depth, seen, level):
                if limit is not None and live >= limit:
                    release_node(child)
                else:
                    live += 1
                    if guard is not None and began is not None and live % RESIDENT_EVERY == 0:
                        now = resident()
                        if now is not None and now > guard and now > began:
                            limit = self.hot_limit = live
                yield child
            release_node(node)

    def candidate_chunks(self, nodes: Iterable[Node], seen: Fingerprints, live: list[Node] | None,
                         level: Fingerprints | None = None, size: int = 0) -> Iterator[tuple[array, array, int]]:
        """A part's level for a ``LevelMerge``: the states ``expand`` makes of ``nodes`` at the
        search's depth that are not in ``seen`` (nor in ``level``: see ``expand``), as
        candidates - rank (parent * 256 + step index) and fingerprint, all that is kept of a
        cold one -, in chunks of ``size`` (0: the part's all in one) as they are made, each with
        how many of its first candidates are live. The live ones are appended to ``live`` (the
        first made: every one after a cold one is cold); without ``live``, each is released at
        once and none is counted live."""
        ranks, keys = array("q"), array("q")
        hot = 0
        cold_met = False
        for child in self.expand(nodes, self.depth, seen, level):
            assert child.key is not None, "candidate_chunks: a new state has its fingerprint"
            if child.cluster is None:
                cold_met = True
            elif live is None:
                release_node(child)
            else:
                assert not cold_met, "candidate_chunks: a live state after a cold one"
                live.append(child)
                hot += 1
            ranks.append(child.parent * 256 + child.step)
            keys.append(child.key)
            if size and len(ranks) >= size:
                yield ranks, keys, hot
                ranks, keys, hot = array("q"), array("q"), 0
        if len(ranks) or not size:
            yield ranks, keys, hot

    def candidates(self, nodes: Iterable[Node], seen: Fingerprints) -> Candidates:
        """``candidate_chunks`` in one chunk, every state released (a Spark task's part)."""
        for ranks, keys, _ in self.candidate_chunks(nodes, seen, None):
            return ranks, keys
        raise AssertionError("candidates: one chunk")

    def level_merge(self, parts: int, keys: bool = False) -> LevelMerge:
        """The merge of this level's ``parts`` parts into the visited set and parent table
        (``LevelMerge``; with ``keys``, it keeps the kept states' fingerprints too)."""
        return LevelMerge(self.seen, self.parents, parts, keys)

    def close_level(self, merge: LevelMerge) -> tuple[range, array]:
        """The level ``merge`` numbered, closed: its transitions counted, its first violation
        per kind recorded; returns its kept states' numbers and the fingerprints it kept (none
        unless asked for) - the next frontier, as ``remote`` holds it."""
        self.result.generated += merge.generated
        self.record_violations(merge.found)
        return merge.numbered(), merge.keys if merge.keys is not None else array("q")

    def merge_level(self, replies: list[tuple[Candidates, dict, int]]) -> tuple[range, array]:
        """A level whose parts came whole (Spark tasks). ``replies``: per part of the
        frontier, its ``Candidates``, its first transition per kind not found before, and the
        transitions it made beyond those this search counted. Returns the next frontier's
        numbers and fingerprints (``close_level``)."""
        merge = self.level_merge(len(replies), keys=True)
        for part, ((ranks, keys), found, generated) in enumerate(replies):
            merge.feed(part, ranks, keys)
            merge.end(part, found, generated)
        waiting = merge.run()
        assert waiting < 0, "merge_level: every part is given"
        return self.close_level(merge)

    def next_level(self) -> bool:
        """Expands the frontier by one level in this process; False when the search is over.
        Its new states are numbered as they are made (the order one level merge of them would
        give), their fingerprints go straight into the visited set, and only the live ones
        stay nodes: a cold one leaves its parent entry only, and the level's last numbers are
        ``cold``."""
        if not self.more():
            return False
        nodes = self.frontier_nodes()
        self.frontier, self.cold = [], range(0)
        parents, seen = self.parents, self.seen
        number: int = len(parents)
        live: list[Node] = []
        first_cold: int = -1
        for child in self.expand(nodes, self.depth, seen, seen):     # every child is new, and now seen
            parents.append(child.parent * 256 + child.step)
            if child.cluster is not None:
                # once past ``hot_limit`` every later state is made cold: the live ones come first
                assert first_cold < 0, "next_level: a live state after a cold one"
                child.index = number
                live.append(child)
            elif first_cold < 0:
                first_cold = number
            number += 1
        self.record_violations(self.level_found)
        self.frontier, self.cold = live, range(number if first_cold < 0 else first_cold, number)
        return True

    def frontier_nodes(self) -> Iterator[Node]:
        """The frontier in number order, as it is now: its live nodes and each cold state as a
        node to rebuild."""
        return _nodes(self.frontier, self.cold)

    def record_violations(self, found: dict[str, tuple[int, int, int, str]]) -> None:
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

    def hand_over(self) -> None:
        """The frontier given to another runner (worker processes, Spark): kept as its numbers
        and fingerprints (``remote``), its clusters freed."""
        self.remote = self.frontier_arrays()
        self.drop_frontier()

    def drop_frontier(self) -> None:
        for node in self.frontier:
            release_node(node)
        self.frontier, self.cold = [], range(0)

    def finish(self) -> None:
        self.result.complete = not self.frontier_size()
        self.result.distinct = len(self.seen)

    def indices(self, state: int) -> list[int]:
        """The step indices from the initial state to ``state``."""
        out = []
        parents = self.parents
        entry: int = parents[state]
        while entry >= 0:
            out.append(entry & 255)
            entry = parents[entry >> 8]
        out.reverse()
        return out

    def path(self, state: int) -> list[Step]:
        """The schedule from the initial state to ``state`` (produces numbered in order)."""
        return self.steps_of(self.indices(state))

    def steps_of(self, indices: Sequence[int], before: list[Step] | None = None) -> list[Step]:
        """The steps of ``indices`` following the schedule ``before`` (``KafkaModel.schedule``)."""
        return self.model.schedule(indices, before or ())

    def frontier_ids(self) -> list[tuple[int, int | None]]:
        """The frontier's states as (number, fingerprint), the fingerprint None where it is
        not kept (a cold state)."""
        numbers, keys = self.frontier_arrays()
        return [(number, keys[i] if i < len(keys) else None) for i, number in enumerate(numbers)]

    def frontier_arrays(self) -> tuple[range, array]:
        """The frontier's numbers (a ``range``: the last ones numbered) and the fingerprints
        of its first states - the live ones, or all where another runner holds it (as
        ``remote`` does)."""
        if self.remote is not None:
            return self.remote
        numbers = range(len(self.parents) - self.frontier_size(), len(self.parents))
        return numbers, array("q", [node.key for node in self.frontier])

    def snapshot(self) -> dict:
        """Everything but the frontier's clusters, in plain values (a checkpoint's content):
        the frontier is the last ``frontier`` states numbered, ``frontier_keys`` the
        fingerprints of its first ones (``frontier_arrays``)."""
        numbers, keys = self.frontier_arrays()
        return {"depth": self.depth, "generated": self.result.generated, "seconds": self.result.seconds,
                "frontier": len(numbers), "seen": array("q", self.seen), "parents": array("q", self.parents),
                "frontier_keys": array("q", keys),
                "violations": {k: v.to_dict() for k, v in self.result.violations.items()}}

    def restore(self, snapshot: dict) -> None:
        """Goes on from ``snapshot``: each frontier state is rebuilt by replaying its schedule
        from the initial state, exactly as the search made it, and must have the fingerprint
        the checkpoint gives it - or, where it gives none (a state that was cold), one in the
        visited set (else the checkpoint belongs to another engine: CheckError); past
        ``hot_limit`` states they are left cold, to be rebuilt (and checked) when expanded."""
        size, keys = snapshot["frontier"], array("q", snapshot["frontier_keys"])
        if not isinstance(size, int) or not 0 <= size <= len(snapshot["parents"]) or len(keys) > size:
            raise CheckError(f"resume: the checkpoint's frontier ({size!r} states, {len(keys)} fingerprints) "
                             f"does not fit its {len(snapshot['parents'])} states")
        self.resumed = True
        self.depth = snapshot["depth"]
        self.result.generated = snapshot["generated"]
        self.result.seconds = snapshot["seconds"]
        self.result.depth = self.depth
        self.seen = Fingerprints(snapshot["seen"])
        self.parents = array("q", snapshot["parents"])
        self.result.violations = {k: Violation.from_dict(k, v) for k, v in snapshot["violations"].items()}
        self.known = set(self.result.violations)
        numbers = range(len(self.parents) - size, len(self.parents))
        live = size if self.hot_limit is None else min(self.hot_limit, size)
        self.frontier = [self.replay(number, self.indices(number), keys[i] if i < len(keys) else None)
                         for i, number in enumerate(numbers[:live])]
        self.cold = numbers[live:]

    def adopt(self, items: Sequence[tuple[int, int | None]]) -> tuple[list[Node], array]:
        """Frontier states given as (number, fingerprint), in number order: the first
        ``hot_limit`` rebuilt now by replaying the schedule ``parents`` gives (``replay``: to
        that fingerprint, where one is given), the rest cold (their numbers, rebuilt when
        expanded and checked against the visited set then)."""
        limit = self.hot_limit
        live = len(items) if limit is None else min(limit, len(items))
        return ([self.replay(index, self.indices(index), key) for index, key in items[:live]],
                array("q", [index for index, _ in items[live:]]))

    def rebuild(self, node: Node) -> Node:
        """A cold node made live again by replaying the schedule ``parents`` gives it
        (``replay``)."""
        live = self.replay(node.index, self.indices(node.index), node.key)
        live.parent, live.step = node.parent, node.step
        return live

    def replay(self, index: int, indices: Sequence[int], key: int | None, check: bool = True) -> Node:
        """State ``index`` rebuilt by running its schedule (step ``indices``) from the initial
        state as the search did; it must have fingerprint ``key``, or where that is not kept
        (None) one in the visited set (else CheckError) - unless ``check`` is False (a Spark
        task, which holds no visited set: the driver checks what it returns)."""
        cluster, checker = self.initial()
        records = spent = 0
        counters = self.model.counters
        for depth, step in enumerate(self.steps_of(indices), 1):
            if step.kind == "produce":
                records += 1
            logged = len(cluster.events)
            cluster.apply(step)
            charged = counters.after(spent, step, cluster.events[logged:])
            if charged is None:
                raise replay_error(index, self.resumed)
            spent = charged
            checker.observe(depth)
            _anomalies_here(checker, depth)
        made = self.key(cluster, checker, spent)
        if check and (made != key if key is not None else made not in self.seen):
            raise replay_error(index, self.resumed)
        return Node(cluster, checker, records, spent, index, made)


def replay_error(index: int, resumed: bool) -> CheckError:
    """A frontier state that does not replay to the fingerprint it was made with: in a search
    ``resumed`` from a checkpoint, the checkpoint's; else the engine that rebuilt it is not the
    one that made it (a Spark executor's another version) or not deterministic."""
    if resumed:
        return CheckError(f"resume: the checkpoint's state {index} does not replay to the same state; "
                          f"it was written by another version of hwlib's engine")
    return CheckError(f"check: state {index} does not replay to the state the search made; the process that "
                      f"rebuilt it runs another version of hwlib's engine (a Spark executor's?)")


def _nodes(live: list[Node], cold: Sequence[int]) -> Iterator[Node]:
    """``live`` and ``cold`` (each in number order) merged in number order, a cold state as a
    node to rebuild."""
    at, size = 0, len(live)
    for number in cold:
        while at < size and live[at].index < number:
            yield live[at]
            at += 1
        yield Node(None, None, 0, 0, number, None)
    yield from live[at:]


def _drop(cluster: Cluster, checker: AnomalyChecker) -> None:
    checker.release()
    cluster.release()


def release_node(node: Node) -> None:
    """Frees a state at once (see ``Search``) and leaves the node cold - its schedule and
    numbers only; a cold one holds nothing to free."""
    if node.cluster is not None and node.checker is not None:
        _drop(node.cluster, node.checker)
    node.cluster = node.checker = None
