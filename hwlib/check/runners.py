"""The model checker's entry point: one generation's search, level after level, on the runner its size calls for.

``explore`` is the only place that knows every runner: the levels run in this process
(``Search.next_level``) until the frontier reaches ``workers.SPLIT_AT`` states, then on worker
processes (``workers.Coordinator``) or, given a Spark master, as Spark jobs
(``spark_levels.SparkLevels``). Every runner expands and merges with the search's own
``expand`` / ``merge_level``, so the result is the same on each.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .search import CheckResult, Search
from .spec import CheckSpec


@dataclass(frozen=True)
class Hooks:
    """What a caller of ``explore`` hears and brings: ``progress(depth, distinct, generated)``
    after each level, ``level_done(search)`` after each level (a checkpoint writer), ``restore``
    (a ``Search.snapshot()`` to go on from) and ``spark`` (a SparkSession whose jobs run the
    levels of a shared frontier instead of worker processes; the same result)."""

    progress: Callable[[int, int, int], None] | None = None
    level_done: Callable[[Search], None] | None = None
    restore: dict | None = None
    spark: Any = None


def explore(spec: CheckSpec, protocol: str | None = None, hooks: Hooks = Hooks(), reduced: bool = True) -> CheckResult:
    """Breadth-first search of ``spec`` under ``protocol`` (default: its first rule set) from
    the initial state of ``spec.config_for(protocol)``. Stops when every kind of the spec was
    found (unless it is exhaustive), the frontier is empty (complete), or a bound is reached.
    With the spec's ``workers`` > 1 a frontier of ``workers.SPLIT_AT`` states or more is shared with
    that many processes (or run on ``hooks.spark``). ``reduced=False`` fingerprints the whole
    state (``model.state_key``: the equivalence tests of its reductions). The spec's ``memory``: the
    GiB this process and its workers may hold resident together (default: half the machine's
    memory); the frontier's states are kept live within it and beyond it as their schedules,
    replayed when expanded (``Search``: the same result, slower). The visited set and the
    frontier's schedules, which every state needs, are not kept within it."""
    one = spec.only(protocol if protocol is not None else spec.protocols[0])   # what a worker rebuilds
    spark, memory = hooks.spark, spec.memory
    search = one.search(reduced)
    search.hot_limit = hot_limit(search, memory, spec.workers if spark is None else 1)
    search.resident_limit = budget(memory)
    started = time.perf_counter()
    collecting = gc.isenabled()
    gc.disable()                # nothing cyclic is left behind (see Search): no collector needed
    runner: Any = None          # worker processes or Spark, once the frontier is shared
    try:
        if hooks.restore is None:
            search.start()
        else:
            search.restore(hooks.restore)
        earlier = search.result.seconds
        while True:
            if runner is None and (spec.workers > 1 or spark is not None):
                runner = _shared(search, one, spark)
            if not (search.next_level() if runner is None else runner.next_level()):
                break
            search.result.seconds = earlier + time.perf_counter() - started
            if hooks.progress is not None:
                hooks.progress(search.depth, len(search.seen), search.result.generated)
            if hooks.level_done is not None:
                hooks.level_done(search)
        search.finish()
        search.result.seconds = earlier + time.perf_counter() - started
    finally:
        if runner is not None:
            runner.close()
        search.drop_frontier()      # freed here, not left to the collector (seconds on a big frontier)
        if collecting:
            gc.enable()
    return search.result


def budget(memory: float | None) -> int:
    """The bytes a search may hold resident: ``memory`` GiB, by default half the machine's memory."""
    if memory is not None:
        return int(memory * 2 ** 30)
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2


def hot_limit(search: Search, memory: float | None, processes: int) -> int:
    """How many new states an expansion keeps live (``Search.hot_limit``) to start with, so
    that each of ``processes`` holds its share of ``memory`` GiB (``budget``): a live state's
    size is measured on clones of the initial state, with a quarter more for the records and
    requests a later state holds, and a level holds up to 1.5x the limit while the old
    frontier is expanded. (An estimate: each process lowers it when its resident memory says
    so, see ``Search``.)"""
    return max(1, int(budget(memory) / processes / (1.5 * 1.25 * search.state_bytes())))


def _shared(search: Search, spec: CheckSpec, spark: Any):
    """The runner that takes the search over once its frontier is large enough, else None;
    its processes or tasks rebuild the search from ``spec``'s written form."""
    from .workers import SPLIT_AT

    if search.frontier_size() < SPLIT_AT:
        return None
    if spark is not None:
        from .spark_levels import SparkLevels

        return SparkLevels(search, spec, spark)
    from .workers import Coordinator

    return Coordinator(search, spec)
