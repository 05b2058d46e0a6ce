"""Coverage of random runs: the share of a complete search's reachable states a fault profile's seeded runs visit."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hwlib import ClusterConfig, Step
from hwlib.check import Bounds, CheckError, CheckSpec, profile_faults, run
from hwlib.check.coverage import Visits, _walk
from hwlib.profiles import load_profile

from ..helpers.check import explored


def _config(protocol: str) -> ClusterConfig:
    return ClusterConfig(replicas=("A", "B"), protocol=protocol, acks="all")


def _searched(protocol: str, faults: tuple[str, ...], bounds: Bounds) -> Visits:
    visits = Visits()
    explored(_config(protocol), bounds, faults, ("strong-isr",), exhaustive=True, level_done=visits.level_done)
    return visits


def test_a_walk_along_the_searchs_own_schedules_meets_only_reachable_states():
    """Every state on a path the search took is counted, whatever the records are called."""
    faults = ("elect", "isolate", "isolate_unseen", "deliver")
    visits = _searched("kip320", faults, Bounds(replicas=2))
    search = visits.search
    assert search is not None and search.result.complete
    deepest = len(search.seen) - 1       # the last state numbered
    path = [Step("produce", value=s.value.replace("m", "v"), replica=s.replica) if s.kind == "produce" else s
            for s in search.path(deepest)]
    met: set[int] = set()
    walked, kept = _walk(search, path, met)
    assert walked == kept == len(path) >= 10
    assert len(met) == len(path) and all(key in search.seen for key in met)


def test_a_walk_is_counted_until_it_leaves_the_bounds():
    visits = _searched("kip320", ("elect",), Bounds(replicas=2, max_records=1))
    search = visits.search
    met: set[int] = set()
    steps = [Step("produce", value="v1"), Step("fetch", replica="B"), Step("produce", value="v2"),
             Step("fetch", replica="B")]
    assert _walk(search, steps, met) == (4, 2)
    assert len(met) == 2


def test_coverage_of_a_profiles_runs_is_a_share_of_the_reachable_states_and_repeatable():
    profile = load_profile("leader-moves")
    faults, _ = profile_faults(profile)
    bounds = Bounds(replicas=2, max_records=1)
    one = _searched("kip320", faults, bounds).measure(profile, 20)
    two = _searched("kip320", faults, bounds).measure(profile, 20)
    assert one == two
    assert one.runs == 20 and one.reachable == len(_searched("kip320", faults, bounds).search.seen)
    assert 0 < one.visited < one.reachable and 0 < one.in_bounds < one.steps
    assert "20 random runs of leader-moves visit" in one.text()


def test_an_incomplete_search_has_no_coverage():
    profile = load_profile("leader-moves")
    faults, _ = profile_faults(profile)
    bounds = Bounds(replicas=2, depth=3)
    visits = _searched("kip320", faults, bounds)
    with pytest.raises(CheckError, match="did not complete"):
        visits.measure(profile, 5)
    request = CheckSpec(protocols=("kip320", "hw"), config=_config("kip320"), bounds=Bounds(replicas=2, max_records=1),
                        profile=profile, kinds=("strong-isr",), coverage_runs=5)
    results = run(request).results
    by = {r.protocol: r for r in results}
    assert by["kip320"].complete and by["kip320"].coverage is not None
    assert not by["hw"].complete and by["hw"].coverage is None       # stopped at its violation


def test_the_command_line_prints_coverage_and_refuses_it_without_a_profile():
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--protocol", "kip320", "--max-records", "1",
                           "--profile", "leader-moves", "--max-ticks", "1", "--coverage-runs", "10", "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "coverage: 10 random runs of leader-moves visit" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "hwlib.cli", "check", "--coverage-runs", "10"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "coverage-runs" in bad.stderr


def test_a_resumed_check_keeps_the_coverage_its_finished_searches_measured(tmp_path):
    args = [sys.executable, "-m", "hwlib.cli", "check", "--protocol", "kip320", "--max-records", "1",
            "--profile", "leader-moves", "--max-ticks", "1", "--quiet", "--out", str(tmp_path / "out")]
    first = subprocess.run([*args, "--coverage-runs", "10"], capture_output=True, text=True)
    line = next(x for x in first.stdout.splitlines() if "coverage:" in x)
    assert "10 random runs of leader-moves visit" in line
    again = subprocess.run([*args, "--coverage-runs", "10", "--resume"], capture_output=True, text=True)
    assert line in again.stdout.splitlines()
    other = subprocess.run([*args, "--coverage-runs", "20", "--resume"], capture_output=True, text=True)
    assert "coverage: not measured: an earlier run finished this search with other --coverage-runs" in other.stdout


def test_a_small_share_reads_as_small_not_as_nothing():
    """The share of the reachable states random runs visit is often far below 0.1% at 3
    replicas or long bounds: two significant digits there, so it never prints as 0.0%."""
    from hwlib.check import share_text

    assert share_text(492 / 1_726_570) == "0.028%"
    assert share_text(0.00099) == "0.099%"
    assert share_text(1e-7) == "0.000010%"
    assert share_text(0.022) == "2.2%" and share_text(1.0) == "100.0%"
    assert share_text(0.0) == "0%"
