"""The controller's channel: LeaderAndIsr requests delivered in order, late, or after a failover (issue 10)."""

from __future__ import annotations

import pytest

import hwlib
from hwlib import Cluster, ClusterConfig, Step, run_steps
from hwlib.engine.protocols import GENERATIONS

LATER = ("kip320", "kip595", "kip841", "kip903", "kip966")
EARLIER = ("hw", "kip101", "kip279")
THREE = ("A", "B", "C")


def kinds(name: str, protocol: str) -> list[str]:
    return hwlib.run_scenario(name, protocol=protocol, record=False).anomaly_kinds()


def first(result, kind: str):
    return next(a for a in result.anomalies if a.kind == kind)


# ------------------------------------------------------------------ the schedules
@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_in_order_delivery_loses_nothing_in_any_generation(protocol):
    """The schedule: A, cut off, applies epoch 1 (follow C) and then epoch 2 (lead) in order
    (one request at a time; under KRaft one change per metadata delta), so it leads epoch 2 as
    a new leader with its followers' LEOs unknown; m1, which B truncated under C, is never
    acknowledged."""
    result = hwlib.run_scenario("in-order-leader-and-isr", protocol=protocol)
    assert result.anomalies == [] and result.acked == []
    first_change, second_change = result.trace.events[8], result.trace.events[9]
    assert [e for e in first_change if e[0] == "leader_and_isr"] == [("leader_and_isr", "A", 1, "C")]
    assert ("produce_error", "m1", "NOT_LEADER_OR_FOLLOWER") in first_change
    assert [e for e in second_change if e[0] == "leader_and_isr"] == [("leader_and_isr", "A", 2, "A")]
    assert result.trace.snapshots[9]["remote_leo"] == {"B": -1, "C": -1}   # a new leader


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_a_controller_failover_makes_a_broker_skip_an_epoch_and_lose_m1(protocol):
    """Kafka's makeLeader keeps the followers' LEOs when the broker led before by its own
    knowledge (isNewLeader = !isLeader, 0.10.2 to 3.7): after a failover A hears only epoch 2,
    keeps B's remote LEO 1 from epoch 0, moves its HW to 1 and acknowledges m1, which B lacks."""
    result = hwlib.run_scenario("controller-failover-skipped-epoch", protocol=protocol)
    events = result.trace.events
    if GENERATIONS[protocol].kraft:
        # KRaft: the failover drops nothing; A replays epochs 1 and 2 in one metadata delta
        assert [e[0] for e in events[8]] == ["skip"]
        assert ("metadata_delta", "A", 2, 2) in events[9]
    else:
        assert ("controller_failover", 2) in events[8]
    assert [e for e in events[9] if e[0] == "leader_and_isr"] == [("leader_and_isr", "A", 2, "A")]
    assert ("ack", "m1", 0) in events[9]
    assert result.trace.snapshots[9]["remote_leo"]["B"] == 1
    isr = first(result, "strong-isr")
    assert (isr.step, isr.replica, isr.offset) == (9, "B", 0)
    lost = first(result, "lost-write")
    assert lost.value == "m1" and lost.step == 10


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_a_broker_applies_a_superseded_request_late(protocol):
    """A applies epoch 1 ("follow C") after the controller issued epoch 2 (A leads). Before
    KIP-320 B had fetched A's epoch-0 record m2 from the zombie, and A leads epoch 2 with C's
    m1 at that offset: strong-isr and divergence. From kip320 on the zombie refused B's fetch
    (epoch 2 against its 0: UNKNOWN_LEADER_EPOCH)."""
    result = hwlib.run_scenario("late-leader-and-isr", protocol=protocol)
    deliver = result.trace.events[7]
    assert [e for e in deliver if e[0] == "leader_and_isr"] == [("leader_and_isr", "A", 1, "C")]
    assert result.trace.snapshots[7]["leader_epoch"] == 2
    refused = ("refused", "B", "A", "UNKNOWN_LEADER_EPOCH", 2, 0) in result.trace.events[6]
    if protocol in EARLIER:
        assert {"strong-isr", "log-divergence"} <= set(result.anomaly_kinds())
        assert first(result, "strong-isr").step == 11 and not refused
    else:
        assert result.anomalies == [] and refused
        logs = {r: v["log"] for r, v in result.final["replicas"].items()}
        assert logs["A"] == logs["B"] == logs["C"] == [[0, 1, "m1"]]


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_isr_join_below_a_committed_record_breaks_strong_isr_at_step_8_before_kip320(protocol):
    """The second schedule: C joins B's ISR at offset 0 >= B's stale HW 0 while A, a zombie
    still leading epoch 1, has m1 below its HW 1."""
    result = hwlib.run_scenario("isr-join-below-committed", protocol=protocol)
    isr = [a for a in result.anomalies if a.kind == "strong-isr"]
    if protocol in EARLIER:
        assert (isr[0].step, isr[0].replica, isr[0].offset) == (8, "C", 0)
        assert "stale leader A (epoch 1; the controller's leader is B, epoch 2)" in isr[0].detail
        assert first(result, "lost-write").value == "m1"
    else:
        assert isr == [] and "lost-write" not in result.anomaly_kinds()


def test_kafka_7128_reports_strong_isr_where_the_spec_does():
    """A joins C's ISR without the committed v0: the member check, not a leader's HW, sees it."""
    result = hwlib.run_scenario("kafka-7128-stale-hw-isr-join", protocol="kip101")
    isr = first(result, "strong-isr")
    assert (isr.step, isr.replica, isr.offset) == (7, "A", 0)
    assert isr.detail.startswith("ISR member A lacks offset 0")
    assert "v0 (epoch 1) was below the partition HW" in isr.detail
    assert all("strong-isr" not in kinds("kafka-7128-stale-hw-isr-join", p) for p in LATER)


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_a_zombie_leader_loses_acks_1_everywhere_and_acks_all_only_before_kip320(protocol):
    """A stale producer writes m1 to A, which leads epoch 1 by its own knowledge while the
    controller is at epoch 3. acks=1: acknowledged at once, lost in every generation (the
    setting, not the protocol). acks=all, min.insync.replicas=2: before KIP-320 the zombie's
    HW counts B, which follows A in epoch 3 and is served; from kip320 on B is refused
    (UNKNOWN_LEADER_EPOCH), m1 is never acknowledged, nothing is lost."""
    # the controller's removal of C bumps the leader epoch, except under KAFKA-15021 (kip966)
    base = 1 if GENERATIONS[protocol].isr_shrink_bumps_leader_epoch else 0
    acks_1 = hwlib.run_scenario("zombie-leader-stale-producer-acks-1", protocol=protocol)
    assert ("append", "A", 0, base, "m1") in acks_1.trace.events[7]     # a stale leader accepted it
    assert acks_1.trace.snapshots[7]["leader_epoch"] == base + 2
    assert first(acks_1, "lost-write").value == "m1"
    acks_all = hwlib.run_scenario("zombie-leader-stale-producer", protocol=protocol)
    assert ("append", "A", 0, base, "m1") in acks_all.trace.events[7]
    if protocol in EARLIER:
        assert acks_all.acked == ["m1"] and first(acks_all, "lost-write").value == "m1"
    else:
        assert acks_all.acked == [] and acks_all.anomalies == []
        assert ("refused", "B", "A", "UNKNOWN_LEADER_EPOCH", base + 2, base) in acks_all.trace.events[8]


# ------------------------------------------------------------------- the channel, unit by unit
def isolated_follower(protocol: str = "kip320", release: str | None = None) -> Cluster:
    c = Cluster(ClusterConfig(replicas=THREE, protocol="" if release else protocol, acks="1", release=release))
    c.produce("x")
    for r in ("B", "C", "B", "C"):
        c.fetch(r)
    c.isolate("C", detected=False)
    c.elect("B")             # epoch 1
    c.elect("A")             # epoch 2
    return c


def test_requests_for_an_unreachable_broker_wait_in_order():
    c = isolated_follower()
    assert [q.epoch for q in c.channel.pending("C")] == [1, 2]
    assert c.by_id["C"].leader_epoch == 0
    c.deliver("C")
    assert c.by_id["C"].leader_id == "B" and c.by_id["C"].leader_epoch == 1
    assert c.events[-1][0] != "skip" and [q.epoch for q in c.channel.pending("C")] == [2]
    c.reconnect("C")
    assert c.by_id["C"].leader_id == "A" and c.by_id["C"].leader_epoch == 2 and not c.channel.pending("C")


def test_deliver_takes_count_requests_and_skips_when_it_cannot_act():
    c = isolated_follower()
    c.deliver("C", count=5)                  # only two wait: both applied, C stays cut off
    assert c.by_id["C"].leader_epoch == 2 and c.by_id["C"].isolated
    c.deliver("C")
    c.deliver("B")
    c.crash("C")
    c.deliver("C")
    skips = [e[1:] for e in c.events if e[0] == "skip"]
    assert skips == [("deliver", "C", "no LeaderAndIsr request waits for it"),
                     ("deliver", "B", "replica is not isolated: it gets each request at once"),
                     ("deliver", "C", "replica is offline")]


def test_a_broker_whose_session_expired_gets_no_queue_and_learns_the_current_state():
    """removeBroker: the controller sends a broker it believes dead nothing; at re-registration
    (onBrokerStartup) it sends the current state only."""
    c = Cluster(ClusterConfig(replicas=THREE, protocol="kip320"))
    c.isolate("C")                           # epoch 1: ISR {A,B}
    c.elect("B")                             # epoch 2
    assert c.channel.pending("C") == ()
    c.reconnect("C")
    assert c.by_id["C"].leader_epoch == 2 and not any(e[0] == "leader_and_isr" for e in c.events)


def test_a_request_not_newer_than_what_the_broker_knows_is_ignored():
    """becomeLeaderOrFollower ignores a leader epoch that is not above the broker's."""
    c = isolated_follower()
    c.reconnect("C")
    known = c.by_id["C"].leader_epoch
    c.replica_manager.become_leader_or_follower(c.by_id["C"], c.controller.leader_and_isr())
    assert c.events[-1] == ("leader_and_isr_stale", "C", known, known)


def test_controller_failover_drops_queues_and_queues_the_current_state_for_unreachable_brokers():
    c = isolated_follower()
    c.controller_failover()
    assert ("controller_failover", 2) in c.events
    assert [q.epoch for q in c.channel.pending("C")] == [2]
    c.reconnect("C")
    assert not any(e[:3] == ("leader_and_isr", "C", 1) for e in c.events)     # epoch 1 skipped
    assert c.by_id["C"].leader_epoch == 2


def test_a_restart_drops_the_queue_and_learns_the_current_state():
    c = isolated_follower(release="2.2")
    c.crash("C", detected=False)
    c.restart("C")                           # Kafka >= 2.2 (KAFKA-1120) sees the bounce: epoch 3
    assert c.channel.pending("C") == () and not c.by_id["C"].isolated
    assert c.by_id["C"].leader_epoch == c.leader_epoch == 3 and c.by_id["C"].leader_id == "A"
    assert not any(e[0] == "leader_and_isr" for e in c.events)      # nothing old was applied
    unseen = isolated_follower(release="2.1")
    unseen.crash("C", detected=False)
    unseen.restart("C")                      # 2.1 compares broker ids only: nothing changes
    assert unseen.by_id["C"].leader_epoch == unseen.leader_epoch == 2 and "C" in unseen.isr
    assert not any(e[0] == "bounced" for e in unseen.events)


def test_a_zombie_leader_keeps_its_followers_leos_only_when_it_never_stopped_leading():
    """in order: follower in between, so the later leadership is new (remote LEOs reset);
    after a failover the broker never stopped leading (remote LEOs kept)."""
    steps = [Step("produce", value="x"), Step("fetch", replica="B"), Step("fetch", replica="B"),
             Step("isolate", replica="A", detected=False), Step("elect", replica="B"),
             Step("elect", replica="A")]
    config = ClusterConfig(replicas=("A", "B"), protocol="kip320")
    in_order = run_steps(config, steps + [Step("reconnect", replica="A")])
    assert in_order.trace.snapshots[-1]["remote_leo"] == {"B": -1}
    failover = run_steps(config, steps + [Step("controller_failover"), Step("reconnect", replica="A")])
    assert failover.trace.snapshots[-1]["remote_leo"] == {"B": 1}


# ------------------------------------------------------------------------ stale client metadata
def test_a_stale_producer_follows_its_metadata_until_not_leader_and_then_refreshes():
    c = Cluster(ClusterConfig(replicas=("A", "B"), protocol="kip320", acks="1", retries=1,
                              client_metadata="stale"))
    c.elect("B")
    request = c.produce("x")                 # to A, which heard it no longer leads
    assert request.status == "retrying" and ("metadata", "producer", "B", 1) in c.events
    c.retry()
    assert request.status == "acked" and request.leader == "B"


def test_a_current_producer_always_asks_the_controllers_leader():
    c = Cluster(ClusterConfig(replicas=("A", "B"), protocol="kip320", acks="1"))
    c.elect("B")
    assert c.produce("x").leader == "B" and not any(e[0] == "metadata" for e in c.events)


@pytest.mark.parametrize(("protocol", "reads"), [("kip279", True), ("kip320", True), ("kip595", False)])
def test_a_consumer_reading_from_a_zombie_leader_is_fenced_from_kafka_2_3(protocol, reads):
    """The zombie A serves a fetch until consumers carry the leader epoch (client side of
    KIP-320 in Kafka 2.3: kip595 on), which makes it UNKNOWN_LEADER_EPOCH."""
    c = Cluster(ClusterConfig(replicas=THREE, protocol=protocol, acks="1"))
    c.produce("x")
    for r in ("B", "C", "B", "C"):
        c.fetch(r)
    c.isolate("A", detected=False)
    c.elect("B")
    records = c.consume("A")
    assert (records == [(0, 0, "x")]) is reads
    if not reads:
        assert c.events[-1] == ("skip", "consume", "A", "the fetch carries epoch 1, the broker is in epoch 0 "
                                                        "(UNKNOWN_LEADER_EPOCH)")


def test_a_stale_consumer_keeps_reading_the_old_leader_until_it_is_told_otherwise():
    c = Cluster(ClusterConfig(replicas=("A", "B"), protocol="kip279", acks="1", client_metadata="stale"))
    c.produce("x")
    c.fetch("B")
    c.fetch("B")
    c.elect("B")                             # A hears it: NOT_LEADER_OR_FOLLOWER, then a refresh
    assert c.consume() == [] and ("metadata", "consumer", "B", 1) in c.events
    assert c.consume() == [(0, 0, "x")]


def test_produce_to_and_consume_from_round_trip_through_yaml():
    for obj in ({"produce": {"value": "x", "to": "B"}}, {"consume": {"from": "A"}},
                {"deliver": {"replica": "B", "count": 2}}, {"deliver": "B"}, {"controller_failover": {}}):
        assert hwlib.parse_step(obj, 0, ("A", "B")).to_obj() == obj
