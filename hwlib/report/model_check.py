"""The report's model check: each fault profile's faults in every generation, each verdict reconciled with the sweep.

For every fault profile of a sweep, ``hwlib check`` searches every schedule of produces,
fetches and the faults that profile can fire (``check.profile_faults``) at small bounds, in
each generation the sweep ran: "how often" (the sweep) and "can it happen at all" (the
check) then speak of the same faults.

The two must agree. Where the sweep's runs show a kind under a generation (at acks=all with
unclean election off, the check's setting) and the check says the kind holds, the sweep's
first such run is shrunk and measured: if it needs more than the check's bounds allow (more
records, a fault taken twice, a later leader epoch, ticks of another length ...), the cell says so
instead of "holds"; if it fits the bounds, the check and the sweep contradict each other and
the report refuses to render (``ReportConsistencyError``) rather than print both.
"""

from __future__ import annotations

import dataclasses
import html
from collections import Counter
from dataclasses import dataclass, field

import pandas as pd

from ..anomalies.checker import is_safety
from ..check import (
    DEFAULT_KINDS,
    FAULT_WORDS,
    ONE_FAULT,
    Bounds,
    CheckResult,
    CheckRun,
    CheckSpec,
    Verdict,
    budget_words,
    cell_verdict,
    coverage_text,
    open_directory,
    profile_faults,
    queued_words,
    share_text,
    step_fault,
)
from ..check import run as check_run
from ..check.driver import Progress
from ..check.verdicts import records_words
from ..engine.config import ClusterConfig
from ..errors import HwlibError
from ..model.budget import isr_requests
from ..model.vocabulary import times, untried, untried_note
from ..run import run_steps
from ..scenario import Scenario
from ..sweep.spec import Cell, SweepSpec
from ..views import picker_html, scenario_file_html, stepper_html
from ..views.model_check import counterexample_view, legend_html, matrix_html, matrix_states
from .findings import Finding, by_rules, join, rules_order
from .findings import name as rules_text

#: the kinds the report's check looks for: ``hwlib check``'s (the broker-side safety properties)
KINDS = DEFAULT_KINDS
#: the report's bounds: the sweep's three replicas, one record (one acknowledged write to lose),
#: leader epochs <= 2, one tick where the profile lets time pass (``CheckSpec``'s tick rule), and
#: each other fault of the profile at most once (``budget``: a TLA+ specification's fault counters)
BOUNDS = Bounds(replicas=3, max_records=1)
#: the sweep's durable setting: acks=all, min.insync.replicas=2 - writes go on with one of the
#: three replicas out of the ISR, and stop with two
CONFIG = ClusterConfig(replicas=BOUNDS.replica_ids, acks="all", min_insync_replicas=2)
#: how often a search may take each fault of the profile (``Bounds.fault_budget``)
ONCE = 1
#: a search stops after the level that reaches this many distinct states (the report's time
#: budget): a cell it stops says the depth it reached, never a bare "holds"
MAX_STATES = 60_000


def budget(faults: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """Each of ``faults`` at most ``ONCE`` along a schedule (a tick is bounded by ``BOUNDS.max_ticks``)."""
    return tuple((fault, ONCE) for fault in faults if fault != "tick")


class ReportConsistencyError(HwlibError, RuntimeError):
    """The model check says a kind cannot happen within bounds that a run of the sweep, which
    shows it, fits: one of the two is wrong, and the report is not rendered."""


@dataclass
class ProfileCheck:
    """The check of one set of faults: the sweep's profiles that fire exactly those, the
    results per generation (release order), and the reconciled verdicts ((protocol, kind) ->
    Verdict; cells not in it are the check's own)."""

    profiles: list[str]
    faults: tuple[str, ...]
    results: list[CheckResult]
    verdicts: dict[tuple[str, str], Verdict] = field(default_factory=dict)

    @property
    def coverage(self) -> str:
        return coverage_text(self.results[0], self.results)

    def verdict(self, protocol: str, kind: str) -> Verdict:
        result = next(r for r in self.results if r.protocol == protocol)
        return self.verdicts.get((protocol, kind)) or cell_verdict(result, kind)


@dataclass
class Witness:
    """The sweep's first run (in cell order) that showed a kind: its cell, run index, and how
    many runs of that cell showed it."""

    cell: Cell
    run: int
    runs: int


def run(spec, kinds: tuple[str, ...] = KINDS, workers: int = 1, max_states: int = MAX_STATES,
        progress: bool | str | None = None, file=None) -> list[ProfileCheck]:
    """One check per distinct set of faults among the sweep's profiles, over the generations the
    sweep ran. Its searches are independent and small: with ``workers`` > 1 they run that many
    at a time, each whole in its own process (at these sizes a search gains little from sharing
    its levels); a search's result does not depend on where it ran. ``progress`` (a
    ``util.progress`` mode, on ``file``) counts the searches done and says which finished."""
    from ..util.progress import progress as shown

    groups: dict[tuple[str, ...], list[str]] = {}
    for name, profile in spec.profiles().items():
        faults, uncovered = profile_faults(profile)
        if uncovered:           # profile_faults covers every action a profile can have today
            raise ReportConsistencyError(f"profile {name}: the check has no fault for {', '.join(uncovered)}")
        groups.setdefault(faults, []).append(name)
    protocols = tuple(rules_order(cell.config.rules_name for cell in spec.cells))
    profiles = spec.profiles()
    # the sweep's runs it is reconciled with (``witnesses``) are those with unclean election off:
    # so is every search, whatever a release's own default (on before 0.11)
    requests = [CheckSpec(protocols=protocols, config=CONFIG, unclean_leader_election=False,
                          bounds=dataclasses.replace(BOUNDS, max_states=max_states, fault_budget=budget(faults)),
                          profile=profiles[names[0]], kinds=kinds, coverage_runs=spec.runs, coverage_seed=spec.seed,
                          memory=_memory(workers))
                for faults, names in groups.items()]
    jobs = [(g, request.only(protocol)) for g, request in enumerate(requests) for protocol in protocols]
    results: dict[tuple[int, str], CheckResult] = {}
    names = list(groups.values())
    bar = shown(len(jobs), "model check", "search", progress, file)

    def done(g: int, protocol: str, result: CheckResult) -> None:
        results[(g, protocol)] = result
        bar.note(f"faults of {' and '.join(names[g])}: {protocol} done")
        bar.update(1)

    if workers > 1 and len(jobs) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # spawned, not forked: the report's process holds a Spark session (a JVM and its threads)
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(_search, one.to_dict()): (g, one.protocols[0]) for g, one in jobs}
            for future in as_completed(futures):
                done(*futures[future], future.result())
    else:
        for g, one in jobs:
            done(g, one.protocols[0], check_run(one).results[0])
    bar.close()
    return [ProfileCheck(names[g], faults, [results[(g, p)] for p in protocols])
            for g, faults in enumerate(groups)]


def _search(request: dict) -> CheckResult:
    """One search of the report's check, in a process of its pool: the request's written form
    (``CheckSpec.to_dict``) in, its result out."""
    return check_run(CheckSpec.from_dict(request)).results[0]


def _memory(workers: int) -> float:
    """The GiB each of ``workers`` searches run at once may hold: their share of what one search
    may hold alone (``check.runners.budget``: half the machine's memory)."""
    from ..check.runners import budget as resident

    return resident(None) / 2 ** 30 / max(1, workers)


def witnesses(spec, runs: pd.DataFrame, kinds: tuple[str, ...] = KINDS,
              min_insync_replicas: int | None = None) -> dict[tuple[str, tuple[str, str], str], Witness]:
    """(profile, rules (``same_rules``), kind) -> the sweep's first run showing ``kind`` at
    acks=all with unclean election off, from the run table - first among the cells at
    ``min_insync_replicas`` (the check's), if any shows it: what the bounds lack is then what the
    search left out, not a setting it did not have."""
    from ..sweep.runs import anomaly_column

    cells = {cell.id: cell for cell in spec.cells}
    runs = by_rules(runs)
    comparable = runs[(runs["acks"].astype(str) == "all") & ~runs["unclean_leader_election"].astype(bool)]
    comparable = comparable.assign(other_setting=comparable["min_insync_replicas"].astype(int) != min_insync_replicas)
    out = {}
    for kind in kinds:
        shown = comparable[comparable[anomaly_column(kind)] > 0].sort_values(["other_setting", "cell", "run"])
        for (profile, protocol), rows in shown.groupby(["profile", "protocol"], sort=False):
            first = rows.iloc[0]
            count = int((rows["cell"] == first["cell"]).sum())
            out[(profile, same_rules(protocol), kind)] = Witness(cells[first["cell"]], int(first["run"]), count)
    return out


def same_rules(name: str) -> tuple[str, str]:
    """What ``name`` runs, whichever way it is written: a generation, or a release's row - so a
    check of ``0.11.0`` meets the sweep's ``0.11`` runs (one row, KIP-101's rules)."""
    from ..engine.config import PROTOCOLS
    from ..engine.releases import release

    if name in PROTOCOLS:
        return (name, "")
    row = release(name)
    return (row.name, row.mode)


def beyond(scenario: Scenario, result: CheckResult) -> list[str]:
    """What a run (``scenario``) needs that ``result``'s search did not cover: more replicas,
    records, leader epochs, ticks, steps, budgeted faults or ISR changes than its bounds, other
    settings, other faults."""
    b, config, steps = result.bounds, result.config, scenario.steps
    out = []
    if len(scenario.config.replicas) != b.replicas:       # fewer is not covered either: another cluster
        out.append(f"{len(scenario.config.replicas)} replicas")
    mine, theirs = scenario.config.to_dict(), config.to_dict()
    if mine.get("release") and theirs.get("release") and same_rules(mine["release"]) == same_rules(theirs["release"]):
        del mine["release"]         # one release written two ways (0.11, 0.11.0)
    for name in sorted(set(mine) - {"replicas", "protocol"}):
        if mine[name] != theirs.get(name):
            value = str(mine[name]).lower() if isinstance(mine[name], bool) else mine[name]
            out.append(f"{scenario.config.kafka_name(name)}={value}")
    records = sum(1 for s in steps if s.kind == "produce")
    if records > b.max_records:
        out.append(f"{records} records")
    queues = [0]          # the most changes waiting for one broker, at any step (measured under a queue bound)
    replay = run_steps(scenario.config, steps, record=False,
                       on_step=None if b.max_queued is None
                       else lambda cluster: queues.append(cluster.channel.longest_queue()))
    epoch = replay.final["leader_epoch"]
    if epoch > b.max_epoch:
        out.append(f"leader epoch {epoch}")
    if b.max_queued is not None and max(queues) > b.max_queued:
        out.append(queued_words(max(queues)))
    taken = Counter(fault for fault in map(step_fault, steps) if fault is not None)
    out.extend(f"{ONE_FAULT[fault]} {times(taken[fault])}" for fault, limit in b.fault_budget if taken[fault] > limit)
    if b.max_alter_partitions is not None:
        events, marks = replay.events, replay.marks
        sent = sum(isr_requests(step, events[marks[i]:marks[i + 1]]) for i, step in enumerate(steps))
        if sent > b.max_alter_partitions:
            out.append(f"{sent} ISR changes sent by a leader")
    ticks = [s.ms for s in steps if s.kind == "tick"]
    if len(ticks) > b.max_ticks:
        out.append(f"{len(ticks)} ticks")
    tick_ms = b.tick_length(config)
    odd = sorted({ms for ms in ticks if ms != tick_ms})
    if odd and "tick" in result.faults:
        out.append("time passing in steps of " + ", ".join(f"{ms / 1000:g} s" for ms in odd))
    missing = sorted(f for f in taken if f not in result.faults)
    if missing:
        out.append(", ".join(FAULT_WORDS[f] for f in missing))
    if not result.complete and len(steps) > result.depth:
        out.append(f"{len(steps)} steps (the search went {result.depth} deep)")
    return out


def reconcile(checks: list[ProfileCheck], spec, runs: pd.DataFrame, kinds: tuple[str, ...] = KINDS) -> None:
    """Where the sweep shows a kind the check says holds: the sweep's run, shrunk, measured
    against the check's bounds - the cell then says what the bounds lack; a run that fits them
    is a contradiction (ReportConsistencyError)."""
    from ..sweep.driver import shrink_run

    for check in checks:
        seen = witnesses(spec, runs, kinds, check.results[0].config.min_insync_replicas)
        for result in check.results:
            for kind in kinds:
                if kind in result.violations or not is_safety(kind):
                    continue
                rules = same_rules(result.protocol)
                witness = next((seen[(p, rules, kind)] for p in check.profiles if (p, rules, kind) in seen), None)
                if witness is None:
                    continue
                scenario, _ = shrink_run(spec, witness.cell.index, witness.run, kind)
                lacks = beyond(scenario, result)
                if not lacks:
                    raise ReportConsistencyError(
                        f"model check: {kind} holds under {result.protocol} with the faults of "
                        f"{'/'.join(check.profiles)} ({coverage_text(result)}), but the sweep's run {witness.run} "
                        f"of cell {witness.cell.id} shows it within those bounds ({len(scenario.steps)} steps: "
                        f"{'; '.join(s.describe() for s in scenario.steps)}); the report is not rendered")
                runs_text = "1 run" if witness.runs == 1 else f"{witness.runs} runs"
                check.verdicts[(result.protocol, kind)] = Verdict(
                    "beyond", f"not found within these bounds; the sweep shows it (cell {witness.cell.id}, "
                    f"{runs_text}) with {join(lacks)}, beyond them")


def sampling(check: ProfileCheck) -> str:
    """What share of the reachable states the profile's random runs visit, where the search
    completed (``check.coverage``): the sweep samples, the search covers."""
    measured = [r for r in check.results if r.coverage is not None]
    if not measured:
        return ""
    first = measured[0].coverage
    low = share_text(min(r.coverage.share for r in measured))
    high = share_text(max(r.coverage.share for r in measured))
    share = low if low == high else f"{low} to {high}"
    example = next((r for r in measured if r.protocol == "kip320"), measured[0])
    return (f"Random runs against this space: {first.runs:,} runs of {first.profile}, drawn as the sweep draws "
            f"its runs, at {check.results[0].bounds.replicas} replicas, visit {share} of the reachable states "
            f"where the search completed ({example.protocol}: {example.coverage.visited:,} of "
            f"{example.coverage.reachable:,}); {first.within:.0%} of their steps stay within these bounds. "
            f"A sweep says how often; only the search says never.")


def command(check: ProfileCheck) -> str:
    """The ``hwlib check`` command line that runs ``check``'s searches as the report ran them
    (its releases, its first profile's faults at the report's bounds and settings)."""
    first = check.results[0]
    b = first.bounds
    words = ["hwlib check", "--release", ",".join(r.protocol for r in check.results), "--profile", check.profiles[0],
             "--replicas", str(b.replicas), "--acks", first.config.acks, "--min-insync-replicas",
             str(first.config.min_insync_replicas), "--config", "unclean.leader.election.enable=false",
             "--max-records", str(b.max_records), "--max-epoch", str(b.max_epoch)]
    if b.fault_budget:
        words += ["--fault-budget", ",".join(f"{fault}={limit}" for fault, limit in b.fault_budget)]
    if b.max_states is not None:
        words += ["--max-states", str(b.max_states)]
    return " ".join(words)


def matrix(checks: list[ProfileCheck], kinds: tuple[str, ...] = KINDS) -> str:
    """One verdict table per set of faults, under a heading naming its profiles and a caption
    saying what every cell covers (the cells say only what differs from it); one legend after
    the tables, naming the colours they draw."""
    parts, states = [], set()
    for check in checks:
        names = " and ".join(f"<b>{html.escape(p)}</b>" for p in check.profiles)
        sampled = sampling(check)
        states |= matrix_states(check.results, kinds, check.verdicts)
        parts.append(f'<h4 style="margin:1em 0 .3em">With the faults of {names}</h4>'
                     f'<p style="margin:0 0 .4em;color:#333">Every cell: {html.escape(check.coverage)}</p>'
                     + (f'<p style="margin:0 0 .4em;color:#333">{html.escape(sampled)}</p>' if sampled else "")
                     + f'<p style="margin:0 0 .4em;color:#333">The same searches: <code>{html.escape(command(check))}'
                       '</code></p>'
                     + matrix_html(check.results, kinds, check.verdicts, legend=False, captioned=True))
    return "".join(parts) + legend_html(states)


def shortest(checks: list[ProfileCheck], kinds: tuple[str, ...] = KINDS) -> list[tuple[ProfileCheck, CheckResult, str]]:
    """Per kind, the shortest counterexample over every check (earliest generation, then the
    first check, on ties): one step-through per kind."""
    out = []
    for kind in kinds:
        found = [(check, r) for check in checks for r in check.results if kind in r.violations]
        if found and is_safety(kind):
            check, result = min(found, key=lambda item: item[1].violations[kind].depth)
            out.append((check, result, kind))
    return out


def shortest_html(shown: list[tuple[ProfileCheck, CheckResult, str]]) -> str:
    """The shortest counterexample of each kind (``shortest``) behind one selector: its caption,
    its step-through beside the first later generation where the kind holds, its scenario file.
    ``#check-<kind>`` selects one (the findings link to them)."""
    import mistune

    variants = []
    for check, result, kind in shown:
        caption, view, scenario, fixer = counterexample_view(check.results, result, kind, check.verdicts)
        body = (str(mistune.html(caption + f" (With the faults of {' and '.join(check.profiles)}.)"))
                + stepper_html(view.results, view.titles, view.start, sequence_open=False)
                + scenario_file_html(scenario, f"check-{result.protocol}-{kind}.yaml", fixer))
        variants.append((f"check-{kind}", f"{kind}: {result.protocol}, {len(scenario.steps)} steps", body))
    heading = '<h3 style="margin:1.2em 0 .3em">The shortest schedules</h3>'
    return picker_html("check-shortest", heading, "One per kind, the shortest over every generation:", variants)


def findings(checks: list[ProfileCheck], kinds: tuple[str, ...], anchor: str) -> list[Finding]:
    """What the check found, one finding per set of faults: for each kind, the generations where
    it can happen (shortest schedule), those where it cannot (complete searches only) and those
    where the bounds were too small to tell; never "cannot" of a cell the sweep contradicts."""
    out = []
    for check in checks:
        parts, numbers = [], {}
        for kind in kinds:
            shown = {r.protocol: check.verdict(r.protocol, kind) for r in check.results}
            numbers[kind] = {p: v.text for p, v in shown.items()}
            violated = [p for p, v in shown.items() if v.state == "violated"]
            holds = [p for p, v in shown.items() if v.state == "holds"]
            wider = [p for p, v in shown.items() if v.state in ("beyond", "partial")]
            if not violated and not wider:
                continue
            text = f"<b>{kind}</b>"
            if violated:
                depth = min(v.depth for v in shown.values() if v.state == "violated" and v.depth is not None)
                text += f" can happen under {join([rules_text(p) for p in violated])} (shortest: {depth} steps)"
            if holds:
                text += f"{',' if violated else ''} cannot under {join([rules_text(p) for p in holds])}"
            if wider:
                text += (f"{';' if violated or holds else ''} <span class=\"hwl-unsure\">under "
                         f"{join([rules_text(p) for p in wider])} the "
                         "bounds are too small to tell</span>")
            parts.append(text)
        names = " and ".join(f"<b>{html.escape(p)}</b>" for p in check.profiles)
        b = check.results[0].bounds
        body = "; ".join(parts) if parts else f"none of {join(list(kinds))} can happen in any generation"
        counted = html.escape("".join(f", {words}" for words in budget_words(b)))
        text = (f'<b>Can it happen at all</b>, with the faults of {names} (every schedule at {b.replicas} '
                f'replicas, at most {records_words(b.max_records)} and leader epoch {b.max_epoch}{counted}; '
                f'<a href="#{anchor}">the verdicts</a>): {body}.')
        conclusive = all(check.verdict(r.protocol, k).state in ("violated", "holds") for r in check.results
                         for k in kinds)
        out.append(Finding(f"model-check:{'/'.join(check.profiles)}", text, [], numbers, conclusive=conclusive))
    return out


def lost_writes(checks: list[ProfileCheck]) -> dict[str, dict[str, int]]:
    """Where the check found a lost write: profile -> rules -> the shortest schedule's steps (the
    recommendations leave those releases out)."""
    out: dict[str, dict[str, int]] = {}
    for check in checks:
        for result in check.results:
            found = result.violations.get("lost-write")
            if found is not None:
                for profile in check.profiles:
                    out.setdefault(profile, {})[result.protocol] = found.depth
    return out


def metrics(checks: list[ProfileCheck], kinds: tuple[str, ...] = KINDS) -> list[dict]:
    """Each search of the report's model check as numbers (the metrics JSON): the profiles whose
    faults it searched, its rules, state counts, depth, whether it completed, how many of its
    states the profiles' runs visit, and each kind's verdict as the page shows it (reconciled
    with the sweep)."""
    return [{"profiles": list(check.profiles), "rules": result.protocol, "complete": result.complete,
             "distinct": result.distinct, "generated": result.generated, "depth": result.depth,
             "visited": None if result.coverage is None else result.coverage.visited,
             "verdicts": {kind: check.verdict(result.protocol, kind).state for kind in kinds}}
            for check in checks for result in check.results]


def load_sweep(path, field: str = "sweep") -> tuple[SweepSpec, pd.DataFrame]:
    """A finished sweep's spec and run table, or one line naming ``field`` (``hwlib check
    --sweep``, notebook 03's ``sweep_dir``): read before a search starts."""
    import json
    from pathlib import Path

    from ..sweep import SweepSpecError, parse_spec, read_runs

    manifest = Path(path) / "manifest.json"
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        spec = parse_spec(data["spec"])
        return spec, read_runs(Path(path))
    except FileNotFoundError:
        raise ReportConsistencyError(f"{field}: {str(path)!r} holds no finished sweep (no manifest.json); "
                                     "give the directory `hwlib sweep` wrote") from None
    except (OSError, ValueError, KeyError, TypeError, SweepSpecError) as exc:
        raise ReportConsistencyError(f"{field}: {str(path)!r} is not a finished sweep ({exc})") from None


def witness_profiles(spec, faults: tuple[str, ...], field: str = "sweep") -> list[str]:
    """The sweep's profiles whose every fault a check with ``faults`` searches: their runs can
    contradict its verdicts. One line naming ``field`` when there is none."""
    profiles = [name for name, profile in spec.profiles().items() if set(profile_faults(profile)[0]) <= set(faults)]
    if not profiles:
        raise ReportConsistencyError(f"{field}: no fault profile of the sweep fires only faults this check searches "
                                     f"({', '.join(faults) or 'none'}); check with --profile NAME of one of "
                                     f"{', '.join(spec.profiles())}")
    return profiles


def sweep_check(spec, runs: pd.DataFrame, profiles: list[str], faults: tuple[str, ...], results: list[CheckResult],
                kinds: tuple[str, ...]) -> ProfileCheck:
    """``results`` of a check with ``faults`` reconciled with a sweep, as the report does: the
    runs of ``profiles`` (``witness_profiles``) that show a kind the check says holds are
    shrunk and measured against its bounds - the verdict then says what the bounds lack (or,
    within them, it is a ReportConsistencyError)."""
    check = ProfileCheck(profiles, tuple(faults), results)
    reconcile([check], spec, runs, kinds)
    return check


@dataclass(frozen=True)
class CheckAnswer:
    """A check's answer as ``hwlib check`` and notebook 03 show it: the run, the verdict of every
    (rule set, kind) cell - the check's own, or reconciled with ``sweep_dir``'s runs of the
    profiles ``witnesses`` - and the fault classes of the default report's sweep that the search
    left out (``untried``; ``note`` says how to try them), which a "holds" does not cover."""

    run: CheckRun
    verdicts: dict[tuple[str, str], Verdict]
    untried: tuple[str, ...]
    note: str
    sweep_dir: str | None = None
    witnesses: tuple[str, ...] = ()

    @property
    def results(self) -> list[CheckResult]:
        return self.run.results

    @property
    def reconciled(self) -> str:
        """Which sweep the verdicts were reconciled with, in words ("" without one)."""
        if self.sweep_dir is None:
            return ""
        return f"reconciled with the sweep in {self.sweep_dir} (profiles {', '.join(self.witnesses)})"

    @property
    def violated(self) -> bool:
        """Whether a safety kind is violated under any rule set (``--fail-on-violation``)."""
        return any(kind in r.violations and is_safety(kind) for r in self.results for kind in self.run.spec.kinds)


def check_against_sweep(request: CheckSpec, sweep_dir: str | None = None, field: str = "sweep",
                        progress: Progress | None = None, master: str | None = None) -> CheckAnswer:
    """``request`` checked (``check.run``, ``progress`` as there; its large levels on the Spark
    ``master`` when given) and, with ``sweep_dir``, each verdict reconciled with that finished
    sweep's runs as the report does (``sweep_check``). The sweep is read first and the request's
    ``--out`` directory opened next, before Spark starts or the search runs: a bad one is one line
    (naming ``field`` for the sweep: ``hwlib check --sweep``, notebook 03's ``sweep_dir``) and
    nothing was written."""
    from ..sweep import load_spec

    swept = load_sweep(sweep_dir, field) if sweep_dir is not None else None
    witnesses = witness_profiles(swept[0], request.faults, field) if swept is not None else []
    directory = open_directory(request)
    spark = None
    if master is not None:
        from ..sweep.spark import start_session

        spark = start_session(master, app_name="hwlib-check")
    done = check_run(request, progress, spark, directory)
    kinds = request.kinds
    if swept is not None:
        checked = sweep_check(*swept, witnesses, request.faults, done.results, kinds)
        verdicts = {(r.protocol, kind): checked.verdict(r.protocol, kind) for r in done.results for kind in kinds}
    else:
        verdicts = {(r.protocol, kind): cell_verdict(r, kind) for r in done.results for kind in kinds}
    reported = load_spec("default").profiles()      # what the default report sweeps
    return CheckAnswer(done, verdicts, tuple(untried(request.faults, reported)),
                       untried_note(request.faults, reported), sweep_dir, tuple(witnesses))
