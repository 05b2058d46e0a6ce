"""The native spike: the kip320x3 row's search with its state fingerprint read and hashed in C, counted in instructions.

The fingerprint (``hwlib.model.space.fingerprint``: Python's hash of the state's key, a nested
tuple of integers) is the largest part of the model checker's time at 3 replicas. This measures
what a native fingerprint would leave, on the row's own search (kip320, 3 replicas, the TLA+
specification's faults, one process, levels 2 to ``--depth``), in four counts:

1. the search on this tree's compiled engine under valgrind's callgrind: instructions a
   transition, and of them the fingerprint's (inclusive: the key's tuples, their hash, freeing
   them) - so the search without it, the ceiling of any faster fingerprint;
2. the same search on the interpreted engine (whose keys and fingerprints are the compiled one's),
   every fingerprinted key written out as a stream of integers and brackets;
3. ``fingerprint_spike.c``, built with the C compiler the engine's build uses, hashing each
   state's stream to CPython's tuple hash - checked equal to Python's fingerprint for every
   state - and its instructions a state (callgrind on that function alone): the hashing half;
4. the reading half: ``fingerprint_spike_read.c``, an extension module built against mypyc's C
   for the same sources (their struct layouts), reads the replicas' part of the key - the
   largest - straight from the compiled engine's objects and hashes it, checked equal to
   Python's hash of that part for every state of the search's frontier at depth 6; its
   instructions a state beside Python's for the same part. Both C halves take CPython's tuple
   hash from one header, ``fingerprint_spike_hash.h``.

It prints the search with the fingerprint replaced: by the C hash of the given stream; by it
with reading costing as much again; and by every part read and hashed at the reader's cost a
token (an integer, or a tuple's two brackets). What the spike leaves out: the reader reads the
whole state, without the model checker's reductions (``hwlib.model.reductions``), whose questions
a native fingerprint would answer in C too, and the other parts of the key. Needs the compiled
engine, valgrind and gcc; about eight minutes, thirteen with a baseline ref (its engine built).
Printed, not asserted.

    python benchmarks/fingerprint_spike.py [--depth 7] [--baseline-ref REF]

``--baseline-ref REF`` counts the same search on REF's tree too (as ``check.py --instructions``
does), for the ratios over it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from array import array
from pathlib import Path

from baseline import REPO, checkout, in_tree  # beside this script (its folder is on sys.path)
from check import FAULTS, KINDS, THREE, callgrind_total, instruction_runs

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "fingerprint_spike.c"
READER = HERE / "fingerprint_spike_read.c"
#: the reading half is measured on the states of the row's search at this depth (its frontier)
READ_DEPTH = 6
#: how many times the reading half's loops go over those states
READ_ROUNDS = 3
#: the stream's tokens (``fingerprint_spike.c``)
INTEGER, OPEN, CLOSE, END = 0, 1, 2, 3


def record(depth: int, scratch: Path) -> None:
    """(Child, interpreted engine.) The kip320x3 row's search to ``depth``, each fingerprinted
    state's key written to ``scratch`` as tokens (``tags.bin``, ``values.bin``) and its
    fingerprint (``fingerprints.bin``); one JSON line with the search's counts and the tokens'."""
    from hwlib import ENGINE, ClusterConfig
    from hwlib.check import Bounds, CheckSpec, Hooks, explore
    from hwlib.check.search import Search
    from hwlib.model.space import fingerprint

    if "interpreted" not in str(ENGINE):
        raise SystemExit(f"recording needs the interpreted engine (HWLIB_ENGINE=interpreted), not the {ENGINE}")
    tags, values, fingerprints = array("b"), array("q"), array("q")

    def put(item: tuple) -> None:
        tags.append(OPEN)
        values.append(0)
        for part in item:
            if isinstance(part, tuple):
                put(part)
            else:
                tags.append(INTEGER)
                values.append(int(part))
        tags.append(CLOSE)
        values.append(0)

    def key(self, cluster, checker, spent):
        ctx = self.context
        found = fingerprint(cluster, checker, ctx, spent)
        whole = (ctx.key_of(cluster), checker.verdict_key(ctx.values), spent)
        if hash(whole) != found:
            raise AssertionError("the recorded key is not the one the fingerprint hashes")
        put(whole)
        tags.append(END)
        values.append(0)
        fingerprints.append(found)
        return found

    Search.key = key                # type: ignore[method-assign]  # the search as it runs, recording each key
    spec = CheckSpec.of_search(ClusterConfig(protocol="kip320", acks="all"), Bounds(replicas=3, depth=depth),
                               FAULTS, KINDS, True, 1, None)
    result = explore(spec, hooks=Hooks())
    for name, data in (("tags", tags), ("values", values), ("fingerprints", fingerprints)):
        (scratch / f"{name}.bin").write_bytes(data.tobytes())
    print(json.dumps({"distinct": result.distinct, "generated": result.generated, "fingerprints": len(fingerprints),
                      "integers": tags.count(INTEGER), "tuples": tags.count(OPEN)}))


def inclusive(callgrind_out: Path, function: str) -> int:
    """``function``'s inclusive instructions in a callgrind profile (0 if it never ran)."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(callgrind_out)],
                          capture_output=True, text=True, check=True).stdout
    pattern = re.compile(rf"^\s*([\d,]+) .*[:\s]{re.escape(function)}(?:\s|$|')")
    return max([int(m.group(1).replace(",", "")) for m in map(pattern.match, text.splitlines()) if m], default=0)


def search_counts(depth: int, scratch: Path, tree: Path = REPO) -> dict:
    """(1.) The row's search on ``tree``'s compiled engine (this one's by default) to 1 and to
    ``depth`` under callgrind (``check.instruction_runs``): levels 2 to ``depth``'s
    instructions, the fingerprint's among them, transitions and distinct states."""
    (start, first), (whole, last) = instruction_runs(tree, THREE, depth, scratch, "search")
    start_fp, whole_fp = (inclusive(out, "CPyDef_space___fingerprint") for out in (start, whole))
    if not whole_fp:
        raise SystemExit("the fingerprint is not in the profile: is the compiled engine built (make setup)?")
    return {"instructions": callgrind_total(whole) - callgrind_total(start), "fingerprint": whole_fp - start_fp,
            "generated": last["generated"] - first["generated"], "distinct": last["distinct"],
            "whole_generated": last["generated"]}


def native_hash(scratch: Path) -> tuple[int, int]:
    """(3.) ``fingerprint_spike.c`` built and run on the recorded stream: the states it hashed
    (every one equal to Python's fingerprint, or SystemExit) and its instructions (callgrind on
    ``state_hash`` alone)."""
    binary = scratch / "fingerprint_spike"
    subprocess.run([os.environ.get("CC", "gcc"), "-O2", "-o", str(binary), str(SOURCE)], check=True)
    files = [str(scratch / f"{name}.bin") for name in ("tags", "values", "fingerprints")]
    done = subprocess.run([str(binary), *files], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the C hash differs from Python's fingerprint: {done.stdout.strip()} {done.stderr.strip()}")
    states = int(done.stdout.split()[0])
    out = scratch / "callgrind.c"
    subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=state_hash", f"--callgrind-out-file={out}",
                    str(binary), *files], check=True, capture_output=True)
    return states, callgrind_total(out)


def build_reader(scratch: Path) -> None:
    """(4.) ``fingerprint_spike_read.c`` built as an extension module in ``scratch``, against
    mypyc's C for this tree's compiled modules (generated there for their struct layouts; the
    same sources and mypyc as the engine's build, so the same layouts - the reading half checks
    its hash against Python's on every state)."""
    generate = ("from hwlib.compiled import COMPILED\n"
                "from mypyc.build import mypycify\n"
                "mypycify(['--ignore-missing-imports', *(f'hwlib/{m}.py' for m in COMPILED)], opt_level='3', "
                f"group_name='hwlib_engine', target_dir={str(scratch / 'c')!r})\n")
    subprocess.run([sys.executable, "-c", generate], cwd=REPO, check=True, capture_output=True,
                   env=dict(os.environ, PYTHONPATH=str(REPO)))
    import mypyc

    runtime = Path(mypyc.__file__).parent / "lib-rt"
    target = scratch / f"fingerprint_spike_read{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run([os.environ.get("CC", "gcc"), "-O2", "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}",
                    f"-I{scratch / 'c'}", f"-I{runtime}", "-o", str(target), str(READER)], check=True)


def read_child(scratch: Path, mode: str) -> None:
    """(Child, compiled engine.) The row's search to ``READ_DEPTH``, its frontier's states
    rebuilt, and ``READ_ROUNDS`` times over them: ``check`` - the replicas' key hashed in Python
    (``tuple([r.key(ctx) for r in cluster.replicas])``, a plain ``KeyContext``) and by the C
    reader, counted where they differ, and the key's size -, ``python`` or ``c`` (one of the
    two), or ``none`` (the search alone). One JSON line."""
    sys.path.insert(0, str(scratch))
    import fingerprint_spike_read as reader

    from hwlib import ENGINE, ClusterConfig
    from hwlib.check import Bounds, CheckSpec
    from hwlib.engine.state_key import CODES, KeyContext

    if "compiled" not in str(ENGINE):
        raise SystemExit(f"the reader reads the compiled engine's objects, not the {ENGINE}'s (make setup)")
    search = CheckSpec.of_search(ClusterConfig(protocol="kip320", acks="all"), Bounds(replicas=3, depth=READ_DEPTH),
                                 FAULTS, KINDS, True, 1, None).search()
    search.start()
    while search.next_level():
        pass
    states = []
    for node in search.frontier_nodes():
        assert node.cluster is not None         # every state is live: the search has no memory cap
        states.append(node.cluster)
    values, order = search.context.values, tuple(states[0].config.replicas)
    index = {name: i for i, name in enumerate(order)}
    ctx = KeyContext(order, values)
    out = {"states": len(states)}

    def python_hash(cluster) -> int:
        lag, session, auto_commit = cluster.caps
        ctx.at(cluster.time.now, lag, session, auto_commit)
        return hash(tuple([r.key(ctx) for r in cluster.replicas]))

    if mode == "check":
        sizes = {"integers": 0, "tuples": 0}

        def count(item: tuple) -> None:
            sizes["tuples"] += 1
            for part in item:
                if isinstance(part, tuple):
                    count(part)
                else:
                    sizes["integers"] += 1

        differ = 0
        for cluster in states:
            differ += python_hash(cluster) != reader.replicas_hash(cluster, values, CODES, index, order)
            count(tuple([r.key(ctx) for r in cluster.replicas]))
        out.update(differ=differ, **sizes)
    for _ in range(READ_ROUNDS if mode in ("python", "c") else 0):
        for cluster in states:
            if mode == "c":
                reader.replicas_hash(cluster, values, CODES, index, order)
            else:
                python_hash(cluster)
    print(json.dumps(out))


def reading(scratch: Path) -> dict:
    """(4.) The reading half: the replicas' key of the states at ``READ_DEPTH``, hashed in
    Python and read and hashed by the C reader - equal on every state, or SystemExit -, and each
    one's instructions a state (Python's: its loop's run less the search's alone; C's: callgrind
    on ``replicas_hash`` alone)."""
    build_reader(scratch)
    checked = json.loads(in_tree(__file__, REPO, "--child-read", str(scratch), "check").splitlines()[-1])
    if checked["differ"]:
        raise SystemExit(f"the C reader's hash differs from Python's on {checked['differ']} of {checked['states']} "
                         "states: its struct layouts are not the engine's?")
    counts = {}
    for mode in ("none", "python", "c"):
        out = scratch / f"callgrind.read.{mode}"
        toggle = ("--toggle-collect=replicas_hash",) if mode == "c" else ()
        in_tree(__file__, REPO, "--child-read", str(scratch), mode, PYTHONHASHSEED="0",
                prefix=("valgrind", "--tool=callgrind", *toggle, f"--callgrind-out-file={out}"))
        counts[mode] = callgrind_total(out)
    calls = READ_ROUNDS * checked["states"]
    return {**checked, "python": (counts["python"] - counts["none"]) / calls, "c": counts["c"] / calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=7, help="the search's depth (default 7: levels 2 to 7)")
    parser.add_argument("--baseline-ref", metavar="REF",
                        help="also count the same search on git REF's tree (its own compiled engine): the ratios "
                             "over it")
    parser.add_argument("--child-record", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("--child-read", nargs=2, metavar=("DIR", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_record:
        record(args.depth, Path(args.child_record))
        return
    if args.child_read:
        read_child(Path(args.child_read[0]), args.child_read[1])
        return
    for tool in ("valgrind", "callgrind_annotate", os.environ.get("CC", "gcc")):
        if shutil.which(tool) is None:
            raise SystemExit(f"needs {tool} (apt-get install valgrind gcc)")
    with tempfile.TemporaryDirectory(prefix="hwlib-spike-") as name:
        scratch = Path(name)
        search = search_counts(args.depth, scratch)
        recorded = json.loads(in_tree(__file__, REPO, "--child-record", str(scratch), "--depth", str(args.depth),
                                      HWLIB_ENGINE="interpreted").splitlines()[-1])
        if recorded["generated"] != search["whole_generated"] or recorded["distinct"] != search["distinct"]:
            raise SystemExit(f"the interpreted search differs from the compiled one: {recorded} {search}")
        states, c_instructions = native_hash(scratch)
        read = reading(scratch)
        baseline = None
        if args.baseline_ref:
            with checkout(args.baseline_ref, compiled=True) as tree:
                old = search_counts(args.depth, scratch, tree)
            if old["generated"] != search["generated"]:
                raise SystemExit(f"{args.baseline_ref}'s search differs in size: {old['generated']:,} transitions")
            baseline = old["instructions"] / old["generated"]
    n, fingerprints = search["generated"], recorded["fingerprints"]
    per = search["instructions"] / n
    fp_share = search["fingerprint"] / n
    c_per_state = c_instructions / states
    c_share = c_per_state * fingerprints / recorded["generated"]
    ceiling = per - fp_share
    print(f"kip320 at 3 replicas under the TLA+ specification's faults, one process, levels 2 to {args.depth} "
          f"({n:,} transitions, {search['distinct']:,} distinct): instructions (valgrind's callgrind)")
    # the reading half's cost a token (an integer, or a tuple's two brackets), over a whole key
    tokens = (recorded["integers"] + 2 * recorded["tuples"]) / fingerprints
    read_tokens = (read["integers"] + 2 * read["tuples"]) / read["states"]
    native = read["c"] / read_tokens * tokens
    native_share = native * fingerprints / recorded["generated"]
    rows = [("the search today", per), ("without the fingerprint (the ceiling)", ceiling),
            ("with the C hash in its place", ceiling + c_share),
            ("with the C hash, reading costing as much again", ceiling + 2 * c_share),
            ("every part read and hashed at the reader's cost", ceiling + native_share)]
    if baseline is not None:
        rows.insert(0, (f"{args.baseline_ref}'s search", baseline))
    for label, cost in rows:
        ratios = [f"{per / cost:.2f}x fewer than today"] if cost < per else []
        if baseline is not None and cost < baseline:
            ratios.append(f"{baseline / cost:.2f}x fewer than {args.baseline_ref}")
        print(f"  {label:<48} {cost:>9,.0f} a transition" + (": " + ", ".join(ratios) if ratios else ""))
    print(f"  its fingerprint: {fp_share:,.0f} a transition ({fp_share / per:.0%}), "
          f"{search['fingerprint'] / n * recorded['generated'] / fingerprints:,.0f} a fingerprint "
          f"({fingerprints / recorded['generated']:.0%} of the transitions reach one)")
    print(f"  a key: {recorded['integers'] / fingerprints:.0f} integers in {recorded['tuples'] / fingerprints:.0f} "
          f"tuples; the C hash of its integers: {c_per_state:,.0f} a state (equal to Python's fingerprint "
          f"for all {states:,})")
    print(f"  the reader: the replicas' key of the {read['states']:,} states at depth {READ_DEPTH} (the whole state, "
          f"no reductions; {read['integers'] / read['states']:.0f} integers in {read['tuples'] / read['states']:.0f} "
          f"tuples) in Python {read['python']:,.0f} a state, read from the compiled objects and hashed in C "
          f"{read['c']:,.0f} (equal to Python's hash for all): {read['python'] / read['c']:.1f}x; at its "
          f"{read['c'] / read_tokens:.0f} a token (an integer or a tuple's two brackets; the hash alone "
          f"{c_per_state / tokens:.0f}), a whole key {native:,.0f} (the reductions' questions not counted)")


if __name__ == "__main__":
    main()
