"""A check request (CheckSpec): validated once, one written form, one tick rule; the three callers build it."""

from __future__ import annotations

import json

import pytest

from hwlib.check import DEFAULT_FAULTS, DEFAULT_KINDS, Bounds, CheckError, CheckSpec, open_directory, run
from hwlib.cli import build_parser
from hwlib.commands.check import to_spec
from hwlib.engine.config import PROTOCOLS, ClusterConfig
from hwlib.profiles import load_profile
from hwlib.report import model_check as report_check


def test_defaults_are_hwlib_checks_and_every_value_is_normalised():
    spec = CheckSpec()
    assert spec.protocols == ("hw",) and spec.faults == DEFAULT_FAULTS and spec.kinds == DEFAULT_KINDS
    assert spec.config.replicas == ("A", "B") and spec.bounds == Bounds()
    assert CheckSpec(protocols=("all",)).protocols == tuple(PROTOCOLS)
    assert CheckSpec(protocols=("3.7-kraft", "hw")).protocols == ("3.7-kraft", "hw")     # the order given
    assert CheckSpec(bounds=Bounds(replicas=3)).config.replicas == ("A", "B", "C")


def test_the_written_form_reads_back_to_an_equal_spec_through_json():
    spec = CheckSpec(protocols=("0.10.2", "kip320"), unclean_leader_election=False,
                     config=ClusterConfig(replicas=("A", "B"), acks="1", min_insync_replicas=2),
                     bounds=Bounds(replicas=2, max_records=3, depth=9, max_states=5000), kinds=("lost-write",),
                     profile=load_profile("power-loss"), coverage_runs=7, coverage_seed=3, workers=2, memory=1.5,
                     out="somewhere", resume=True, checkpoint_every=0)
    again = CheckSpec.from_dict(json.loads(json.dumps(spec.to_dict())))
    assert again == spec and again.to_dict() == spec.to_dict()
    assert again.bounds.max_ticks == 1              # power-loss lets time pass: the tick rule
    assert set(spec.identity()) == {"tool", "format", "protocols", "kinds", "bounds", "faults", "exhaustive",
                                    "config", "unclean_leader_election"}
    # how a check runs is not what it is: the same identity on other workers, without coverage
    other = CheckSpec.from_dict({**spec.to_dict(), "workers": 1, "coverage_runs": None, "memory": None})
    assert other.identity() == spec.identity()


def test_unclean_election_none_follows_each_release_and_a_value_is_kept():
    follow, off = CheckSpec(protocols=("0.10.2", "kip101")), CheckSpec(protocols=("0.10.2",),
                                                                       unclean_leader_election=False)
    assert follow.config_for("0.10.2").unclean_leader_election is True        # 0.10.2's default
    assert follow.config_for("kip101").unclean_leader_election is False
    assert off.config_for("0.10.2").unclean_leader_election is False
    searched = CheckSpec.of_search(follow.config_for("0.10.2"), Bounds(), DEFAULT_FAULTS)
    assert searched.config_for(searched.protocols[0]) == follow.config_for("0.10.2")


@pytest.mark.parametrize(("changes", "message"), [
    ({"protocols": ("kip999",)}, "protocols: 'kip999' is neither a generation"),
    ({"protocols": ()}, "protocols: give at least one generation or release, or all"),
    ({"faults": ("meteor",)}, "faults: 'meteor' is not a fault"),
    ({"kinds": ("lost",)}, "kinds: 'lost' is not an anomaly kind"),
    ({"bounds": Bounds(max_ticks=2)}, "max-ticks: give --faults ... ,tick as well"),
    ({"workers": 0}, "workers: must be an integer >= 1, got 0"),
    ({"coverage_runs": 3}, "coverage-runs: give --profile as well"),
    ({"memory": 0}, "memory: must be a finite number of GiB > 0, got 0"),
    ({"checkpoint_every": -1}, "checkpoint-every: must be a number of seconds >= 0, got -1"),
    ({"resume": True}, "resume: give the --out directory of the check to resume"),
    ({"profile": load_profile("power-loss"), "faults": ("crash",)}, "faults: give a fault profile or faults"),
    ({"protocols": ("kip966",), "bounds": Bounds(replicas=3), "faults": ("crash", "isolate_unseen")},
     "max-queued: needed for kip966 at 3 replicas"),
])
def test_a_bad_request_is_one_line_naming_its_field(changes, message):
    with pytest.raises(CheckError, match=None) as info:
        CheckSpec(**changes)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_the_tick_rule_is_one_rule_for_the_command_line_the_notebook_and_the_report():
    """With time passing among the faults a check takes up to max_ticks ticks, at least one;
    the command line (no --max-ticks), notebook 03 (its default 1) and the report (its bounds)
    give the same bounds."""
    cli = to_spec(build_parser().parse_args(["check", "--profile", "power-loss"]))
    notebook = CheckSpec(profile=load_profile("power-loss"), bounds=Bounds(max_ticks=1))
    report = CheckSpec(profile=load_profile("power-loss"), bounds=report_check.BOUNDS)
    assert cli.bounds.max_ticks == notebook.bounds.max_ticks == report.bounds.max_ticks == 1
    assert CheckSpec(bounds=Bounds(max_ticks=0), faults=("tick",)).bounds.max_ticks == 1
    assert CheckSpec(faults=("crash",)).bounds.max_ticks == 0


def test_run_searches_writes_and_finishes_the_directory(tmp_path):
    spec = CheckSpec(protocols=("hw", "kip101"), faults=("crash", "quick_restart"), kinds=("lost-write",),
                     out=str(tmp_path / "out"))
    directory = open_directory(spec)
    assert json.loads((tmp_path / "out" / "check.json").read_text()) == {**spec.identity(), "finished": False}
    done = run(spec, directory=directory)
    assert [r.protocol for r in done.results] == ["hw", "kip101"]
    assert "lost-write" in done.results[0].violations and not done.results[1].violations
    assert set(done.scenarios) == {"hw-lost-write"} and done.scenarios["hw-lost-write"].is_file()
    assert json.loads((tmp_path / "out" / "check.json").read_text())["finished"] is True
    assert (tmp_path / "out" / "matrix.parquet").is_file()
