"""``hwlib check``: exhaustive bounded model checking - per rule set its verdicts, shortest counterexamples (or JSON).

With ``--sweep DIR`` each verdict is reconciled with a finished sweep's runs as the report does
(``report.model_check.check_against_sweep``); with ``--fail-on-violation`` the exit status is 1
when anything is violated.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..engine.config import PROTOCOLS
from . import options

if TYPE_CHECKING:
    from ..check import CheckSpec


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..model.vocabulary import (
        DEFAULT_FAULTS,
        DEFAULT_KINDS,
        DEFAULT_MAX_EPOCH,
        DEFAULT_MAX_RECORDS,
        DEFAULT_MIN_INSYNC_REPLICAS,
        DEFAULT_REPLICAS,
        FAULTS,
        TLA_FAULTS,
    )
    from ..util.cores import cores

    parser.add_argument("--spec", metavar="NAME|FILE",
                        help="take the rules, bounds, faults and kinds from this check spec (a built-in name - "
                             "kip966-elr: KIP-966 at the fault budget of Vanlightly's TLC run - or a YAML file); "
                             "an option given here wins over the spec's")
    rules = parser.add_mutually_exclusive_group()
    rules.add_argument("--protocol", type=lambda v: v if v == "all" else options.protocol(v),
                       help=f"one of {', '.join(PROTOCOLS)}, or all (default)")
    rules.add_argument("--release", type=options.releases,
                       help="Apache Kafka releases instead, comma-separated, e.g. 2.0.1,3.7-kraft "
                            "(hwlib releases)")
    parser.add_argument("--replicas", type=int, help=f"replicas (default {DEFAULT_REPLICAS})")
    parser.add_argument("--max-records", type=int, help=f"produces at most (default {DEFAULT_MAX_RECORDS})")
    parser.add_argument("--max-epoch", type=int, help=f"leader epoch at most (default {DEFAULT_MAX_EPOCH})")
    parser.add_argument("--max-queued", type=int, metavar="N",
                        help="partition changes waiting for a broker cut off from the controller, at most (default: no "
                             "bound; kip966 at 3 replicas needs one, an ISR shrink there keeps the leader epoch)")
    parser.add_argument("--fault-budget", metavar="FAULT=N,...",
                        help="each of these faults at most N times, e.g. power_loss=1,isolate=1 (a TLA+ "
                             "specification's fault counters; default: no budget, the other bounds end the search)")
    parser.add_argument("--max-alter-partitions", type=int, metavar="N",
                        help="ISR changes the leaders send, at most (AlterPartition; AlterIsr; the ZooKeeper ISR "
                             "write before 2.7); states past it are cut (default: no bound)")
    parser.add_argument("--max-ticks", type=int,
                        help="tick steps at most when the faults let time pass (default: 1 then, else 0)")
    parser.add_argument("--tick-ms", type=int,
                        help="time one tick passes (default: replica_lag_time_max_ms + the ISR check's period + 1 - "
                             "1.5 x the lag + 1, 2 x up to 0.10.1)")
    parser.add_argument("--depth", type=int, help="steps at most (default: until the search is complete)")
    faults = parser.add_mutually_exclusive_group()
    faults.add_argument("--faults", help=f"what may happen besides produces and fetches, comma-separated "
                                         f"(default: {', '.join(DEFAULT_FAULTS)}); any of: " + ", ".join(FAULTS)
                                         + f"; the TLA+ specification's set is {', '.join(TLA_FAULTS)}")
    faults.add_argument("--profile", help="take the faults from this fault profile (a built-in name or a YAML "
                                          "file): every step it can draw (instead of --faults)")
    parser.add_argument("--coverage-runs", type=int, metavar="N",
                        help="with --profile: replay N of the profile's random runs (seeded as a sweep draws them) and "
                             "say what share of the reachable states they visit, where the search completes")
    parser.add_argument("--kinds",
                        help=f"anomaly kinds to look for, comma-separated (default: {', '.join(DEFAULT_KINDS)})")
    parser.add_argument("--max-states", type=int,
                        help="stop after the level at which this many distinct states are known (not complete then)")
    parser.add_argument("--acks", help="producer acks (default: each release's - 1 up to 2.8, all from 3.0 (KIP-679); "
                        "all for a generation)")
    parser.add_argument("--min-insync-replicas", type=int,
                        help=f"(default {DEFAULT_MIN_INSYNC_REPLICAS})")
    parser.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                        help="any other setting, Kafka's name or hwlib's (e.g. eligible.leader.replicas.version=0 - "
                             "a cluster upgraded to 4.1 -, replica.lag.time.max.ms=10000); kept under every "
                             "release; repeatable")
    parser.add_argument("--unclean-leader-election", action="store_true")
    parser.add_argument("--exhaustive", action="store_true", help="go on after every kind was found (state counts)")
    parser.add_argument("--matrix", action="store_true",
                        help="every generation x every anomaly kind, exhaustively: the verdict matrix")
    parser.add_argument("--out", help="write the shortest counterexamples (scenarios) and the matrix there; "
                                      "the search checkpoints there as it goes")
    parser.add_argument("--resume", action="store_true",
                        help="go on from the checkpoints in --out (a check that was killed) instead of starting over")
    parser.add_argument("--checkpoint-every", type=float, default=10.0, metavar="SECONDS",
                        help="with --out: save the search after a level at most this often (default %(default)s)")
    parser.add_argument("--workers", type=int, default=cores(),
                        help="processes that share a large frontier (default: the machine's cores, %(default)s)")
    parser.add_argument("--memory", type=float, metavar="GIB",
                        help="memory the search's processes may hold resident together (default: half the "
                             "machine's); beyond it a state is kept as its schedule and replayed when expanded - "
                             "the same result, slower. The visited set and the frontier's schedules are kept whatever "
                             "it is")
    parser.add_argument("--master", help="run the levels of a large search on this Spark master, e.g. "
                                         "spark://host:7077 or local[4] (instead of --workers; same results)")
    parser.add_argument("--sweep", metavar="DIR",
                        help="reconcile each verdict with this finished sweep's runs, as the report does: a \"holds\" "
                             "its runs contradict says what the bounds lack")
    parser.add_argument("--fail-on-violation", action="store_true",
                        help="exit 1 when any kind is violated in any generation (for CI); 0 otherwise")
    parser.add_argument("--json", action="store_true", help="one JSON object per generation")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def to_spec(args: argparse.Namespace) -> CheckSpec:
    """``hwlib check``'s options as a ``CheckSpec`` (which validates them: one line each), over
    a ``--spec`` file's where one is given."""
    from ..anomalies import KINDS
    from ..check import (
        DEFAULT_FAULTS,
        DEFAULT_KINDS,
        DEFAULT_MIN_INSYNC_REPLICAS,
        Bounds,
        CheckSpec,
        parse_faults,
        parse_kinds,
    )
    from ..engine.config import ClusterConfig
    from ..errors import ConfigError
    from ..model.vocabulary import DEFAULT_MAX_EPOCH, DEFAULT_MAX_RECORDS, DEFAULT_REPLICAS, parse_budget

    written: dict[str, Any] = {}
    if args.spec is not None:
        from ..check.spec_files import load_check_spec

        written = load_check_spec(args.spec)

    def given(name: str, default: Any = None) -> Any:
        """The option as given on the command line, else the spec file's, else ``default``."""
        value = getattr(args, name)
        return value if value is not None else written.get(name, default)

    profile = None
    if args.profile is not None:
        from ..profiles import load_profile

        profile = load_profile(args.profile)
    bounds = Bounds(replicas=given("replicas", DEFAULT_REPLICAS),
                    max_records=given("max_records", DEFAULT_MAX_RECORDS),
                    max_epoch=given("max_epoch", DEFAULT_MAX_EPOCH), max_ticks=given("max_ticks", 0),
                    depth=given("depth"), tick_ms=args.tick_ms, max_states=args.max_states,
                    max_queued=given("max_queued"), fault_budget=parse_budget(given("fault_budget", ())),
                    max_alter_partitions=given("max_alter_partitions"))
    kinds = KINDS if args.matrix else parse_kinds(given("kinds", DEFAULT_KINDS))
    if args.release is not None or args.protocol is not None:
        release, protocol = args.release, args.protocol
    else:
        release, protocol = written.get("release"), written.get("protocol", "all")
    if release is not None:
        protocols = tuple(options.releases(release) if isinstance(release, str) else release)
    else:
        protocols = tuple(PROTOCOLS) if protocol == "all" or args.matrix else (protocol,)
    # the spec file's settings, then the command line's: a setting written there wins
    settings: dict[str, Any] = options.settings([f"{k}={v}" for k, v in written.get("config", {}).items()])
    settings.update({name: written[name] for name in ("acks", "min_insync_replicas") if name in written})
    typed = options.settings(args.config)
    for name in ("acks", "min_insync_replicas"):
        option = getattr(args, name)
        if option is not None and name in typed:
            raise ConfigError(f"config.{name}: given twice (--{name.replace('_', '-')} and --config); give one")
        if option is not None:
            typed[name] = option
    settings.update(typed)
    settings.setdefault("min_insync_replicas", DEFAULT_MIN_INSYNC_REPLICAS)
    unclean = settings.pop("unclean_leader_election", None)
    if args.unclean_leader_election:
        unclean = True
    first = {"protocol" if protocols[0] in PROTOCOLS else "release": protocols[0]}   # the settings checked under it
    # a fault profile given here stands for the faults too: it wins over the spec file's
    faults = args.faults if args.faults is not None or args.profile is not None else written.get("faults")
    return CheckSpec(protocols=protocols, bounds=bounds,
                     config=ClusterConfig(replicas=bounds.replica_ids, **first, **settings),
                     unclean_leader_election=unclean,
                     faults=parse_faults(faults) if faults is not None else DEFAULT_FAULTS,
                     profile=profile, kinds=kinds,
                     exhaustive=args.exhaustive or args.matrix, coverage_runs=args.coverage_runs,
                     workers=args.workers, memory=args.memory, out=args.out, resume=args.resume,
                     checkpoint_every=args.checkpoint_every)


def handle(args: argparse.Namespace) -> int:
    from ..report.model_check import check_against_sweep
    from ..views.text import check_json, check_text
    from .check_progress import CheckProgress

    spec = to_spec(args)         # every option checked here, before anything runs or is written
    if args.master is not None:
        from ..util.extras import require

        require("spark", "hwlib check --master")
        from ..sweep.spark import check_master

        check_master(args.master, "master")     # before anything is written or a JVM starts
    levels = None if args.quiet or args.json else CheckProgress(spec.bounds.depth)
    try:
        answer = check_against_sweep(spec, args.sweep, "sweep", levels, args.master)
    finally:
        if levels is not None:
            levels.close()
    if args.json:
        print(check_json(answer.results, spec.kinds, answer.verdicts, list(answer.untried), args.sweep is not None))
    else:
        print(check_text(answer.results, spec.kinds, answer.verdicts, answer.note, answer.run.scenarios,
                         spec.coverage_runs is not None, args.matrix, answer.reconciled))
    return 1 if answer.violated and args.fail_on_violation else 0
