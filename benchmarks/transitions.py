"""Where a 3-replica search's time goes: each part of a transition's cost, as shares of one run's total.

``hwlib check`` spends its time in transitions: from a frontier state, every step of the
alphabet is guarded, taken on a clone watched by a clone of its checker, observed, keyed and
hashed, and the clone is released (``check.search.Search.successors``). This script takes the
frontier of 4.1's search under the power-loss profile's faults at 3 replicas and
min.insync.replicas=2 (the memory row of ``benchmarks/check.py``) at ``--depth`` and, on its
first ``--states`` states, times each part of every transition separately: the shares are of
the same run's total, so a shared machine's noise cancels. What it prints is where a faster
search has to take its time from - no part alone is most of it. Printed, not asserted.

    python benchmarks/transitions.py [--depth 6] [--states 3000]

Each transition (a step the guard lets act and the search does not foresee as leaving the
bounds or settling at once) is made as the search makes it: the clone (``Cluster.clone``),
the checker's clone, the step (``Cluster.apply``), the bounds (``Bounds.beyond``), the
observation, the state's key (``ModelKeys.key_of``: each engine part's key, with the
reductions), the checks' memory (``verdict_key``), the hash of the three, the run-end checks
of a state met for the first time, and the release of both clones.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from hwlib import ENGINE, ClusterConfig
from hwlib.anomalies import AnomalyChecker
from hwlib.check import Bounds, profile_faults
from hwlib.check.search import Search
from hwlib.model.reductions import refused, settles_at_once
from hwlib.profiles import load_profile


def frontier(depth: int) -> Search:
    """The memory row's search, expanded to ``depth`` on this process (every state live)."""
    faults = profile_faults(load_profile("power-loss"))[0]
    config = ClusterConfig(replicas=("A", "B", "C"), release="4.1", acks="all", min_insync_replicas=2)
    search = Search(config, Bounds(replicas=3, max_ticks=1), faults, ("lost-write",), True)
    search.start()
    for _ in range(depth):
        search.next_level()
    return search


def costs(search: Search, states: int) -> tuple[dict[str, float], int, int, float]:
    """Seconds per part over every transition from the frontier's first ``states`` states;
    the transitions made, the states among them not met before, the total seconds."""
    clock = time.perf_counter
    spent: dict[str, float] = defaultdict(float)
    seen = set(search.seen)
    model, bounds, ctx, depth = search.model, search.bounds, search.context, search.depth + 1
    made = new = 0
    began = clock()
    for node in search.frontier[:states]:
        parent, checker = node.cluster, node.checker
        assert parent is not None and checker is not None      # every frontier state is live here
        for index in range(len(search.steps)):
            t = clock()
            taken = model.guard(parent, index, node.records, node.spent)
            spent["guard (the engine's skip_reason)"] += clock() - t
            if taken is None:
                continue
            step, _, ticks = taken
            if step.kind not in ("produce", "tick"):
                t = clock()
                foreseen = (bounds.cuts(parent, step) or settles_at_once(parent, step, search.settled)
                            or (step.kind in ("fetch", "fetch_request") and refused(parent, step)))
                spent["foreseen (left untaken)"] += clock() - t
                if foreseen:
                    continue
            made += 1
            t = clock()
            cluster = parent.clone()
            spent["clone the cluster"] += clock() - t
            t = clock()
            watch = AnomalyChecker(cluster, checker)
            spent["clone the checker"] += clock() - t
            t = clock()
            cluster.apply(step)
            spent["the step (apply)"] += clock() - t
            t = clock()
            bounds.beyond(cluster)
            spent["bounds"] += clock() - t
            t = clock()
            watch.observe(depth)
            spent["observe"] += clock() - t
            t = clock()
            state = ctx.key_of(cluster)
            spent["key: the cluster's parts"] += clock() - t
            t = clock()
            memory = watch.verdict_key(ctx.values)
            spent["key: the checks' memory"] += clock() - t
            t = clock()
            key = hash((state, memory, ticks))
            spent["hash"] += clock() - t
            if key not in seen:
                seen.add(key)
                new += 1
                t = clock()
                watch.finish(depth)
                spent["run-end checks (new states)"] += clock() - t
            t = clock()
            watch.release()
            cluster.release()
            spent["release both clones"] += clock() - t
    return spent, made, new, clock() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=6, help="the frontier's depth (default 6)")
    parser.add_argument("--states", type=int, default=3000, help="frontier states to expand (default 3000)")
    args = parser.parse_args()
    search = frontier(args.depth)
    spent, made, new, total = costs(search, args.states)
    print(f"engine: {ENGINE}")
    expanded = min(args.states, len(search.frontier))
    print(f"4.1 under power-loss's faults, 3 replicas, min.insync.replicas=2: {expanded:,} states at depth "
          f"{search.depth}, {made:,} transitions ({new:,} to states not met before), "
          f"{made / total:,.0f} transitions/s, {1e6 * total / made:.1f} us each")
    for part, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {part:<32} {100 * seconds / total:5.1f}%  {1e6 * seconds / made:6.1f} us a transition")
    rest = total - sum(spent.values())
    print(f"  {'the timing itself and the loop':<32} {100 * rest / total:5.1f}%")


if __name__ == "__main__":
    main()
