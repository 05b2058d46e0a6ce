"""Each protocol generation's own rules, and each motivating case before and after its fix."""

from __future__ import annotations

import pytest

import hwlib
from hwlib import Cluster, ClusterConfig
from hwlib.engine.log import ReplicaLog
from hwlib.engine.protocols import get_protocol
from hwlib.engine.replica import FETCHING, TRUNCATING


def log_with(*records: tuple[int, str]) -> ReplicaLog:
    log = ReplicaLog()
    for epoch, value in records:
        log.append(epoch, value)
    return log


def test_kip279_answer_is_a_pair_and_below_first_epoch_is_undefined():
    kip279 = get_protocol("kip279")
    leader = log_with((1, "a"), (1, "b"), (3, "c"), (5, "d"))      # [(1,0),(3,2),(5,3)] LEO 4
    assert kip279.answer_epoch_request(leader, 5) == (5, 4)
    assert kip279.answer_epoch_request(leader, 4) == (3, 3)
    assert kip279.answer_epoch_request(leader, 1) == (1, 2)
    assert kip279.answer_epoch_request(leader, 0) == (-1, -1)       # 2.0: below the first epoch
    assert kip279.answer_epoch_request(leader, 6) == (-1, -1)


@pytest.mark.parametrize(("follower", "answer", "expected"), [
    # the follower knows the answered epoch: min(its end of it, leader's end, LEO)
    ([(0, "a"), (1, "b"), (1, "c")], (0, 1), (1, True)),
    ([(0, "a"), (0, "b"), (0, "c")], (0, 2), (2, True)),
    # it does not: cut back to the end of its own epoch below, and ask again
    ([(0, "a"), (3, "b"), (3, "c")], (2, 2), (1, False)),
    # no epoch at or below the answer: trust the leader's offset
    ([(4, "a"), (4, "b")], (2, 1), (1, True)),
    # undefined answer: fall back to the HW
    ([(0, "a"), (3, "b")], (-1, -1), (7, True)),
])
def test_kip279_follower_truncation_states(follower, answer, expected):
    log = log_with(*follower)
    assert get_protocol("kip279").truncation_after_answer(log, 7, answer) == expected


def test_kip279_walk_back_costs_one_more_round_trip():
    c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol="kip279", acks="1"))
    for _ in range(2):
        c.produce("x") if _ == 0 else None
        c.fetch("B")
        c.fetch("C")
    # B wrote y in epoch 3 that nobody has; C leads with z (epoch 2) and w (epoch 4).
    b, leader_c = c.by_id["B"], c.by_id["C"]
    b.log.append(3, "y")
    leader_c.log.append(2, "z")
    leader_c.log.append(4, "w")
    c.elect("C")
    assert b.fetch_state == TRUNCATING
    c.fetch("B")                                    # ask 3 -> (2, 2); B lacks epoch 2: cut to 1
    assert b.fetch_state == TRUNCATING and b.log.values == ["x"]
    assert ("epoch_request", "B", 3, (2, 2)) in c.events
    c.fetch("B")                                    # ask 0 -> (0, 1): done at 1
    assert b.fetch_state == FETCHING and ("epoch_request", "B", 0, (0, 1)) in c.events
    c.fetch("B")
    assert b.log.values == ["x", "z", "w"]


@pytest.mark.parametrize(("name", "before", "after", "kind"), [
    ("fast-leader-failover", "kip101", "kip279", "log-divergence"),
    ("msg1-msg5-unclean-divergence", "kip101", "kip279", "log-divergence"),
    ("data-loss", "hw", "kip101", "lost-write"),
    ("divergence", "hw", "kip101", "log-divergence"),
])
def test_motivating_case_before_and_after_its_fix(name, before, after, kind):
    assert kind in hwlib.run_scenario(name, protocol=before).anomaly_kinds()
    fixed = hwlib.run_scenario(name, protocol=after)
    assert kind not in fixed.anomaly_kinds()


def test_fast_leader_failover_converges_under_kip279():
    result = hwlib.run_scenario("fast-leader-failover", protocol="kip279")
    logs = {rid: rep["log"] for rid, rep in result.final["replicas"].items()}
    assert logs["A"] == logs["B"] == logs["C"] == [[0, 0, "m1"], [1, 0, "m2"], [2, 2, "m4"]]
    assert ("epoch_request", "B", 1, (0, 2)) in result.trace.events[11]


def test_kip320_leader_caches_its_epoch_at_election():
    c = Cluster(ClusterConfig(replicas=("A", "B"), protocol="kip320", acks="1"))
    assert c.by_id["A"].log.cache.entries == [(0, 0)]
    c.produce("x")
    c.fetch("B")
    c.elect("B")
    assert c.by_id["B"].log.cache.entries == [(0, 0), (1, 1)]
    assert c.by_id["B"].leader_epoch_start == 1
    older = Cluster(ClusterConfig(replicas=("A", "B"), protocol="kip279"))
    assert older.by_id["A"].log.cache.entries == []


def _led_without_appending(protocol: str) -> Cluster:
    """B holds v1, C holds v1 v2 (both epoch 0); A dies and B leads epoch 1 without appending
    (its election caches (1, 1)); C takes over (epoch 2) and B follows it."""
    c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="1"))
    c.produce("v1")
    c.fetch("B")
    c.produce("v2")
    c.fetch("C")
    c.crash("A")
    assert c.leader.id == "B" and c.by_id["B"].log.cache.entries == [(0, 0), (1, 1)]
    c.elect("C")
    assert c.leader.id == "C" and c.by_id["B"].log.cache.entries == [(0, 0), (1, 1)]
    return c


@pytest.mark.parametrize(("protocol", "after_reconciling", "after_append"), [
    # Kafka 2.1-2.6: Log.truncateTo(1) at the LEO returns at once and keeps (1, 1); appending
    # v2 of epoch 0 at offset 1 then replaces the whole cache (truncateAndAppend)
    ("kip320", [(0, 0), (1, 1)], [(0, 1)]),
    # Kafka 2.7.0+ (KAFKA-10706): the same truncation drops (1, 1); the cache stays right
    ("kip595", [(0, 0)], [(0, 0)]),
    ("kip966", [(0, 0)], [(0, 0)]),
])
def test_a_truncation_at_the_log_end_drops_the_trailing_epoch_from_kafka_2_7(protocol, after_reconciling,
                                                                            after_append):
    c = _led_without_appending(protocol)
    b = c.by_id["B"]
    c.fetch("B")            # kip320: OffsetsForLeaderEpoch(1) -> (0, 2), truncate to 1 = LEO;
    assert b.leo == 1       # kip595+: the fetch's diverging epoch (0, 2), the same truncation
    assert b.log.cache.entries == after_reconciling
    while b.leo < 2:
        c.fetch("B")
    assert b.log.values == ["v1", "v2"] and b.log.cache.entries == after_append


@pytest.mark.parametrize("protocol", ["kip320", "kip595", "kip841", "kip903", "kip966"])
def test_a_restart_drops_an_epoch_cached_at_the_log_end(protocol):
    """Loading the log (Kafka's Log init: truncateFromEnd(log end)) drops the (1, 1) that B's
    election cached without an append, in every release with leader epochs."""
    c = _led_without_appending(protocol)
    c.crash("B")
    assert c.by_id["B"].log.cache.entries == [(0, 0), (1, 1)]
    c.restart("B")
    assert c.by_id["B"].log.cache.entries == [(0, 0)]


def test_kip320_followers_reconcile_on_an_epoch_change_with_the_same_leader():
    for protocol, reconciles in (("kip279", False), ("kip320", True)):
        c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="1"))
        c.produce("x")
        c.fetch("B")
        c.crash("C")                                  # controller shrinks the ISR: epoch 1
        assert c.leader.id == "A" and c.leader_epoch == 1
        assert (c.by_id["B"].fetch_state == TRUNCATING) is reconciles


def test_kip320_isr_join_needs_the_leader_epoch_start():
    for protocol, joins in (("kip279", True), ("kip320", False)):
        c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="1"))
        c.crash("C")                                  # ISR {A, B}
        for i in range(5):
            c.produce(f"x{i}")
        c.fetch("B")                                  # B: 5 records, HW still 0
        c.elect("B")                                  # B leads from offset 5 with stale HW 0
        c.restart("C")                                # empty log, outside the ISR
        b = c.leader
        assert b.leader_epoch_start == 5 and b.hw == 0
        c.fetch_request("C")                          # fetch offset 0 >= HW 0
        assert ("C" in c.isr) is joins, protocol


@pytest.mark.parametrize(("name", "kind"), [
    ("kafka-7128-stale-hw-isr-join", "lost-write"),
    ("kip101-undefined-epoch-truncation", "lost-write"),
])
def test_kip320_fixes_the_kip101_property_findings(name, kind):
    assert kind in hwlib.run_scenario(name, protocol="kip279").anomaly_kinds()
    fixed = hwlib.run_scenario(name, protocol="kip320")
    assert fixed.anomaly_kinds() == ["hw-regression"]


def test_kip595_diverging_response_carries_no_records_and_no_leader_state_update():
    """A diverging answer has no records and leaves the leader's view of the follower alone; up to
    3.4.0 (kip595, kip841) the follower takes the answer's HW before truncating (KAFKA-14704), from
    3.5 (kip903) it only truncates."""
    for protocol, takes_hw in (("kip595", True), ("kip841", True), ("kip903", False)):
        result = hwlib.run_scenario("fast-leader-failover", protocol=protocol)
        events = result.trace.events[11]                    # B's first fetch after the moves
        assert events[0] == ("diverging", "B", 2, 1, (0, 2)), protocol
        assert ("truncate", "B", 2, 1, "diverging epoch") in events, protocol
        assert not [e for e in events if e[0] in ("replicate", "epoch_request")], protocol
        assert bool([e for e in events if e[0] == "hw"]) is takes_hw, protocol
        before, after = result.trace.snapshots[10], result.trace.snapshots[11]
        assert before["remote_leo"]["B"] == after["remote_leo"]["B"]   # leader state untouched


def test_kip595_saves_the_epoch_round_trip_when_nothing_diverged():
    def rounds_until_caught_up(protocol: str) -> int:
        c = Cluster(ClusterConfig(replicas=("A", "B"), protocol=protocol, acks="1"))
        c.produce("x")
        c.fetch("B")
        c.crash("B", detected=False)
        c.restart("B")                                  # must reconcile before fetching again
        c.produce("y")
        for n in range(1, 5):
            c.fetch("B")
            if c.by_id["B"].log.values == ["x", "y"]:
                return n
        raise AssertionError("never caught up")

    assert rounds_until_caught_up("kip320") == 2
    assert rounds_until_caught_up("kip595") == 1


def test_kip595_shorter_leader_answers_diverging_epoch_instead_of_out_of_range():
    c = Cluster(ClusterConfig(replicas=("A", "B"), protocol="kip595", acks="1",
                              unclean_leader_election=True))
    c.produce("x")
    c.produce("y")
    c.tick(45000)                                  # B never fetched: out of the ISR
    c.crash("A")                                   # B elected uncleanly with an empty log
    c.restart("A")
    assert c.leader.id == "B" and c.leader.log.cache.entries == [(1, 0)]
    c.fetch("A")
    assert ("diverging", "A", 2, 0, (0, 0)) in c.events
    assert c.by_id["A"].leo == 0 and not [e for e in c.events if e[0] == "out_of_range"]
    c.produce("z")
    c.fetch("A")
    assert c.by_id["A"].log.values == ["z"]

def test_kip966_strict_min_isr_holds_the_hw():
    for protocol, expected in (("kip595", 2), ("kip966", 0)):
        c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="1",
                                  min_insync_replicas=2))
        c.crash("B")
        c.crash("C")                                  # ISR {A} < min ISR 2
        c.produce("x")
        c.produce("y")
        assert c.partition_hw == expected, protocol


def test_kip966_elr_joins_below_min_isr_and_clears_at_min_isr():
    c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol="kip966", min_insync_replicas=2))
    c.crash("B")
    assert c.isr == ("A", "C") and c.controller.elr == ()       # still at min ISR
    c.crash("C")
    assert c.isr == ("A",) and c.controller.elr == ("C",)
    assert ("elr", (), ("C",)) in c.events
    c.restart("C")
    c.fetch("C")
    c.fetch("C")                                  # C catches up and rejoins: ISR back at 2
    assert c.isr == ("A", "C") and c.controller.elr == ()


def test_kip966_notices_an_unclean_restart_and_does_not_keep_the_leader():
    c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol="kip966", min_insync_replicas=2))
    c.produce("x")
    for _ in range(2):
        c.fetch("B")
        c.fetch("C")
    c.crash("A", lose_unflushed=True, detected=False)
    assert c.leader.id == "A"                     # not noticed while it is down
    c.restart("A")                                # broker registration reports the unclean shutdown
    assert c.leader.id == "B" and c.leader.log.values == ["x"]
    assert "A" in c.controller.ineligible and "A" not in c.isr


def test_last_replica_standing_before_and_after_kip966():
    for protocol in ("hw", "kip101", "kip279", "kip320", "kip595"):
        before = hwlib.run_scenario("last-replica-standing", protocol=protocol)
        assert [a.value for a in before.anomalies if a.kind == "lost-write"] == ["v0"], protocol
    after = hwlib.run_scenario("last-replica-standing", protocol="kip966")
    assert "lost-write" not in after.anomaly_kinds()
    assert after.final["leader"] == "C"
    assert ("elr", (), ("C",)) in after.trace.events[7]
    logs = [rep["log"] for rep in after.final["replicas"].values()]
    assert logs == [[[0, 0, "v0"]]] * 3


def test_kip966_keeps_the_partition_offline_rather_than_elect_a_replica_that_lost_data():
    result = hwlib.run_scenario("divergence", protocol="kip966")
    assert result.final["leader"] is None and result.anomalies == []
    assert [r[2] for r in result.final["replicas"]["A"]["log"]] == ["m1", "m2"]   # m2 survives on A
    assert any(p["status"] == "NOT_LEADER_OR_FOLLOWER" and p["value"] == "m3" for p in result.produces)


def test_quick_restarts_go_unnoticed_up_to_kafka_2_1_and_are_noticed_from_2_2():
    """KAFKA-1120 (KIP-380): 2.2.0's processBrokerChange compares broker epochs (bounced
    brokers); 2.1.0 compares ids only."""
    for protocol, noticed in (("hw", False), ("kip101", False), ("kip279", False), ("kip320", False),
                              ("kip595", True), ("kip966", True)):
        c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol=protocol))
        c.crash("B", detected=False)
        assert c.isr == ("A", "B", "C")           # while it is down, nobody knows
        c.restart("B")
        assert (c.isr == ("A", "C")) is noticed, protocol
        assert (("bounced", "B") in c.events) is noticed
        c.crash("A", detected=False)
        c.restart("A")
        assert (c.leader.id != "A") is noticed    # a bounced leader loses leadership


# ------------------------------------------------------------------ KIP-320 request fencing
def test_kip320_fences_the_zombie_follower_that_diverges_before_it():
    """KAFKA-6880: before KIP-320 the re-elected leader accepts the stale fetch and takes the
    zombie back into the ISR with a divergent log; reconnecting does not repair it (its latest
    epoch now matches the leader's). kip320 refuses with FENCED_LEADER_EPOCH, and the
    reconnected follower reconciles."""
    before = hwlib.run_scenario("kafka-6880-zombie-follower", protocol="kip279")
    assert {"log-divergence", "strong-isr"} <= set(before.anomaly_kinds())
    assert before.final["replicas"]["B"]["log"] != before.final["replicas"]["A"]["log"]
    after = hwlib.run_scenario("kafka-6880-zombie-follower", protocol="kip320")
    assert after.anomaly_kinds() == []
    refused = [e for events in after.trace.events for e in events if e[0] == "refused"]
    # the epoch is compared before leadership (2.1's Partition.localReplicaWithEpochOrException):
    # the first refusal comes from a broker that no longer leads, and is FENCED all the same
    assert [e[3] for e in refused] == ["FENCED_LEADER_EPOCH"] * 4
    assert refused[1][4:] == (0, 3)                    # B's epoch 0 against A's epoch 3
    logs = {r: after.final["replicas"][r]["log"] for r in ("A", "B", "C")}
    assert logs["A"] == logs["B"] == logs["C"]


def _isolated_leader_cluster(protocol: str) -> Cluster:
    """A leads epoch 0 with x on all three; A is then isolated with its session intact and C
    fails: the controller writes ISR {A,B} in epoch 1, which only B receives."""
    c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="1"))
    c.produce("x")
    for r in ("B", "C", "B", "C"):
        c.fetch(r)
    c.isolate("A", detected=False)
    c.crash("C")
    assert c.controller.leader == "A" and c.leader_epoch == 1
    assert c.by_id["A"].leader_epoch == 0 and c.by_id["B"].leader_epoch == 1
    return c


@pytest.mark.parametrize(("protocol", "answer"), [("kip279", None), ("kip320", "UNKNOWN_LEADER_EPOCH")])
def test_a_leader_behind_the_followers_epoch_answers_unknown_leader_epoch(protocol, answer):
    c = _isolated_leader_cluster(protocol)
    c.produce("y")
    mark = len(c.events)
    c.fetch("B")
    refused = [e for e in c.events[mark:] if e[0] == "refused"]
    if answer is None:
        assert not refused and c.by_id["B"].log.values == ["x", "y"]
    else:
        assert refused == [("refused", "B", "A", answer, 1, 0)]
        assert c.by_id["B"].log.values == ["x"]
    c.reconnect("A")                                    # A learns epoch 1: B's fetches work again
    c.fetch("B")                                        # (kip320: B's epoch request first)
    c.fetch("B")
    assert c.by_id["B"].log.values == ["x", "y"]


def test_a_stale_leaders_isr_writes_are_refused():
    """A zombie leader cannot shrink the ISR (ZooKeeper's conditional update fails), so it
    keeps its cached ISR and retries at every check; the controller's ISR is untouched."""
    c = _isolated_leader_cluster("kip320")
    c.isolate("B")                 # B's session expires: the controller writes ISR {A} in epoch 2
    assert c.isr == ("A",) and c.by_id["A"].isr == ("A", "B", "C")
    c.produce("y")
    c.tick(61000)                  # B and C lag > 30 s at the checks at 45 s and 60 s
    refused = [e for e in c.events if e[0] == "isr_refused"]
    assert len(refused) == 2 and all(e[1:3] == ("A", 0) and e[3] == ("A",) for e in refused)
    assert c.isr == ("A",) and c.by_id["A"].isr == ("A", "B", "C")
    assert c.by_id["A"].hw == 1    # C's remote LEO holds the HW back
    c.reconnect("A")
    assert c.by_id["A"].isr == ("A",) and c.by_id["A"].hw == 2


def test_an_elected_leader_that_has_not_heard_refuses_produces():
    c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol="kip320", acks="1"))
    c.isolate("B", detected=False)
    c.elect("B")                                        # the controller counts B live
    request = c.produce("x")
    assert request.status == "NOT_LEADER_OR_FOLLOWER" and c.by_id["B"].role == "follower"
    c.fetch("A")                                        # A follows B in epoch 1; B is in epoch 0
    # the epoch is compared first: UNKNOWN_LEADER_EPOCH, not NOT_LEADER_OR_FOLLOWER (from 2.1)
    assert ("refused", "A", "B", "UNKNOWN_LEADER_EPOCH", 1, 0) in c.events
    assert c.consume() == [] and c.events[-1][:2] == ("skip", "consume")
    c.reconnect("B")
    assert c.by_id["B"].role == "leader" and c.produce("y").status == "acked"


def test_epoch_requests_are_fenced_too():
    """A follower still reconciling (kip320, OffsetsForLeaderEpoch pending) that missed two
    leader changes is refused, not answered."""
    c = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol="kip320", acks="1"))
    c.produce("x")
    for r in ("B", "C", "B", "C"):
        c.fetch(r)
    c.elect("B")                                        # epoch 1: A must reconcile
    c.isolate("A", detected=False)
    c.elect("C")
    c.elect("B")                                        # epoch 3; A still believes epoch 1
    assert c.by_id["A"].fetch_state == "truncating" and c.by_id["A"].leader_epoch == 1
    c.fetch("A")
    assert c.events[-1] == ("refused", "A", "B", "FENCED_LEADER_EPOCH", 1, 3)


def test_isolate_and_reconnect_skip_when_they_cannot_act():
    c = Cluster(ClusterConfig(replicas=("A", "B"), protocol="kip320"))
    c.reconnect("B")
    c.isolate("B")
    c.isolate("B")
    c.crash("B")
    c.reconnect("B")
    skips = [e[1:] for e in c.events if e[0] == "skip"]
    assert skips == [("reconnect", "B", "replica is not isolated"),
                     ("isolate", "B", "replica is already isolated"),
                     ("reconnect", "B", "replica is offline (a restart reconnects it)")]
    c.restart("B")
    assert not c.by_id["B"].isolated and c.by_id["B"].role == "follower"
