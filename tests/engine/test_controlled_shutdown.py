"""Controlled shutdown (``shutdown: R``): the controller's handover per mode and release, the clean stop, its words."""

from __future__ import annotations

import pytest

import hwlib
from hwlib import Cluster, ClusterConfig, Step, parse_step
from hwlib.faults import FAULT_KINDS, fired_faults, generate, step_action
from hwlib.model.space import alphabet
from hwlib.model.vocabulary import FAULTS, step_fault
from hwlib.profiles import load_profile
from hwlib.views.explorer import FORKS

THREE = ("A", "B", "C")


def cluster(name: str, replicas=THREE, **kw) -> Cluster:
    return Cluster(ClusterConfig(replicas=replicas, release=name, **kw))


def caught_up(c: Cluster, *followers: str) -> None:
    for r in followers:
        c.fetch(r)
        c.fetch(r)


@pytest.mark.parametrize("name", ["0.10.2", "2.1", "3.7-zk"])
def test_zookeeper_moves_leadership_to_the_first_live_isr_member_then_the_broker_stops(name):
    """KafkaController.doControlledShutdown: the leader moves to the first replica in assignment
    order that is live, in the ISR and not shutting down; the new ISR is the old one without the
    broker; the leader epoch is bumped; the broker then stops cleanly and its failure writes
    nothing more."""
    c = cluster(name)
    c.produce("x")
    caught_up(c, "B", "C")
    epoch = c.leader_epoch
    c.shutdown("A")
    assert (c.controller.leader, c.isr, c.leader_epoch) == ("B", ("B", "C"), epoch + 1)
    a = c.by_id["A"]
    assert not a.online and a.log.flushed == a.leo == 1 and a.hw_checkpoint == a.hw == 1
    kinds = [e[0] for e in c.events]
    assert kinds.index("shutdown") < kinds.index("leader") < kinds.index("stopped")
    assert "crash" not in kinds and kinds.count("leader") == 1        # the stop writes nothing more
    c.restart("A")
    assert a.hw == 1                                                # the clean stop kept the HW
    caught_up(c, "A")
    assert c.isr == ("A", "B", "C")


def test_zookeeper_takes_a_follower_out_of_the_isr_with_a_new_epoch():
    c = cluster("3.7-zk")
    caught_up(c, "B", "C")
    c.shutdown("C")
    assert (c.controller.leader, c.isr, c.leader_epoch) == ("A", ("A", "B"), 1)


def test_zookeeper_keeps_a_sole_isr_leader_then_its_stop_takes_the_partition_offline():
    """No other live ISR member: the controlled shutdown writes nothing (the broker retries, then
    stops anyway); the controller then handles its failure: no clean candidate, so no leader -
    or, with unclean election, a replica outside the ISR."""
    for unclean, leader in ((False, None), (True, "B")):
        c = cluster("3.7-zk", acks="1", unclean_leader_election=unclean)
        c.crash("C")
        c.produce("x")
        c.tick(46000)                                # B lags behind: ISR {A}
        assert c.isr == ("A",)
        epoch = c.leader_epoch
        c.shutdown("A")
        shutdown_at = [e[0] for e in c.events].index("shutdown")
        assert not any(e[0] == "leader" for e in c.events[shutdown_at:c.events.index(("stopped", "A"))])
        assert c.controller.leader == leader and c.leader_epoch == epoch + 1, unclean


@pytest.mark.parametrize(("name", "epoch"), [("3.5-kraft", 1), ("3.7-kraft", 0)])
def test_kraft_removes_a_follower_from_the_isr_and_the_leader_stops_waiting_for_it(name, epoch):
    """handleBrokerInControlledShutdown: the broker leaves the ISR at once (the leader epoch moves
    only before KAFKA-15021's 3.6); an acks=all write the leader held for it completes."""
    c = cluster(name, acks="all")
    caught_up(c, "B", "C")
    request = c.produce("x")
    caught_up(c, "B")                               # C has not fetched x
    assert request.status == "pending"
    c.shutdown("C")
    assert c.isr == ("A", "B") and c.leader_epoch == epoch and c.controller.partition_epoch >= 1
    assert request.status != "pending" and c.acked == ["x"]


def test_kraft_leaves_a_sole_isr_leader_offline_and_with_elr_keeps_it_eligible():
    """3.7: the last ISR member stays in the ISR and the partition has no leader (-1) until it
    returns. 4.1 (ELR): the ISR empties, the broker joins the ELR (where B, which failed below
    min.insync.replicas, already is), and - having shut down cleanly - it is elected when it
    returns."""
    for name, isr, elr in (("3.7-kraft", ("A",), ()), ("4.1", (), ("A", "B"))):
        c = cluster(name, min_insync_replicas=2)
        c.crash("C")
        c.crash("B")
        assert c.isr == ("A",), name
        c.shutdown("A")
        assert (c.controller.leader, c.isr, c.controller.elr) == (None, isr, elr), name
        c.restart("A")
        assert c.controller.leader == "A", name


def test_a_broker_that_cannot_reach_the_controller_stops_without_a_handover():
    c = cluster("3.7-zk")
    caught_up(c, "B", "C")
    c.isolate("A", detected=False)
    c.shutdown("A")
    assert ("shutdown", "A", False, False) in c.events and ("stopped", "A") in c.events
    assert c.controller.leader == "B"                # the controller sees it go: an offline election


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_a_rolling_restart_of_caught_up_replicas_loses_nothing(protocol):
    """Each broker in turn shuts down, restarts and catches up while acks=all writes go on."""
    steps: list[Step] = []
    for i, r in enumerate(THREE):
        steps += [Step("produce", value=f"v{i}"), *[Step("fetch", replica=f) for f in THREE for _ in (0, 1)],
                  Step("shutdown", replica=r), Step("produce", value=f"w{i}"),
                  *[Step("fetch", replica=f) for f in THREE for _ in (0, 1)],
                  Step("restart", replica=r), *[Step("fetch", replica=f) for f in THREE for _ in (0, 1, 2)]]
    result = hwlib.run_steps(ClusterConfig(replicas=THREE, protocol=protocol), steps)
    losses = {"lost-write", "log-divergence", "committed-truncated", "strong-isr"} & set(result.anomaly_kinds())
    assert len(result.acked) == 6 and not losses, protocol


def test_the_step_the_fault_action_and_the_rolling_restart_profile():
    step = parse_step({"shutdown": "B"}, 0, THREE)
    assert step == Step("shutdown", replica="B") and step.to_obj() == {"shutdown": "B"}
    assert step.describe() == "controlled shutdown of B" and FORKS["controlled shutdown"]("B", "") == step
    assert step_fault(step) == "controlled_shutdown" == step_action(step)
    assert "controlled_shutdown" in FAULTS and "controlled_shutdown" in FAULT_KINDS
    assert step in alphabet(THREE, ("controlled_shutdown",), 1000)
    assert Step("restart", replica="B") in alphabet(THREE, ("controlled_shutdown",), 1000)
    profile = load_profile("rolling-restart")
    schedule = generate(profile, 11, THREE)
    downs = [s.replica for s in schedule.steps if s.kind == "shutdown"]
    assert len(downs) >= 6 and downs[:6] == list(THREE) * 2           # the brokers in turn
    restarts = [s for s in schedule.steps if s.kind == "restart"]
    assert len(restarts) >= len(downs) - 1
    result = hwlib.run_steps(ClusterConfig(replicas=THREE, release="3.7-kraft"), schedule.steps)
    assert "controlled_shutdown" in fired_faults(schedule.steps, result.events, result.marks)


def test_an_offline_broker_cannot_shut_down():
    c = cluster("2.1")
    c.crash("B")
    c.shutdown("B")
    assert c.events[-1] == ("skip", "shutdown", "B", "replica is offline")
