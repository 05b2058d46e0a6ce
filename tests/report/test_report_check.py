"""The report's model check agrees with its sweep: each fault profile's faults are searched, and a
"holds" the sweep's runs contradict is either explained by the bounds it lacks or refused."""

from __future__ import annotations

import dataclasses

import pytest

from hwlib.check import FAULTS, Bounds, CheckResult, profile_faults, step_fault
from hwlib.check import verdict as check_verdict
from hwlib.profiles import ACTIONS, FaultProfile, load_profile
from hwlib.report.model_check import (
    CONFIG,
    ProfileCheck,
    ReportConsistencyError,
    beyond,
    findings,
    matrix,
    reconcile,
    run,
    sampling,
)
from hwlib.scenario import Scenario
from hwlib.sweep import parse_spec
from hwlib.sweep.runs import run_batch

#: crashes and quick restarts, no ticks: a reproducer of KIP-101's loss fits small bounds
NO_TICKS = {"name": "crash-mix", "weights": {"produce": 5, "replication_round": 4, "crash": 1, "quick_restart": 2},
            "restart_delay": [1, 4]}


def test_every_action_a_profile_can_draw_is_a_fault_the_check_searches():
    everything = FaultProfile(name="all", weights={a: 1 for a in ACTIONS}, power_loss_detected=0.5,
                              isolate_detected=0.5)
    faults, uncovered = profile_faults(everything)
    assert uncovered == () and set(faults) == set(FAULTS)
    assert profile_faults(load_profile("kip101-data-loss")) == (("crash", "quick_restart", "tick"), ())
    only_seen = FaultProfile(name="x", weights={"produce": 1, "power_loss": 1}, power_loss_detected=1)
    assert profile_faults(only_seen)[0] == ("power_loss",)


@pytest.fixture(scope="module")
def hw_losses():
    """A sweep (without Spark: its run table from ``run_batch``) in which hw loses acknowledged
    writes with crashes and quick restarts at 2 replicas."""
    spec = parse_spec({"name": "t", "seed": 4, "runs": 40, "profile": NO_TICKS,
                       "grid": {"protocol": ["hw"], "replicas": [2], "acks": ["all"], "min_insync_replicas": [1]}})
    runs = run_batch(spec, 0, spec.total_runs)
    assert (runs["n_lost_write"] > 0).any()
    return spec, runs


def _holds(bounds: Bounds, faults=("crash", "quick_restart")) -> ProfileCheck:
    """A check that claims hw's lost-write holds, complete, within ``bounds``, at the sweep's
    settings (``hw_losses``: min.insync.replicas=1)."""
    config = CONFIG.replace(protocol="hw", replicas=bounds.replica_ids, min_insync_replicas=1)
    result = CheckResult("hw", config, bounds, faults, complete=True, distinct=10, generated=20, depth=9)
    return ProfileCheck(["crash-mix"], faults, [result])


def test_the_witness_of_a_kind_is_taken_first_at_the_check_s_min_insync_replicas():
    """The sweep's run a "holds" is measured against comes first from the cells at the check's
    min.insync.replicas, where one shows the kind: the cell then names what the search left
    out, not a setting it did not have."""
    from hwlib.report.model_check import witnesses

    spec = parse_spec({"name": "t", "seed": 4, "runs": 40, "profile": NO_TICKS,
                       "grid": {"protocol": ["hw"], "replicas": [2], "acks": ["all"], "min_insync_replicas": [1, 2]}})
    runs = run_batch(spec, 0, spec.total_runs)
    lost = runs[runs["n_lost_write"] > 0]
    assert set(lost["min_insync_replicas"].astype(int)) == {1, 2}       # both settings lose writes here
    key = ("crash-mix", ("hw", ""), "lost-write")
    for setting in (1, 2):
        chosen = witnesses(spec, runs, ("lost-write",), setting)[key]
        assert chosen.cell.config.min_insync_replicas == setting
        first = lost[lost["min_insync_replicas"].astype(int) == setting].sort_values(["cell", "run"]).iloc[0]
        assert (chosen.cell.id, chosen.run) == (first["cell"], int(first["run"]))


def test_a_holds_the_sweep_contradicts_within_its_bounds_is_refused(hw_losses):
    spec, runs = hw_losses
    check = _holds(Bounds(replicas=2, max_records=50, max_epoch=50))
    with pytest.raises(ReportConsistencyError, match="lost-write holds under hw .* shows it within those bounds"):
        reconcile([check], spec, runs, kinds=("lost-write",))


def test_a_holds_the_sweep_contradicts_beyond_its_bounds_says_what_the_bounds_lack(hw_losses):
    spec, runs = hw_losses
    check = _holds(Bounds(replicas=1, max_records=50, max_epoch=50))
    reconcile([check], spec, runs, kinds=("lost-write",))
    verdict = check.verdict("hw", "lost-write")
    assert verdict.state == "beyond" and "2 replicas" in verdict.text
    assert "the sweep shows it (cell c000" in verdict.text
    text = findings([check], ("lost-write",), "x")[0].html
    assert "cannot under" not in text and "under hw the bounds are too small to tell" in text


def test_the_check_says_what_share_of_its_complete_spaces_the_profiles_random_runs_visit():
    spec = parse_spec({"name": "t", "seed": 4, "runs": 30, "profile": NO_TICKS,
                       "grid": {"protocol": ["hw", "kip320"], "replicas": [3], "acks": ["all"]}})
    (check,) = run(spec)
    hw, kip320 = check.results
    assert hw.complete and hw.violations and hw.coverage.reachable == hw.distinct
    assert kip320.complete and kip320.coverage.runs == 30 and kip320.coverage.reachable == kip320.distinct
    assert 0 < kip320.coverage.visited < kip320.distinct
    text = sampling(check)
    assert text.startswith("Random runs against this space: 30 runs of crash-mix")
    assert f"kip320: {kip320.coverage.visited:,} of {kip320.distinct:,}" in text
    assert text in matrix([check]).replace("&#x27;", "'")


def test_the_report_checks_each_profile_at_three_replicas_each_fault_once():
    """The report's check runs at the sweep's three replicas and durable setting (acks=all,
    min.insync.replicas=2), one record, each fault of the profile at most once and one tick: a
    budget that makes the search end (complete, or stopped at its state budget - then a cell says
    how deep it went, never a bare "holds")."""
    spec = parse_spec({"name": "t", "seed": 4, "runs": 5, "profile": "kip101-data-loss",
                       "grid": {"release": ["2.1"], "replicas": [3], "acks": ["all"]}})
    (check,) = run(spec)
    (result,) = check.results
    assert result.bounds.replicas == 3 and result.bounds.max_records == 1 and result.bounds.max_ticks == 1
    assert result.bounds.fault_budget == (("crash", 1), ("quick_restart", 1))
    assert result.config.min_insync_replicas == 2 and result.config.acks == "all"
    assert result.complete and not result.violations          # 2.1 keeps m1 at these bounds
    assert "3 replicas (acks=all, min.insync.replicas=2)" in check.coverage
    assert "each at most once: crash, quick restart" in check.coverage
    stopped = run(spec, max_states=100)[0].results[0]
    assert not stopped.complete and stopped.depth < result.depth
    assert check_verdict(stopped, "lost-write") == f"holds to depth {stopped.depth} (stopped past 100 states)"
    text = findings([check], ("lost-write",), "x")[0].html
    assert "every schedule at 3 replicas, at most 1 record and leader epoch 2, each at most once: crash" in text


def test_beyond_names_a_fault_taken_more_often_than_the_budget_allows():
    from hwlib import Step

    config = CONFIG.replace(protocol="hw")
    bounds = Bounds(replicas=3, max_records=1, fault_budget=(("crash", 1), ("quick_restart", 1)),
                    max_alter_partitions=0)
    result = CheckResult("hw", config, bounds, ("crash", "quick_restart"), complete=True)
    twice = Scenario("twice", config, (Step("produce", value="m1"), Step("crash", replica="B"),
                                       Step("restart", replica="B"), Step("crash", replica="B")))
    lacks = beyond(twice, result)
    assert "crash twice" in lacks and not any("quick restart" in words for words in lacks)
    # a crash noticed is the controller's ISR change, not the leader's: none counted
    assert not any("ISR change" in words for words in lacks)
    once = Scenario("once", config, twice.steps[:3])
    assert not any("crash" in words for words in beyond(once, result))
    # time passes: A shrinks the ISR to itself (its ZooKeeper write), B's fetch takes it back in
    tick = bounds.tick_length(config)
    lagged = Scenario("lagged", config, (Step("produce", value="m1"), Step("fetch", replica="B"),
                                         Step("tick", ms=tick), Step("fetch", replica="B")))
    assert "2 ISR changes sent by a leader" in beyond(lagged, result)


def test_beyond_names_each_bound_a_run_exceeds():
    from hwlib import Step, load_scenario

    scenario = load_scenario("hw8-leo10-loss")            # 2 replicas, 10 records, leader epoch 1
    result = CheckResult("hw", CONFIG.replace(protocol="hw"), Bounds(replicas=2, max_records=2, max_epoch=0,
                         max_ticks=1), ("crash", "tick"), complete=True)
    lacks = beyond(scenario, result)
    assert lacks == ["min.insync.replicas=1", "10 records", "leader epoch 1", "flushes, quick restarts"]
    # a search at 3 replicas does not cover a 2-replica cluster either
    assert beyond(scenario, dataclasses.replace(result, bounds=Bounds(replicas=3, max_records=10, max_epoch=1,
                                                                      max_ticks=1)))[0] == "2 replicas"
    kip966 = CONFIG.replace(protocol="kip966")
    queued = CheckResult("kip966", kip966, Bounds(replicas=3, max_queued=1), ("elect", "isolate_unseen"),
                         complete=True)
    cut_off = Scenario("cut-off", kip966, (Step("isolate", replica="B", detected=False), Step("elect", replica="B"),
                                           Step("elect", replica="A")))      # two leader changes wait for B
    assert beyond(cut_off, queued) == ["2 changes queued for a cut-off broker"]
    assert beyond(cut_off, dataclasses.replace(queued, bounds=Bounds(replicas=3, max_queued=2))) == []
    assert step_fault(Step("crash", replica="A", lose_unflushed=True, detected=False)) == "power_loss_unseen"
    assert step_fault(Step("produce", value="v", replica="B")) == "stale_produce"
    assert step_fault(Step("restart", replica="A")) is None


def test_a_check_given_a_sweep_reconciles_its_verdicts_as_the_report_does(hw_losses):
    """``hwlib check --sweep`` / notebook 03's ``sweep_dir``: the sweep's profiles whose faults
    the check searches are its witnesses, and a "holds" they contradict says what the bounds
    lack; a check whose faults cover no profile of the sweep is refused before it runs."""
    from hwlib.report.model_check import sweep_check, witness_profiles

    spec, runs = hw_losses
    faults = ("crash", "quick_restart")
    assert witness_profiles(spec, faults) == ["crash-mix"]
    with pytest.raises(ReportConsistencyError, match="sweep: no fault profile of the sweep fires only faults"):
        witness_profiles(spec, ("crash",))
    check = _holds(Bounds(replicas=1, max_records=50, max_epoch=50))
    reconciled = sweep_check(spec, runs, ["crash-mix"], faults, check.results, ("lost-write",))
    assert reconciled.verdict("hw", "lost-write").state == "beyond"


def test_check_against_sweep_is_the_one_answer_of_hwlib_check_and_notebook_03(hw_losses, monkeypatch, tmp_path):
    """A real search (hw at 1 replica: crashes and quick restarts lose nothing there) says
    lost-write holds; reconciled with a sweep whose runs lose writes at 2 replicas it says what
    the bounds lack, names the sweep and its witness profiles, and still says which fault
    classes of the default report it did not try. A sweep that cannot be read stops it before
    the --out directory is opened."""
    from hwlib.check import CheckSpec
    from hwlib.report import model_check

    config = CONFIG.replace(replicas=("A",), min_insync_replicas=1)
    request = CheckSpec(protocols=("hw",), config=config, unclean_leader_election=False, bounds=Bounds(replicas=1),
                        faults=("crash", "quick_restart"), kinds=("lost-write",))
    alone = model_check.check_against_sweep(request)
    assert alone.verdicts[("hw", "lost-write")].state == "holds" and alone.results[0].complete
    assert (alone.reconciled, alone.witnesses, alone.violated) == ("", (), False)
    assert alone.untried == ("time passing", "power loss", "flushes", "leader moves")
    assert alone.note.endswith("not tried: check with --profile power-loss --max-ticks 1; "
                               "--profile leader-moves --max-ticks 1")
    monkeypatch.setattr(model_check, "load_sweep", lambda path, field: hw_losses)
    swept = model_check.check_against_sweep(request, "the-sweep")
    assert swept.verdicts[("hw", "lost-write")].state == "beyond"
    assert swept.witnesses == ("crash-mix",) and swept.untried == alone.untried
    assert swept.reconciled == "reconciled with the sweep in the-sweep (profiles crash-mix)"
    out = tmp_path / "out"
    with pytest.raises(ReportConsistencyError, match="sweep_dir: no fault profile of the sweep"):
        model_check.check_against_sweep(dataclasses.replace(request, faults=("crash",), out=str(out)), "the-sweep",
                                        "sweep_dir")
    assert not out.exists()


def test_a_release_named_with_its_patch_is_reconciled_with_the_sweep_s_line():
    """``hwlib check --release 0.10.2.2 --sweep DIR`` meets the sweep's ``0.10.2`` runs (one row
    of the release table): its "holds" says what the bounds lack, and the release written two
    ways is not a setting they lack (it was left unreconciled: a bare "holds")."""
    from hwlib.engine.config import ClusterConfig
    from hwlib.report.model_check import same_rules

    assert same_rules("0.10.2.2") == same_rules("0.10.2") != same_rules("hw")
    spec = parse_spec({"name": "t", "seed": 4, "runs": 40, "profile": NO_TICKS,
                       "grid": {"release": ["0.10.2"], "replicas": [2], "acks": ["all"], "min_insync_replicas": [1],
                                "unclean_leader_election": [False]}})
    runs = run_batch(spec, 0, spec.total_runs)
    assert (runs["n_lost_write"] > 0).any()
    faults = ("crash", "quick_restart")
    config = ClusterConfig(replicas=("A",), release="0.10.2.2", acks="all", unclean_leader_election=False)
    result = CheckResult("0.10.2.2", config, Bounds(replicas=1, max_records=50, max_epoch=50), faults, complete=True)
    check = ProfileCheck(["crash-mix"], faults, [result])
    reconcile([check], spec, runs, kinds=("lost-write",))
    verdict = check.verdict("0.10.2.2", "lost-write")
    assert verdict.state == "beyond" and "with 2 replicas, beyond them" in verdict.text, verdict.text


def test_the_report_has_words_for_every_action_a_profile_can_draw():
    """The profile table names each action in words (a profile drawing an action without them
    stopped the report: a log-start sweep of the retention profile did)."""
    from hwlib.report.tables import ACTION_WORDS, FAULTS_PER_RUN

    assert set(ACTION_WORDS) == set(ACTIONS)
    assert set(FAULTS_PER_RUN) <= set(ACTIONS)
