"""A broker back on a new, empty disk (``replace_disk``): what it loses, when the step acts, and its vocabulary."""

from __future__ import annotations

import pytest

import hwlib
from hwlib import Cluster, ClusterConfig, Step, parse_step, run_steps
from hwlib.check import Bounds
from hwlib.errors import ScenarioError
from hwlib.faults import FAULT_KINDS, fired_faults, generate
from hwlib.model.vocabulary import FAULTS, step_fault
from hwlib.profiles import load_profile

from ..helpers.check import explored

BEFORE = [Step("produce", value="m1"), Step("fetch", replica="B"), Step("fetch", replica="B"),
          Step("flush", replica="B"), Step("crash", replica="B")]


def applied(config: ClusterConfig, steps: list[Step]) -> Cluster:
    cluster = Cluster(config)
    for step in steps:
        cluster.apply(step)
    return cluster


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_the_broker_comes_back_empty_and_refetches_as_a_follower(protocol):
    config = ClusterConfig(replicas=("A", "B"), protocol=protocol)
    result = run_steps(config, BEFORE + [Step("replace_disk", replica="B")])
    after = result.trace.snapshots[-1]["replicas"]["B"]
    cluster = applied(config, BEFORE + [Step("replace_disk", replica="B")])
    b = cluster.by_id["B"]
    assert (b.log.values, b.log.cache.entries, b.hw, b.hw_checkpoint, b.online) == ([], [], 0, 0, True)
    assert ("replace_disk", "B", 1) in result.events and result.events.index(("replace_disk", "B", 1)) < \
        result.events.index(("restart", "B"))
    assert "B" not in cluster.controller.isr and cluster.controller.leader == "A"
    assert after["log"] == [] and after["hw"] == 0
    refetched = run_steps(config, BEFORE + [Step("replace_disk", replica="B"), Step("fetch", replica="B"),
                                            Step("fetch", replica="B"), Step("crash", replica="A")])
    assert refetched.acked == ["m1"] and "lost-write" not in refetched.anomaly_kinds()
    assert refetched.final["replicas"]["B"]["log"] == [[0, 0, "m1"]] and refetched.final["leader"] == "B"


def test_elected_uncleanly_it_loses_every_acknowledged_record():
    config = ClusterConfig(replicas=("A", "B"), protocol="kip595", unclean_leader_election=True)
    result = run_steps(config, BEFORE + [Step("replace_disk", replica="B"), Step("crash", replica="A")])
    assert ("leader", "A", "B", 2, "unclean") in result.events and "lost-write" in result.anomaly_kinds()


def test_under_kip966_a_new_disk_is_an_unclean_shutdown():
    config = ClusterConfig(replicas=("A", "B"), protocol="kip966")
    assert "B" in applied(config, BEFORE + [Step("replace_disk", replica="B")]).controller.ineligible


@pytest.mark.parametrize("before, reason", [
    ([], "replica is online (a disk is replaced while its broker is down)"),
    ([Step("crash", replica="B", detected=False)], "the controller has not noticed the broker down"),
])
def test_it_skips_where_no_disk_can_be_replaced_and_says_why(before, reason):
    result = run_steps(ClusterConfig(replicas=("A", "B")), before + [Step("replace_disk", replica="B")])
    skips = [e for e in result.events if e[0] == "skip"]
    assert skips and skips[-1][1:3] == ("replace_disk", "B") and skips[-1][3].startswith(reason)


def test_kafka_14139_an_alter_isr_made_before_the_restart_adds_the_empty_broker_under_kip595_only():
    """Kafka 2.7's AlterIsr (KIP-497) is accepted on the leader epoch alone: the empty B joins
    the ISR and is elected; up to 2.6 the leader wrote the ISR itself (B was removed when it
    failed); KRaft 3.5+ (KIP-903) rejects it by B's new broker epoch."""
    name = "kafka-14139-replaced-disk"
    losses = {p: "lost-write" in hwlib.run_scenario(name, protocol=p).anomaly_kinds() for p in hwlib.PROTOCOLS}
    assert losses == {"hw": False, "kip101": False, "kip279": False, "kip320": False, "kip595": True,
                      "kip841": True, "kip903": False, "kip966": False}
    kip595, kip966 = (hwlib.run_scenario(name, protocol=p) for p in ("kip595", "kip966"))
    assert ("alter_isr_sent", "A", 0, ("A", "B"), "B caught up to HW 2", "AlterIsr") in kip595.events
    assert ("isr", ("A",), ("A", "B"), "B caught up to HW 2", "AlterIsr") in kip595.events
    assert ("isr_ineligible", "A", ("A", "B"), ("B",)) in kip966.events
    assert ("leader", "A", "B", 1, "isr") in kip595.events and kip595.acked == ["m1", "m2"]


def test_an_alter_isr_in_flight_holds_the_isr_and_counts_the_maximal_one():
    """While A's AlterIsr waits (A cut off from the controller), A sends no other ISR change
    and computes its HW over the maximal ISR; a new leader epoch makes the controller refuse
    it (Kafka 2.7's processAlterIsr: FENCED_LEADER_EPOCH)."""
    config = ClusterConfig(replicas=("A", "B"), protocol="kip595", min_insync_replicas=1)
    steps = [Step("produce", value="m1", acks="1"), Step("tick", ms=46000),
             Step("isolate", replica="A", detected=False), Step("fetch", replica="B"), Step("fetch", replica="B")]
    cluster = applied(config, steps)
    a = cluster.by_id["A"]
    assert a.alter_isr is not None and a.isr == ("A",) and cluster.controller.isr == ("A",)
    cluster.apply(Step("elect", replica="A"))          # skipped: A leads already
    cluster.apply(Step("crash", replica="B"))
    cluster.apply(Step("restart", replica="B"))
    cluster.apply(Step("reconnect", replica="A"))
    # a bounce outside the ISR; the shrink's answer left A's HW at 0 (2.8, KAFKA-13091), so B joined at HW 0
    assert ("isr", ("A",), ("A", "B"), "B caught up to HW 0", "AlterIsr") in cluster.events
    moved = applied(config, steps + [Step("produce", value="m2"), Step("crash", replica="A"),
                                     Step("restart", replica="A")])
    assert moved.by_id["A"].alter_isr is None                   # a crash drops the request


def test_kip841_a_fenced_broker_is_not_added_to_the_isr_under_kraft_but_is_in_zookeeper_mode():
    """hwlib check's 8-step counterexample for kip595: A's AlterIsr, made while B was alive,
    adds B after B went down (2.7's processAlterIsr does not ask); B then comes back empty,
    inside the ISR. KRaft from 3.3 (KIP-841) rejects a fenced member."""
    steps = [Step("produce", value="m1"), Step("fetch", replica="B"), Step("tick", ms=45001),
             Step("isolate", replica="A", detected=False), Step("fetch", replica="B"), Step("crash", replica="B"),
             Step("reconnect", replica="A"), Step("replace_disk", replica="B")]
    kinds = {p: run_steps(ClusterConfig(replicas=("A", "B"), protocol=p), steps).anomaly_kinds()
             for p in ("kip595", "kip966")}
    assert "strong-isr" in kinds["kip595"] and kinds["kip966"] == []
    kip966 = run_steps(ClusterConfig(replicas=("A", "B"), protocol="kip966"), steps)
    assert ("isr_ineligible", "A", ("A", "B"), ("B",)) in kip966.events


def test_scenario_form_profile_sweep_and_check_know_it():
    step = parse_step({"replace_disk": "B"}, 0, ("A", "B"))
    assert step == Step("replace_disk", replica="B") and step.to_obj() == {"replace_disk": "B"}
    assert step.describe() == "B restarts on a new, empty disk"
    with pytest.raises(ScenarioError, match=r"steps\[0\].replace_disk: 'C' is not a replica; allowed: A, B"):
        parse_step({"replace_disk": "C"}, 0, ("A", "B"))
    assert "replace_disk" in FAULTS and "replace_disk" in FAULT_KINDS and step_fault(step) == "replace_disk"
    profile = load_profile("replaced-disk")
    schedule = generate(profile, 3, ("A", "B", "C"))
    assert any(s.kind == "replace_disk" for s in schedule.steps)
    result = run_steps(ClusterConfig(replicas=("A", "B", "C"), protocol="kip320"), schedule.steps, record=False)
    assert "replace_disk" in fired_faults(schedule.steps, result.events, result.marks)
    # the ZooKeeper-era controller takes a failed broker out of the ISR and bumps the epoch:
    # an empty broker is back only as a follower that must re-fetch (clean elections only)
    found = explored(ClusterConfig(replicas=("A", "B"), protocol="kip320"),
                    Bounds(replicas=2, max_records=1, max_epoch=1), faults=("replace_disk", "elect"),
                    kinds=("lost-write",))
    assert found.complete and found.violations == {} and found.distinct > 10
