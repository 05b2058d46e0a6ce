"""Engine speed, compiled vs interpreted, in one run: the engine alone, the checker's cost, whole sweep runs.

Every measurement runs in a fresh subprocess per engine (HWLIB_ENGINE=compiled or
interpreted), the engines alternating, best of ``--repeat`` (this machine is shared and
noisy); speedups are against the interpreted engine measured in the same run, and with
``--baseline-ref REF`` also against git REF's interpreted and compiled engines (say, the main
a change started from), checked out in a temporary worktree and built there. Printed, not
asserted.

    python benchmarks/engine.py [--repeat 3] [--baseline-ref 0d40eb5]

Workloads (3 replicas): ``engine`` - steady replication, a produce (acks=all) then one fetch
round per follower, Cluster methods called directly; ``checker`` - the same through step
dispatch with the anomaly checker after every step (its cost is the difference); ``sweep``
- whole sweep runs as Spark executes them (swarm profile, 200 steps, kip320, acks=all, min
ISR 2: schedule generation, run, checks, row).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from baseline import REPO, checkout, in_tree  # beside this script (its folder is on sys.path)

ROUNDS, SWEEP_RUNS = 100_000, 1_000


def child(workload: str) -> float:
    """One measurement in this process (whatever engine it imported); returns seconds."""
    from hwlib import AnomalyChecker, Cluster, ClusterConfig, Step

    config = ClusterConfig(replicas=("A", "B", "C"), protocol="kip101", min_insync_replicas=2)
    if workload == "sweep":
        from hwlib.sweep import parse_spec
        from hwlib.sweep.runs import run_batch

        spec = parse_spec({"name": "bench", "seed": 1, "runs": SWEEP_RUNS, "profile": "swarm",
                           "grid": {"protocol": ["kip320"], "replicas": [3], "acks": ["all"],
                                    "min_insync_replicas": [2]}})
        start = time.perf_counter()
        run_batch(spec, 0, spec.total_runs)
        return time.perf_counter() - start
    c = Cluster(config)
    if workload == "engine":
        fetch, produce = c.fetch, c.produce
        start = time.perf_counter()
        for i in range(ROUNDS // 2):
            produce("v")
            fetch("B")
            fetch("C")
            if i % 1024 == 0:
                c.events.clear()
        return time.perf_counter() - start
    checker = AnomalyChecker(c)
    steps = [Step("produce", value="v"), Step("fetch", replica="B"), Step("fetch", replica="C")]
    apply, observe = c.apply, checker.observe
    n = 0
    start = time.perf_counter()
    for i in range(ROUNDS // 2):
        for step in steps:
            n += 1
            apply(step)
            observe(n)
        if i % 1024 == 0:
            c.events.clear()
    return time.perf_counter() - start


def measure(workload: str, engine: str, source: Path) -> float:
    return float(in_tree(__file__, source, "--child", workload, HWLIB_ENGINE=engine).split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="measurements per engine and workload (best kept)")
    parser.add_argument("--baseline-ref", help="also time this git ref's engines")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(child(args.child))
        return
    sys.path.insert(0, str(REPO))
    import hwlib

    if hwlib.ENGINE.kind != "compiled":
        print(f"note: no compiled engine here ({hwlib.ENGINE}); make setup builds it")
    sources = [("interpreted", "interpreted", REPO), ("compiled", "compiled", REPO)]
    units = {"engine": (ROUNDS, "us/fetch round"), "checker": (ROUNDS // 2 * 3, "us/step"),
             "sweep": (SWEEP_RUNS, "ms/sweep run")}
    best: dict[tuple[str, str], float] = {}
    with contextlib.ExitStack() as stack:
        if args.baseline_ref:
            tree = stack.enter_context(checkout(args.baseline_ref, compiled=hwlib.ENGINE.kind == "compiled"))
            sources[:0] = [(f"{args.baseline_ref} interpreted", "interpreted", tree),
                           (f"{args.baseline_ref} compiled", "compiled", tree)]
        if hwlib.ENGINE.kind != "compiled":
            sources = [s for s in sources if s[1] != "compiled"]
        for workload in ("engine", "checker", "sweep"):
            for _ in range(args.repeat):
                for label, engine, source in sources:          # alternate: noise hits all alike
                    t = measure(workload, engine, source)
                    best[label, workload] = min(t, best.get((label, workload), t))
    labels = [label for label, _, _ in sources]
    print(f"{'':<26}" + "".join(f"{label:>22}" for label in labels))
    for workload in ("engine", "checker", "sweep"):
        count, unit = units[workload]
        scale = 1e3 if unit.startswith("ms") else 1e6
        cells = []
        for label in labels:
            t = best[label, workload]
            if workload == "checker":     # the checker's own cost: dispatch + checks minus the engine
                t -= best[label, "engine"] * count / units["engine"][0] * 2 / 3
            cells.append(t / count * scale)
        print(f"{workload + ' (' + unit + ')':<26}" + "".join(f"{v:>22.3f}" for v in cells))
        base = cells[labels.index("interpreted")]
        ratios = "   ".join(f"{label}: {base / v:.2f}x" for label, v in zip(labels, cells, strict=True))
        print(f"{'  speed vs interpreted':<26}{ratios}")
        if args.baseline_ref:               # each engine against the same engine of REF
            for kind in ("interpreted", "compiled"):
                ref_label = f"{args.baseline_ref} {kind}"
                if ref_label in labels and kind in labels:
                    ratio = cells[labels.index(ref_label)] / cells[labels.index(kind)]
                    print(f"{'  ' + kind + ' vs ' + args.baseline_ref:<26}{ratio:.2f}x")


if __name__ == "__main__":
    main()
