"""Engine speed: fetch rounds per second on one core for a 3-replica partition.

A round is one follower's fetch: the request handled at the leader and the response applied
at the follower. The workload is steady replication: each produce (acks=all) is followed by
one round per follower, so every round moves records and the HW. Printed, not asserted.

    python benchmarks/engine.py [--rounds N]
"""

from __future__ import annotations

import argparse
import time

from hwlib import AnomalyChecker, Cluster, ClusterConfig, Step, run_steps


def bare_rounds(rounds: int) -> float:
    """Cluster methods called directly: the engine alone."""
    c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol="kip101", min_insync_replicas=2))
    fetch, produce = c.fetch, c.produce
    start = time.perf_counter()
    for i in range(rounds // 2):
        produce("v")
        fetch("B")
        fetch("C")
        if i % 1024 == 0:
            c.events.clear()
    return time.perf_counter() - start


def checked_rounds(rounds: int) -> float:
    """Same workload through Step dispatch with the anomaly checker after every step."""
    c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol="kip101", min_insync_replicas=2))
    checker = AnomalyChecker(c)
    steps = [Step("produce", value="v"), Step("fetch", replica="B"), Step("fetch", replica="C")]
    apply, observe = c.apply, checker.observe
    start = time.perf_counter()
    n = 0
    for i in range(rounds // 2):
        for step in steps:
            n += 1
            apply(step)
            observe(n)
        if i % 1024 == 0:
            c.events.clear()
    return time.perf_counter() - start


def run_200_step_schedules(runs: int) -> float:
    """Whole runs as a sweep does them (record=False): 3 replicas x ~200 steps with faults."""
    steps = []
    for i in range(40):
        steps += [Step("produce", value=f"v{i}"), Step("fetch", replica="B"),
                  Step("fetch", replica="C"), Step("fetch_request", replica="B")]
        if i % 10 == 5:
            steps += [Step("crash", replica="B", detected=False), Step("restart", replica="B")]
        steps.append(Step("fetch_response", replica="B"))
    config = ClusterConfig(replicas=("A", "B", "C"), protocol="kip101", min_insync_replicas=2)
    start = time.perf_counter()
    for _ in range(runs):
        run_steps(config, steps, record=False)
    elapsed = time.perf_counter() - start
    print(f"  schedule length {len(steps)} steps")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400_000)
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    bare_rounds(20_000)  # warm up
    t = bare_rounds(args.rounds)
    print(f"engine alone:          {args.rounds / t:>10,.0f} fetch rounds/s "
          f"({t / args.rounds * 1e6:.2f} us/round, target 200,000)")
    t2 = checked_rounds(args.rounds)
    steps = args.rounds // 2 * 3
    print(f"steps + checker:       {args.rounds / t2:>10,.0f} fetch rounds/s "
          f"({t2 / steps * 1e6:.2f} us/step)")
    t3 = run_200_step_schedules(args.runs)
    print(f"whole runs (sweep):    {args.runs / t3:>10,.1f} runs/s ({t3 / args.runs * 1e3:.2f} ms/run)")


if __name__ == "__main__":
    main()
