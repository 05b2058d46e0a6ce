"""Fault budgets and the AlterPartition bound: counters each state carries, as a TLA+ specification's fault counters."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import pytest

from hwlib import Cluster, ClusterConfig, Step
from hwlib.check import Bounds, CheckError, CheckSpec
from hwlib.check.spec_files import FIELDS, builtin_check_specs, load_check_spec
from hwlib.cli import build_parser
from hwlib.commands.check import to_spec
from hwlib.engine.releases import rules_named
from hwlib.model.budget import Counters, isr_requests
from hwlib.model.space import endless
from hwlib.model.vocabulary import parse_budget

from ..helpers.check import explored


def _config(protocol: str, replicas: int = 2, **settings) -> ClusterConfig:
    names = ("A", "B", "C")[:replicas]
    return ClusterConfig(replicas=names, protocol=protocol, **settings)


def test_the_counters_pack_ticks_first_so_a_search_without_budgets_keeps_its_fingerprints():
    ticks_only = Counters(Bounds(max_ticks=2))
    assert [ticks_only.charge(n, "tick") for n in range(3)] == [1, 2, None]     # spent == ticks passed
    assert ticks_only.charge(0, "isolate") == 0 and ticks_only.charge(0, None) == 0
    none = Counters(Bounds())
    assert none.charge(0, "tick") is None                                        # no tick may pass at 0
    counted = Counters(Bounds(max_ticks=1, fault_budget=(("power_loss", 1), ("isolate", 2)), max_alter_partitions=1))
    assert list(counted.places) == ["tick", "isolate", "power_loss", "alter_partition"]     # FAULTS order
    spent = 0
    for name in ("isolate", "tick", "isolate", "alter_partition", "power_loss"):
        spent = counted.charge(spent, name)
        assert spent is not None
    assert counted.describe(spent) == {"tick": 1, "isolate": 2, "power_loss": 1, "alter_partition": 1}
    assert [counted.charge(spent, name) for name in counted.places] == [None] * 4
    assert counted.charge(0, "alter_partition", 2) is None


def test_a_leaders_isr_change_is_counted_once_whether_answered_at_once_or_after_a_reconnect():
    """An AlterPartition from a leader cut off from the controller is counted when sent, not
    again when the reconnect brings its answer; one answered at once is counted then; a
    ZooKeeper ISR write counts as well, a controller's own ISR change does not."""
    lag = _config("kip966").replica_lag_time_max_ms

    def counts(protocol: str, steps: list[Step]) -> list[int]:
        cluster = Cluster(_config(protocol))
        out = []
        for step in steps:
            logged = len(cluster.events)
            cluster.apply(step)
            out.append(isr_requests(step, cluster.events[logged:]))
        return out

    steps = [Step("produce", value="m1"), Step("isolate", replica="A", detected=False), Step("tick", ms=3 * lag),
             Step("reconnect", replica="A"), Step("fetch", replica="B"), Step("fetch", replica="B")]
    assert counts("kip966", steps) == [0, 0, 1, 0, 0, 1]
    assert counts("hw", [Step("produce", value="m1"), Step("tick", ms=3 * lag)]) == [0, 1]        # ZooKeeper write
    assert counts("kip966", [Step("isolate", replica="B")]) == [0]            # the controller shrinks the ISR


@pytest.mark.parametrize("bad, message", [
    ("power_loss", r"^fault-budget: 'power_loss' is not FAULT=COUNT \(e\.g\. power_loss=1,isolate=1\)$"),
    ("power_loss=-1", r"^fault-budget: 'power_loss=-1' is not FAULT=COUNT"),
    ("meteor=1", r"^fault-budget: 'meteor' is not a fault; any of: elect, isolate, "),
    ("tick=2", r"^fault-budget: tick is bounded by --max-ticks$"),
    ({"crash": True}, r"^fault-budget: crash's limit must be an integer >= 0, got True$"),
    ([("crash", 1), ("crash", 2)], r"^fault-budget: crash is given twice$"),
])
def test_a_bad_fault_budget_is_one_line_naming_it(bad, message):
    with pytest.raises(CheckError, match=message):
        parse_budget(bad)
    if isinstance(bad, list):
        with pytest.raises(CheckError, match=message):
            Bounds(fault_budget=tuple(bad))


def test_the_bounds_written_form_keeps_old_identities_and_carries_the_budgets():
    assert set(Bounds().as_dict()) == {"replicas", "max_records", "max_epoch", "max_ticks", "depth", "tick_ms",
                                       "max_states", "max_queued"}      # a check written before budgets: same marker
    bounds = Bounds(replicas=3, fault_budget=parse_budget("power_loss=1, isolate=1"), max_alter_partitions=1)
    assert bounds.fault_budget == (("isolate", 1), ("power_loss", 1)) == parse_budget({"power_loss": 1, "isolate": 1})
    assert Bounds(replicas=3, fault_budget=(("power_loss", 1), ("isolate", 1)), max_alter_partitions=1) == bounds
    assert Bounds.from_dict(json.loads(json.dumps(bounds.as_dict()))) == bounds == pickle.loads(pickle.dumps(bounds))
    with pytest.raises(CheckError, match=r"^max-alter-partitions: must be an integer >= 0, got -1$"):
        Bounds(max_alter_partitions=-1)
    with pytest.raises(CheckError, match=r"^fault-budget: power_loss is not among the faults searched \(elect, "):
        CheckSpec(bounds=Bounds(fault_budget=(("power_loss", 1),)))


def test_a_budget_of_zero_leaves_the_fault_out_and_a_larger_one_reaches_further():
    """isolate=0 reaches exactly the states of a search without isolation; the states grow with
    the budget, and every verdict within a budget is the unbudgeted search's or weaker. With
    no AlterPartition allowed, fewer states, and no counterexample's step sends one (KIP-101's
    lost write needs none)."""
    config = _config("kip101")

    def search(faults, **bounds):
        return explored(config, Bounds(replicas=2, max_records=1, **bounds), faults, ("strong-isr", "lost-write"),
                        True)

    without = search(("crash", "quick_restart"))
    zero = search(("crash", "quick_restart", "isolate"), fault_budget=(("isolate", 0),))
    assert zero.distinct == without.distinct and zero.violations.keys() == without.violations.keys()
    one = search(("crash", "quick_restart", "isolate"), fault_budget=(("isolate", 1),))
    free = search(("crash", "quick_restart", "isolate"))
    assert without.distinct < one.distinct
    assert one.violations.keys() <= free.violations.keys()
    capped = search(("crash", "quick_restart", "isolate", "tick"), max_alter_partitions=0)
    assert capped.distinct < search(("crash", "quick_restart", "isolate", "tick")).distinct
    hw = _config("hw")
    capped = explored(hw, Bounds(replicas=2, max_records=1, max_alter_partitions=0),
                      ("crash", "quick_restart", "isolate", "tick"), ("strong-isr", "lost-write"), True)
    assert set(capped.violations) == {"strong-isr", "lost-write"}
    for found in capped.violations.values():        # no counterexample sends an ISR change
        cluster = Cluster(hw)
        for step in found.steps:
            logged = len(cluster.events)
            cluster.apply(step)
            assert isr_requests(step, cluster.events[logged:]) == 0


def test_a_budget_on_every_noticed_loss_or_the_alter_partitions_ends_a_kip966_search():
    """KAFKA-15021's endless rounds (an ISR shrink keeps the leader epoch) need a noticed loss
    and an ISR expansion each: a budget on either ends them; one on the unnoticed isolation
    alone does not."""
    rules = rules_named("kip966")
    faults = ("isolate", "isolate_unseen", "crash")
    assert endless("kip966", rules, Bounds(replicas=3), faults) is not None
    assert endless("kip966", rules, Bounds(replicas=3, fault_budget=(("isolate_unseen", 1),)), faults) is not None
    assert endless("kip966", rules, Bounds(replicas=3, fault_budget=(("isolate", 1),)), faults) is not None
    assert endless("kip966", rules, Bounds(replicas=3, fault_budget=(("isolate", 1), ("crash", 2))), faults) is None
    assert endless("kip966", rules, Bounds(replicas=3, max_alter_partitions=2), faults) is None


def test_the_kip966_spec_is_vanlightlys_fault_budget_and_the_command_line_wins_over_it():
    assert "kip966-elr" in builtin_check_specs()
    spec = to_spec(build_parser().parse_args(["check", "--spec", "kip966-elr"]))
    assert spec.protocols == ("4.1",) and spec.config.replicas == ("A", "B", "C")
    assert spec.config.min_insync_replicas == 2 and spec.bounds.max_records == 1
    assert spec.bounds.fault_budget == (("isolate", 1), ("power_loss", 1)) and spec.bounds.max_alter_partitions == 1
    assert spec.faults == ("isolate", "power_loss", "tick") and spec.bounds.max_ticks == 1
    over = to_spec(build_parser().parse_args(["check", "--spec", "kip966-elr", "--release", "4.0", "--replicas", "2",
                                              "--fault-budget", "isolate=2", "--min-insync-replicas", "1"]))
    assert over.protocols == ("4.0",) and over.config.replicas == ("A", "B")
    assert over.bounds.fault_budget == (("isolate", 2),) and over.config.min_insync_replicas == 1
    assert over.bounds.max_alter_partitions == 1                    # the rest is the spec's
    profiled = to_spec(build_parser().parse_args(["check", "--spec", "kip966-elr", "--profile", "power-loss",
                                                  "--fault-budget", "power_loss=1"]))     # a profile wins as faults
    assert "power_loss_unseen" in profiled.faults and profiled.bounds.fault_budget == (("power_loss", 1),)
    with pytest.raises(CheckError, match=r"^fault-budget: isolate is not among the faults searched \(crash, "):
        to_spec(build_parser().parse_args(["check", "--spec", "kip966-elr", "--profile", "power-loss"]))


def test_a_bad_check_spec_file_is_one_line_and_exit_2(tmp_path):
    cases = {
        "unknown.yaml": ("replicas: 3\nmax_recs: 1\n", r"unknown field 'max_recs'; allowed: release, protocol"),
        "list.yaml": ("- 1\n", r"expected a mapping of fields"),
        "both.yaml": ("release: '4.1'\nprotocol: kip966\n", r"give release or protocol, not both"),
        "faults.yaml": ("faults: 3\n", r"faults must be a list of names, got 3"),
        "config.yaml": ("config: [a]\n", r"config must be a mapping"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(CheckError, match=message):
            load_check_spec(str(path))
    run = subprocess.run([sys.executable, "-m", "hwlib", "check", "--spec", str(tmp_path / "unknown.yaml")],
                         capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == "" and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "unknown field 'max_recs'" in run.stderr
    with pytest.raises(CheckError, match=r"^spec: 'nowhere' is neither a built-in check spec nor a file; built-ins: "
                                         r"kip966-elr"):
        load_check_spec("nowhere")
    assert set(load_check_spec("kip966-elr")) <= set(FIELDS)


def test_without_eligible_leader_replicas_vanlightlys_fault_budget_loses_the_acknowledged_write():
    """4.0's rules (ELR off) at the kip966-elr spec's budget: the last replica standing - B, the
    ISR's one member after A's fence and C's lag, loses m1 in a power loss and is elected again
    with nothing - in 9 steps, with at most one fence and one power loss."""
    spec = to_spec(build_parser().parse_args(["check", "--spec", "kip966-elr", "--release", "4.0",
                                              "--kinds", "lost-write", "--workers", "1"]))
    result = explored(spec.config_for("4.0"), spec.bounds, spec.faults, ("lost-write",))
    found = result.violations["lost-write"]
    kinds = [step.kind for step in found.steps]
    assert found.depth == 9 and kinds.count("isolate") == 1 and kinds.count("crash") == 1
    assert kinds[-2:] == ["crash", "restart"] and found.steps[-2].lose_unflushed


@pytest.mark.slow
def test_with_eligible_leader_replicas_every_kind_holds_within_vanlightlys_fault_budget():
    """4.1 (ELR on) at the same budget: complete, every kind holds (56,012 distinct states)."""
    spec = to_spec(build_parser().parse_args(["check", "--spec", "kip966-elr", "--workers", "1"]))
    result = explored(spec.config_for("4.1"), spec.bounds, spec.faults, spec.kinds, True)
    assert result.complete and not result.violations
    assert result.distinct == 56_012


def test_a_budgeted_produce_fault_is_charged_and_a_cold_frontier_replays_to_the_same_counters():
    """A produce can be a fault (its acknowledgement lost): a budget of 0 leaves it out. A
    search whose frontier is kept cold - every state rebuilt by replaying its schedule,
    charging the counters as it goes - finds exactly what the live search finds."""
    config = _config("kip101")
    bounds = Bounds(replicas=2, max_records=2, fault_budget=(("isolate", 1), ("lost_ack", 1)))
    faults = ("isolate", "crash", "lost_ack")
    none = explored(config, Bounds(replicas=2, max_records=2), ("isolate", "crash"), ("lost-write",), True)
    zero = explored(config, Bounds(replicas=2, max_records=2, fault_budget=(("lost_ack", 0),)), faults,
                    ("lost-write",), True)
    live = explored(config, bounds, faults, ("lost-write", "strong-isr"), True)
    cold = explored(config, bounds, faults, ("lost-write", "strong-isr"), True, memory=1e-9)
    live_counts, cold_counts = live.as_dict(), cold.as_dict()
    del live_counts["seconds"], cold_counts["seconds"]
    assert live_counts == cold_counts and live.distinct > 1000
    assert none.distinct == zero.distinct and none.violations.keys() == zero.violations.keys()
