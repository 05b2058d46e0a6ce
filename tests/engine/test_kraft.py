"""KRaft-era generations (kip841, kip903, kip966): metadata deltas, partition epochs, fencing, AlterPartition."""

from __future__ import annotations

import pytest

import hwlib
from hwlib import Cluster, ClusterConfig, Step
from hwlib.engine.protocols import GENERATIONS
from hwlib.engine.replica import FETCHING

KRAFT = tuple(p for p in hwlib.PROTOCOLS if GENERATIONS[p].kraft)
THREE = ("A", "B", "C")


def applied(config: ClusterConfig, steps: list[Step]) -> Cluster:
    cluster = Cluster(config)
    for step in steps:
        cluster.apply(step)
    return cluster


def replicated(protocol: str, replicas: tuple[str, ...] = THREE) -> list[Step]:
    """m1 on every replica, the HW at 1 everywhere."""
    fetches = [Step("fetch", replica=r) for r in replicas[1:]]
    return [Step("produce", value="m1")] + fetches + fetches


def test_the_generations_are_in_release_order_and_the_kraft_ones_say_so():
    assert hwlib.PROTOCOLS == ("hw", "kip101", "kip279", "kip320", "kip595", "kip841", "kip903", "kip966")
    assert KRAFT == ("kip841", "kip903", "kip966")
    assert all("KRaft" in GENERATIONS[p].kafka for p in KRAFT)
    assert not any(GENERATIONS[p].kraft for p in ("hw", "kip101", "kip279", "kip320", "kip595"))


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_a_controller_failover_drops_the_queue_in_zookeeper_mode_and_nothing_under_kraft(protocol):
    config = ClusterConfig(replicas=THREE, protocol=protocol)
    cluster = applied(config, [Step("isolate", replica="C", detected=False), Step("elect", replica="B")])
    assert len(cluster.channel.queues["C"]) == 1
    reason = cluster.skip_reason(Step("controller_failover"))
    cluster.apply(Step("controller_failover"))
    if protocol in KRAFT:
        assert reason is not None and "metadata log survives" in reason
        assert cluster.events[-1] == ("skip", "controller_failover", None, reason)
        assert len(cluster.channel.queues["C"]) == 1
    else:
        assert reason is None and ("controller_failover", 1) in cluster.events
        assert [q.epoch for q in cluster.channel.queues["C"]] == [1]      # the current state, re-sent


@pytest.mark.parametrize("protocol", ["kip595", *KRAFT])
def test_several_queued_changes_are_one_metadata_delta_under_kraft(protocol):
    """A, cut off but unfenced, misses epoch 1 (B leads) and epoch 2 (A leads). Delivered two
    at once: ZooKeeper mode applies them in order (A follows B, then leads as a new leader: its
    followers' LEOs unknown); KRaft replays both in one delta and applies epoch 2 only - A, by
    its own knowledge never out of office, keeps B's remote LEO from epoch 0 (3.3's
    Partition.makeLeader: isNewLeader = !isLeader)."""
    config = ClusterConfig(replicas=THREE, protocol=protocol, acks="1")
    cluster = applied(config, replicated(protocol) + [
        Step("isolate", replica="A", detected=False), Step("elect", replica="B"), Step("elect", replica="A"),
        Step("deliver", replica="A", count=2)])
    a = cluster.by_id["A"]
    assert a.is_leader and a.leader_epoch == 2
    applied_epochs = [e[2] for e in cluster.events if e[0] == "leader_and_isr" and e[1] == "A"]
    if protocol in KRAFT:
        assert ("metadata_delta", "A", 2, 2) in cluster.events and applied_epochs == [2]
        assert a.remotes["B"].leo == 1
    else:
        assert applied_epochs == [1, 2] and a.remotes["B"].leo == -1


@pytest.mark.parametrize("protocol", ["kip595", *KRAFT])
def test_a_fenced_follower_leaves_the_isr_with_an_epoch_bump_until_kafka_15021(protocol):
    """The controller removes a failed follower from the ISR. ZooKeeper mode and KRaft up to
    metadata.version 3.5 bump the leader epoch, so the other follower reconciles again; from
    3.6 (kip966) only the partition epoch moves: the leader takes the new ISR, the follower's
    fetcher goes on."""
    config = ClusterConfig(replicas=THREE, protocol=protocol)
    cluster = applied(config, replicated(protocol))
    ctl, a, b = cluster.controller, cluster.by_id["A"], cluster.by_id["B"]
    before = ctl.partition_epoch
    cluster.apply(Step("crash", replica="C"))
    assert ctl.isr == ("A", "B") and a.isr == ("A", "B") and ctl.partition_epoch == before + 1
    if GENERATIONS[protocol].isr_shrink_bumps_leader_epoch:
        assert ctl.leader_epoch == 1 and a.leader_epoch == b.leader_epoch == 1
    else:
        assert ctl.leader_epoch == 0 and a.leader_epoch == b.leader_epoch == 0
        assert b.fetch_state == FETCHING and a.partition_epoch == b.partition_epoch == ctl.partition_epoch


@pytest.mark.parametrize("protocol", ["kip595", *KRAFT])
def test_the_leaders_own_isr_shrink_bumps_the_epoch_under_kraft_3_3_to_3_5_only(protocol):
    """PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded (3.3 to 3.5) bumps the leader
    epoch on every ISR shrink, the leader's AlterPartition included; ZooKeeper mode's leader
    writes its ISR without one, and so does KRaft from metadata.version 3.6-IV0."""
    config = ClusterConfig(replicas=THREE, protocol=protocol, acks="1")
    cluster = applied(config, replicated(protocol) + [
        Step("produce", value="m2"), Step("fetch", replica="B"), Step("fetch", replica="B"), Step("tick", ms=46000)])
    ctl, a, b = cluster.controller, cluster.by_id["A"], cluster.by_id["B"]
    assert ctl.isr == ("A", "B") == a.isr
    bumps = protocol in ("kip841", "kip903")
    assert ctl.leader_epoch == a.leader_epoch == b.leader_epoch == (1 if bumps else 0)
    if GENERATIONS[protocol].kraft:
        # the change is replayed by every broker, the leader included
        assert a.partition_epoch == b.partition_epoch == ctl.partition_epoch


def test_kip966_refuses_an_alter_partition_made_before_a_change_that_kept_the_leader_epoch():
    """A, cut off, asks to shrink the ISR to {A}; meanwhile the controller fences B and removes
    it without bumping the leader epoch (KAFKA-15021). A's request carries the old partition
    epoch: INVALID_UPDATE_VERSION (validateAlterPartitionData), though its leader epoch is
    current; A then takes the controller's ISR from the metadata log."""
    config = ClusterConfig(replicas=THREE, protocol="kip966", acks="1")
    cluster = applied(config, replicated("kip966") + [
        Step("isolate", replica="A", detected=False), Step("produce", value="m2"), Step("tick", ms=46000)])
    a, ctl = cluster.by_id["A"], cluster.controller
    assert a.alter_isr is not None and a.alter_isr[0] == ("A",)
    cluster.apply(Step("crash", replica="B"))
    assert ctl.isr == ("A", "C") and ctl.leader_epoch == 0
    cluster.apply(Step("reconnect", replica="A"))
    refused = [e for e in cluster.events if e[0] == "isr_refused"]
    assert refused and refused[0][1:4] == ("A", 0, ("A",))
    assert a.isr == ("A", "C") and a.partition_epoch == ctl.partition_epoch


@pytest.mark.parametrize("protocol", ["kip595", *KRAFT])
def test_a_fenced_broker_that_reaches_the_controller_again_keeps_its_registration_under_kraft(protocol):
    """ZooKeeper mode: an expired session means a new registration (a new broker epoch, the
    czxid). KRaft: the fenced broker's heartbeats get through again under the same
    registration; only a new process registers anew."""
    config = ClusterConfig(replicas=THREE, protocol=protocol)
    cluster = applied(config, [Step("isolate", replica="C"), Step("reconnect", replica="C")])
    assert "C" not in cluster.controller.dead
    assert cluster.controller.broker_epochs["C"] == (0 if protocol in KRAFT else 1)
    cluster.apply(Step("crash", replica="C"))
    cluster.apply(Step("restart", replica="C"))
    assert cluster.controller.broker_epochs["C"] == (1 if protocol in KRAFT else 2)


def test_kip_841_an_alter_partition_naming_a_fenced_broker_is_refused_from_kraft_3_3():
    """The kip-841-fenced-replica-added scenario: ZooKeeper mode from 2.7 accepts A's stale
    AlterIsr naming the dead B, which comes back empty and is elected; KRaft refuses it
    (INELIGIBLE_REPLICA) and nothing is lost; up to 2.6 the leader wrote the ISR itself."""
    name = "kip-841-fenced-replica-added"
    results = {p: hwlib.run_scenario(name, protocol=p) for p in hwlib.PROTOCOLS}
    losses = {p: "lost-write" in r.anomaly_kinds() for p, r in results.items()}
    assert losses == {p: p == "kip595" for p in hwlib.PROTOCOLS}
    assert ("isr", ("A",), ("A", "B"), "B caught up to HW 2", "AlterIsr") in results["kip595"].events
    for p in KRAFT:
        assert ("isr_ineligible", "A", ("A", "B"), ("B",)) in results[p].events
        final = results[p].final
        assert results[p].acked == ["m1", "m2"] and final["leader"] is None and "B" not in final["isr"]
