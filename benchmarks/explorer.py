"""Explorer responsiveness: a scenario switch's time in the kernel (run, render every frame, build panels).

This is the kernel's share only: the browser then creates one widget per frame, which this
benchmark does not time (JupyterLab in Chromium would). Each built-in scenario is loaded in
turn into one ``Explorer`` (two generations side by side, as notebook 01 opens it), best of
``--repeat``, in a fresh process; the goal for the whole switch is <= 300 ms on this machine.
``--baseline-ref REF`` also times git REF's explorer on its own tree (a temporary worktree)
in the same run and prints the ratio. Printed, not asserted.

    python benchmarks/explorer.py [--repeat 3] [--baseline-ref 61dc743]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from baseline import REPO, checkout, in_tree  # beside this script (its folder is on sys.path)


def child(repeat: int) -> dict[str, float]:
    """Seconds per switch, by scenario (best of ``repeat``), in this process."""
    import ipywidgets  # noqa: F401  (imported before timing: the first import is not a switch)

    from hwlib import builtin_scenarios, load_scenario

    try:
        from hwlib.views.explorer import Explorer
    except ImportError:                     # a tree from before the layered package
        from hwlib.explorer import Explorer  # type: ignore[no-redef]

    explorer = Explorer("data-loss", ["hw", "kip101"])
    out = {}
    for name in builtin_scenarios():
        scenario = load_scenario(name)
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            explorer._load(scenario)
            best = min(best, time.perf_counter() - start)
        out[name] = best
    return out


def measure(source: Path, repeat: int) -> dict[str, float]:
    return json.loads(in_tree(__file__, source, "--child", str(repeat)).splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="switches per scenario (best kept)")
    parser.add_argument("--baseline-ref", help="also time this git ref's explorer, in the same run")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    runs: dict[str, dict[str, float]] = {}
    if args.baseline_ref:
        with checkout(args.baseline_ref) as tree:
            for label, source in ((args.baseline_ref, tree), ("this tree", REPO)):
                runs[label] = measure(source, args.repeat)
    else:
        runs["this tree"] = measure(REPO, args.repeat)
    labels = list(runs)
    print("scenario switch in the explorer (two generations), ms, best of", args.repeat)
    print(f"  {'scenario':<40}" + "".join(f"{label:>12}" for label in labels))
    for name in runs["this tree"]:
        print(f"  {name:<40}" + "".join(f"{runs[label].get(name, float('nan')) * 1e3:>12.0f}" for label in labels))
    for label in labels:
        values = sorted(runs[label].values())
        print(f"  {label}: median {values[len(values) // 2] * 1e3:.0f} ms, worst {values[-1] * 1e3:.0f} ms "
              f"(goal <= 300 ms)")
    if len(labels) == 2:
        common = [n for n in runs[labels[1]] if n in runs[labels[0]]]
        ratio = sum(runs[labels[0]][n] for n in common) / sum(runs[labels[1]][n] for n in common)
        print(f"  speed vs {labels[0]}: {ratio:.2f}x (total over the {len(common)} scenarios both have)")


if __name__ == "__main__":
    main()
