"""hwlib check: exhaustive bounded model checking - verdicts, shortest counterexamples, the engine support it needs."""

from __future__ import annotations

import json
import os
import pickle
import random
import re
import subprocess
import sys
import time
from array import array
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import hwlib
from hwlib import Cluster, ClusterConfig, Step
from hwlib.anomalies.checker import KINDS, AnomalyChecker
from hwlib.check import (
    DEFAULT_FAULTS,
    Bounds,
    CheckError,
    enabled_steps,
    must_end,
    parse_faults,
    profile_faults,
    state_key,
    verdict,
    write_outputs,
)
from hwlib.check.fingerprints import Fingerprints
from hwlib.util.resident import resident_bytes
from hwlib.views.model_check import matrix_html

from ..helpers.check import explored
from ..helpers.steps import every_step, numbered_produces

REPO = Path(__file__).resolve().parents[2]
NO_CRASHES = ("elect", "isolate", "isolate_unseen", "deliver")      # + produce, fetches and fetch requests
EARLY, LATER = ("hw", "kip101", "kip279"), ("kip320", "kip595", "kip841", "kip903", "kip966")
#: the longest searches (the same checks on other generations run in the fast subset): make test-all
SLOW = pytest.mark.slow


def config(protocol: str, replicas: int = 2, **settings) -> ClusterConfig:
    return ClusterConfig(replicas=tuple("ABC"[:replicas]), protocol=protocol, acks="all", **settings)


# --------------------------------------------------------------------------- the verdicts
@pytest.mark.parametrize("protocol", EARLY)
def test_strong_isr_is_reachable_at_2_replicas_before_kip320_with_a_short_counterexample(protocol):
    """2 replicas, <= 2 records, <= 2 leader epochs, leader moves / isolation / late delivery,
    no crashes. hw: the stale-HW truncation (TLC needs 6 steps); kip101: <= 8 (TLC's bound);
    kip279: Kafka 2.0's UNDEFINED answer after back-to-back elections (KAFKA-7415)."""
    result = explored(config(protocol), Bounds(replicas=2), NO_CRASHES, kinds=("strong-isr",))
    found = result.violations["strong-isr"]
    assert found.depth == len(found.steps) <= (6 if protocol == "hw" else 8)
    assert "strong-isr" in hwlib.run_steps(config(protocol), found.steps).anomaly_kinds()


@pytest.mark.parametrize("protocol", LATER)
def test_strong_isr_and_durability_hold_at_2_replicas_from_kip320_on_complete(protocol):
    result = explored(config(protocol), Bounds(replicas=2), NO_CRASHES,
                     kinds=("strong-isr", "lost-write", "log-divergence", "committed-truncated"))
    assert result.complete and result.violations == {}
    assert result.distinct > 10_000 and result.generated > result.distinct


@pytest.mark.parametrize("protocol", EARLY)
def test_strong_isr_is_reachable_at_3_replicas_before_kip320(protocol):
    result = explored(config(protocol, 3), Bounds(replicas=3), NO_CRASHES, kinds=("strong-isr",))
    assert "strong-isr" in result.violations and not result.complete


def test_kip320_holds_at_3_replicas_as_deep_as_this_suite_searches():
    """The complete 3-replica search takes about a minute on two workers (the README's table),
    too long for this suite: here the verdict is 'holds to depth 7' - every schedule of up to 7
    steps (60,281 states; 81,806 while a follower waiting for a refused fetch was kept)."""
    result = explored(config("kip320", 3), Bounds(replicas=3, depth=7), NO_CRASHES, kinds=("strong-isr", "lost-write"))
    assert result.violations == {} and not result.complete and result.depth == 7
    assert result.distinct > 55_000


def test_kip101_loses_nothing_at_2_replicas_when_only_crashes_move_leadership():
    """The engine's earlier property, now a complete verdict: crashes, quick restarts and a
    tick (ISR expiry, session timeouts), no power loss, no operator leader moves."""
    result = explored(config("kip101"), Bounds(replicas=2, max_ticks=1), ("crash", "quick_restart", "tick"),
                     kinds=("lost-write",))
    assert result.complete and result.violations == {}
    hw = explored(config("hw"), Bounds(replicas=2, max_ticks=1), ("crash", "quick_restart", "tick"),
                 kinds=("lost-write",))
    assert hw.violations["lost-write"].depth <= 6          # truncate-to-HW does lose


@pytest.mark.parametrize("protocol", ["hw", "kip101", "kip279", "kip320", "kip595"])
def test_power_loss_loses_an_acknowledged_write_before_kip966(protocol):
    result = explored(config(protocol), Bounds(replicas=2, max_epoch=3), ("crash", "power_loss", "flush"),
                     kinds=("lost-write",))
    steps = result.violations["lost-write"].steps
    assert any(s.kind == "crash" and s.lose_unflushed for s in steps)
    assert "lost-write" in hwlib.run_steps(config(protocol), steps).anomaly_kinds()


def test_kip966_closes_the_power_loss_at_2_replicas_complete():
    result = explored(config("kip966"), Bounds(replicas=2, max_epoch=3), ("crash", "power_loss", "flush"),
                     kinds=("lost-write",))
    assert result.complete and result.violations == {}


# --------------------------------------------------------------------------------- the CLI
def test_check_with_its_defaults_finds_kip101s_lost_write_and_prints_its_steps():
    """The default faults include crashes and quick restarts: hw's truncation to a stale HW loses
    an acknowledged write; the steps are printed, and --fail-on-violation makes it exit 1."""
    done = _check_cli("--protocol", "hw", "--quiet")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "crashes and quick restarts" in " ".join(out.split("\n\n")[0].split())     # the header, wrapped
    assert re.search(r"lost-write +violated at depth 6", out)
    shortest = out[out.index("shortest lost-write (6 steps)"):]
    steps = re.findall(r"^ +(\d+)\. (.+)$", shortest, re.M)[:6]
    assert [n for n, _ in steps] == ["1", "2", "3", "4", "5", "6"]
    assert steps[0][1] == "produce m1" and "crash B (quick restart, unnoticed)" in [t for _, t in steps]
    assert _check_cli("--protocol", "hw", "--quiet", "--fail-on-violation").returncode == 1
    holds = _check_cli("--protocol", "kip320", "--quiet", "--fail-on-violation")
    assert holds.returncode == 0 and "lost-write           holds (complete)" in holds.stdout


def test_check_with_a_profile_searches_its_faults_and_says_so(tmp_path):
    done = _check_cli("--protocol", "kip101", "--profile", "kip101-data-loss", "--max-ticks", "1", "--quiet",
                      "--kinds", "lost-write", "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())                  # the header wraps at 100 columns
    assert "produces, fetches and crashes, quick restarts and time passing (<= 1 tick of 45 s)" in said
    assert "lost-write           holds (complete)" in done.stdout
    both = _check_cli("--profile", "power-loss", "--faults", "crash")
    assert both.returncode == 2 and both.stderr.strip() == \
        "hwlib: error: argument --faults: not allowed with argument --profile"
    # the tick rule, one for every check: a profile that lets time pass takes a tick without --max-ticks
    ticks = _check_cli("--protocol", "kip101", "--profile", "power-loss", "--depth", "3", "--quiet")
    assert ticks.returncode == 0 and "time passing (<= 1 tick of 45 s)" in " ".join(ticks.stdout.split()), ticks.stderr


def test_a_state_budget_stops_the_search_and_the_verdict_says_where():
    result = explored(config("kip320"), Bounds(replicas=2, max_states=2000), DEFAULT_FAULTS,
                     kinds=("lost-write",))
    assert not result.complete and result.stopped_by_budget and result.distinct >= 2000
    assert verdict(result, "lost-write") == f"holds to depth {result.depth} (stopped past 2,000 states)"
    assert result.ending == "not complete: stopped past 2,000 states"


def test_an_expected_effect_is_drawn_apart_from_the_safety_verdicts():
    result = explored(config("kip966"), Bounds(replicas=2), NO_CRASHES, kinds=("hw-regression", "lost-write"),
                     exhaustive=True)
    assert verdict(result, "hw-regression").startswith("happens at depth") and "(expected effect)" in \
        verdict(result, "hw-regression")
    page = matrix_html([result], ("lost-write", "hw-regression"))
    assert 'data-state="effect"' in page and "expected effect: a new leader&#x27;s HW may start below" in page
    assert 'data-state="holds"' in page and "violated" not in page


# --------------------------------------------------------------------------- the reductions
#: bounds small enough to search without the reductions: (profile, protocol, max records, depth)
EQUIVALENT = [("leader-moves", "hw", 1, None), ("leader-moves", "kip101", 1, None), ("leader-moves", "kip320", 1, None),
              ("power-loss", "hw", 1, 9), ("power-loss", "kip966", 1, 9), ("leader-moves", "kip595", 1, None)]
#: the four longest (15 - 30 s each) run in make test-all, and one level shallower in make test
DEEPEST = [("zombies", "kip279", 8), ("zombies", "kip320", 8), ("swarm", "kip101", 6), ("zombies", "kip841", 8)]
EQUIVALENT += [pytest.param(profile, protocol, 1, depth, marks=SLOW) for profile, protocol, depth in DEEPEST]
EQUIVALENT += [(profile, protocol, 1, depth - 1) for profile, protocol, depth in DEEPEST]


@pytest.mark.parametrize(("profile", "protocol", "records", "depth"), EQUIVALENT)
def test_the_reduced_fingerprint_finds_what_the_whole_state_finds(profile, protocol, records, depth):
    """``model.reductions`` drop only what nothing can read: the same verdicts, the
    same shortest depths, counterexamples that replay, completeness alike - with fewer states."""
    from hwlib.profiles import load_profile

    faults, _ = profile_faults(load_profile(profile))
    cfg = config(protocol, retries=1)
    bounds = Bounds(replicas=2, max_records=records, max_ticks=1, depth=depth)
    reduced = explored(cfg, bounds, faults, KINDS, exhaustive=True)
    whole = explored(cfg, bounds, faults, KINDS, exhaustive=True, reduced=False)
    assert {k: v.depth for k, v in reduced.violations.items()} == {k: v.depth for k, v in whole.violations.items()}
    # complete alike; the reduced search may end a level sooner: its deepest states can all be
    # equivalent to shallower ones (kip101 under Kafka 2.0's ISR rule: the whole search's last
    # level holds only offline-leader states the reduction already met a level earlier)
    assert reduced.complete == whole.complete and reduced.depth <= whole.depth
    assert reduced.distinct < whole.distinct
    for kind, found in reduced.violations.items():
        assert kind in hwlib.run_steps(cfg, found.steps).anomaly_kinds()


@pytest.mark.parametrize("protocol", ["hw", "kip101", "kip595", "kip841"])
def test_the_reduced_fingerprint_keeps_the_tla_bounds_verdicts(protocol):
    """At the TLA+ specification's bounds (2 replicas, <= 2 records, epoch <= 2, its faults),
    complete both ways: the same verdicts at the same depths, in fewer states."""
    reduced = explored(config(protocol), Bounds(replicas=2), NO_CRASHES, KINDS, exhaustive=True)
    whole = explored(config(protocol), Bounds(replicas=2), NO_CRASHES, KINDS, exhaustive=True, reduced=False)
    assert reduced.complete and whole.complete
    assert {k: v.depth for k, v in reduced.violations.items()} == {k: v.depth for k, v in whole.violations.items()}
    assert reduced.distinct < whole.distinct
    for found in reduced.violations.values():
        assert found.kind in hwlib.run_steps(config(protocol), found.steps).anomaly_kinds()


def _run_to_end(search, level_done=None):
    """``search`` (a ``check.search.Search``, altered by the test) run to its end in-process,
    as ``explore`` runs one, ``level_done`` called with it after each level; its result."""
    import gc

    gc.disable()                # as explore runs a search (see ``Search``)
    try:
        search.start()
        while search.next_level():
            if level_done is not None:
                level_done(search)
        search.finish()
    finally:
        search.drop_frontier()
        gc.enable()
    return search.result


def _searched(cfg: ClusterConfig, bounds: Bounds, faults: tuple[str, ...], settled: bool):
    """A search run to its end with reduction 7 (a settled isolation) on or off."""
    from hwlib.check.search import Search
    from hwlib.model.space import key_context

    search = Search(cfg, bounds, faults, KINDS, exhaustive=True)
    if not settled:
        search.settled = None
        search.context = key_context(search.config.replicas, search.values, reduced=True, settled=None)
    return _run_to_end(search)


@pytest.mark.parametrize(("protocol", "faults", "replicas", "depth"), [
    ("hw", NO_CRASHES, 3, 6), pytest.param("kip595", NO_CRASHES, 3, 6, marks=SLOW),
    pytest.param("kip320", DEFAULT_FAULTS, 2, None, marks=SLOW),
    pytest.param("kip841", NO_CRASHES, 3, 7, marks=SLOW), pytest.param("kip903", DEFAULT_FAULTS, 2, None, marks=SLOW)])
def test_a_settled_isolation_merges_states_and_changes_no_verdict_depth_or_counterexample(protocol, faults,
                                                                                            replicas, depth):
    """Reduction 7 (an unnoticed isolation, once the leader epoch is at its bound where an ISR
    shrink writes a new one) against the same search without it: the same violations at the
    same depths, each counterexample replaying, completeness alike - in fewer states. (At 3
    replicas hw shows strong-isr at depth 6; kip101's KAFKA-6880 divergence at depth 8, hw's
    other kinds at 7 and kip841's strong-isr at 8 agree too, in searches too long for this
    suite: see the README.)"""
    cfg, bounds = config(protocol, replicas), Bounds(replicas=replicas, depth=depth)
    merged, whole = (_searched(cfg, bounds, faults, settled) for settled in (True, False))
    assert {k: v.depth for k, v in merged.violations.items()} == {k: v.depth for k, v in whole.violations.items()}
    assert merged.complete == whole.complete and merged.depth <= whole.depth
    assert merged.distinct < whole.distinct
    for kind, found in merged.violations.items():
        assert kind in hwlib.run_steps(cfg, found.steps).anomaly_kinds()
    if protocol == "hw":
        assert merged.violations["strong-isr"].depth == 6


@pytest.mark.parametrize(("protocol", "faults", "replicas", "depth"), [
    ("hw", NO_CRASHES, 3, 6), pytest.param("kip320", DEFAULT_FAULTS, 2, None, marks=SLOW),
    ("kip841", NO_CRASHES, 2, None), ("kip966", ("elect", "isolate", "power_loss", "flush", "tick"), 2, 9),
    ("kip320", ("power_loss", "flush", "tick"), 3, 7)])
def test_the_steps_foreseen_and_left_untaken_change_nothing_but_the_work(protocol, faults, replicas, depth):
    """A search that takes every step (``Search.foresee`` off) against one that leaves untaken
    the steps it knows surely leave the leader-epoch bound (``Bounds.cuts``) or make the state
    they leave (``model.reductions.settles_at_once``, ``flushes_nothing``): the same result -
    state and transition counts, depth, violations with their schedules and details."""
    from hwlib.check.search import Search

    cfg = config(protocol, replicas)
    bounds = Bounds(replicas=replicas, max_ticks=1, depth=depth)
    results, untaken = [], []
    for foresee in (True, False):
        search = Search(cfg, bounds, faults, KINDS, exhaustive=True)
        search.foresee = foresee
        results.append(_counts_and_verdicts(_run_to_end(search)))
        untaken.append(search.untaken)
    assert results[0] == results[1] and results[0]["distinct"] > 1000
    assert untaken[0] > 1000 and untaken[1] == 0
    if protocol == "hw":
        assert results[0]["violations"]


def test_a_budgeted_flush_is_taken_even_with_nothing_to_flush():
    """Under a fault budget on flushes, a flush with nothing to make durable still spends one,
    which makes another state (the same cluster, less budget left): the search takes it, and
    leaving nothing else untaken, finds what the search with every step taken finds."""
    from hwlib.check.search import Search

    bounds = Bounds(replicas=3, max_ticks=1, depth=7, fault_budget=(("flush", 2),))
    results, untaken = [], []
    for foresee in (True, False):
        search = Search(config("kip320", 3), bounds, ("power_loss", "flush", "tick"), KINDS, exhaustive=True)
        search.foresee = foresee
        results.append(_counts_and_verdicts(_run_to_end(search)))
        untaken.append(search.untaken)
    assert results[0] == results[1] and results[0]["distinct"] > 1000
    assert untaken == [0, 0]


def _levels_without_refusals(cfg: ClusterConfig, bounds: Bounds, faults: tuple[str, ...], answered: bool):
    """A search run to its end in-process with reduction 8 (``Search.refusals_answered``) on or
    off: its result, and each kept state with no follower waiting for a refusal, as its
    fingerprint and the depth it was kept at."""
    from hwlib.check.search import Search
    from hwlib.engine.kafka_errors import REFUSED

    search = Search(cfg, bounds, faults, KINDS, exhaustive=True)
    search.refusals_answered = answered
    kept: dict[int, int] = {}

    def keep(search: Search) -> None:
        for node in search.frontier:
            if not any(r.in_flight is not None and r.in_flight.error in REFUSED for r in node.cluster.replicas):
                kept[node.key] = search.depth

    return _run_to_end(search, keep), kept


@pytest.mark.parametrize(("protocol", "faults", "replicas", "depth"), [
    pytest.param("kip320", DEFAULT_FAULTS, 2, None, marks=SLOW), ("hw", NO_CRASHES, 3, 6),
    ("kip841", NO_CRASHES, 2, None),
    ("kip101", DEFAULT_FAULTS + ("power_loss", "controller_failover", "stale_produce", "consume"), 2, 6),
    pytest.param("kip966", ("elect", "isolate", "power_loss", "tick"), 2, 9, marks=SLOW),
    ("kip966", ("elect", "isolate", "power_loss", "tick"), 2, 8)])
def test_a_search_that_answers_refusals_at_once_keeps_every_other_state_at_its_depth(protocol, faults, replicas,
                                                                                     depth):
    """Reduction 8 (a refused fetch request left untaken: ``model.reductions.refused``) against the
    search that takes it: the same violations with the same schedules and details, and the
    states it keeps are exactly the other search's states in which no follower waits for a
    refusal, each at the same depth - none is lost, none is met later."""
    cfg = config(protocol, replicas)
    bounds = Bounds(replicas=replicas, max_ticks=1, depth=depth)
    answered, kept = _levels_without_refusals(cfg, bounds, faults, True)
    taken, kept_too = _levels_without_refusals(cfg, bounds, faults, False)
    assert kept == kept_too and len(kept) > 1000
    assert answered.distinct == len(kept) + 1 < taken.distinct          # + the initial state
    first, second = _counts_and_verdicts(answered)["violations"], _counts_and_verdicts(taken)["violations"]
    assert first == second
    assert answered.complete == taken.complete and answered.depth <= taken.depth
    if protocol in ("hw", "kip101"):
        assert first


@pytest.mark.parametrize(("protocol", "faults", "replicas", "depth"), [
    ("kip101", NO_CRASHES, 2, None), ("hw", DEFAULT_FAULTS, 2, 9), pytest.param("kip320", DEFAULT_FAULTS, 2, None,
                                                                                  marks=SLOW),
    pytest.param("kip966", ("elect", "isolate", "power_loss", "tick"), 2, 9, marks=SLOW),
    ("kip966", ("elect", "isolate", "power_loss", "tick"), 2, 8), ("kip320", NO_CRASHES, 3, 6)])
def test_a_response_as_a_step_of_its_own_only_repeats_the_whole_fetch(protocol, faults, replicas, depth):
    """``fetch_response`` is not in the alphabet (``model.space.alphabet``: it is the same
    transition as ``fetch`` whenever it can act). A search whose alphabet has it back, after
    the fetch requests, finds exactly the same: state counts, depth, violations with their
    schedules and details - it only generates more transitions."""
    from hwlib.check.search import Search

    cfg = config(protocol, replicas)
    bounds = Bounds(replicas=replicas, max_ticks=1, depth=depth)
    results = []
    for with_response in (False, True):
        search = Search(cfg, bounds, faults, KINDS, exhaustive=True)
        if with_response:
            search.model.steps = search.steps = every_step(bounds.replica_ids, faults, search.tick_ms)
        results.append(_run_to_end(search))
    without, with_it = results
    assert with_it.generated > without.generated
    first, second = _counts_and_verdicts(without), _counts_and_verdicts(with_it)
    del first["generated"], second["generated"]
    assert first == second and first["distinct"] > 1000
    if protocol in ("kip101", "hw"):
        assert first["violations"]


@pytest.mark.parametrize(("protocol", "faults", "depth", "settings", "reported"), [
    ("hw", DEFAULT_FAULTS, 8, {}, {"lost-write"}),
    ("kip101", NO_CRASHES + ("lost_ack",), 7, {"enable_idempotence": False}, {"duplicate", "reordered"}),
    ("hw", ("elect", "consume", "quick_restart"), 9, {}, {"lost-write", "unseen"})])
def test_the_run_end_checks_judge_a_state_alone(protocol, faults, depth, settings, reported):
    """What lets the search judge the run-end checks only for a state not met before
    (``Search.successors``): every transition of the search, duplicates included, judged
    whole - its step's checks and the run-end checks - by a plain enumeration. Every
    transition into a state gets the same run-end verdict (each run-end check reports
    somewhere), and the search finds each kind at the depth of the first transition that
    shows it."""
    import gc

    from hwlib.check.search import Node, Search, release_node
    from hwlib.model.space import fingerprint

    cfg = config(protocol, retries=1, **settings)
    bounds = Bounds(replicas=2, depth=depth)
    result = explored(cfg, bounds, faults, KINDS, exhaustive=True)
    search = Search(cfg, bounds, faults, KINDS, exhaustive=True)
    gc.disable()                # as explore runs a search (see ``Search``)
    try:
        search.start()
        root = search.frontier[0]
        assert root.checker is not None and not root.checker.finish(0)   # the initial state: nothing to judge
        run_end: dict[int, tuple[str, ...]] = {root.key: ()}
        first: dict[str, int] = {}
        frontier = search.frontier
        for level in range(1, depth + 1):
            following = []
            for node in frontier:
                for index in range(len(search.steps)):
                    made = search.transition(node, index, level)
                    if made is None:
                        continue
                    cluster, watch, records, ticks = made
                    key = fingerprint(cluster, watch, search.context, ticks)
                    mark = len(watch.anomalies)
                    watch.finish(level)
                    kinds = tuple(a.kind for a in watch.anomalies[mark:])
                    for anomaly in watch.anomalies:
                        first.setdefault(anomaly.kind, level)
                    del watch.anomalies[:]
                    assert run_end.setdefault(key, kinds) == kinds, (level, search.steps[index])
                    child = Node(cluster, watch, records, ticks, -1, key)
                    if key in search.seen:
                        release_node(child)
                    else:
                        search.seen.add(key)
                        following.append(child)
                release_node(node)
            frontier = following
        for node in frontier:
            release_node(node)
    finally:
        gc.enable()
    assert set().union(*run_end.values()) == reported
    assert {kind: found.depth for kind, found in result.violations.items()} == first


def test_an_offline_replicas_hw_is_its_checkpoint_capped_by_its_log_end():
    """What the offline reduction relies on: from a crash to the restart a replica's HW is
    min(HW checkpoint, LEO), whatever else happens."""
    for seed in range(40):
        cluster = Cluster(config("kip320", 3))
        for step in random_schedule(seed, 60):
            cluster.apply(step)
            for r in cluster.replicas:
                if not r.online:
                    assert r.hw == min(r.hw_checkpoint, r.leo) and r.in_flight is None and not r.purgatory


# ------------------------------------------------------------------------------ the files
def test_counterexamples_and_the_matrix_are_written_and_replay(tmp_path):
    results = [explored(config(p), Bounds(replicas=2), NO_CRASHES, kinds=("strong-isr",)) for p in ("hw", "kip101")]
    written = write_outputs(tmp_path / "out", results, ("strong-isr",))
    names = sorted(p.name for p in written)
    assert names == ["hw-strong-isr.yaml", "kip101-strong-isr.yaml", "matrix.json", "matrix.md", "matrix.parquet"]
    for protocol in ("hw", "kip101"):
        path = tmp_path / "out" / f"{protocol}-strong-isr.yaml"
        done = subprocess.run([sys.executable, "-m", "hwlib.cli", "run", str(path), "--json"],
                              capture_output=True, text=True, check=True)
        assert "strong-isr" in {a["kind"] for a in json.loads(done.stdout)["anomalies"]}
    scenario = hwlib.load_scenario(tmp_path / "out" / "hw-strong-isr.yaml")
    assert "strong-isr" in scenario.expect["hw"]
    lines = [json.loads(line) for line in (tmp_path / "out" / "matrix.json").read_text().splitlines()]
    assert [line["protocol"] for line in lines] == ["hw", "kip101"]
    assert set(lines[0]) == {"protocol", "complete", "distinct", "generated", "depth", "seconds", "violations"}
    assert "violated at depth" in (tmp_path / "out" / "matrix.md").read_text()


def _counts_and_verdicts(result) -> dict:
    """A result as written (``as_dict``), less its time."""
    out = result.as_dict()
    del out["seconds"]
    return out


@pytest.mark.parametrize(("protocol", "exhaustive"), [("kip101", True), ("hw", False)])
def test_two_workers_find_exactly_what_one_process_finds(monkeypatch, protocol, exhaustive):
    """The frontier shared with worker processes (from 50 states on): the same state counts,
    violations and counterexample schedules, step for step."""
    from hwlib.check import workers

    monkeypatch.setattr(workers, "SPLIT_AT", 50)
    alone = explored(config(protocol), Bounds(replicas=2), NO_CRASHES, exhaustive=exhaustive)
    shared = explored(config(protocol), Bounds(replicas=2), NO_CRASHES, exhaustive=exhaustive, workers=2)
    one, two = _counts_and_verdicts(alone), _counts_and_verdicts(shared)
    assert one == two and one["violations"] and one["distinct"] > 10 * 50


def test_workers_even_out_their_states_and_still_find_exactly_what_one_process_finds(monkeypatch):
    """``workers.deal``: each worker keeps the states it made live - but a worker with more
    than its share by ``BALANCE_ABOVE`` gives its last ones away (-2 where it keeps their
    numbers) -, and the rest of the level is dealt out cold, in number order, as one range a
    worker less the live states' numbers within it, so that each holds its share. Moving at
    every level (above 0) changes nothing a search finds: the same state counts, violations
    and schedules, every state numbered alike and reached from the same parent by the same
    step. ``Dealt``, a worker's cold states, reads as the list of its numbers."""
    from hwlib.check import workers

    def dealt(live, numbered):
        """Per worker: its blocks (starts, stops), the live numbers skipped in them, its cold states."""
        return [([list(starts), list(stops)], list(skipped), list(workers.Dealt(starts, stops, skipped)))
                for starts, stops, skipped in workers.deal(live, numbered)]

    live = [array("q", [-1, 5, 6, -1, 7]), array("q", [8, -1])]       # states 5 - 19: 8 each at most
    assert dealt(live, range(5, 20)) == [                               # blocks of 1 (16 a worker at least)
        ([[10, 12, 14, 17, 19], [11, 13, 15, 18, 20]], [], [10, 12, 14, 17, 19]),         # 3 live + 5
        ([[9, 11, 13, 15, 16, 18], [10, 12, 14, 16, 17, 19]], [], [9, 11, 13, 15, 16, 18])]   # 1 live + 6
    assert list(live[0]) == [-1, 5, 6, -1, 7] and list(live[1]) == [8, -1]
    live = [array("q", [5, 7, 9, 11, 12, 13]), array("q", [6, 14])]      # states 5 - 16: 6 each
    assert dealt(live, range(5, 17)) == [([[], []], [], []),
                                         ([[8, 10, 15, 16], [10, 15, 16, 17]], [9, 11, 12, 13, 14], [8, 10, 15, 16])]
    live = [array("q", [5, 6, 7, 8, 9, 10, 11, 12]), array("q")]        # 8 live of 10: 3 given away
    assert dealt(live, range(5, 15))[1][2] == [10, 11, 12, 13, 14] and list(live[0]) == [5, 6, 7, 8, 9, -2, -2, -2]
    monkeypatch.setattr(workers, "BALANCE_ABOVE", 0.5)
    live = [array("q", [5, 6, 7, 8, 9, 10, 11]), array("q")]            # 7 <= 5 x 1.5: kept
    assert [cold for _, _, cold in dealt(live, range(5, 15))] == [[], [12, 13, 14]]
    assert list(live[0]) == list(range(5, 12))
    nothing = ([[], []], [], [])
    assert dealt([array("q"), array("q")], range(7, 7)) == [nothing, nothing]              # a level with no new state
    assert dealt([array("q", [7, 8]), array("q", [9])], range(7, 10)) == [nothing, nothing]     # every one live
    spread = workers.deal([array("q"), array("q"), array("q")], range(10, 100_010))     # 100,000 cold: blocks of 1,024
    assert [len(workers.Dealt(*part)) for part in spread] == [33_792, 33_440, 32_768]
    assert [part[0][:2].tolist() for part in spread] == [[10, 3082], [1034, 4106], [2058, 5130]]   # in turn

    monkeypatch.setattr(workers, "SPLIT_AT", 50)
    monkeypatch.setattr(workers, "BALANCE_ABOVE", 0.0)
    moved = []
    real = workers.deal

    def deal(live, numbered):
        dealt = real(live, numbered)
        moved.append(sum(list(numbers).count(-2) for numbers in live))
        return dealt

    monkeypatch.setattr(workers, "deal", deal)
    numbered: dict[int, list] = {1: [], 2: []}         # per level, every state's parent and step

    def level_done(search, processes):
        numbered[processes].append(list(search.parents))

    alone = explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, exhaustive=True,
                    level_done=lambda search: level_done(search, 1))
    shared = explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, exhaustive=True, workers=2,
                     level_done=lambda search: level_done(search, 2))
    assert _counts_and_verdicts(alone) == _counts_and_verdicts(shared)
    assert numbered[1] == numbered[2]                   # each state numbered alike, from the same parent
    assert sum(moved) > 100                             # live states were given away


def test_a_level_merge_numbers_the_candidates_in_parent_step_order_over_their_ranks():
    """``LevelMerge`` (workers and Spark): the parts' candidates are numbered in (parent,
    step) order across the parts, from the next free number on; a fingerprint met before - in
    the visited set or earlier in the level - is not numbered. Given in chunks, it numbers while
    every part not ended has one waiting and says which part it waits for; it keeps, per part,
    the number of each live candidate (-1: not kept)."""
    from hwlib.check.search import Search

    search = Search(config("kip101"), Bounds(replicas=2), NO_CRASHES, ("lost-write",), True)
    search.start()
    search.next_level()
    parents, first_new = list(search.parents), len(search.parents)
    assert first_new >= 3
    met = search.frontier[0].key                        # state 1's fingerprint, in the visited set
    fresh = [key for key in range(10 ** 12, 10 ** 12 + 100) if key not in search.seen][:3]
    one = (array("q", [1 * 256 + 0, 1 * 256 + 3, 1 * 256 + 5]), array("q", [fresh[0], fresh[1], met]))
    two = (array("q", [2 * 256 + 1, 2 * 256 + 4]), array("q", [fresh[0], fresh[2]]))
    generated = search.result.generated
    merge = search.level_merge(2)
    assert merge.run() == 0                             # waits for part 0's first chunk
    merge.feed(0, one[0][:2], one[1][:2], live=1)
    assert merge.run() == 1
    merge.feed(1, *two, live=2)
    assert merge.run() == 0                             # ranks 256, 257 and 259 taken; 260 waits for part 0
    assert merge.number == first_new + 2
    merge.feed(0, one[0][2:], one[1][2:])
    merge.end(0, {"strong-isr": (1, 5, 0, "late")}, 3)
    assert merge.run() == 1
    merge.end(1, {"strong-isr": (1, 3, 0, "early")}, 2)
    assert merge.run() == -1
    # ranks 256 (new), 257 (the same fingerprint), 259, 260 (new), 261 (met before)
    assert [list(numbers) for numbers in merge.live_numbers] == [[first_new], [-1, first_new + 2]]
    numbered, kept = search.close_level(merge)
    assert numbered == range(first_new, first_new + 3) and list(kept) == []     # no fingerprints asked for
    assert list(search.parents) == parents + [256, 259, 2 * 256 + 4]
    assert all(key in search.seen for key in fresh) and search.result.generated == generated + 5
    assert search.result.violations["strong-isr"].detail == "early"

    again = Search(config("kip101"), Bounds(replicas=2), NO_CRASHES, ("lost-write",), True)  # whole parts (Spark)
    again.start()
    again.next_level()
    numbered, kept = again.merge_level([(one, {}, 3), (two, {}, 2)])
    assert numbered == range(first_new, first_new + 3) and list(kept) == fresh
    assert list(again.parents) == parents + [256, 259, 2 * 256 + 4]


def test_a_worker_stops_expanding_once_its_coordinator_is_gone_or_says_stop():
    """A worker looks at its pipe every WATCH_EVERY frontier states of a level: nothing to
    read, it expands them all; a "follow" (a table grew), it reads the new tables and goes on;
    its coordinator's end closed (the coordinator was killed) or a "stop" waiting, it ends at
    the next look instead of finishing the level."""
    import multiprocessing

    from hwlib.check.workers import WATCH_EVERY, Orphaned, watched

    nodes = list(range(3 * WATCH_EVERY + 5))
    coordinator, worker = multiprocessing.Pipe()
    followed = []
    coordinator.send(("follow", ("visited", 1024, 7, False), ("parents", 65536)))
    coordinator.send(("follow", ("visited 2", 2048, 9, False), ("parents", 65536)))
    assert list(watched(nodes, worker, followed.append)) == nodes
    assert followed == [(("visited", 1024, 7, False), ("parents", 65536)),
                        (("visited 2", 2048, 9, False), ("parents", 65536))]
    coordinator.send(("follow", ("visited", 1024, 7, False), ("parents", 65536)))
    with pytest.raises(Orphaned):               # no one to follow: not a worker's expansion
        list(watched(nodes, worker))
    for going in ("closed", "stop"):
        coordinator, worker = multiprocessing.Pipe()
        assert list(watched(nodes, worker)) == nodes
        if going == "closed":
            coordinator.close()
        else:
            coordinator.send(("stop",))
        expanded = []
        with pytest.raises(Orphaned):
            for node in watched(nodes, worker):
                expanded.append(node)
        assert expanded == nodes[:WATCH_EVERY]
        worker.close()


def test_a_worker_reads_the_visited_set_grown_in_the_middle_of_its_expansion(monkeypatch):
    """The coordinator numbers a level's states into the visited set while the workers expand
    it, and a table that grows moves to a new segment: it sends "follow", and the worker, at its
    next look at the pipe, reads the new table from then on - through the same set its
    expansion holds - with the old segment unmapped; a "follow" naming a segment gone since (the
    table grew again) is passed over, the table it reads still mapped. Its candidates are those
    an expansion against a set never moved makes."""
    import multiprocessing
    import random

    from hwlib.check import workers
    from hwlib.check.search import Search
    from hwlib.check.shared_parents import ParentsView, SharedParents
    from hwlib.check.shared_visited import SharedView, handle, shared_copy

    def searched():
        search = Search(config("kip101"), Bounds(replicas=2), NO_CRASHES, ("lost-write",), True)
        search.start()
        for _ in range(4):
            search.next_level()
        return search

    plain = searched()
    expected = plain.candidates(plain.frontier_nodes(), plain.seen)
    search = searched()
    assert len(search.frontier) > 10
    coordinator_set, tables = shared_copy(search.seen)
    table = SharedParents(search.parents)
    view, parents = SharedView(), ParentsView()
    coordinator, worker = multiprocessing.Pipe()
    try:
        search.seen, search.parents = view.follow(handle(coordinator_set, tables)), parents.follow(table.handle())
        first = handle(coordinator_set, tables)
        rng = random.Random(3)
        coordinator_set.update(rng.getrandbits(63) for _ in range(len(coordinator_set)))       # none a state's
        grown = handle(coordinator_set, tables)
        coordinator_set.update(rng.getrandbits(63) for _ in range(2 * len(coordinator_set)))
        assert len({first[0], grown[0], tables.name()}) == 3        # grown twice: each segment replaced unlinked
        coordinator.send(("follow", grown, table.handle()))                         # gone: passed over
        coordinator.send(("follow", handle(coordinator_set, tables), table.handle()))
        monkeypatch.setattr(workers, "WATCH_EVERY", 1)
        followed = []

        def follow(shared):
            workers.follow_grown(search, view, parents, *shared)
            followed.append((search.seen, view._name))

        got = search.candidates(workers.watched(search.frontier_nodes(), worker, follow), search.seen)
        assert followed == [(search.seen, first[0]), (search.seen, tables.name())]
        assert [list(a) for a in got] == [list(a) for a in expected] and len(got[0]) > 10
    finally:
        view.close()
        parents.close()
        search.parents = array("q")
        tables.close()
        table.close()
        coordinator.close()
        worker.close()


def test_a_levels_arrays_cross_the_pipe_as_raw_memory_whole_and_of_the_length_told():
    """``send_arrays`` / ``recv_arrays``: a level's candidates and numbers cross the pipe as raw
    memory - larger than the pipe's buffer, empty, negative numbers -, each read into an array
    of the length the other side told; an array of another length is refused in one line."""
    import multiprocessing
    import threading
    from array import array

    from hwlib.check.workers import WorkerError, recv_arrays, send_arrays

    sender, receiver = multiprocessing.Pipe()
    big = array("q", range(-1, 3 * 2**16))                 # 1.5 MiB: more than a pipe holds
    for sent in ([big, array("q", reversed(big))], [array("q"), array("q")], [array("q", [-2, -1, 7])]):
        writer = threading.Thread(target=send_arrays, args=(sender, sent))
        writer.start()
        assert recv_arrays(receiver, len(sent[0]), len(sent)) == sent
        writer.join()
    for told in (4, 2):                                     # shorter, longer than told
        send_arrays(sender, [array("q", [1, 2, 3])])
        with pytest.raises(WorkerError, match=f"^a model-checking process sent an array that is not {told} items long"):
            recv_arrays(receiver, told, 1)
    sender.close()
    receiver.close()


def test_a_frontier_kept_cold_past_the_memory_limit_finds_exactly_what_a_live_one_finds(monkeypatch):
    """With so little memory that one new state per expansion stays live, the rest are kept as
    their schedules and replayed when expanded - in one process, on two workers and when a
    checkpoint is resumed: the same state counts, violations and counterexamples."""
    from hwlib.check import workers

    monkeypatch.setattr(workers, "SPLIT_AT", 50)
    tiny = 1e-9                         # GiB: a hot limit of 1
    cold, snapshots = [], {}

    def level_done(search):
        cold.append(len(search.cold) + sum(node.cluster is None for node in search.frontier))
        snapshots.setdefault(search.depth, search.snapshot())

    live = explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, exhaustive=True)
    alone = explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, exhaustive=True, memory=tiny,
                    level_done=level_done)
    assert max(cold) > 1000             # most of the frontier was cold
    shared = explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, exhaustive=True, memory=tiny, workers=2)
    resumed = explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, exhaustive=True, memory=tiny,
                      restore=snapshots[7])
    expected = _counts_and_verdicts(live)
    assert expected["violations"] and expected["distinct"] > 9_000          # 10,100
    assert _counts_and_verdicts(alone) == _counts_and_verdicts(shared) == _counts_and_verdicts(resumed) == expected
    with pytest.raises(CheckError, match=r"^memory: must be a finite number of GiB > 0, got 0$"):
        explored(config("kip101"), Bounds(replicas=2), NO_CRASHES, memory=0)


def test_a_frontier_state_that_replays_to_another_fingerprint_is_refused():
    """The frontier is the last level's states, numbered last: a checkpoint keeps its size and
    the fingerprints of its live states only. Resuming replays each state's schedule: a live
    one must come back with the fingerprint the checkpoint gives, a cold one (none kept) with
    one in the visited set - else the checkpoint is another engine's: one CheckError, where
    the state is rebuilt (on resuming for a live one, when it is expanded for a cold one)."""
    from hwlib.check.search import Search

    def fresh(hot_limit=None):
        return Search(config("kip101"), Bounds(replicas=2), NO_CRASHES, ("strong-isr",), True, hot_limit=hot_limit)

    search = fresh()
    search.start()
    for _ in range(5):
        search.next_level()
    snapshot = search.snapshot()
    size, keys = snapshot["frontier"], snapshot["frontier_keys"]
    assert size > 20 and len(keys) == size
    whole, part_cold = fresh(), fresh(hot_limit=3)
    whole.restore(snapshot)
    part_cold.restore({**snapshot, "frontier_keys": keys[:3]})
    assert (len(whole.frontier), len(whole.cold)) == (size, 0)
    assert (len(part_cold.frontier), len(part_cold.cold)) == (3, size - 3)
    assert whole.frontier_arrays() == (range(len(snapshot["parents"]) - size, len(snapshot["parents"])), keys)
    for search in (whole, part_cold):
        while search.next_level():
            pass
    assert _counts_and_verdicts(whole.result) == _counts_and_verdicts(part_cold.result)

    wrong = array("q", keys)
    wrong[1] ^= 1
    with pytest.raises(CheckError, match=rf"^resume: the checkpoint's state {len(snapshot['parents']) - size + 1} "
                                         r"does not replay to the same state"):
        fresh().restore({**snapshot, "frontier_keys": wrong})
    unseen = fresh(hot_limit=3)         # the last frontier state's fingerprint is not in the visited set
    unseen.restore({**snapshot, "frontier_keys": keys[:3], "seen": array("q", [k for k in snapshot["seen"]
                                                                              if k != keys[-1]])})
    with pytest.raises(CheckError, match=rf"^resume: the checkpoint's state {len(snapshot['parents']) - 1} "
                                         r"does not replay"):
        unseen.next_level()
    made = fresh(hot_limit=3)           # not resumed: the process that rebuilt the state is the suspect
    made.start()
    for _ in range(5):
        made.next_level()
    last = len(made.parents) - 1
    assert last in made.cold
    gone = made.replay(last, made.indices(last), None, check=False).key
    made.seen = Fingerprints([key for key in made.seen if key != gone])
    with pytest.raises(CheckError) as differs:
        made.next_level()
    assert str(differs.value) == (f"check: state {last} does not replay to the state the search made; the process "
                                  f"that rebuilt it runs another version of hwlib's engine (a Spark executor's?)")
    for bad in ({"frontier": len(snapshot["parents"]) + 1}, {"frontier": 2, "frontier_keys": keys[:3]},
                {"frontier": "all"}):
        with pytest.raises(CheckError, match=r"^resume: the checkpoint's frontier .* does not fit its \d+ states$"):
            fresh().restore({**snapshot, **bad})


@pytest.mark.skipif(resident_bytes() is None, reason="this platform has no /proc/self/statm to read RSS from")
def test_an_expansion_whose_resident_memory_grows_past_the_limit_keeps_the_rest_cold():
    """One process with no estimated limit, past its resident limit. While its RSS does not
    grow (a level reusing the memory the last one freed), every state stays live. Once it
    grows during a level that makes RESIDENT_EVERY live states, ``hot_limit`` comes down to
    the states made live so far and the rest of the frontier is cold from then on - and the
    search finds what an unwatched one finds. The coordinator gives each worker an equal
    share of what its own RSS leaves of the limit."""
    from hwlib.check.runners import budget
    from hwlib.check.search import RESIDENT_EVERY, Search
    from hwlib.check.workers import Coordinator

    def searched(resident_limit, resident):
        search = Search(config("kip101"), Bounds(replicas=2), NO_CRASHES, ("strong-isr",), True)
        search.resident_limit, search.resident = resident_limit, resident
        search.start()
        limits, cold = [], []
        while search.next_level():
            limits.append(search.hot_limit)
            cold.append(len(search.cold) + sum(node.cluster is None for node in search.frontier))
        search.finish()
        return search.result, limits, cold

    reads = iter(range(10 ** 9))
    free, free_limits, free_cold = searched(None, resident_bytes)
    flat, flat_limits, flat_cold = searched(1, lambda: 100)
    watched, limits, cold = searched(1, lambda: next(reads))
    assert set(free_limits) == set(flat_limits) == {None} and not any(free_cold) and not any(flat_cold)
    lowered = [limit for limit in limits if limit is not None]
    assert lowered and lowered[0] % RESIDENT_EVERY == 0 and lowered == sorted(lowered, reverse=True)
    assert max(cold) > 1000                # of a widest level of 2,007
    assert _counts_and_verdicts(watched) == _counts_and_verdicts(flat) == _counts_and_verdicts(free)

    two = SimpleNamespace(search=SimpleNamespace(resident_limit=None, resident=resident_bytes), pipes=[None, None])
    assert Coordinator.share(two) is None
    mine = resident_bytes()
    two.search.resident_limit = mine + 2 * 2 ** 28
    assert abs(Coordinator.share(two) - 2 ** 28) <= 2 ** 22          # the RSS it reads itself moves a little
    two.search.resident_limit = mine // 2
    assert Coordinator.share(two) == 0
    assert budget(1.5) == 3 * 2 ** 29


def _check_cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hwlib.cli", "check", *args], capture_output=True, text=True,
                          **kwargs)


def _verdicts(out: Path) -> list[dict]:
    lines = [json.loads(line) for line in (out / "matrix.json").read_text().splitlines()]
    for line in lines:
        del line["seconds"]
    return lines


#: three releases: one finished before the kill, one killed in the middle, one not begun
RESUMABLE = ["--release", "0.10.2,0.11,2.8", "--exhaustive", "--quiet", "--checkpoint-every", "0",
             "--faults", ",".join(NO_CRASHES)]


def test_a_killed_check_resumes_to_the_same_verdicts_and_state_counts(tmp_path):
    """SIGKILL in the middle of 0.11's search (the result of 0.10.2's finished one and 0.11's
    latest level are on disk; 2.8's is not begun), then --resume: the same matrix as an
    uninterrupted run, state counts included; the checkpoints are gone at the end."""
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert _check_cli(*RESUMABLE, "--out", str(whole)).returncode == 0
    running = subprocess.Popen([sys.executable, "-m", "hwlib.cli", "check", *RESUMABLE, "--out", str(killed)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint = killed / "checkpoint-0.11.npz"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and running.poll() is None:
        if checkpoint.is_file() and _header(checkpoint)["search"]["depth"] >= 8:
            break
        time.sleep(0.02)
    assert running.poll() is None, "the check ended before it could be killed"
    running.kill()
    running.wait()
    assert (killed / "result-0.10.2.json").is_file() and not (killed / "matrix.json").exists()
    assert not (killed / "result-0.11.json").exists() and not (killed / "checkpoint-2.8.npz").exists()
    done = _check_cli(*RESUMABLE, "--out", str(killed), "--resume")
    assert done.returncode == 0, done.stderr
    assert _verdicts(killed) == _verdicts(whole)
    assert not list(killed.glob("checkpoint-*"))
    assert json.loads((killed / "check.json").read_text())["finished"] is True


def test_resume_refuses_other_settings_a_damaged_checkpoint_and_a_missing_check(tmp_path):
    out = tmp_path / "out"
    args = ["--protocol", "hw", "--quiet", "--depth", "4", "--out", str(out)]
    assert _check_cli(*args).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    done = _check_cli(*args[:-3], "5", "--out", str(out), "--resume")
    assert done.returncode == 2 and done.stderr.startswith("hwlib: error: out: ") and "other settings (bounds" \
        in done.stderr and len(done.stderr.splitlines()) == 1
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    (out / "result-hw.json").unlink()
    (out / "checkpoint-hw.npz").write_bytes(b"garbage")
    done = _check_cli(*args, "--resume")
    assert done.returncode == 2 and "checkpoint-hw.npz is damaged or not a checkpoint" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    done = _check_cli(*args[:-1], str(tmp_path / "none"), "--resume")
    assert done.returncode == 2 and "holds no check to resume" in done.stderr
    assert not (tmp_path / "none").exists()
    assert _check_cli("--resume", "--quiet").stderr.strip() == \
        "hwlib: error: resume: give the --out directory of the check to resume"


def test_a_checkpoint_of_another_engine_is_refused(tmp_path):
    out = tmp_path / "out"
    args = ["--protocol", "kip101", "--quiet", "--exhaustive", "--checkpoint-every", "0", "--out", str(out)]
    running = subprocess.Popen([sys.executable, "-m", "hwlib.cli", "check", *args],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint = out / "checkpoint-kip101.npz"
    while running.poll() is None and not checkpoint.is_file():
        time.sleep(0.02)
    running.kill()
    running.wait()
    with np.load(checkpoint, allow_pickle=False) as saved:
        columns = {name: saved[name] for name in saved.files}
    header = {**json.loads(str(columns["header"])), "engine": "0" * 16}
    with checkpoint.open("wb") as handle:
        np.savez(handle, **{**columns, "header": np.array(json.dumps(header))})
    done = _check_cli(*args, "--resume")
    assert done.returncode == 2 and "written by another version of hwlib's engine" in done.stderr


def _header(checkpoint: Path) -> dict:
    with np.load(checkpoint, allow_pickle=False) as saved:
        return json.loads(str(saved["header"]))


class _Payload:
    """Unpickling this runs code: it writes ``target`` (the file a safe resume never creates)."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):
        return (exec, (f"open({str(self.target)!r}, 'w').write('ran')",))


@pytest.mark.parametrize("form", ["legacy-pickle", "object-array", "pickled-header", "older-format"])
def test_a_crafted_checkpoint_is_refused_in_one_line_and_runs_nothing(tmp_path, form):
    """A --resume directory received from someone else: its checkpoint would run code if it were
    unpickled (a pickle under the old name, or an .npz holding an object array). hwlib reads
    checkpoints with allow_pickle=False and never loads a pickle: one line, exit 2, no payload."""
    out, ran = tmp_path / "out", tmp_path / "payload-ran"
    args = ["--protocol", "hw", "--quiet", "--depth", "4", "--out", str(out)]
    assert _check_cli(*args).returncode == 0
    (out / "result-hw.json").unlink()          # hw is now a generation to resume from its checkpoint
    payload = _Payload(ran)
    assert pickle.loads(pickle.dumps(payload)) is None and ran.read_text() == "ran"   # the payload works
    ran.unlink()
    from hwlib.check.checkpoints import CHECKPOINT_FORMAT

    header = np.array(json.dumps({"format": CHECKPOINT_FORMAT, "engine": "0" * 16, "search": {}}))
    if form == "legacy-pickle":
        (out / "checkpoint-hw.pickle").write_bytes(pickle.dumps({"format": 1, "search": payload}))
        expected = "checkpoint-hw.pickle is a pickled checkpoint (hwlib before 0.2), which hwlib no longer reads"
    else:
        with (out / "checkpoint-hw.npz").open("wb") as handle:
            if form == "object-array":
                np.savez(handle, header=header, seen=np.array([payload], dtype=object))
            elif form == "older-format":        # two parents entries a state, before format 3
                np.savez(handle, header=np.array(json.dumps({"format": 2, "engine": "0" * 16, "search": {}})),
                         seen=np.array([payload], dtype=object))
            else:
                np.savez(handle, header=np.array([payload], dtype=object))
        expected = ("checkpoint-hw.npz was written by another version of hwlib (checkpoint format 2, this one reads "
                    f"{CHECKPOINT_FORMAT}); run without --resume" if form == "older-format"
                    else "checkpoint-hw.npz is damaged or not a checkpoint")
    before = sorted(p.name for p in out.iterdir())
    done = _check_cli(*args, "--resume")
    assert done.returncode == 2 and expected in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not ran.exists()
    assert sorted(p.name for p in out.iterdir()) == before


@pytest.mark.parametrize(("args", "message"), [
    (["--replicas", "0"], "replicas: must be an integer >= 1, got 0"),
    (["--max-records", "-1"], "max-records: must be an integer >= 0, got -1"),
    (["--depth", "0"], "depth: must be an integer >= 1, got 0"),
    (["--faults", "elect,meteor"], "faults: 'meteor' is not a fault; allowed: elect, "),
    (["--kinds", "lost"], "kinds: 'lost' is not an anomaly kind; allowed: lost-write, "),
    (["--protocol", "kip999"], "'kip999' is not known"),
    (["--min-insync-replicas", "0"], "config.min_insync_replicas: must be an integer >= 1, got 0"),
    (["--max-ticks", "2"], "max-ticks: give --faults ... ,tick as well"),
    (["--memory", "0"], "memory: must be a finite number of GiB > 0, got 0"),
])
def test_bad_bounds_are_one_line_exit_2_and_nothing_is_written(tmp_path, args, message):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", *args, "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_an_out_directory_with_other_files_is_refused_untouched(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--protocol", "hw", "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "holds other files" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_parse_faults_and_bounds_errors():
    assert parse_faults("elect, deliver,elect") == ("elect", "deliver")
    with pytest.raises(CheckError, match="replicas: at most 5"):
        Bounds(replicas=6)
    with pytest.raises(CheckError, match="max-queued: must be an integer >= 1, got 0"):
        Bounds(max_queued=0)


# ------------------------------------------------------------------- the queue bound
def _shrink_and_expand(protocol: str, rounds: int) -> list[tuple[int, int]]:
    """C cut off from the controller within its session; then, each round, B isolated (its
    session expires: out of the ISR), reconnected and caught up (back in): per round, the
    controller's leader epoch and how many changes wait for C."""
    cluster = Cluster(config(protocol, 3))
    cluster.apply(Step("isolate", replica="C", detected=False))
    out = []
    for _ in range(rounds):
        for step in (Step("isolate", replica="B"), Step("reconnect", replica="B"), Step("fetch", replica="B")):
            assert cluster.skip_reason(step) is None
            cluster.apply(step)
        assert cluster.controller.isr == ("A", "B", "C")
        out.append((cluster.controller.leader_epoch, cluster.channel.longest_queue()))
    return out


def test_under_kip966_the_isr_cycles_without_a_new_leader_epoch_and_a_cut_off_broker_falls_behind_without_end():
    """Why kip966 at 3 replicas needs a queue bound (``model.endless``): KRaft 3.6+ keeps the
    leader epoch on an ISR shrink (KAFKA-15021), so the epoch bound never cuts this loop; under
    KRaft 3.3-3.5 every round spends a leader epoch."""
    assert _shrink_and_expand("kip966", 4) == [(0, 2), (0, 4), (0, 6), (0, 8)]
    assert _shrink_and_expand("kip841", 4) == [(1, 2), (2, 4), (3, 6), (4, 8)]


def test_a_search_that_would_never_end_is_refused_before_it_starts(tmp_path):
    bounds = Bounds(replicas=3)
    with pytest.raises(CheckError, match="max-queued: needed for kip966 at 3 replicas"):
        explored(config("kip966", 3), bounds, NO_CRASHES)
    for ended in (Bounds(replicas=3, max_queued=2), Bounds(replicas=3, max_states=10), Bounds(replicas=2)):
        must_end(["kip966"], ended, NO_CRASHES)
    must_end(["kip966"], bounds, ("elect", "isolate", "deliver"))     # no broker cut off within its session
    must_end(["kip966"], bounds, ("elect", "isolate_unseen", "deliver", "quick_restart"))   # no loss noticed
    with pytest.raises(CheckError, match="max-queued: needed for kip966 at 3 replicas"):
        must_end(["kip966"], bounds, ("isolate_unseen", "crash"))          # a crash shrinks the ISR as well
    must_end(["kip841", "kip903"], bounds, NO_CRASHES)                # their epoch bound ends them
    assert explored(config("kip966", 3), Bounds(replicas=3, depth=3), NO_CRASHES, exhaustive=True).depth == 3
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--replicas", "3", "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "max-queued: needed for kip966 at 3 replicas" in done.stderr and not out.exists()


@SLOW
def test_the_queue_bound_cuts_exactly_the_states_past_it():
    """At 2 replicas kip966's queues reach 3 changes at most: a bound of 3 changes nothing, one
    of 2 cuts; within a bound of 1 no state kept has a longer queue."""
    def search(max_queued):
        return explored(config("kip966"), Bounds(replicas=2, max_queued=max_queued), NO_CRASHES, exhaustive=True)

    free, three, two = search(None), search(3), search(2)
    assert (three.distinct, three.generated, three.complete) == (free.distinct, free.generated, True)
    assert two.complete and two.distinct < free.distinct
    from hwlib.check import Search

    narrow = Search(config("kip966", 3), Bounds(replicas=3, max_queued=1, depth=6), NO_CRASHES, ("strong-isr",),
                    True)
    narrow.start()
    longest = []
    while narrow.next_level():
        longest += [node.cluster.channel.longest_queue() for node in narrow.frontier]
    assert max(longest) == 1 and len(longest) > 10_000


def test_the_queue_bound_counts_only_running_brokers_as_the_state_key_does():
    """A broker down after an unnoticed crash keeps its queue until its restart drops it; the key
    leaves it out (it is never read), so the bound must too, or the cut would depend on what
    two states sharing a fingerprint differ in."""
    cluster = Cluster(config("kip966"))
    for step in (Step("isolate", replica="B", detected=False), Step("elect", replica="B"), Step("elect", replica="A")):
        cluster.apply(step)
    assert cluster.channel.longest_queue() == 2 and Bounds(max_queued=1).beyond(cluster)
    assert len(state_key(cluster, {})[2][1]) == 2               # the channel's part: B's queue
    cluster.apply(Step("crash", replica="B", detected=False))
    assert len(cluster.channel.queues["B"]) == 2 and state_key(cluster, {})[2][1] == ()
    assert cluster.channel.longest_queue() == 0 and not Bounds(max_queued=1).beyond(cluster)


# -------------------------------------------------------------------- the engine support
def dump(obj, refs=None) -> object:
    """Every field of an object graph (mypyc classes, slots, dicts), with shared objects and
    cycles as references, so a field a copy forgot - or shared by mistake - shows. Left out:
    the events, and how logs and epoch caches share their lists until written and remember
    what readers derived from them (``_owned``, ``memo``) - bookkeeping, not state."""
    refs = {} if refs is None else refs
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [type(obj).__name__, [dump(x, refs) for x in obj]]
    if isinstance(obj, (set, frozenset)):
        return ["set", sorted(map(repr, obj))]
    if isinstance(obj, dict):
        return ["dict", [[dump(k, refs), dump(v, refs)] for k, v in obj.items()]]
    if type(obj).__module__.startswith(("hwlib.engine.config", "hwlib.engine.protocols")) or callable(obj):
        return f"shared {type(obj).__name__}"
    if id(obj) in refs:
        return ["ref", refs[id(obj)]]
    refs[id(obj)] = len(refs)
    names = getattr(type(obj), "__mypyc_attrs__", None) or getattr(obj, "__slots__", None) or vars(obj)
    fields = {}
    for name in names:
        if name in ("__dict__", "__weakref__", "events", "_owned", "memo") or not hasattr(obj, name):
            continue
        fields[name] = dump(getattr(obj, name), refs)
    return [type(obj).__name__, fields]


def random_schedule(seed: int, n: int = 40) -> list[Step]:
    rng = random.Random(seed)
    steps = every_step(("A", "B", "C"), ("elect", "isolate", "isolate_unseen", "deliver", "crash", "quick_restart",
                                         "power_loss", "flush", "tick", "consume", "controller_failover"), 45001)
    return numbered_produces((rng.choice(steps) for _ in range(n)), lambda: rng.choice([None, None, "B"]))


@pytest.mark.parametrize("seed", range(12))
def test_a_clone_equals_its_source_in_every_field_and_runs_on_alike(seed):
    steps = random_schedule(seed)
    cut = len(steps) // 2
    for protocol in ("kip101", "kip966"):
        cfg = config(protocol, 3, client_metadata="stale")
        original = Cluster(cfg)
        for step in steps[:cut]:
            original.apply(step)
        copy = original.clone()
        assert dump(copy) == dump(original)
        assert copy.events == [] and copy.replicas[0] is not original.replicas[0]
        before = dump(original)
        for step in steps[cut:]:
            copy.apply(step)
        assert dump(original) == before              # the copy's writes did not reach its source
        for step in steps[cut:]:
            original.apply(step)
        assert dump(copy) == dump(original)          # nor the source's its copy
        replay = Cluster(cfg)
        for step in steps:
            replay.apply(step)
        assert dump(replay) == dump(original)


def test_a_cloned_checker_reports_what_the_run_reports():
    """Judging clones step by step (as the search does) finds the anomalies a plain run finds."""
    scenario = hwlib.load_scenario("late-leader-and-isr")
    cfg = scenario.config
    cluster = Cluster(cfg)
    checker = AnomalyChecker(cluster)
    checker.observe(0)
    found = []
    for i, step in enumerate(scenario.steps, 1):
        cluster = cluster.clone()
        checker = AnomalyChecker(cluster, checker)
        cluster.apply(step)
        checker.observe(i)
        found += [(a.kind, a.step, a.detail) for a in checker.anomalies]
    run = hwlib.run_scenario(scenario)
    at_the_end = ("lost-write", "duplicate", "reordered", "unseen")      # judged by finish, not per step
    assert found == [(a.kind, a.step, a.detail) for a in run.anomalies if a.kind not in at_the_end]
    assert {"strong-isr", "log-divergence"} <= {kind for kind, _, _ in found}


def _busy_schedule(seed: int, n: int) -> list[Step]:
    """A random schedule in which the records move: produces and fetches four times as likely
    as each fault (leader moves, isolation, crashes, power loss, a consumer)."""
    rng = random.Random(seed)
    steps = every_step(("A", "B", "C"), ("elect", "isolate", "crash", "quick_restart", "power_loss", "consume"), 1)
    weights = [12 if step.kind == "produce" else 4 if step.kind.startswith("fetch") else 1 for step in steps]
    return numbered_produces(rng.choices(steps, weights, k=n))


def _said(anomalies: list) -> list[tuple[str, str]]:
    return [(a.kind, a.detail) for a in anomalies]


def _memory(checker: AnomalyChecker, values: dict[str, int]) -> tuple:
    """Everything an ``AnomalyChecker`` remembers between steps, as plain copies."""
    rep, cl = checker.replication, checker.clients
    return (checker._last_leader, rep.last_hw, list(rep.agree), dict(rep.diverged), set(rep.weak_isr),
            list(rep.committed_epochs), list(rep.committed_values), list(rep.has_committed),
            list(rep.cache_versions), cl.acked_seen, dict(cl._absent_since), cl.polls_seen, dict(cl._read_at),
            set(cl._inconsistent), dict(cl._session_last), set(cl._values_read), checker.verdict_key(values))


def test_a_continued_checker_and_its_source_share_nothing_a_write_can_reach():
    """A checker continued on a clone shares what it remembers with its source until either
    writes. Along random schedules the search's way - each step on a clone, watched by a
    continuation -, the source also takes another step and observes it: each of the two
    remembers and reports exactly what a checker that watched its schedule alone does. The
    schedules make the checks remember every kind of thing: a committed prefix, standing
    strong-ISR violations and divergences, what the consumer read."""
    values = {f"m{i}": i for i in range(1, 200)}
    memories: list[tuple] = []
    for seed in range(16):
        main, other = _busy_schedule(seed, 120), _busy_schedule(seed + 1000, 120)
        for protocol in ("hw", "kip320"):
            cfg = config(protocol, 3, unclean_leader_election=protocol == "hw")

            def alone(schedule: list[Step], cfg: ClusterConfig = cfg) -> tuple[tuple, list]:
                cluster = Cluster(cfg)
                checker = AnomalyChecker(cluster)
                for depth, step in enumerate(schedule, 1):
                    cluster.apply(step)
                    checker.observe(depth)
                return _memory(checker, values), checker.anomalies

            cluster = Cluster(cfg)
            checker = AnomalyChecker(cluster)
            before: list = []
            for depth, (step, aside) in enumerate(zip(main, other, strict=True), 1):
                checker.verdict_key(values)                 # remembered, then shared by the continuation
                clone = cluster.clone()
                continued = AnomalyChecker(clone, checker)
                clone.apply(step)
                continued.observe(depth)
                cluster.apply(aside)
                checker.observe(depth)
                expected_side, expected_side_found = alone(main[:depth - 1] + [aside])
                expected, expected_found = alone(main[:depth])
                assert _memory(checker, values) == expected_side
                assert _said(checker.anomalies) == _said(expected_side_found)
                assert _memory(continued, values) == expected
                assert _said(continued.anomalies) == _said(expected_found[len(before):])
                memories.append(expected)
                continued.anomalies = list(expected_found)    # as if it had watched from the start
                cluster, checker, before = clone, continued, expected_found
    for part in (3, 4, 6, 12):          # diverged, weak_isr, committed values, what was read
        assert any(memory[part] for memory in memories), part

def test_state_keys_are_integers_equal_for_equal_states_and_stable_across_processes():
    values = {"m1": 1, "m2": 2}
    cluster = Cluster(config("kip320", 3))
    for step in random_schedule(3, 20):
        if step.kind != "produce" or step.value in values:
            cluster.apply(step)
    key = state_key(cluster, values)

    def flat(x):
        return [y for item in x for y in flat(item)] if isinstance(x, tuple) else [x]

    assert all(type(v) is int for v in flat(key))
    assert state_key(cluster.clone(), values) == key
    code = ("import hwlib; from hwlib.check import state_key; "
            "c = hwlib.Cluster(hwlib.ClusterConfig(replicas=('A','B','C'), protocol='kip320', acks='all')); "
            "c.produce('m1'); c.fetch('B'); c.elect('B'); print(hash(state_key(c, {'m1': 1})))")
    hashes = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env=dict(os.environ, PYTHONHASHSEED=str(seed))).stdout for seed in (1, 2)}
    assert len(hashes) == 1


def test_enabled_steps_are_exactly_the_steps_that_do_not_skip():
    for seed in range(6):
        cluster = Cluster(config("kip320", 3))
        steps = random_schedule(seed, 30)
        for step in steps:
            cluster.apply(step)
            for candidate in every_step(("A", "B", "C"), ("elect", "isolate", "deliver", "crash", "flush"), 45001)[1:]:
                trial = cluster.clone()
                trial.apply(candidate)
                events = trial.events
                if enabled_steps(cluster, [candidate]):
                    assert not (len(events) == 1 and events[0][0] == "skip"), candidate
                else:
                    assert len(events) == 1 and events[0][0] == "skip", candidate
                    assert events[0][3] == cluster.skip_reason(candidate)


def test_a_loss_found_says_which_setting_to_try_next():
    """A power loss in the counterexample: flushing every message is the setting to ask about;
    a release that has ELR but runs it at level 0 (4.0's default, an upgraded 4.1): the feature.
    Neither where the config has it already."""
    from hwlib.engine.steps import Step
    from hwlib.views.text import what_to_try

    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--release", "4.0", "--profile", "power-loss",
                           "--kinds", "lost-write", "--quiet"], capture_output=True, text=True, check=True)
    said = " ".join(done.stdout.split())
    assert "try: a power loss takes what was not flushed: --config log.flush.interval.messages=1" in said
    assert "try: this cluster runs eligible.leader.replicas.version=0: --config eligible.leader.replicas.version=1" \
        in said
    power_loss = [Step("produce", value="m1"), Step("crash", replica="A", lose_unflushed=True)]
    flushed = hwlib.ClusterConfig(replicas=("A", "B"), release="4.1", log_flush_interval_messages=1)
    assert what_to_try(flushed, power_loss) == []                      # flushed, and 4.1 runs ELR at 1
    assert len(what_to_try(flushed.replace(log_flush_interval_messages=None), power_loss)) == 1
    assert what_to_try(hwlib.ClusterConfig(replicas=("A", "B"), release="3.9-kraft"), power_loss[:1]) == []


def test_a_search_with_the_collector_off_leaves_no_cyclic_garbage():
    """The model checker turns Python's cycle collector off (``runners``, ``workers``) and frees
    each clone it drops by reference counting alone: ``Cluster.release`` and
    ``AnomalyChecker.release`` break every cycle a clone holds - a request in flight (it refers
    to its replicas), a parked fetch, a produce waiting in purgatory, the checks reporting to
    their checker -, so a search leaves the collector nothing. Its frontier holds each of those,
    so the dropped clones did too. A released checker refuses a report."""
    import gc

    from hwlib.check.search import Search
    from hwlib.profiles import load_profile

    faults = profile_faults(load_profile("power-loss"))[0]
    config = ClusterConfig(replicas=("A", "B", "C"), release="4.1", acks="all", min_insync_replicas=2)
    search = Search(config, Bounds(replicas=3, max_ticks=1), faults, ("lost-write",), True)
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        search.start()
        for _ in range(4):
            search.next_level()
        garbage = gc.collect()
    finally:
        if collecting:
            gc.enable()
    clusters = [node.cluster for node in search.frontier]
    assert search.result.generated > 5000
    assert any(r.in_flight is not None for c in clusters for r in c.replicas)
    assert any(r.purgatory for c in clusters for r in c.replicas)
    assert any(c.delayed.produces for c in clusters)
    assert garbage == 0, f"{garbage} objects were left for the cycle collector"
    node = search.frontier[0]
    node.checker.release()
    with pytest.raises(AssertionError, match="a released checker was told of lost-write"):
        node.checker.replication.report("lost-write", 5, "m1")
