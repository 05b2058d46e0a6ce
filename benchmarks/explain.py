"""hwlib explain's speed: one-partition excerpts, a multi-partition file, hostile input.

Each figure is printed beside plain reading of the same bytes, measured in the same run.

Workloads (printed, not asserted):

- **excerpts**: the logs the log writer makes of built-in scenarios and the four situations of
  ``tests/explain/test_explain.py`` under several releases (<= 50 lines, <= 3 replicas), each
  explained from its files, parsing included: verdict, lines, steps, seconds; the median and
  the worst against the targets (10 s median, 60 s worst on 2 cores).
- **real pastes**: every excerpt of ``tests/explain/real`` (copied out of public incident threads)
  explained as pasted: verdict (against the one its sidecar expects), lines, the share of lines
  naming a partition that were recognised, seconds; the median and the worst.
- **multi-partition**: one file per broker holding ``--partitions`` partitions' lines
  interleaved (about 1,000 lines), explained for one ``--partition``: seconds.
- **hostile**: a file of ``--mb`` MB of near-matching lines built to make a regular expression
  backtrack, one 10 MB line, invalid UTF-8 and binary data: read and recognised, MB/s, against
  Python reading the same bytes line by line (the baseline, same run), and the largest resident
  memory while reading (measured first, before any search).

    python benchmarks/explain.py [--time-limit 60] [--mb 100] [--partitions 77] [--quick] [--real-only]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

import hwlib
from hwlib import ClusterConfig
from hwlib.engine.steps import parse_steps
from hwlib.explain import ExplainSpec, Renaming, explain, read_records, recognise, write_logs

SCENARIOS = [("hw-update-two-records", "0.10.2"), ("data-loss", "0.10.2"), ("data-loss", "1.0.0"),
             ("hw-update-one-record", "3.7-kraft"), ("consumer-reprocess-after-crash", "2.8-zk"),
             ("kafka-6880-zombie-follower", "2.1.0"), ("fast-leader-failover", "2.0.1"), ("divergence", "0.11.0")]


def situations():
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.explain.test_explain import SITUATIONS

    for name, (release, replicas, settings, schedule, _) in SITUATIONS.items():
        yield name, ClusterConfig(replicas=replicas, release=release, **settings), parse_steps(schedule), release


def write(folder: Path, logs: dict[str, str]) -> tuple[str, ...]:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in logs.items():
        (folder / name).write_text(text)
    return tuple(str(folder / name) for name in sorted(logs))


def excerpts(root: Path, limit: float) -> list[float]:
    cases = [(name, c, s, r) for name, c, s, r in situations()]
    for name, release in SCENARIOS:
        scenario = hwlib.load_scenario(name)
        cases.append((f"{name}@{release}", scenario.config.replace(release=release, protocol=""), scenario.steps,
                      release))
    seconds = []
    print(f"{'excerpt':42} {'release':10} {'lines':>5} {'verdict':16} {'steps':>9} {'seconds':>8}")
    for name, config, steps, release in cases:
        logs = write_logs(config, steps, release)
        paths = write(root / name.replace("@", "-"), logs)
        lines = sum(text.count("\n") for text in logs.values())
        started = time.perf_counter()
        answer = explain(ExplainSpec(paths, time_limit=limit)).answers[0]
        took = time.perf_counter() - started
        seconds.append(took)
        print(f"{name:42} {release:10} {lines:>5} {answer.verdict:16} {len(answer.steps):>3} of {len(steps):>3} "
              f"{took:>8.1f}")
    print(f"median {statistics.median(seconds):.1f} s (target <= 10), worst {max(seconds):.1f} s (target <= 60)")
    return seconds


def real_pastes(limit: float) -> list[float]:
    """Every real excerpt explained as pasted (no --partition): its verdict against its sidecar's."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from hwlib.views.explain_out import run_dict
    from tests.explain.real_corpus import excerpts as real

    seconds = []
    named = recognised = agreed = 0
    cases = real()
    print(f"{'real paste':44} {'lines':>5} {'recognised':>10} {'verdict':16} {'expected':16} {'seconds':>8}")
    for case in cases:
        started = time.perf_counter()
        run = explain(ExplainSpec((str(case.log),), time_limit=limit))
        took = time.perf_counter() - started
        seconds.append(took)
        verdict = run_dict(run)["verdict"]
        agreed += verdict == case.verdict
        partitioned = [line for line in run.lines if line.partition is not None]
        named += len(partitioned)
        recognised += sum(1 for line in partitioned if line.status != "unrecognised")
        share = f"{sum(1 for line in partitioned if line.status != 'unrecognised')}/{len(partitioned)}"
        print(f"{case.id:44} {len(run.lines):>5} {share:>10} {verdict:16} {case.verdict:16} {took:>8.1f}")
    print(f"real pastes: {len(cases)}, verdict as expected {agreed}; lines naming a partition recognised "
          f"{recognised}/{named} ({recognised / max(named, 1):.1%}); median {statistics.median(seconds):.1f} s, "
          f"worst {max(seconds):.1f} s")
    return seconds


def multi_partition(root: Path, partitions: int, limit: float) -> float:
    scenario = hwlib.load_scenario("data-loss")
    config = scenario.config.replace(release="1.0.0", protocol="")
    files: dict[str, list[str]] = {}
    for number in range(partitions):
        logs = write_logs(config, scenario.steps, "1.0.0", Renaming(topic="orders", partition=number,
                                                                     start_ms=1_700_000_000_000 + number))
        for name, text in logs.items():
            files.setdefault(name, []).extend(text.splitlines())
    for name in files:
        files[name].sort(key=lambda line: line[:25])
    paths = write(root / "multi", {name: "\n".join(lines) + "\n" for name, lines in files.items()})
    total = sum(len(lines) for lines in files.values())
    started = time.perf_counter()
    answer = explain(ExplainSpec(paths, partition="orders-7", time_limit=limit)).answers[0]
    took = time.perf_counter() - started
    print(f"multi-partition: {total:,} lines over {partitions} partitions, orders-7 {answer.verdict} in "
          f"{took:.1f} s (target <= 60)")
    return took


def hostile(root: Path, mb: int) -> None:
    bait = ("[2020-01-01 00:00:00,000] INFO [Log partition=" + "a-" * 60 + ", dir=" + "[" * 40
            + "] Truncating to offset " + "9" * 60 + "x (kafka.log.Log)\n")
    path = root / "hostile.log"
    with path.open("w", encoding="utf-8") as out:
        written = 0
        while written < mb * (1 << 20):
            out.write(bait)
            written += len(bait)
    with path.open("ab") as out:
        out.write(b"y" * (10 << 20) + b"\n" + b"\xff\xfe\xc3\x28 bad\n" + b"\x00\x01\x02\x03\x04\x05 binary\n")
    size = path.stat().st_size / (1 << 20)
    started = time.perf_counter()
    with path.open("rb") as stream:
        for _ in stream:
            pass
    plain = time.perf_counter() - started
    started = time.perf_counter()
    statuses: dict[str, int] = {}
    for record in read_records(path):
        status = recognise(record).status
        statuses[status] = statuses.get(status, 0) + 1
    took = time.perf_counter() - started
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"hostile: {size:,.0f} MB read and recognised in {took:.1f} s ({size / took:,.1f} MB/s; plain line "
          f"reading {size / plain:,.0f} MB/s, {took / plain:,.0f}x); statuses {statuses}; largest resident memory "
          f"{rss:,.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--partitions", type=int, default=77,
                        help="partitions in the multi-partition file (77: about 1,000 lines)")
    parser.add_argument("--quick", action="store_true", help="the four situations only, 20 MB of hostile input")
    parser.add_argument("--real-only", action="store_true", help="the real pastes only")
    args = parser.parse_args()
    print(f"hwlib {hwlib.__version__}, {hwlib.ENGINE}")
    if args.real_only:
        real_pastes(args.time_limit)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.quick:
            SCENARIOS.clear()
        hostile(root, 20 if args.quick else args.mb)          # first: its memory is the reading's alone
        excerpts(root, args.time_limit)
        real_pastes(args.time_limit)
        multi_partition(root, args.partitions, args.time_limit)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"largest resident memory of the whole run (the searches' nodes): {rss:,.0f} MB")


if __name__ == "__main__":
    main()
