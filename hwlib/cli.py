"""Command line: hwlib run, scenarios, protocols, releases, notebooks, compare, shrink, sweep, profiles, report, check,
explain.

Bad input prints one line naming the field and what is allowed, and exits 2."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

from .anomalies.checker import SAFETY
from .engine.config import PROTOCOLS
from .errors import HwlibError
from .scenario import builtin_scenarios, load_scenario, run_scenario, scenario_table
from .util.extras import MissingExtraError, require
from .util.progress import progress


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(2, f"hwlib: error: {message}\n")


class _Version(argparse.Action):
    """``--version``: one unwrapped line, e.g. ``hwlib 0.2.0, compiled engine (mypyc, ...)``."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .compiled import ENGINE
        from .version import __version__

        print(f"hwlib {__version__}, {ENGINE}")
        parser.exit(0)


def _protocol(value: str) -> str:
    if value not in PROTOCOLS:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not known; allowed: {', '.join(PROTOCOLS)}")
    return value


def _protocols(value: str) -> list[str]:
    from .util.names import parse_names

    return parse_names(value, "", PROTOCOLS, "a generation", argparse.ArgumentTypeError)  # argparse names the option


def _release(value: str) -> str:
    from .engine.releases import release

    try:
        release(value)
    except HwlibError as exc:
        raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[1]) from None
    return value.strip().lower()


def _releases(value: str) -> list[str]:
    return [_release(v) for v in value.split(",") if v.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hwlib", description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--version", action=_Version, help="print the version and which engine runs")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = sub.add_parser("run", help="run a scenario and report the final state and anomalies")
    run.add_argument("scenario", help="a built-in scenario name or a YAML file")
    rules = run.add_mutually_exclusive_group()
    rules.add_argument("--protocol", type=_protocol, help=f"a generation's rules: {', '.join(PROTOCOLS)}")
    rules.add_argument("--release", type=_release, help="an Apache Kafka release's rules, VERSION[-zk|-kraft]: "
                                                        "1.0.0, 2.0.1, 3.6-zk, 3.7.1-kraft, 4.1 (hwlib releases)")
    run.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                     help="a setting instead of the file's or the release's default, Kafka's name or hwlib's "
                          "(e.g. eligible.leader.replicas.version=0, acks=1); repeatable")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    scen = sub.add_parser("scenarios", help="list the built-in scenarios")
    scen.add_argument("--markdown", action="store_true",
                      help="print docs/scenarios.md's table: summary and expected anomalies per generation")
    sub.add_parser("protocols", help="the protocol generations, what each changed and the releases on each")
    nbs = sub.add_parser("notebooks", help="copy hwlib's notebooks (explorer, anomaly gallery, model check, report) "
                                           "into a folder to open in JupyterLab")
    nbs.add_argument("--to", default="notebooks", help="the folder (default: %(default)s); an existing notebook is "
                                                       "never replaced")
    rel = sub.add_parser("releases", help="every Apache Kafka release 0.9 - 4.1 (ZooKeeper, KRaft): its rule set, "
                                          "flags and where they were read")
    rel.add_argument("--json", action="store_true", help="one JSON object per release")
    shr = sub.add_parser("shrink", help="shrink a scenario to a minimal one that still shows an anomaly")
    shr.add_argument("scenario", help="a built-in scenario name or a YAML file")
    shr.add_argument("--kind", required=True, help="the anomaly kind to keep, e.g. lost-write")
    shr_rules = shr.add_mutually_exclusive_group()
    shr_rules.add_argument("--protocol", type=_protocol, help=f"a generation's rules: {', '.join(PROTOCOLS)}")
    shr_rules.add_argument("--release", type=_release, help="an Apache Kafka release's rules (hwlib releases)")
    shr.add_argument("--out", required=True, help="where to write the shrunk scenario (YAML)")
    cmp_ = sub.add_parser("compare", help="run scenarios under every protocol, side by side")
    cmp_.add_argument("scenarios", nargs="*", help="names or files (default: every built-in)")
    cmp_.add_argument("--out", help="also write OUT.txt (the table) and OUT.png (HW over steps); without it, "
                                    "only the table is printed")
    cmp_rules = cmp_.add_mutually_exclusive_group()
    cmp_rules.add_argument("--protocols", type=_protocols, default=list(PROTOCOLS),
                           help="comma-separated generations (default: all)")
    cmp_rules.add_argument("--releases", type=_releases,
                           help="comma-separated Apache Kafka releases instead, e.g. 2.0.0,2.0.1,3.7-kraft")
    swp = sub.add_parser("sweep", help="fault-injection sweep on Spark: runs, summary, shrunk counterexamples")
    swp.add_argument("spec", help="a sweep spec YAML file or a built-in spec name (data/specs)")
    swp.add_argument("--out", help="output directory (default: data/sweeps/<spec name>)")
    swp.add_argument("--runs", type=_positive, help="runs per cell (overrides the spec)")
    swp.add_argument("--master", help="Spark master URL (default: $HWLIB_SPARK_MASTER or local[*])")
    swp.add_argument("--resume", action="store_true", help="continue a sweep in --out, skipping finished chunks")
    swp.add_argument("--overwrite", action="store_true", help="replace a sweep already in --out")
    swp.add_argument("--check-determinism", type=_positive, default=0, metavar="N",
                     help="re-run N sampled runs here and compare them with the stored rows")
    swp.add_argument("--no-shrink", action="store_true", help="do not shrink failing cells")
    swp.add_argument("--quiet", action="store_true", help="no progress bar")
    sub.add_parser("profiles", help="the built-in fault profiles and the actions they mix")
    from .model.vocabulary import (
        DEFAULT_FAULTS,
        DEFAULT_KINDS,
        DEFAULT_MAX_EPOCH,
        DEFAULT_MAX_RECORDS,
        DEFAULT_MIN_INSYNC_REPLICAS,
        DEFAULT_REPLICAS,
        FAULTS,
        TLA_FAULTS,
    )
    from .util.cores import cores

    chk = sub.add_parser("check", help="exhaustive bounded model checking: verdicts, shortest counterexamples")
    chk_rules = chk.add_mutually_exclusive_group()
    chk_rules.add_argument("--protocol", default="all", type=lambda v: v if v == "all" else _protocol(v),
                           help=f"one of {', '.join(PROTOCOLS)}, or all (default)")
    chk_rules.add_argument("--release", type=_releases,
                           help="Apache Kafka releases instead, comma-separated, e.g. 2.0.1,3.7-kraft (hwlib releases)")
    chk.add_argument("--replicas", type=int, default=DEFAULT_REPLICAS, help="replicas (default %(default)s)")
    chk.add_argument("--max-records", type=int, default=DEFAULT_MAX_RECORDS,
                     help="produces at most (default %(default)s)")
    chk.add_argument("--max-epoch", type=int, default=DEFAULT_MAX_EPOCH,
                     help="leader epoch at most (default %(default)s)")
    chk.add_argument("--max-queued", type=int, metavar="N",
                     help="partition changes waiting for a broker cut off from the controller, at most (default: no "
                          "bound; kip966 at 3 replicas needs one, an ISR shrink there keeps the leader epoch)")
    chk.add_argument("--max-ticks", type=int, default=0,
                     help="tick steps at most when the faults let time pass (default: 1 then, else 0)")
    chk.add_argument("--tick-ms", type=int,
                     help="time one tick passes (default: replica_lag_time_max_ms + the ISR check's period + 1 - "
                          "1.5 x the lag + 1, 2 x up to 0.10.1)")
    chk.add_argument("--depth", type=int, help="steps at most (default: until the search is complete)")
    chk_faults = chk.add_mutually_exclusive_group()
    chk_faults.add_argument("--faults", help=f"what may happen besides produces and fetches, comma-separated "
                                             f"(default: {', '.join(DEFAULT_FAULTS)}); any of: " + ", ".join(FAULTS)
                                             + f"; the TLA+ specification's set is {', '.join(TLA_FAULTS)}")
    chk_faults.add_argument("--profile", help="take the faults from this fault profile (a built-in name or a YAML "
                                              "file): every step it can draw (instead of --faults)")
    chk.add_argument("--coverage-runs", type=int, metavar="N",
                     help="with --profile: replay N of the profile's random runs (seeded as a sweep draws them) and "
                          "say what share of the reachable states they visit, where the search completes")
    chk.add_argument("--kinds",
                     help=f"anomaly kinds to look for, comma-separated (default: {', '.join(DEFAULT_KINDS)})")
    chk.add_argument("--max-states", type=int,
                     help="stop after the level at which this many distinct states are known (not complete then)")
    chk.add_argument("--acks", help="producer acks (default: each release's - 1 up to 2.8, all from 3.0 (KIP-679); "
                     "all for a generation)")
    chk.add_argument("--min-insync-replicas", type=int,
                     help=f"(default {DEFAULT_MIN_INSYNC_REPLICAS})")
    chk.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                     help="any other setting, Kafka's name or hwlib's (e.g. eligible.leader.replicas.version=0 - "
                          "a cluster upgraded to 4.1 -, replica.lag.time.max.ms=10000); kept under every "
                          "release; repeatable")
    chk.add_argument("--unclean-leader-election", action="store_true")
    chk.add_argument("--exhaustive", action="store_true", help="go on after every kind was found (state counts)")
    chk.add_argument("--matrix", action="store_true",
                     help="every generation x every anomaly kind, exhaustively: the verdict matrix")
    chk.add_argument("--out", help="write the shortest counterexamples (scenarios) and the matrix there; "
                                   "the search checkpoints there as it goes")
    chk.add_argument("--resume", action="store_true",
                     help="go on from the checkpoints in --out (a check that was killed) instead of starting over")
    chk.add_argument("--checkpoint-every", type=float, default=10.0, metavar="SECONDS",
                     help="with --out: save the search after a level at most this often (default %(default)s)")
    chk.add_argument("--workers", type=int, default=cores(),
                     help="processes that share a large frontier (default: the machine's cores, %(default)s)")
    chk.add_argument("--memory", type=float, metavar="GIB",
                     help="memory the search's processes may hold resident together (default: half the "
                          "machine's); beyond it a state is kept as its schedule and replayed when expanded - the "
                          "same result, slower. The visited set and the frontier's schedules are kept whatever it is")
    chk.add_argument("--master", help="run the levels of a large search on this Spark master, e.g. "
                                      "spark://host:7077 or local[4] (instead of --workers; same results)")
    chk.add_argument("--sweep", metavar="DIR",
                     help="reconcile each verdict with this finished sweep's runs, as the report does: a \"holds\" "
                          "its runs contradict says what the bounds lack")
    chk.add_argument("--fail-on-violation", action="store_true",
                     help="exit 1 when any kind is violated in any generation (for CI); 0 otherwise")
    chk.add_argument("--json", action="store_true", help="one JSON object per generation")
    chk.add_argument("--quiet", action="store_true", help="no progress on stderr")
    exp = sub.add_parser("explain", help="explain an incident's broker logs: the shortest schedule of the model that "
                                         "gives every line, or the line it cannot")
    exp.add_argument("logs", nargs="*", metavar="LOG", help="server.log, state-change.log, controller.log excerpts, "
                                                           "as pasted (any layout, prefixes, CSV or JSON exports); "
                                                           "a glob pattern; - reads standard input (a paste)")
    exp.add_argument("--partition", metavar="TOPIC-N", help="the partition to explain (default: every one named)")
    exp_rules = exp.add_mutually_exclusive_group()
    exp_rules.add_argument("--release", type=_release, help="the release the brokers ran, VERSION[-zk|-kraft] "
                                                            "(default: inferred from the lines' texts)")
    exp_rules.add_argument("--protocol", type=_protocol, help=f"a generation's rules: {', '.join(PROTOCOLS)}")
    exp.add_argument("--observations", action="append", default=[], metavar="FILE.yaml",
                     help="facts stated in hwlib's vocabulary (kinds as --emit-observations writes them), read "
                          "beside the logs; repeatable")
    exp.add_argument("--emit-observations", metavar="FILE.yaml",
                     help="write what the lines were understood to say, in the form --observations reads")
    exp.add_argument("--broker", action="append", default=[], metavar="FILE=ID",
                     help="the broker that wrote a file, where its lines do not say; repeatable")
    exp.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                     help="a setting the logs cannot show, fixed instead of searched: acks, min.insync.replicas, "
                          "unclean.leader.election.enable; repeatable")
    exp.add_argument("--max-records", type=_positive, default=None,
                     help="records the model produces, at most (default: the lines' distinct offsets + 2, at least 3)")
    exp.add_argument("--max-epoch", type=_positive, default=None,
                     help="the leader epoch's bound (default: the lines' distinct epochs + 2, at least 4)")
    exp.add_argument("--max-silent", type=int, default=6, help="steps no line shows, in a row, at most (6)")
    exp.add_argument("--depth", type=_positive, default=30, help="steps in an explanation, at most (30)")
    exp.add_argument("--time-limit", type=float, default=60.0, metavar="S", help="seconds to search, at most (60)")
    exp.add_argument("--replicas", type=int, help="replicas in the model, 1 to 5 (default: the brokers the lines "
                     "name, at least 2; one broker named with an ISR of it alone: 1 first)")
    exp.add_argument("--skew", type=float, default=0.0, metavar="MS",
                     help="lines of different files stamped less than this apart may come in either order (0)")
    exp.add_argument("--out", metavar="DIR", help="write answer.json and explanation.yaml (or prefix.yaml) here")
    exp.add_argument("--html", metavar="FILE", help="write the answer as an offline page: the lines beside the "
                                                    "explanation's stepper")
    exp.add_argument("--json", action="store_true", help="print one JSON object")
    exp.add_argument("--quiet", action="store_true", help="no progress on stderr")
    rpt = sub.add_parser("report", help="run the fault-sweep report notebook and render it to offline HTML")
    rpt.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                     help="a notebook parameter (value read as YAML), e.g. runs=100; repeatable")
    rpt.add_argument("--sweep", help="a finished sweep directory to report on instead of running one")
    rpt.add_argument("--out", default="reports/fault-sweep.html", help="the HTML to write (default %(default)s)")
    rpt.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value!r}")
    return number


class _CheckProgress:
    """``hwlib check``'s progress on stderr: per generation, the levels searched, the states they
    hold and how the search grows (``check.growth``) - a tqdm bar on a terminal, a line every few
    seconds elsewhere (CI logs) - and once, where the rest looks long, the estimate and how to
    bound it."""

    def __init__(self, depth_bound: int | None, mode: bool | str = True) -> None:
        self.mode, self.bar, self.depth_bound = mode, None, depth_bound

    def __call__(self, protocol: str):
        from .check.growth import Growth

        self.close()
        bar = self.bar = progress(None, protocol, "level", self.mode)
        growth, started = Growth(self.depth_bound), time.perf_counter()
        warned: list[str] = []

        def show(depth: int, distinct: int, generated: int) -> None:
            growth.add(depth, distinct, time.perf_counter() - started)
            bar.update(1)
            bar.note(f"depth {depth}, {distinct:,} distinct states, {generated:,} generated; {growth.words()}")
            warning = None if warned else growth.warning()
            if warning is not None:
                warned.append(warning)
                print(f"hwlib check: {protocol}: {warning}", file=sys.stderr, flush=True)

        return show

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _check(args) -> int:
    """``hwlib check``: per generation its verdicts and each shortest counterexample's steps (or
    JSON), files with --out; with --fail-on-violation exit 1 when anything is violated."""
    from .check import cell_verdict, open_directory, run
    from .model.vocabulary import untried, untried_note
    from .sweep import load_spec
    from .views.text import check_json, check_text

    spec = _check_spec(args)     # every option checked here, before anything runs or is written
    swept = None
    if args.sweep is not None:                 # read before the search: a bad directory is one line
        require("report", "hwlib check --sweep")
        from .report.model_check import load_sweep, witness_profiles

        swept = load_sweep(args.sweep, "sweep")
        witnesses = witness_profiles(swept[0], spec.faults, "sweep")
    spark = None
    if args.master is not None:
        require("spark", "hwlib check --master")
        from .sweep.spark import check_master

        check_master(args.master, "master")     # before anything is written or a JVM starts
    directory = open_directory(spec)           # a bad --out fails before the search, nothing written
    levels = None if args.quiet or args.json else _CheckProgress(spec.bounds.depth)
    if args.master is not None:
        from .sweep.spark import start_session

        spark = start_session(args.master, app_name="hwlib-check")
    done = run(spec, levels, spark, directory)
    if levels is not None:
        levels.close()
    results, kinds, faults, files = done.results, spec.kinds, spec.faults, done.scenarios
    shown = {(r.protocol, kind): cell_verdict(r, kind) for r in results for kind in kinds}
    if swept is not None:
        from .report.model_check import sweep_check

        reconciled = sweep_check(*swept, witnesses, faults, results, kinds)
        shown = {key: reconciled.verdict(*key) for key in shown}
    # a "holds" says which fault classes of the default report it did not try
    reported = load_spec("default").profiles()
    note, not_tried = untried_note(faults, reported), list(untried(faults, reported))
    if args.json:
        print(check_json(results, kinds, shown, not_tried, swept is not None))
    else:
        with_sweep = (f"reconciled with the sweep in {args.sweep} (profiles {', '.join(witnesses)})"
                      if swept is not None else "")
        print(check_text(results, kinds, shown, note, files, spec.coverage_runs is not None, args.matrix,
                         with_sweep))
    violated = any(kind in r.violations for r in results for kind in kinds if kind in SAFETY)
    return 1 if violated and args.fail_on_violation else 0


def _check_spec(args):
    """``hwlib check``'s options as a ``CheckSpec`` (which validates them: one line each)."""
    from .anomalies import KINDS
    from .check import (
        DEFAULT_FAULTS,
        DEFAULT_KINDS,
        DEFAULT_MIN_INSYNC_REPLICAS,
        Bounds,
        CheckSpec,
        parse_faults,
        parse_kinds,
    )
    from .engine.config import ClusterConfig
    from .errors import ConfigError

    profile = None
    if args.profile is not None:
        from .profiles import load_profile

        profile = load_profile(args.profile)
    bounds = Bounds(replicas=args.replicas, max_records=args.max_records, max_epoch=args.max_epoch,
                    max_ticks=args.max_ticks, depth=args.depth, tick_ms=args.tick_ms, max_states=args.max_states,
                    max_queued=args.max_queued)
    kinds = KINDS if args.matrix else parse_kinds(args.kinds) if args.kinds is not None else DEFAULT_KINDS
    if args.release is not None:
        protocols = tuple(args.release)
    else:
        protocols = tuple(PROTOCOLS) if args.protocol == "all" or args.matrix else (args.protocol,)
    settings = dict(ClusterConfig.setting_from_text(item, "config") for item in args.config)
    for name, option in (("acks", args.acks), ("min_insync_replicas", args.min_insync_replicas)):
        if option is not None and name in settings:
            raise ConfigError(f"config.{name}: given twice (--{name.replace('_', '-')} and --config); give one")
    if args.acks is not None:
        settings["acks"] = args.acks
    settings.setdefault("min_insync_replicas", DEFAULT_MIN_INSYNC_REPLICAS if args.min_insync_replicas is None
                        else args.min_insync_replicas)
    unclean = settings.pop("unclean_leader_election", None)
    if args.unclean_leader_election:
        unclean = True
    first = {"protocol" if protocols[0] in PROTOCOLS else "release": protocols[0]}   # the settings checked under it
    return CheckSpec(protocols=protocols, bounds=bounds,
                     config=ClusterConfig(replicas=bounds.replica_ids, **first, **settings),
                     unclean_leader_election=unclean,
                     faults=parse_faults(args.faults) if args.faults is not None else DEFAULT_FAULTS,
                     profile=profile, kinds=kinds,
                     exhaustive=args.exhaustive or args.matrix, coverage_runs=args.coverage_runs,
                     workers=args.workers, memory=args.memory, out=args.out, resume=args.resume,
                     checkpoint_every=args.checkpoint_every)


def _run(args) -> int:
    """``hwlib run``: the scenario's steps, states and anomalies (or one JSON object)."""
    from .engine.config import ClusterConfig

    settings = dict(ClusterConfig.setting_from_text(item, "config") for item in args.config)
    result = run_scenario(load_scenario(args.scenario), protocol=args.protocol, release=args.release,
                          settings=settings)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        from .views.text import run_text

        print(run_text(result))
    return 0


def _notebooks(args) -> int:
    """``hwlib notebooks``: the package's notebooks copied into ``--to`` (an installed hwlib has
    them inside the package only). A notebook already there is left as it is: the same file is
    skipped, another one with its name stops the copy before anything is written."""
    import shutil

    from .util.files import OutputError, atomic_path, check_directory
    from .util.paths import builtin_files, shown

    target = check_directory(args.to, "to")
    sources = builtin_files("notebooks")
    todo = []
    for source in sources.values():
        copy = target / source.name
        if not copy.exists():
            todo.append((source, copy))
        elif not copy.is_file() or copy.read_bytes() != source.read_bytes():
            raise OutputError(f"to: {shown(copy)} exists and is not hwlib's {source.name} (your own work is never "
                              "replaced); give another folder with --to")
    target.mkdir(parents=True, exist_ok=True)
    for source, copy in todo:
        with atomic_path(copy) as tmp:
            shutil.copyfile(source, tmp)
    kept = len(sources) - len(todo)
    print(f"{len(todo)} notebooks copied into {shown(target)}" + (f" ({kept} already there)" if kept else ""))
    if importlib.util.find_spec("jupyterlab") is not None:
        print(f"open them with: jupyter lab {shown(target)}")
    else:
        print(f"JupyterLab is not installed here: pip install 'hwlib[lab]' (make setup installs it), then "
              f"jupyter lab {shown(target)}")
    return 0


def _scenarios(args) -> int:
    """``hwlib scenarios``: each built-in scenario, its summary and expected anomalies."""
    if args.markdown:
        print(scenario_table())
        return 0
    from .views.text import scenarios_text

    print(scenarios_text({name: load_scenario(path) for name, path in builtin_scenarios().items()}))
    return 0


def _shrink(args) -> int:
    """``hwlib shrink``: a minimal scenario that still shows the anomaly, written to --out."""
    from .shrink import shrink_scenario
    from .util.files import check_writable

    check_writable(args.out)
    scenario = load_scenario(args.scenario)
    if args.release is not None:
        scenario = scenario.with_release(args.release)
    shrunk, result = shrink_scenario(scenario, args.kind, args.protocol)
    path = shrunk.save(args.out)
    print(f"shrank {result.before} -> {len(shrunk.steps)} steps in {result.runs} runs; "
          f"wrote {path}; `hwlib run {path}` shows {args.kind}")
    return 0


def _generations(args) -> int:
    """``hwlib protocols``: the generations in release order, what each changed and the
    releases whose rules come from each."""
    from .engine.releases import generations_rows
    from .views.text import generations_text

    print(generations_text(generations_rows()))
    return 0


def _releases_table(args) -> int:
    """``hwlib releases``: each release and mode, the generation its rules come from, the flags
    that differ from that generation's own rules, and the sources."""
    from .engine.releases import FLAG_BY_ATTR, table_rows

    rows = table_rows()
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    from .views.text import releases_text

    print(releases_text(rows, FLAG_BY_ATTR.values()))
    return 0


def _profiles(args) -> int:
    """``hwlib profiles``: the built-in fault profiles, their mixes, and every action."""
    from .profiles import ACTION_HELP, builtin_profiles, load_profile
    from .views.text import profiles_text

    print(profiles_text({name: load_profile(name) for name in builtin_profiles()}, ACTION_HELP))
    return 0


def _compare(args) -> int:
    """``hwlib compare``: scenarios under the generations, side by side (table, HW plot)."""
    from .util.files import check_writable
    from .views.compare import run_matrix, text_table, write_comparison

    if args.out is not None:
        require("report", "hwlib compare --out", ("matplotlib",))     # the PNG
        for suffix in (".txt", ".png"):
            check_writable(Path(args.out).with_suffix(suffix))
    names = args.scenarios or list(builtin_scenarios())
    scenarios = [load_scenario(n) for n in names]
    columns = args.releases or args.protocols
    if args.out is None:
        print(text_table(scenarios, run_matrix(scenarios, columns), columns))
    else:
        txt, png, text = write_comparison(scenarios, args.out, columns)
        print(text)
        print(f"wrote {txt} and {png}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handlers = {"run": _run, "scenarios": _scenarios, "shrink": _shrink, "protocols": _generations,
                "releases": _releases_table, "notebooks": _notebooks,
                "sweep": _sweep, "report": _report, "check": _check, "profiles": _profiles, "compare": _compare,
                "explain": _explain}
    try:
        return handlers[args.command](args)
    except MissingExtraError as exc:    # "hwlib sweep: needs pyspark: pip install 'hwlib[spark]'"
        print(str(exc), file=sys.stderr)
        return 2
    except HwlibError as exc:
        print(f"hwlib: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `hwlib run ... | head`
        sys.stderr.close()
    except OSError as exc:   # a path the checks above did not foresee: still one line
        if exc.filename is None:
            raise
        print(f"hwlib: error: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


def _explain(args) -> int:
    """``hwlib explain``: the answer per partition (text or JSON), files with --out; the exit
    status says the verdict: 0 explained, 3 not explainable, 4 outside the model, 5 inconclusive.
    A LOG is a file, a glob pattern (quoted: expanded here) or ``-`` (standard input)."""
    from .explain.inputs import named_logs

    with named_logs(args.logs) as logs:
        return _explain_logs(args, logs)


def _explain_logs(args, logs: tuple[str, ...]) -> int:
    from .explain import ExplainSpec, explain, parse_brokers, parse_config
    from .explain.read import check_input
    from .util.files import check_directory
    from .views.explain_out import run_dict, write_out
    from .views.incident import incident_target, write_incident_page
    from .views.text import explain_text

    spec = ExplainSpec(logs, observations=tuple(args.observations),
                       emit_observations=args.emit_observations, partition=args.partition, release=args.release,
                       protocol=args.protocol,
                       brokers=parse_brokers(args.broker), config=parse_config(args.config),
                       max_records=args.max_records, max_epoch=args.max_epoch, max_silent=args.max_silent,
                       depth=args.depth, time_limit=args.time_limit, replicas=args.replicas, skew_ms=args.skew)
    for path in spec.logs + spec.observations:
        check_input(path)                      # every file readable before anything runs
    if args.out is not None:
        check_directory(args.out, "out")
    if args.html is not None:
        incident_target(args.html)

    def say(text: str) -> None:
        if not args.quiet:
            print(f"hwlib explain: {text}", file=sys.stderr, flush=True)

    run = explain(spec, progress=say)
    if args.out is not None:
        written = write_out(run, args.out)
        say("wrote " + ", ".join(str(p) for p in written))
    if args.html is not None:
        say(f"wrote {write_incident_page(run, args.html)}")
    if args.json:
        print(json.dumps(run_dict(run), indent=1, default=str))
    else:
        print(explain_text(run))
    return run.exit_code


def _report(args) -> int:
    require("report", "hwlib report")
    from .report.document import parse_param, render

    params = dict(parse_param(p) for p in args.param)
    if args.sweep:
        params["sweep_dir"] = args.sweep
    if params.get("sweep_dir") is None:         # the report runs its sweep
        require("spark", "hwlib report")
    from papermill.exceptions import PapermillExecutionError

    try:
        paths = render(params, args.out, progress=not args.quiet)
    except PapermillExecutionError as exc:     # papermill wraps the notebook's own error
        print(f"hwlib: error: the report notebook failed: {exc.ename}: {' '.join(str(exc.evalue).split())} "
              f"(executed notebook: {Path(args.out).with_suffix('.ipynb')})", file=sys.stderr)
        return 1
    print(f"wrote {paths['html']} (executed notebook {paths['notebook']}, metrics {paths['metrics']})")
    return 0


def _sweep(args) -> int:
    require("spark", "hwlib sweep")
    from .sweep import load_spec, run_sweep
    from .sweep.spark import check_master

    check_master(args.master, "master")     # before anything is written or a JVM starts
    spec = load_spec(args.spec)
    if args.runs:
        spec = spec.with_runs(args.runs)
    out = Path(args.out or Path("data") / "sweeps" / spec.name)
    from .util.files import check_directory

    check_directory(out, "out")         # before a line is printed or a JVM starts
    print(f"sweep {spec.name}: {len(spec.cells)} cells x {spec.runs} runs = {spec.total_runs} runs -> {out}"
          + (f" ({len(spec.skipped)} invalid combinations left out)" if spec.skipped else ""))
    result = run_sweep(spec, out, master=args.master, resume=args.resume, overwrite=args.overwrite,
                       progress=not args.quiet,
                       shrink_failures=not args.no_shrink, check_determinism=args.check_determinism)
    from .views.text import sweep_text

    print(sweep_text(spec, result, out))
    if result.determinism is not None:
        bad = result.determinism["mismatches"]
        print(f"determinism: {result.determinism['checked']} runs re-run, {len(bad)} mismatches")
        if bad:
            print(f"hwlib: error: determinism check failed for {bad[0]}", file=sys.stderr)
            return 1
    print(f"{result.rows} rows in {out / 'runs'}, summary {out / 'summary.parquet'}, "
          f"manifest {out / 'manifest.json'}; {result.wall_s:.1f} s "
          f"({result.chunks_run} chunks run, {result.chunks_skipped} resumed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
