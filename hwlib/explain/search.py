"""The explanation search: over (engine state, how far each log's lines are matched, the value maps).

An explanation is a schedule of the model's steps and an increasing map from the logs'
observations to its steps under which each observation holds on its step (``observations``):
several observations may hold on one step, a step no line shows is *silent* (open world: a
missing line is not evidence), and at most ``max_silent`` silent steps come in a row. The
observations are ordered per *chain* (a file, or all files whose lines carry timestamps); a
chain's next observation may be matched once every observation of another chain stamped
before it is (``order``). Breadth first, the first node that has matched every observation
ends a shortest explanation.

It searches as ``hwlib check`` does - the alphabet of steps (``model.space.alphabet``), the
engine's guards, the leader-epoch bound (``Bounds.beyond``), fingerprints with the checker's
reductions (``model.reductions.Reductions``; a fingerprint stands for every future of a state: of
two nodes with the same fingerprint and maps, the one that matched no more lines in any chain is
dominated and dropped - a future that matches the rest of its lines matches the other's) - but
takes every step it can: a refused fetch is left untaken by the check and may be exactly what
a line shows. ``forbid`` names an anomaly kind a schedule may not show (the second search that
tells whether the explanation's anomalies are necessary).
"""

from __future__ import annotations

import functools
import gc
import heapq
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..anomalies import AnomalyChecker
from ..engine.cluster import Cluster
from ..engine.config import ClusterConfig
from ..engine.steps import Step
from ..model.reductions import Reductions
from ..model.space import Bounds, numbered
from ..model.transition import KafkaModel
from .observations import KINDS, Maps, Observation, StepView, matches, observe_creation, observe_step

#: one way a step's observations match the lines that come next: (progress, maps, the lines matched)
Way = tuple[tuple[int, ...], Maps, tuple[int, ...]]

#: how many steps a line matched is worth in the greedy search's order (``ExplainSearch._greedy``)
MATCH_WORTH = 1

#: how far past its budget the next level's guessed size must be before a breadth-first search
#: stops ahead of it (``ExplainSearch._run``)
PREDICTED_MARGIN = 2

#: the model's observations kept from the steps of the node that got furthest (what it "can only" do)
FRONTIER_KEPT = 400


@dataclass(frozen=True)
class Target:
    """The observations to explain, in order: each one's chain, and what must be matched
    before it (``order``: per chain, how many of its observations)."""

    observations: tuple[Observation, ...]
    chains: tuple[tuple[int, ...], ...]
    #: per observation (by index): the matched count each chain needs first
    order: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, observations: Sequence[Observation], chain_of: Sequence[int],
           stamps: Sequence[float | None], skew_ms: float = 0.0,
           pair_skew: Mapping[tuple[int, int], float] | None = None,
           after: Sequence[tuple[int, int]] = ()) -> Target:
        """``observations`` in their chains' order (``chain_of``: each one's chain; within a
        chain in the order given); ``stamps`` their timestamps: an observation stamped more
        than ``skew_ms`` (or, between two chains whose clocks disagree with what their lines
        say, ``pair_skew[(its chain, the other's)]``: infinite for no order by time at all)
        before another of another chain must be matched first; ``after``: pairs (i, j) where
        observation i can only be matched once observation j is, by what they say."""
        count = max(chain_of, default=-1) + 1
        chains: list[list[int]] = [[] for _ in range(count)]
        for i, c in enumerate(chain_of):
            chains[c].append(i)
        order: list[list[int]] = []
        for i, stamp in enumerate(stamps):
            need: list[int] = []
            for c, members in enumerate(chains):
                if c == chain_of[i] or stamp is None:
                    need.append(0)
                    continue
                before = stamp - max(skew_ms, (pair_skew or {}).get((chain_of[i], c), 0.0))
                need.append(sum(1 for j in members if (other := stamps[j]) is not None and other < before))
            order.append(need)
        for i, j in after:
            chain = chain_of[j]
            if chain != chain_of[i]:
                order[i][chain] = max(order[i][chain], chains[chain].index(j) + 1)
        return cls(tuple(observations), tuple(tuple(m) for m in chains), tuple(tuple(need) for need in order))

    def next_ones(self, cursors: tuple[int, ...]) -> list[tuple[int, int]]:
        """The observations that may be matched next: (chain, observation index)."""
        out = []
        for c, members in enumerate(self.chains):
            at = cursors[c]
            if at >= len(members):
                continue
            index = members[at]
            need = self.order[index]
            if all(cursors[o] >= need[o] for o in range(len(cursors)) if o != c):
                out.append((c, index))
        return out

    def done(self, cursors: tuple[int, ...]) -> bool:
        return all(at == len(members) for at, members in zip(cursors, self.chains, strict=True))

    def matched(self, cursors: tuple[int, ...]) -> int:
        return sum(cursors)


@dataclass
class Node:
    """A state of the search: the cluster (with its checker when anomalies are forbidden), the
    progress per chain, the maps, the silent steps in a row, records and the bounds' counters
    (``model.budget``) so far, and how it was reached (parent node, step index, the
    observations matched there)."""

    #: the state, held only while it is needed: a node admitted drops it (its key is taken) and
    #: makes it again from its parent's when it is expanded; a parent keeps its own until each
    #: child it admitted has been expanded (``pending``) - the clusters of every node met would
    #: hold gigabytes, those of the nodes being expanded and their parents a fraction of that
    cluster: Cluster | None
    checker: AnomalyChecker | None
    cursors: tuple[int, ...]
    maps: Maps
    silent: int
    records: int
    spent: int
    parent: Node | None = None
    step: int = -1
    matched: tuple[int, ...] = ()
    #: the steps from the initial state
    depth: int = 0
    #: children admitted and not yet expanded
    pending: int = 0
    #: at least how many more steps before the next line can be matched (``ExplainSearch.gap``)
    gap: int = 0
    #: a root's steps from the initial state (a warm start: records written and replicated first)
    prefix: tuple[Step, ...] = ()

    def created(self) -> tuple[int, ...]:
        """The observations matched by the partition's creation, the initial state (its root's)."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node.matched

    def schedule(self, steps: Sequence[Step]) -> list[tuple[Step, tuple[int, ...]]]:
        """The steps from the initial state to here, each with the observations it matched."""
        out = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            out.append((steps[node.step], node.matched))
            node = node.parent
        out.reverse()
        if node is not None:
            out[:0] = [(step, ()) for step in node.prefix]
        records = 0
        numbered_out = []
        for step, seen in out:
            if step.kind == "produce":
                records += 1
                step = numbered(step, records)
            numbered_out.append((step, seen))
        return numbered_out


def _drop(node: Node) -> None:
    """Frees ``node``'s state at once (a cluster and its checker are cycles of references)."""
    if node.cluster is not None:
        node.cluster.release()
    if node.checker is not None:
        node.checker.release()
    node.cluster = node.checker = None


@dataclass
class Outcome:
    """How a search ended: the goal node (None: not explained), the node that matched the most
    observations (where it got stuck), whether it searched everything within its bounds
    (``complete``) or stopped at its depth or time limit, its counts and time."""

    goal: Node | None
    best: Node | None
    complete: bool
    states: int = 0
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    stopped: str = ""
    #: what the steps from the best nodes showed (the model's observations), for "can only ..."
    frontier: list[Observation] = field(default_factory=list)
    #: the first line (by index) the rules can never make, when that decided it without a search
    impossible: int | None = None


class ExplainSearch:
    """One search: a configuration (its rules), the bounds, the faults the alphabet draws
    from, the target, how many silent steps may come in a row, and (optionally) an anomaly kind
    no step may show."""

    def __init__(self, config: ClusterConfig, bounds: Bounds, faults: tuple[str, ...], target: Target,
                 max_silent: int, forbid: str | None = None, deadline: float | None = None,
                 max_states: int | None = None) -> None:
        self.config = config
        self.bounds = bounds
        self.target = target
        self.max_silent = max_silent
        self.forbid = forbid
        self.deadline = deadline
        #: stop after this many distinct nodes (a budget that, unlike the deadline, gives the same
        #: answer on any machine)
        self.max_states = max_states
        self.faults = faults
        replicas = tuple(config.replicas)
        #: the transition, shared with ``hwlib check``'s search
        self.model = KafkaModel(config, bounds, faults, bounds.tick_length(config))
        self.steps = self.model.steps
        self.values = {f"m{i}": i for i in range(1, bounds.max_records + 1)}
        self.context = Reductions(replicas, self.values)
        #: the states made for the children of the node being expanded (each is a cycle of
        #: references: released explicitly, as the cycle collector is off while searching)
        self._fresh: list[tuple[Cluster, AnomalyChecker | None]] = []

    @functools.cached_property
    def needs(self) -> tuple[tuple[int, int], ...]:
        """Per observation: the leader epoch and the records the model must have reached to make
        it - a strictly increasing map sends the k-th smallest offset the lines name above 0 to
        at least k, the k-th smallest epoch to at least k - 1 - as (epoch, records)."""
        epochs: set[int] = set()
        offsets: set[int] = set()
        for seen in self.target.observations:
            for name, value in seen.values:
                sort = KINDS[seen.kind][1][name]
                if isinstance(value, int) and value > 0:
                    (epochs if sort == "epoch" else offsets if sort == "offset" else set()).add(value)
        out = []
        for seen in self.target.observations:
            epoch = offset = 0
            for name, value in seen.values:
                sort = KINDS[seen.kind][1][name]
                if isinstance(value, int) and value > 0 and sort == "epoch":    # the smallest may be the model's 0
                    epoch = max(epoch, sum(1 for e in epochs if e <= value) - 1)
                elif isinstance(value, int) and value > 0 and sort == "offset":
                    offset = max(offset, sum(1 for o in offsets if o <= value))
            out.append((epoch, offset))
        return tuple(out)

    def gap(self, cluster: Cluster, cursors: tuple[int, ...], records: int) -> int:
        """At least how many more steps before a line that may come next can be matched: the
        elections to reach its leader epoch and the records to reach its offsets (the greedy
        search's order among nodes that matched as many lines; not a bound it relies on)."""
        epoch = max(r.leader_epoch for r in cluster.replicas)
        best = None
        for _, index in self.target.next_ones(cursors):
            need_epoch, need_records = self.needs[index]
            steps = max(0, need_epoch - epoch) + max(0, need_records - records)
            best = steps if best is None else min(best, steps)
        return best or 0

    def key(self, node: Node) -> tuple:
        """What two nodes must share for one to stand for the other, progress aside: the state's
        fingerprint (and the checks' memory where an anomaly is forbidden), the maps, the bounds' counters."""
        checker = node.checker
        memory = checker.verdict_key(self.values) if checker is not None else ()
        assert node.cluster is not None
        return (hash(self.context.key_of(node.cluster)), memory, node.maps, node.spent)

    def run(self, progress: Callable[[int, int, int], None] | None = None, greedy: bool = False) -> Outcome:
        """Breadth first (the first explanation is a shortest one), or - ``greedy`` - the node
        that matched the most lines first, the shallowest among them (an explanation, found
        sooner where the lines leave a trail, not always a shortest one)."""
        started = time.perf_counter()
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._greedy(started) if greedy else self._run(started, progress)
        finally:
            if collecting:
                gc.enable()

    def _admit(self, seen: dict[tuple, list[tuple[int, ...]]], child: Node, keep: bool = False) -> bool:
        """Whether ``child`` is new: no node met with the same key matched as much in every
        chain (it is then dominated: dropped); else it is noted, and the nodes it dominates
        forgotten. An admitted child gives up its state until it is expanded (``Node.cluster``),
        unless it is a root (``keep``: nothing could make it again)."""
        key = self.key(child)
        if not keep:
            child.cluster = child.checker = None
        met = seen.get(key)
        if met is None:
            seen[key] = [child.cursors]
            self._hold(child)
            return True
        cursors = child.cursors
        if any(all(a >= b for a, b in zip(other, cursors, strict=True)) for other in met):
            return False
        met[:] = [o for o in met if not all(b >= a for a, b in zip(o, cursors, strict=True))]
        met.append(cursors)
        self._hold(child)
        return True

    @staticmethod
    def _hold(child: Node) -> None:
        if child.parent is not None:
            child.parent.pending += 1

    @staticmethod
    def _release(node: Node) -> None:
        """``node`` is expanded (or never will be): its parent may drop its state once no other
        child of it waits."""
        parent = node.parent
        if parent is not None:
            parent.pending -= 1
            if parent.pending <= 0:
                _drop(parent)

    def _expanded(self, node: Node) -> None:
        """``node``'s children are made and admitted: the states made for them are released
        (each admitted child makes its own again when expanded), and ``node`` keeps its state
        only if one of them waits."""
        for cluster, watch in self._fresh:
            cluster.release()
            if watch is not None:
                watch.release()
        del self._fresh[:]
        if node.pending <= 0:
            _drop(node)

    def _state(self, node: Node) -> tuple[Cluster, AnomalyChecker | None]:
        """``node``'s state: held (the root, a parent), or made again from its parent's by its step."""
        if node.cluster is not None:
            return node.cluster, node.checker
        parent = node.parent
        assert parent is not None and parent.cluster is not None, "a parent keeps its state for its children"
        step = self.steps[node.step]
        if step.kind == "produce":
            step = numbered(step, node.records)
        cluster, watch = self.model.make(parent.cluster, step, parent.checker)
        if watch is not None:                   # as ``children`` made it: observed, then the events cleared
            watch.observe(node.depth)
            del watch.anomalies[:]
        del cluster.events[:]
        return cluster, watch

    def _greedy(self, started: float) -> Outcome:
        target, bounds = self.target, self.bounds
        root = self._root()
        outcome = Outcome(None, root, False)
        if target.done(root.cursors):
            outcome.goal, outcome.complete = root, True
            return outcome
        seen: dict[tuple, list[tuple[int, ...]]] = {self.key(root): [root.cursors]}
        #: one heap per root (the cold start, each warm start), taken in turn: a root whose first
        #: lines match at once but lead nowhere cannot starve another's; each holds (the node's
        #: cost: steps since its root and the gap to the next line, less ``MATCH_WORTH`` steps for
        #: each line matched - a line matched early on a path that leads nowhere is worth only so
        #: many steps more; lines matched, negated; steps since its root; order met; the node)
        heaps: list[list[tuple[int, int, int, int, Node]]] = [[(0, 0, 0, 0, root)]]
        created = self._admit_created(seen, outcome)
        if outcome.goal is not None:
            return outcome
        heaps[0] += [(node.gap - MATCH_WORTH * target.matched(node.cursors), -target.matched(node.cursors), 0, -number,
                      node) for number, node in enumerate(created, 1)]      # each its own order: never a tie
        heapq.heapify(heaps[0])
        for order, warm in enumerate(self._warm_roots(), 1):
            assert warm.cluster is not None
            warm.gap = self.gap(warm.cluster, warm.cursors, warm.records)
            if self._admit(seen, warm, keep=True):
                heaps.append([(warm.gap, 0, 0, order, warm)])
            else:
                _drop(warm)
        order = len(heaps)
        limit = bounds.depth
        turn = 0
        while any(heaps):
            outcome.stopped = self._spent(len(seen))
            if outcome.stopped:
                break
            turn = (turn + 1) % len(heaps)
            heap = heaps[turn]
            if not heap:
                continue
            _, _, taken, _, node = heapq.heappop(heap)
            depth = node.depth
            if limit is not None and depth >= limit:
                self._release(node)
                continue
            for child in self.children(node, depth + 1, outcome):
                if not self._admit(seen, child):
                    continue
                if target.done(child.cursors):
                    outcome.goal = child
                    break
                matched = target.matched(child.cursors)
                if matched > target.matched(outcome.best.cursors):     # type: ignore[union-attr]
                    outcome.best = child
                heapq.heappush(heap, (taken + 1 + child.gap - MATCH_WORTH * matched, -matched, taken + 1, order, child))
                order += 1
            self._expanded(node)
            outcome.depth = max(outcome.depth, depth + 1)
            if outcome.goal is not None:
                break
        if not any(heaps):
            outcome.complete = outcome.goal is None
        for heap in heaps:                           # nodes never expanded: their states go
            for *_, node in heap:
                if node.parent is None:
                    _drop(node)
        outcome.seconds = time.perf_counter() - started
        outcome.states = len(seen)
        return outcome

    def _spent(self, states: int) -> str:
        """Why the search must stop now ("" while it may go on): its time or its state budget."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return "time limit reached"
        if self.max_states is not None and states > self.max_states:
            return "state budget reached"
        return ""

    def _root(self) -> Node:
        root_cluster = Cluster(self.config)
        checker = self.model.watch(root_cluster) if self.forbid is not None else None
        return Node(root_cluster, checker, tuple(0 for _ in self.target.chains), Maps(), 0, 0, 0)

    def _admit_created(self, seen: dict[tuple, list[tuple[int, ...]]], outcome: Outcome) -> list[Node]:
        """The creation roots admitted (``_created_roots``), the best noted; one that matches every
        line is the goal (the outcome complete) and the search ends there."""
        admitted: list[Node] = []
        target = self.target
        for created in self._created_roots():
            if target.done(created.cursors):
                outcome.goal = outcome.best = created
                outcome.complete = True
                for node in admitted:
                    _drop(node)
                return []
            if not self._admit(seen, created, keep=True):
                _drop(created)
                continue
            admitted.append(created)
            if target.matched(created.cursors) > target.matched(outcome.best.cursors):  # type: ignore[union-attr]
                outcome.best = created
        return admitted

    def _created_roots(self) -> list[Node]:
        """The initial state as the partition's creation: a root per way the first lines match
        what Kafka writes when it elects a new partition's first leader (``observe_creation``: a
        leader starting at epoch 0, "Previous leader epoch was -1": Kafka's epoch 0 itself, which a
        partition's first leader always has) that no other way matches more than; the cold root
        matches none."""
        cluster = Cluster(self.config)
        made = observe_creation(cluster)
        out = []
        observations = self.target.observations
        ways = [way for way in self.advance(tuple(0 for _ in self.target.chains), Maps(), made)
                if way[2] and all(observations[index].value("epoch") == 0 for index in way[2])]
        for cursors, maps, seen_here in ways:
            if any(other[0] != cursors and all(a >= b for a, b in zip(other[0], cursors, strict=True))
                   for other in ways):
                continue                    # another way matches these lines and more: it stands for this
            state = cluster.clone()
            checker = self.model.watch(state) if self.forbid is not None else None
            out.append(Node(state, checker, cursors, maps, 0, 0, 0, matched=seen_here,
                            gap=self.gap(state, cursors, 0)))
        cluster.release()
        return out

    def _warm_roots(self) -> list[Node]:
        """The warm starts: for each count of records the bounds allow, the state after they were
        written and replicated to every replica (each follower fetching three times: the records,
        the leader's HW, its own) - an excerpt of a running cluster begins there, not at an empty
        log. Their steps are silent (no line is matched on them) and do not count against
        ``max_silent``; a schedule that matches a line among them is found from the cold root."""
        out = []
        followers = [r for r in self.config.replicas if r != self.config.replicas[0]]
        for records in range(1, self.bounds.max_records + 1):
            steps = [numbered(Step("produce", value="m"), n) for n in range(1, records + 1)]
            steps += [Step("fetch", replica=f) for _ in range(3) for f in followers]
            cluster = Cluster(self.config)
            checker = self.model.watch(cluster) if self.forbid is not None else None
            usable = True
            for depth, step in enumerate(steps, 1):
                if step.kind != "produce" and cluster.skip_reason(step) is not None:
                    usable = False
                    break
                cluster.apply(step)
                if checker is not None:
                    checker.observe(depth)
                    if any(a.kind == self.forbid for a in checker.anomalies):
                        usable = False
                        break
                    del checker.anomalies[:]
                del cluster.events[:]
            if not usable or self.bounds.beyond(cluster) or cluster.leader is None \
                    or any(r.leo != records for r in cluster.replicas):
                cluster.release()
                continue
            out.append(Node(cluster, checker, tuple(0 for _ in self.target.chains), Maps(), 0, records, 0,
                            depth=len(steps), prefix=tuple(steps)))
        return out

    def _run(self, started: float, progress: Callable[[int, int, int], None] | None) -> Outcome:
        target, bounds = self.target, self.bounds
        root = self._root()
        cursors = root.cursors
        outcome = Outcome(None, root, False)
        if target.done(cursors):
            outcome.goal, outcome.complete = root, True
            return outcome
        #: per key, the progress vectors met (a node whose progress another met at the same key
        #: covers, chain by chain, can do nothing that one cannot: it is dominated)
        seen: dict[tuple, list[tuple[int, ...]]] = {self.key(root): [cursors]}
        frontier = [root] + self._admit_created(seen, outcome)
        if outcome.goal is not None:
            return outcome
        depth = 0
        limit = bounds.depth
        warm = sorted(self._warm_roots(), key=lambda node: node.depth)
        while frontier or warm:
            while warm and warm[0].depth <= depth:        # a warm start joins at its own depth
                start = warm.pop(0)
                if start.depth == depth and self._admit(seen, start, keep=True):
                    frontier.append(start)
                else:
                    _drop(start)
            if not frontier:
                depth += 1
                continue
            if limit is not None and depth >= limit:
                outcome.stopped = f"depth bound {limit} reached"
                break
            outcome.stopped = self._spent(len(seen))
            if outcome.stopped:
                break
            depth += 1
            following: list[Node] = []
            for node in frontier:
                for child in self.children(node, depth, outcome):
                    if not self._admit(seen, child):
                        continue
                    if target.done(child.cursors):
                        outcome.goal = child
                        break
                    if target.matched(child.cursors) > target.matched(outcome.best.cursors):  # type: ignore[union-attr]
                        outcome.best = child
                    following.append(child)
                self._expanded(node)
                if outcome.goal is not None:
                    break
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    break
                if self.max_states is not None and len(seen) > self.max_states:
                    break                             # the budget ends inside a level, too
            outcome.depth = depth
            outcome.states = len(seen)
            # the next level as large as this one grew (a guess above the truth: many of its nodes
            # are dominated) past twice the budget: even a goal halfway through it is out of reach
            grown = len(following) / max(1, len(frontier))
            if outcome.goal is None and self.max_states is not None \
                    and len(seen) + len(following) * grown > PREDICTED_MARGIN * self.max_states:
                outcome.stopped = "state budget reached"
                break
            if progress is not None:
                progress(depth, len(seen), target.matched(outcome.best.cursors) if outcome.best else 0)
            if outcome.goal is not None:
                break
            frontier = following
        else:
            outcome.complete = True
        for start in warm:                           # warm starts never reached
            _drop(start)
        if outcome.goal is None and not frontier and not outcome.stopped:
            outcome.complete = True
        outcome.seconds = time.perf_counter() - started
        outcome.states = len(seen)
        return outcome

    def children(self, node: Node, depth: int, outcome: Outcome) -> list[Node]:
        """Every node one step of the alphabet leads to from ``node`` within the bounds, once
        per way of matching the observations it shows (matching none: a silent step, if
        another may come)."""
        parent, checker = self._state(node)
        node.cluster, node.checker = parent, checker           # held while its children wait
        self._release(node)
        view = StepView.of(parent)
        out: list[Node] = []
        model = self.model
        for index in range(len(self.steps)):
            taken = model.guard(parent, index, node.records, node.spent)
            if taken is None:
                continue
            step, records, spent = taken
            cluster, watch = model.make(parent, step, checker)
            self._fresh.append((cluster, watch))           # released once its children are admitted
            outcome.transitions += 1
            admitted = model.admits(step, cluster, spent)
            if admitted is None:
                continue
            if watch is not None:
                watch.observe(depth)
                if any(a.kind == self.forbid for a in watch.anomalies):
                    continue
                del watch.anomalies[:]
            made = observe_step(view, cluster, cluster.events)
            del cluster.events[:]
            ways = self.advance(node.cursors, node.maps, made)
            if node is outcome.best and len(outcome.frontier) < FRONTIER_KEPT:
                outcome.frontier.extend(made)
            gaps: dict[tuple[int, ...], int] = {}
            for cursors, maps, seen_here in ways:
                silent = 0 if seen_here else node.silent + 1
                if silent <= self.max_silent:
                    if cursors not in gaps:
                        gaps[cursors] = self.gap(cluster, cursors, records)
                    out.append(Node(cluster, watch, cursors, maps, silent, records, admitted, node, index, seen_here,
                                    depth, gap=gaps[cursors]))
        return out

    def advance(self, cursors: tuple[int, ...], maps: Maps, made: list[Observation]
                ) -> list[tuple[tuple[int, ...], Maps, tuple[int, ...]]]:
        """Every way the observations that may come next match what a step ``made``, one after
        another: (progress, maps, the observations matched) - matching none among them."""
        out: list[Way] = [(cursors, maps, ())]
        target = self.target
        if not made:
            return out
        kinds = {m.kind for m in made}
        if not any(target.observations[i].kind in kinds for _, i in target.next_ones(cursors)):
            return out
        todo: list[Way] = [(cursors, maps, ())]
        while todo:
            at, bound, seen_here = todo.pop()
            for chain, index in target.next_ones(at):
                wanted = target.observations[index]
                for model in made:
                    for extended in matches(wanted, model, bound):
                        moved = at[:chain] + (at[chain] + 1,) + at[chain + 1:]
                        item = (moved, extended, seen_here + (index,))
                        if all(item[:2] != other[:2] for other in out):
                            out.append(item)
                            todo.append(item)
                if len(out) > 256:          # a step showing the same thing to many lines: enough ways
                    return out
        return out
