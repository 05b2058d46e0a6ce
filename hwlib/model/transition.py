"""The transition relation both searches walk: which step of the alphabet acts from a state, and the state it makes.

``hwlib check`` (breadth first, with reductions) and ``hwlib explain`` (guided by the lines'
observations) are two strategies over one ``KafkaModel``: the same initial state and its watch,
the same alphabet and numbering of schedules, the same guard (the bounds' counters, then the
engine's own ``Cluster.skip_reason``) and the same step taken on a clone watched by a clone of
its checker, and the same counters carried with each state (``budget.Counters``: ticks,
budgeted faults, AlterPartitions sent). What each strategy leaves out beyond that - the
checker's foreseen cuts, explain's observations - is its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..anomalies import AnomalyChecker
from ..engine.cluster import Cluster
from .budget import Counters
from .space import Bounds, alphabet, numbered

if TYPE_CHECKING:
    from ..engine.config import ClusterConfig
    from ..engine.steps import Step


class KafkaModel:
    """One configuration's rules within bounds, under a set of faults: the alphabet (``steps``)
    and the transition (``guard``, then ``make``)."""

    config: ClusterConfig
    bounds: Bounds
    faults: tuple[str, ...]
    steps: list[Step]
    counters: Counters

    def __init__(self, config: ClusterConfig, bounds: Bounds, faults: tuple[str, ...], tick_ms: int) -> None:
        self.config = config
        self.bounds = bounds
        self.faults = faults
        self.steps = alphabet(tuple(config.replicas), faults, tick_ms, bounds.max_records)
        self.counters = Counters(bounds)
        #: each produce of the alphabet as the n-th record (``numbered``), made once: a Step is immutable
        self.produces: dict[tuple[int, int], Step] = {}

    def initial(self) -> tuple[Cluster, AnomalyChecker]:
        """The initial state - a new cluster of the configuration - and its watch (``watch``)."""
        cluster = Cluster(self.config)
        return cluster, self.watch(cluster)

    def watch(self, cluster: Cluster) -> AnomalyChecker:
        """A checker that watches ``cluster`` from here on, as a search's first state: it has
        observed the state, and what it found there is no step's report."""
        checker = AnomalyChecker(cluster)
        checker.observe(0)
        del checker.anomalies[:]
        return checker

    def schedule(self, indices: Sequence[int], before: Sequence[Step] = ()) -> list[Step]:
        """The steps of the alphabet at ``indices``, following the schedule ``before``: each
        produce gives the next value, m1, m2, ..."""
        records = sum(1 for step in before if step.kind == "produce")
        out = []
        for index in indices:
            step = self.steps[index]
            if step.kind == "produce":
                records += 1
                step = numbered(step, records)
            out.append(step)
        return out

    def guard(self, parent: Cluster, index: int, records: int, spent: int) -> tuple[Step, int, int] | None:
        """Step ``index`` from ``parent`` with ``records`` produced and the counters ``spent``
        (``budget.Counters``) so far: the step to take (a produce numbered as the next record)
        and the records and counters after it - a tick or a budgeted fault charged -, or None
        when the bounds or the engine's guard leave it out."""
        step = self.steps[index]
        if step.kind == "produce":
            if records >= self.bounds.max_records:
                return None
            records += 1
            made = self.produces.get((index, records))
            if made is None:
                made = self.produces[(index, records)] = numbered(step, records)
            step = made
        elif step.kind != "tick" and parent.skip_reason(step) is not None:
            return None
        charged = self.counters.before(spent, step)
        return None if charged is None else (step, records, charged)

    def make(self, parent: Cluster, step: Step,
             checker: AnomalyChecker | None) -> tuple[Cluster, AnomalyChecker | None]:
        """``step`` taken on a clone of ``parent``, watched (when ``checker`` is given) by a
        clone of ``checker`` made before it acts, so it sees what the step changed; the caller
        asks ``admits`` of the result and has the watch observe."""
        cluster = parent.clone()
        watch = AnomalyChecker(cluster, checker) if checker is not None else None
        cluster.apply(step)
        return cluster, watch

    def admits(self, step: Step, cluster: Cluster, spent: int) -> int | None:
        """The counters once ``step`` has made ``cluster`` (with the ISR changes it sent, read
        from the events it logged: ``budget.isr_requests``), or None when that state is past
        the bounds (``Bounds.beyond``) or the AlterPartition bound: a search does not keep it."""
        if self.bounds.beyond(cluster):
            return None
        return self.counters.sent(spent, step, cluster.events)
