"""The model checker on a Spark cluster, level by level: tasks expand the frontier, the driver keeps the visited set.

Per level:

1. the frontier - each state as (number, fingerprint, schedule) - is split into partitions by
   fingerprint; one Spark task per partition rebuilds its states by replaying their schedules
   (``Search.replay``, fingerprint-verified, so an executor running another engine fails
   loudly instead of searching another model), expands them with ``Search.expand`` (the loop
   one process runs) and returns the successors it has not already returned, as (parent
   state, step index, fingerprint) in that order, with the first violation per kind it met;
2. the driver merges them with ``Search.merge_level`` (the merge one process runs): the
   fingerprints it has seen dropped, the kept states numbered as one process would.

So state counts, violations and their schedules equal a one-process search's, on any cluster.
Tasks are stateless (a frontier state is rebuilt from its schedule, a few steps), so a lost
executor costs a retried task, not the search; the visited set and the parent table stay on
the driver, as with ``workers``. What limits the bound is the driver's memory for the
visited set (``fingerprints``: 11 - 21 bytes a state) and the frontier's schedules shipped
each level.
"""

from __future__ import annotations

from .fingerprints import Fingerprints
from .search import Search, candidates_of, release_node
from .spec import CheckSpec

#: states per task, at least (fewer, larger tasks amortise Spark's ~0.1 s per task)
MIN_STATES_PER_TASK = 500


def _expand(setup: tuple, depth: int, known: list[str], items: list[tuple[int, int, list[int]]]) -> tuple:
    """One task: rebuild ``items`` (number, fingerprint, schedule), expand them in number order;
    the successors new to this task, the first violation per kind, the transitions made."""
    spec, reduced = setup
    search = CheckSpec.from_dict(spec).search(reduced)
    search.known = set(known)
    nodes = (search.replay(index, indices, key) for index, key, indices in sorted(items))
    children = []
    for child in search.expand(nodes, depth, Fingerprints()):
        release_node(child)                 # only its numbers are sent
        children.append(child)
    return candidates_of(children), search.level_found, search.result.generated


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
        parts: list[list[tuple[int, int, list[int]]]] = [[] for _ in range(count)]
        for index, key in frontier:
            parts[key % count].append((index, key, search.indices(index)))
        parts = [p for p in parts if p]
        setup, depth, known = self.setup, search.depth, list(search.result.violations)
        replies = self.context.parallelize(parts, len(parts)).map(
            lambda items: _expand(setup, depth, known, items)).collect()
        _, search.remote = search.merge_level(replies)
        return True

    def close(self) -> None:
        """Nothing to stop: the tasks hold no state between levels."""
