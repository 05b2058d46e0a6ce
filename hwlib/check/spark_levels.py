"""The model checker on a Spark cluster, level by level: tasks expand the frontier, the driver keeps the visited set.

Per level:

1. the frontier - each state as (number, fingerprint, schedule) - is split into partitions by
   number; one Spark task per partition rebuilds its states by replaying their schedules
   (``Search.replay``, fingerprint-verified, so an executor running another engine fails
   loudly instead of searching another model), expands them with ``Search.expand`` (the loop
   one process runs) and returns the successors it has not already returned, as (rank,
   fingerprint) in that order (``Search.candidates``: the rank is parent state * 256 + step
   index), with the first violation per kind it met.
   A state handed over cold has no fingerprint kept (``Search.cold``): the task returns the
   one its replay made, and the driver checks it is in the visited set;
2. the driver merges them with ``Search.merge_level`` (a ``LevelMerge``, as the worker
   processes' coordinator does): the fingerprints it has seen dropped, the kept states
   numbered as one process would.

So state counts, violations and their schedules equal a one-process search's, on any cluster.
Tasks are stateless (a frontier state is rebuilt from its schedule, a few steps), so a lost
executor costs a retried task, not the search; the visited set and the parent table stay on
the driver, as with ``workers``. What limits the bound is the driver's memory for the
visited set (``fingerprints``: 11 - 21 bytes a state) and the frontier's schedules shipped
each level.
"""

from __future__ import annotations

from collections.abc import Iterator

from .fingerprints import Fingerprints
from .search import Node, Search, replay_error
from .spec import CheckSpec

#: states per task, at least (fewer, larger tasks amortise Spark's ~0.1 s per task)
MIN_STATES_PER_TASK = 500


def _expand(setup: tuple, depth: int, known: list[str], items: list[tuple[int, int | None, list[int]]]) -> tuple:
    """One task: rebuild ``items`` (number, fingerprint or None, schedule), expand them in
    number order; the successors new to this task, the first violation per kind, the
    transitions made, and (number, fingerprint) of each state rebuilt without one to check."""
    spec, reduced = setup
    search = CheckSpec.from_dict(spec).search(reduced)
    search.known, search.depth = set(known), depth
    unchecked: list[tuple[int, int | None]] = []

    def rebuilt() -> Iterator[Node]:
        for index, key, indices in sorted(items):
            node = search.replay(index, indices, key, check=key is not None)
            if key is None:
                unchecked.append((index, node.key))
            yield node

    candidates = search.candidates(rebuilt(), Fingerprints())      # only numbers are sent
    return (candidates, search.level_found, search.result.generated), unchecked


class SparkLevels:
    """Runs the levels of ``search`` as Spark jobs from its current frontier on (the same
    ``next_level`` / ``close`` as ``workers.Coordinator``)."""

    def __init__(self, search: Search, spec: CheckSpec, spark, partitions: int | None = None) -> None:
        self.search = search
        self.context = spark.sparkContext
        self.partitions = partitions or max(1, self.context.defaultParallelism) * 4
        self.setup = (spec.to_dict(), search.reduced)
        search.hand_over()

    def next_level(self) -> bool:
        search = self.search
        if not search.more():
            return False
        frontier = search.frontier_ids()
        count = max(1, min(self.partitions, len(frontier) // MIN_STATES_PER_TASK))
        parts: list[list[tuple[int, int | None, list[int]]]] = [[] for _ in range(count)]
        for index, key in frontier:
            parts[index % count].append((index, key, search.indices(index)))
        parts = [p for p in parts if p]
        setup, depth, known = self.setup, search.depth, list(search.result.violations)
        replies = self.context.parallelize(parts, len(parts)).map(
            lambda items: _expand(setup, depth, known, items)).collect()
        for _, unchecked in replies:
            for index, key in unchecked:
                if key not in search.seen:
                    raise replay_error(index, search.resumed)
        search.remote = search.merge_level([reply for reply, _ in replies])
        return True

    def close(self) -> None:
        """Nothing to stop: the tasks hold no state between levels."""
