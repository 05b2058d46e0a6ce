"""Each release flag: one schedule under the last release without it and the first with it, as Kafka's code predicts.

The releases, flags and their sources are in ``hwlib/engine/releases.py``; ``FLAG_TESTS`` maps
every flag to its test here, and a test holds that no flag is left without one.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import yaml

import hwlib
from hwlib.engine import Cluster, ClusterConfig
from hwlib.engine.releases import FLAGS, release, version_text
from hwlib.scenario import scenario_from_dict

THREE = ("A", "B", "C")


def cluster(name: str, replicas=THREE, **kw) -> Cluster:
    return Cluster(ClusterConfig(replicas=replicas, release=name, **kw))


def kinds(c: Cluster) -> list[str]:
    return [e[0] for e in c.events]


def test_out_of_range_exits_the_broker_up_to_2_0_0_and_truncates_from_2_0_1():
    """KAFKA-7414: 2.0.0's ReplicaFetcherThread.handleOffsetOutOfRange exits ("Exiting because
    log truncation is not allowed"); 2.0.1 truncates to the leader's log end."""
    for name, exits in (("1.0.0", True), ("2.0.0", True), ("2.0.1", False), ("2.1.0", False)):
        c = cluster(name, replicas=("A", "B"), acks="1")
        c.produce("x")
        c.produce("y")
        c.fetch("B")
        c.fetch("B")
        c.crash("A", lose_unflushed=True, detected=False)     # A loses everything, still leads
        c.restart("A")
        c.fetch("B")
        b = c.by_id["B"]
        assert ("out_of_range", "B", 2, 0) in c.events
        assert (not b.online) is exits and (("halt", "B", 0, 2) in c.events) is exits, name
        if exits:
            assert b.leo == 2 and "B" not in c.isr          # its log stays; the controller notices
        else:
            assert b.online and b.leo == 0
    # with unclean election enabled every release truncates
    c = cluster("2.0.0", replicas=("A", "B"), acks="1", unclean_leader_election=True)
    c.produce("x")
    c.fetch("B")
    c.fetch("B")
    c.crash("A", lose_unflushed=True, detected=False)
    c.restart("A")
    c.fetch("B")
    assert c.by_id["B"].online and c.by_id["B"].leo == 0


def _new_leader_without_appends(name: str) -> Cluster:
    c = cluster(name, replicas=("A", "B"), acks="1")
    c.produce("x")
    c.fetch("B")
    c.fetch("B")
    c.crash("A")                                     # B leads epoch 1 and appends nothing
    return c


def test_a_new_leader_caches_its_epoch_at_election_from_2_0_1():
    """KAFKA-7415: 2.0.1's Partition.makeLeader assigns (epoch, LEO) in the epoch cache."""
    assert _new_leader_without_appends("2.0.0").by_id["B"].log.cache.entries == [(0, 0)]
    assert _new_leader_without_appends("2.0.1").by_id["B"].log.cache.entries == [(0, 0), (1, 1)]


def test_isr_join_needs_the_epoch_start_offset_from_2_0_1():
    """KAFKA-7128: 2.0.1's maybeExpandIsr also asks fetch offset >= the leader epoch's start. In
    the JIRA's case a follower joins the ISR on a stale HW under 2.0.0 and the partition loses
    an acknowledged write when it is elected; 2.0.1 keeps it out until it has the epoch."""
    def run(name: str) -> tuple[list[str], list[tuple]]:
        result = hwlib.run_scenario("kafka-7128-stale-hw-isr-join", release=name)
        joins = [e for events in result.trace.events for e in events if e[0] == "isr" and "caught up" in e[3]]
        return result.anomaly_kinds(), joins
    before, joins_before = run("2.0.0")
    after, joins_after = run("2.0.1")
    assert "lost-write" in before and "lost-write" not in after
    assert joins_before != joins_after


def test_quick_restarts_are_noticed_from_2_2():
    """KAFKA-1120 / KIP-380: 2.2.0's processBrokerChange finds bounced brokers by their epoch."""
    for name, noticed in (("2.1", False), ("2.2", True)):
        c = cluster(name)
        c.crash("B", detected=False)
        c.restart("B")
        assert (("bounced", "B") in c.events) is noticed and ("B" not in c.isr) is noticed


def test_consumer_fetches_carry_the_leader_epoch_from_2_3():
    """KIP-320's client side: 2.3's Fetcher sends the epoch of its metadata; the broker compares
    it before leadership (FENCED_LEADER_EPOCH); 2.2's consumer sends none (NOT_LEADER)."""
    for name, code in (("2.2", "NOT_LEADER_OR_FOLLOWER"), ("2.3", "FENCED_LEADER_EPOCH")):
        c = cluster(name, acks="1", client_metadata="stale")
        c.produce("x")
        c.consume()                                  # the consumer learns A, epoch 0
        c.elect("B")                                 # epoch 1; A follows
        mark = len(c.events)
        c.consume()
        refusal = [e for e in c.events[mark:] if e[0] == "skip"]
        assert refusal and code in refusal[0][3], (name, refusal)


def test_a_no_op_truncation_drops_trailing_epoch_entries_from_2_6_1():
    """KAFKA-10706: from 2.6.1 (and 2.7.0) Log.truncateTo drops epoch-cache entries from the log
    end even when the offset is at the end (2.6.1 Log.truncateTo: truncateFromEnd(logEndOffset)).
    B led epoch 1 without appending, then follows A again and truncates to its own LEO: 2.6.0
    keeps (1, 1), 2.6.1 - 2.6.3 and 2.7 drop it."""
    def run(name: str) -> list:
        c = _new_leader_without_appends(name)
        c.restart("A")
        c.fetch("A")
        c.fetch("A")
        c.elect("A")                                 # B reconciles: truncates to 1, its LEO
        c.fetch("B")
        assert ("truncate_noop", "B", 1, 1, "OffsetsForLeaderEpoch") in c.events
        return c.by_id["B"].log.cache.entries
    assert run("2.6.0") == [(0, 0), (1, 1)]
    assert run("2.6.1") == run("2.6.3") == run("2.6") == run("2.7") == [(0, 0)]


def test_isr_changes_go_to_the_controller_from_2_7():
    """KIP-497: 2.7's leader sends AlterIsr (inter.broker.protocol.version >= 2.7-IV2); 2.6's writes
    ZooKeeper itself. A leader the controller cannot reach shrinks the ISR: 2.6 at once, 2.7 not
    until it reconnects - and 2.7 with IBP 2.7-IV1 behaves as 2.6."""
    def run(name: str, **kw) -> Cluster:
        c = cluster(name, acks="1", **kw)
        c.produce("x")                               # B and C lag behind x
        c.isolate("A", detected=False)
        c.tick(46000)
        return c
    assert run("2.6").isr == ("A",)
    in_flight = run("2.7")
    assert in_flight.isr == THREE and "alter_isr_sent" in kinds(in_flight)
    in_flight.reconnect("A")
    assert in_flight.isr == ("A",)
    assert run("2.7", inter_broker_protocol_version="2.7-IV1").isr == ("A",)


def test_a_follower_truncates_on_fetch_from_2_8():
    """KAFKA-10554: 2.8's follower sends its last fetched epoch and the leader answers a diverging
    epoch; 2.7's asks OffsetsForLeaderEpoch first. 2.8 with IBP 2.7-IV0 takes 2.7's path."""
    def run(name: str, **kw) -> list[str]:
        c = Cluster(ClusterConfig(replicas=("A", "B"), release=name, acks="1", **kw))
        c.produce("x")
        c.fetch("B")
        c.fetch("B")
        c.crash("A")                                 # B leads epoch 1
        c.produce("y")                               # ... and appends in it
        c.restart("A")
        c.fetch("A")
        return kinds(c)
    assert "epoch_request" in run("2.7") and "diverging" not in run("2.7")
    assert "reconciled" in run("2.8") and "epoch_request" not in run("2.8")
    assert "epoch_request" in run("2.8", inter_broker_protocol_version="2.7-IV0")


def test_a_diverging_answer_brings_the_hw_before_the_truncation_from_2_8_to_3_4_0():
    """KAFKA-14704: up to 3.4.0 AbstractFetcherThread.processFetchRequest runs processPartitionData
    on a diverging answer before truncating - the former leader A takes the new leader's HW 2 over
    its own uncommitted y (the window the JIRA names: "Truncating ... below high watermark"), then
    truncates to 1. From 3.4.1 the answer is only a truncation; the HW comes with the next fetch."""
    for name, processed in (("2.8.0", True), ("3.3-zk", True), ("3.4.0-kraft", True), ("3.4.1-kraft", False),
                            ("3.5-zk", False)):
        c = cluster(name, acks="1")
        c.produce("x")
        for _ in range(2):
            c.fetch("B")
            c.fetch("C")
        c.produce("y")                               # on A alone
        c.crash("A")                                 # B leads epoch 1
        c.produce("z")
        c.fetch("C")
        c.fetch("C")                                 # HW 2 on B
        c.restart("A")
        c.fetch("A")                                 # fetch at 2 after epoch 0: diverging (0, 1)
        a = c.by_id["A"]
        at = next(i for i, e in enumerate(c.events) if e[0] == "diverging" and e[1] == "A")
        after = c.events[at:]
        assert (("hw", "A", 0, 2, False) in after) is processed, name
        assert ("truncate", "A", 2, 1, "diverging epoch") in after and a.leo == 1, name
        assert a.hw == (1 if processed else 0), name


def test_a_diverging_fetch_below_the_log_start_stops_the_fetcher_in_2_8_0():
    """KAFKA-12996: 2.8.0's Partition.readRecords answers a diverging epoch before it looks at the
    log start, with a log start above the follower's HW: ReplicaFetcherThread.processPartitionData
    throws and the partition is marked failed - B fetches no more until a new leader epoch. 2.8.1
    answers OFFSET_OUT_OF_RANGE: B truncates fully and catches up (the built-in scenario
    kafka-12996-diverging-below-log-start)."""
    path = hwlib.load_scenario("kafka-12996-diverging-below-log-start").path
    data = yaml.safe_load(Path(path).read_text())
    for name, fails in (("2.8.0", True), ("2.8.1", False), ("3.3-zk", False), ("3.4.0-kraft", False)):
        result = hwlib.run_scenario(scenario_from_dict({**data, "config": {**data["config"], "release": name}}))
        last = result.trace.snapshots[-1]["replicas"]["B"]
        assert ("fetcher-stopped" in result.anomaly_kinds()) is fails, name
        assert (last["fetch_state"] == "failed") is fails, name
        assert (last["leo"], last["log_start"]) == ((2, 0) if fails else (5, 3)), name
    # a new leader epoch restarts the fetcher (makeFollower, then addFetcherForPartitions): C,
    # which kept its whole log, leads and B truncates x2 away and catches up
    later = {**data, "steps": [*data["steps"], {"elect": "C"}, {"fetch": "B"}, {"fetch": "B"}]}
    last = hwlib.run_scenario(scenario_from_dict(later)).trace.snapshots[-1]["replicas"]["B"]
    assert last["fetch_state"] == "fetching" and [r[2] for r in last["log"]] == ["m1", "m2", "m3", "m4", "m5"]


def test_a_diverging_fetch_leaves_the_followers_state_from_2_8_1():
    """KAFKA-13141: 2.8.0's ReplicaManager.updateFollowerFetchState records a diverging fetch's
    offset as the follower's log end - B's HW moves over A's m1 and m2 is acknowledged, then lost
    when A, which truncated it away, is elected (scenario kafka-13141-diverging-fetch-counted).
    2.8.1 skips the update: the HW stays at 0 and nothing is acknowledged."""
    for name, counted in (("2.8.0", True), ("2.8.1", False), ("3.0", False)):
        c = cluster(name, replicas=("A", "B"), acks="all")
        c.produce("m1")
        c.elect("B")
        c.produce("m2")
        c.fetch("A")
        b = c.by_id["B"]
        assert (b.hw == 1 and b.remotes["A"].leo == 1) is counted, name
        assert (c.producer.acked == ["m2"] if counted else not c.producer.acked), name
    result = hwlib.run_scenario("kafka-13141-diverging-fetch-counted")
    assert {"lost-write", "strong-isr"} <= set(result.anomaly_kinds())


def test_a_fetch_that_moves_the_hw_brings_it_at_once_in_1_0_0_to_1_1_0():
    """apache/kafka#3954 (1.0.0): ReplicaManager.updateFollowerLogReadResults refreshes an answer
    whose fetch moved the leader's HW (updateLeaderReplicaInfo), so B's fetch at 1, which moves A's
    HW to 1, brings HW 1 with m2; KAFKA-7104's fix (1.0.2, 1.1.1, 2.0.0) answers with the HW read
    with the records, 0. 0.11 never refreshed."""
    for name, refreshed in (("0.11.0", False), ("1.0.0", True), ("1.0.1", True), ("1.0.2", False),
                            ("1.1.0", True), ("1.1.1", False), ("2.0.0", False)):
        c = cluster(name, replicas=("A", "B"), acks="1")
        c.produce("m1")
        c.fetch("B")
        c.produce("m2")
        c.fetch("B")
        assert c.by_id["A"].hw == 1 and c.by_id["B"].hw == (1 if refreshed else 0), name
        assert ("fetch", "B", 1, 1, 1 if refreshed else 0) in c.events, name


def test_an_isr_change_may_not_add_a_broker_that_is_not_live_from_3_3():
    """KAFKA-14140 (ZooKeeper) and KIP-841 (KRaft): from 3.3.0 the controller refuses an ISR with
    a broker it does not see live. C's session expired (it is out of the ISR) but it keeps
    fetching from A: 3.2 takes it back in, 3.3 refuses (INELIGIBLE_REPLICA)."""
    for name, refused in (("3.2", False), ("3.3-zk", True), ("3.3-kraft", True)):
        c = cluster(name, acks="1")
        c.produce("x")
        c.fetch("B")
        c.fetch("B")
        c.tick(46000)                                # C lags: A shrinks the ISR to {A, B}
        c.isolate("A", detected=False)               # A's next ISR change waits in flight
        c.fetch("C")
        c.fetch("C")                                 # C caught up: A asks to add it
        c.crash("C")                                 # the controller sees C go
        c.reconnect("A")                             # ... before A's request reaches it
        assert ("C" in c.isr) is not refused and ("isr_ineligible" in kinds(c)) is refused, name


def test_alter_partition_checks_broker_epochs_from_3_5_kraft():
    """KIP-903: 3.5's controller refuses a member that registered again since the leader's view
    (a replaced disk, KAFKA-14139); 3.4 takes it. metadata.version 3.5-IV0 keeps 3.4's rule."""
    def run(name: str, **kw) -> list[str]:
        scenario = hwlib.load_scenario("kafka-14139-replaced-disk")
        scenario = dataclasses.replace(scenario, config=scenario.config.replace(release=name, **kw))
        return hwlib.run_scenario(scenario).anomaly_kinds()
    assert "lost-write" in run("3.4-kraft")
    assert "lost-write" not in run("3.5-kraft")
    assert "lost-write" in run("3.5-kraft", metadata_version="3.5-IV0")


def test_an_isr_shrink_keeps_the_leader_epoch_from_3_6_kraft():
    """KAFKA-15021: from metadata.version 3.6-IV0 the KRaft controller bumps the leader epoch on a
    leader change only; 3.5 bumps it on every ISR shrink. ZooKeeper mode never bumped it for the
    leader's own shrink."""
    def epoch(name: str, **kw) -> int:
        c = cluster(name, acks="1", **kw)
        c.produce("x")
        c.tick(46000)                                # B and C lag: the leader shrinks the ISR
        assert c.isr == ("A",)
        return c.leader_epoch
    assert epoch("3.5-kraft") == 1
    assert epoch("3.6-kraft") == 0
    assert epoch("3.6-kraft", metadata_version="3.5") == 1
    assert epoch("3.6-zk") == 0


def test_the_hw_stops_waiting_for_a_dead_caught_up_follower_from_3_6():
    """KAFKA-15021 (3.6.0's Partition.maybeIncrementLeaderHW, both modes): a follower outside the
    ISR that caught up within replica.lag.time.max.ms holds the HW back only while it is
    ISR-eligible. C, out of the ISR and lost by the controller, still fetches from the leader
    and catches up (the controller refuses to add it back, KAFKA-14140); then C crashes. Up to
    3.5 the leader waits for C's LEO; from 3.6 it does not."""
    for name, hw in (("3.5-zk", 1), ("3.6-zk", 2), ("3.5-kraft", 1), ("3.6-kraft", 2)):
        c = cluster(name, acks="1")
        c.produce("x")
        c.fetch("B")
        c.fetch("B")
        c.tick(46000)                                # C lags: ISR {A, B}
        c.isolate("C")                               # out of the ISR already: no write, no new epoch
        c.fetch("C")
        c.fetch("C")                                 # caught up; AlterPartition adding it is refused
        assert c.isr == ("A", "B") and "isr_ineligible" in kinds(c), name
        c.crash("C")
        c.produce("y")
        c.fetch("B")
        c.fetch("B")
        assert c.by_id["A"].hw == hw, name


def test_the_hw_stays_below_min_isr_from_3_7_both_modes():
    """KAFKA-15583: 3.7.0's Partition.maybeIncrementLeaderHW returns while the ISR is below
    min.insync.replicas, in ZooKeeper and KRaft mode alike (shared broker code)."""
    for name, advances in (("3.6-zk", True), ("3.7-zk", False), ("3.6-kraft", True), ("3.7-kraft", False)):
        c = cluster(name, acks="1", min_insync_replicas=2)
        c.crash("B")
        c.crash("C")                                 # ISR {A}: below min ISR
        c.produce("x")
        assert (c.by_id["A"].hw == 1) is advances, name


def test_min_isr_above_the_replicas_fails_every_acks_all_write_up_to_3_6_and_is_capped_from_3_7():
    """The same KAFKA-15583 commit: 3.7.0's Partition.effectiveMinIsr = min(min.insync.replicas,
    the replicas), read by appendRecordsToLeader, checkEnoughReplicasReachOffset and
    isUnderMinIsr. Up to 3.6 (leaderLog.config.minInSyncReplicas) min.insync.replicas=3 on two
    replicas refuses every acks=all write with NOT_ENOUGH_REPLICAS."""
    from hwlib.views.text import run_text

    steps = [hwlib.Step("produce", value="m1"), hwlib.Step("fetch", replica="B"), hwlib.Step("fetch", replica="B")]
    for name, acked in (("3.6-zk", []), ("3.7-zk", ["m1"]), ("3.6-kraft", []), ("3.7-kraft", ["m1"])):
        run = hwlib.run_steps(ClusterConfig(replicas=("A", "B"), release=name, acks="all", min_insync_replicas=3),
                              steps)
        assert run.acked == acked, name
        assert (("produce_error", "m1", "NOT_ENOUGH_REPLICAS") in run.events) is not acked, name
        words = " ".join(run_text(run).split())
        assert ("min.insync.replicas=3 (effective 2: min(it, the 2 replicas) from 3.7, KAFKA-15583)" in words) is \
            bool(acked), name
        assert ("min.insync.replicas=3 (above the 2 replicas: every acks=all write fails up to 3.6)" in words) is \
            (not acked), name


def test_the_hw_min_isr_check_reads_the_committed_isr_from_3_7():
    """3.7.0's isUnderMinIsr reads partitionState.isr - the ISR the controller committed, not the
    maximal one with a member being added (PendingExpandIsr: isr = lastCommittedState.isr). A
    leader cut off from the controller whose follower catches up keeps its HW until the
    AlterIsr is answered; 3.6 has no such check: the shrink itself lets the HW pass m1 and
    the waiting produce fails (checkEnoughReplicasReachOffset: ISR {A} below min ISR 2)."""
    for name, answered in (("3.6-zk", "NOT_ENOUGH_REPLICAS_AFTER_APPEND"), ("3.7-zk", None),
                           ("3.7-kraft", None)):
        c = cluster(name, replicas=("A", "B"), acks="all", min_insync_replicas=2, replica_lag_time_max_ms=1000)
        c.produce("m0")
        c.fetch("B")
        c.fetch("B")
        c.produce("m1")
        for _ in range(4):
            c.tick(500)                              # B lags: the ISR shrinks to {A}
        assert c.isr == ("A",), name
        c.isolate("A", detected=False)
        c.fetch("B")
        c.fetch("B")                                 # B caught up: AlterIsr {A,B} waits for the controller
        a = c.by_id["A"]
        assert a.alter_isr is not None and a.alter_isr[0] == ("A", "B"), name
        if answered is not None:
            assert ("produce_error", "m1", answered) in c.events and a.hw == 2, name
            continue
        assert a.hw == 1 and c.acked == ["m0"], name      # committed {A}: below min ISR
        c.reconnect("A")
        assert c.isr == ("A", "B") and a.hw == 2 and c.acked == ["m0", "m1"], name


def test_eligible_leader_replicas_are_on_by_default_from_4_1():
    """KIP-966: 4.0 ships ELR off (eligible.leader.replicas.version 0), 4.1 on for new clusters.
    The ISR member that fails last leaves the ISR for the ELR and is elected when it returns."""
    for name, elected in (("4.0", None), ("4.1", "B")):
        c = cluster(name, min_insync_replicas=2)
        c.crash("C")
        c.crash("B")
        c.crash("A")
        c.restart("B")
        assert c.controller.leader == elected, name


def test_an_upgraded_4_1_cluster_loses_the_last_replica_standing_until_elr_is_enabled():
    """KIP-966's gate, eligible.leader.replicas.version (server-common EligibleLeaderReplicasVersion):
    1 on a cluster created on 4.1, 0 on one upgraded to 4.1. x is on all three; C and B stop (B leaves
    the ISR for the ELR), A loses power and its unflushed x. With ELR, A's unclean shutdown makes it
    ineligible and B, back, leads with x; without, A - the last ISR member - leads with an empty log
    and every replica truncates x away."""
    logs = {}
    for level in (None, 0, 1):
        c = cluster("4.1", min_insync_replicas=2, acks="all", eligible_leader_replicas_version=level)
        c.produce("x")
        for _ in range(2):
            c.fetch("B")
            c.fetch("C")
        c.crash("C")
        c.crash("B")
        c.crash("A", lose_unflushed=True)
        for r in "ABC":
            c.restart(r)
        for r in "ABC":
            c.fetch(r)
        assert c.acked == ["x"] and c.config.gate_level("eligible_leader_replicas_version") == (1 if level is None
                                                                                                else level)
        logs[level] = (c.controller.leader, [c.by_id[r].log.values for r in "ABC"])
    assert logs[None] == logs[1] == ("B", [["x"], ["x"], ["x"]])
    assert logs[0] == ("A", [[], [], []])


def test_the_hw_waits_after_an_alter_isr_answer_from_2_7_to_3_0():
    """KAFKA-13091: 2.7.0 - 3.0.2's Partition.handleAlterIsrResponse takes the accepted ISR without
    recomputing the HW; 3.1.0's increments it and completes the produces waiting. x waits for B; B
    falls silent and leaves the ISR: 3.1 acknowledges x at the shrink, 2.8 and 3.0 only at the next
    append; 2.6 (a ZooKeeper write, no AlterIsr) and 2.7 below inter.broker.protocol.version 2.7-IV2
    at the shrink."""
    for name, kw, waits in (("2.6", {}, False), ("2.7", {"inter_broker_protocol_version": "2.7-IV1"}, False),
                            ("2.7", {}, True), ("2.8-zk", {}, True), ("3.0", {}, True), ("3.1", {}, False),
                            ("3.3-kraft", {}, False)):
        c = cluster(name, replicas=("A", "B"), acks="all", replica_lag_time_max_ms=10000, **kw)
        c.produce("x")
        c.tick(16000)                                   # B lagged (before x's request times out): ISR {A}
        assert c.isr == ("A",), name
        assert (c.acked == []) is waits and (c.by_id["A"].hw == 0) is waits, name
        c.produce("y")                                  # the next append raises the HW
        assert c.acked == ["x", "y"], name


def test_the_isr_check_runs_every_lag_up_to_0_10_1_and_every_half_from_0_10_2():
    """ReplicaManager.startup's "isr-expiration" task: period replicaLagTimeMaxMs at 0.10.1.1,
    replicaLagTimeMaxMs / 2 at 0.10.2.0 (KAFKA-4485). Lag 10 s both: a follower silent for 16 s
    while the leader has a record it lacks is dropped at the 15 s check under 0.10.2; 0.10.1's
    checks at 10 s and 20 s keep it until 20 s."""
    assert release("0.10.1").flags()["isr_check_every_lag"] and not release("0.10.2").flags()["isr_check_every_lag"]
    for name, silent, isr in (("0.10.2", 16000, ("A",)), ("0.10.1", 16000, ("A", "B")), ("0.10.1", 21000, ("A",))):
        c = cluster(name, replicas=("A", "B"))
        c.produce("x")
        c.tick(silent)
        assert c.isr == isr, (name, silent)


def _scenario(name: str, rules: str, **kw) -> hwlib.RunResult:
    scenario = hwlib.load_scenario(name)
    return hwlib.run_steps(scenario.config.replace(release=rules, **kw), scenario.steps)


def _ibp(text: str) -> dict:
    return {"inter_broker_protocol_version": text}


def test_a_follower_asks_offsets_for_leader_epoch_from_0_11_at_ibp_0_11_0_iv2():
    """KIP-101 scenario 1 (a quick restart, then the leader fails): 0.10.2 truncates to the HW and
    loses m2; 0.11.0 asks the leader first and keeps it - unless inter.broker.protocol.version is
    below 0.11.0-IV2 (0.11.0.0 ReplicaFetcherThread.fetchEpochsFromLeader: shouldSendLeaderEpochRequest
    false, an UNDEFINED_EPOCH_OFFSET answer made up, maybeTruncate to the HW), as in a cluster part
    way through its upgrade to 0.11."""
    for rules, kw, loses in (("0.10.2", {}, True), ("0.11.0", {}, False), ("0.11.0", _ibp("0.11.0-IV1"), True),
                             ("0.11.0", _ibp("0.10.2"), True), ("1.1", _ibp("0.11.0-IV2"), False),
                             ("2.1", _ibp("0.10.2"), True)):
        run = _scenario("data-loss", rules, **kw)
        asked = any(e[0] == "epoch_request" for e in run.events)
        assert ("lost-write" in run.anomaly_kinds()) is loses and asked is not loses, (rules, kw)
        assert any(e[0] == "truncate" and e[4] == "truncate to HW" for e in run.events) is loses, (rules, kw)


def test_the_epoch_answer_carries_its_epoch_from_2_0_at_ibp_2_0_iv0():
    """KIP-279's case (A -> B -> A before anyone reconciles): 1.1's one-offset answer leaves the
    logs diverged; 2.0's (epoch, end offset) walks back. 2.0.0 ReplicaFetcherThread sends
    OffsetsForLeaderEpoch v1 only from inter.broker.protocol.version 2.0-IV0; v0's answer has no
    epoch and AbstractFetcherThread.getOffsetTruncationState trusts its offset, as 1.1 did."""
    for rules, kw, diverges in (("1.1", {}, True), ("2.0.0", {}, False), ("2.0.0", _ibp("1.1"), True),
                                ("2.0.0", _ibp("2.0-IV0"), False), ("2.4", _ibp("1.1"), True)):
        run = _scenario("fast-leader-failover", rules, **kw)
        answers = [e[3] for e in run.events if e[0] == "epoch_request"]
        assert answers and all(isinstance(a, tuple) is not diverges for a in answers), (rules, kw)
        assert ("log-divergence" in run.anomaly_kinds()) is diverges, (rules, kw)


def test_requests_are_fenced_by_the_leader_epoch_from_2_1_at_ibp_2_1_iv2():
    """KAFKA-6880's zombie follower: 2.0.1's re-elected leader takes its stale fetch and the logs
    diverge; 2.1 refuses it (FENCED_LEADER_EPOCH). 2.1.0 ReplicaFetcherThread sends fetch v10 with
    the current leader epoch only from inter.broker.protocol.version 2.1-IV2 (OffsetsForLeaderEpoch
    v2 from 2.1-IV1): at IBP 2.0 a 2.1 - 2.8 cluster diverges as 2.0.1 does."""
    for rules, kw, diverges in (("2.0.1", {}, True), ("2.1", {}, False), ("2.1", _ibp("2.0"), True),
                                ("2.1", _ibp("2.1-IV2"), False), ("2.8", _ibp("2.0"), True)):
        run = _scenario("kafka-6880-zombie-follower", rules, **kw)
        fenced = [e for e in run.events if e[0] == "refused" and e[3] == "FENCED_LEADER_EPOCH"]
        assert ("log-divergence" in run.anomaly_kinds()) is diverges and (not fenced) is diverges, (rules, kw)


def _format(text: str) -> dict:
    return {"message_format_version": text}


def test_records_below_message_format_v2_carry_no_epoch_and_followers_truncate_to_the_hw():
    """0.11.0.0 - 2.8.0 Log.append assigns the epoch cache only for ``batch.magic >=
    RecordBatch.MAGIC_VALUE_V2``: under log.message.format.version 0.10.2 no append records an
    epoch, a follower's cache stays empty and it truncates to its HW (0.11.0.0
    ReplicaFetcherThread / 2.1.1 AbstractFetcherThread ``partitionsWithoutEpochs``): KIP-101
    scenario 1 truncates to the HW again in every release that reads the setting, and loses m2
    where the controller misses the quick restart (up to 2.1: KAFKA-1120); at 0.11.0 neither."""
    for rules, fmt, loses in (("0.11.0", "0.10.2", True), ("0.11.0", "0.11.0", False), ("2.0.1", "0.10.2", True),
                              ("2.1", "0.10.2", True), ("2.1", None, False), ("2.4", "0.10.2", False),
                              ("2.4", "0.11.0", False), ("2.8", "0.10.2", False), ("2.8", None, False)):
        run = _scenario("data-loss", rules, **_format(fmt))
        to_hw = fmt == "0.10.2"
        assert ("lost-write" in run.anomaly_kinds()) is loses, (rules, fmt)
        assert any(e[0] == "truncate" and e[4] == "truncate to HW" for e in run.events) is to_hw, (rules, fmt)
        if rules == "0.11.0":      # no cache entry at all: no OffsetsForLeaderEpoch request
            assert any(e[0] == "epoch_request" for e in run.events) is not to_hw, (rules, fmt)


def test_below_message_format_v2_the_epoch_cache_holds_elections_up_to_2_1_0_and_nothing_from_2_1_1():
    """KAFKA-7897: 2.0.1 - 2.1.0 Partition.makeLeader assigns (epoch, LEO) at an election whatever
    the format, so the leader's cache holds its elections only; 2.1.1 / 2.2.0
    Log.initializeLeaderEpochCache keeps no cache below v2 (``leaderEpochCache = None``); the 2.1
    row is read at 2.1.1. At v2 the appends assign as well."""
    for rules, fmt, leader_cache in (("2.0.1", "0.10.2", [(0, 0)]), ("2.1", "0.10.2", []),
                                     ("2.2", "0.10.2", []), ("2.2", "0.11.0", [(0, 0)]),
                                     ("1.1", "0.10.2", [])):
        c = cluster(rules, replicas=("A", "B"), **_format(fmt))
        c.produce("x")
        c.fetch("B")
        c.fetch("B")
        assert c.by_id["A"].log.cache.entries == leader_cache, (rules, fmt)
        assert c.by_id["B"].log.cache.entries == ([(0, 0)] if fmt == "0.11.0" else []), (rules, fmt)


def test_the_message_format_is_taken_where_kafka_reads_it():
    """log.message.format.version: ZooKeeper 0.11 - 2.8 (3.0 ignores it from IBP 3.0, KIP-724),
    at most the inter.broker.protocol.version (KafkaConfig), one line naming the field otherwise."""
    import pytest

    from hwlib.errors import ConfigError

    for rules, kw, words in (("0.10.2", _format("0.10.2"), "ZooKeeper 0.11 - 2.8"),
                             ("3.0", _format("0.10.2"), "KIP-724"),
                             ("3.7-kraft", _format("0.10.2"), "not modelled for 3.7 KRaft"),
                             ("1.1", {**_format("2.0"), **_ibp("1.1")}, "allowed: 0.8.0 up to 1.1"),
                             ("2.4", _format("two"), "is not a version")):
        with pytest.raises(ConfigError, match="config.message_format_version") as caught:
            cluster(rules, replicas=("A", "B"), **kw)
        assert words in str(caught.value) and "\n" not in str(caught.value), rules
    name, value = ClusterConfig.setting_from_text("log.message.format.version=0.10.2")
    assert (name, value) == ("message_format_version", "0.10.2")


def test_a_follower_moves_its_log_start_to_the_leaders_from_0_11():
    """KIP-107: 0.11.0.0 ReplicaFetcherThread.processPartitionData moves the follower's log start
    to the one its fetch response carries (replica.maybeIncrementLogStartOffset), and
    Partition.deleteRecordsOnLeader serves DeleteRecords; 0.10.2 has neither - B keeps its log
    start, and DeleteRecords is not there to ask."""
    for rules, follows in (("0.10.2", False), ("0.11.0", True), ("3.9-kraft", True)):
        run = _scenario("follower-catches-up-below-log-start", rules)
        starts = {rid: rep["log_start"] for rid, rep in run.trace.snapshots[-1]["replicas"].items()}
        moved = [e for e in run.events if e[0] == "log_start" and e[4] == "leader's log start"]
        assert (starts["B"] == 3) is follows and bool(moved) is follows, rules
        assert starts["A"] == (3 if follows else 2), rules       # retention 2, then DeleteRecords 3
        assert starts["C"] == starts["A"], rules                  # C truncated fully to the leader's start
        assert run.anomaly_kinds() == [], rules


def test_retention_deletes_only_below_the_hw_from_0_11_0_1():
    """KAFKA-5634: 0.11.0.1 Log.deletableSegments takes a segment only below the HW; 0.10.2
    deletes any segment retention names, up to the log end. B holds m1 - m3 with HW 1."""
    for rules, b_start in (("0.10.2", 3), ("0.11.0", 1)):
        c = cluster(rules, replicas=("A", "B"))
        c.produce("m1")
        c.fetch("B")
        c.fetch("B")                  # B: m1, HW 1
        c.produce("m2")
        c.produce("m3")
        c.fetch("B")                  # B: m1 - m3, the answer's HW 1
        b = c.by_id["B"]
        assert (b.leo, b.hw) == (3, 1), rules
        c.retention(5, "B")
        assert b.log.start == b_start and c.by_id["A"].log.start == 0, rules


def test_a_leader_below_its_log_start_serves_its_start_up_to_2_3_not_in_2_4_0():
    """KAFKA-9491's regression: 2.3 Partition.makeLeader -> Replica.convertHWToLocalOffsetMetadata
    turns an HW below the log start into the log start; 2.4.0 keeps the HW in the Log and does not
    look at it, so the replica elected before its fetch answer arrived leads with HW 0 below its
    log start 4, its followers' fetches and its produces fail (OFFSET_OUT_OF_RANGE)."""
    for rules, low in (("2.3", False), ("2.4.0", True)):
        run = _scenario("kafka-9491-hw-below-log-start", rules)
        assert ("hw-below-log-start" in run.anomaly_kinds()) is low, rules
        failed = [e for e in run.events if e[0] == "out_of_range_hw"]
        produce_failed = ("produce_error", "m5", "OFFSET_OUT_OF_RANGE") in run.events
        assert bool(failed) is low and produce_failed is low, rules
        assert run.trace.snapshots[18]["replicas"]["C"]["hw"] == (0 if low else 4), rules


def test_a_full_truncation_raises_the_hw_to_the_new_log_start_from_2_4_1():
    """KAFKA-9491's fix: 2.4.1 Log.truncateFullyAndStartAt -> updateLogStartOffset raises the HW
    to the new log start; 2.4.0 only lowers it to the LEO, so C keeps HW 0 after starting at 4."""
    for rules, hw in (("2.4.0", 0), ("2.4.1", 4)):
        run = _scenario("kafka-9491-hw-below-log-start", rules)
        assert ("truncate_fully", "C", 1, 4) in run.trace.events[16], rules
        assert run.trace.snapshots[16]["replicas"]["C"]["hw"] == hw, rules
        assert run.trace.snapshots[16]["replicas"]["C"]["log_start"] == 4, rules


def test_an_ibp_below_the_release_is_named_in_the_header_with_what_it_turns_back():
    from hwlib.views.text import run_text

    text = run_text(_scenario("data-loss", "2.1", **_ibp("1.1")))
    assert ("inter.broker.protocol.version=1.1 (below 2.0-IV0: as before KIP-279; below 2.1-IV2: as before "
            "KIP-320)") in " ".join(text.split())
    assert "inter.broker.protocol.version" not in run_text(_scenario("data-loss", "2.1"))


FLAG_TESTS = {
    "sends_epoch_requests": test_a_follower_asks_offsets_for_leader_epoch_from_0_11_at_ibp_0_11_0_iv2,
    "epoch_answers_carry_epoch": test_the_epoch_answer_carries_its_epoch_from_2_0_at_ibp_2_0_iv0,
    "fences_requests": test_requests_are_fenced_by_the_leader_epoch_from_2_1_at_ibp_2_1_iv2,
    "isr_check_every_lag": test_the_isr_check_runs_every_lag_up_to_0_10_1_and_every_half_from_0_10_2,
    "out_of_range_exits_broker": test_out_of_range_exits_the_broker_up_to_2_0_0_and_truncates_from_2_0_1,
    "caches_epoch_on_election": test_a_new_leader_caches_its_epoch_at_election_from_2_0_1,
    "isr_join_needs_epoch_start": test_isr_join_needs_the_epoch_start_offset_from_2_0_1,
    "notices_restarts": test_quick_restarts_are_noticed_from_2_2,
    "fences_consumer_fetches": test_consumer_fetches_carry_the_leader_epoch_from_2_3,
    "truncation_clears_end_epochs": test_a_no_op_truncation_drops_trailing_epoch_entries_from_2_6_1,
    "alter_isr_via_controller": test_isr_changes_go_to_the_controller_from_2_7,
    "truncate_on_fetch": test_a_follower_truncates_on_fetch_from_2_8,
    "hw_waits_after_isr_answer": test_the_hw_waits_after_an_alter_isr_answer_from_2_7_to_3_0,
    "alter_isr_rejects_fenced": test_an_isr_change_may_not_add_a_broker_that_is_not_live_from_3_3,
    "alter_isr_checks_broker_epochs": test_alter_partition_checks_broker_epochs_from_3_5_kraft,
    "isr_shrink_bumps_leader_epoch": test_an_isr_shrink_keeps_the_leader_epoch_from_3_6_kraft,
    "hw_counts_only_live_followers": test_the_hw_stops_waiting_for_a_dead_caught_up_follower_from_3_6,
    "strict_min_isr": test_the_hw_stays_below_min_isr_from_3_7_both_modes,
    "eligible_leader_replicas": test_eligible_leader_replicas_are_on_by_default_from_4_1,
    "follows_leader_log_start": test_a_follower_moves_its_log_start_to_the_leaders_from_0_11,
    "retention_bounded_by_hw": test_retention_deletes_only_below_the_hw_from_0_11_0_1,
    "make_leader_raises_hw_to_start": test_a_leader_below_its_log_start_serves_its_start_up_to_2_3_not_in_2_4_0,
    "full_truncation_raises_hw": test_a_full_truncation_raises_the_hw_to_the_new_log_start_from_2_4_1,
    "diverging_answer_processed": test_a_diverging_answer_brings_the_hw_before_the_truncation_from_2_8_to_3_4_0,
    "diverging_checks_log_start": test_a_diverging_fetch_below_the_log_start_stops_the_fetcher_in_2_8_0,
    "answer_refreshed_after_fetch": test_a_fetch_that_moves_the_hw_brings_it_at_once_in_1_0_0_to_1_1_0,
    "diverging_fetch_skips_follower_state": test_a_diverging_fetch_leaves_the_followers_state_from_2_8_1,
}


def _attribute_comment(attr: str) -> str:
    """The ``#:`` comment above ``attr``'s default in protocols.py."""
    lines = (Path(hwlib.__file__).parent / "engine" / "protocols.py").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if re.match(rf"\s+{attr}(: [^=]+)? = ", line))
    block = []
    while lines[at - 1].strip().startswith("#:"):
        at -= 1
        block.insert(0, lines[at].strip()[2:].strip())
    return " ".join(block)


def test_each_flag_s_meaning_is_the_same_on_its_row_and_its_attribute():
    """A flag is written twice - its ``Flag`` row (releases.py) and its ``Protocol`` attribute's
    comment (protocols.py): the comment names the row's JIRA / KIP and the release where it
    changes (its first, or - for a rule every modelled release had until one - that one)."""
    for flag in FLAGS:
        comment = _attribute_comment(flag.attr)
        assert comment, flag.attr
        for key in re.findall(r"KAFKA-\d+|KIP-\d+", flag.source):
            assert key in comment, (flag.attr, key)
        changes = flag.until if flag.since == (0, 9, 0, 0) and flag.until is not None else flag.since
        assert ".".join(version_text(changes).split(".")[:2]) in comment, (flag.attr, changes)


def test_every_flag_has_its_test_and_changes_between_the_releases_it_names():
    assert set(FLAG_TESTS) == {f.attr for f in FLAGS}
    for flag in FLAGS:
        first = [r for r in hwlib.engine.releases.RELEASES if flag.has(r.version, r.mode, None, None)]
        assert first, flag.attr
        assert release(first[0].key).flags()[flag.attr] is not flag.off


# ------------------------------------------------- corrections that hold in every release
def _dead_broker_readmitted(name: str) -> Cluster:
    """C is down in the controller's view, yet back in the ISR: before 3.3 the controller took
    the leader's AlterIsr adding it, made before C went."""
    c = cluster(name, acks="1")
    c.produce("x")
    c.fetch("B")
    c.fetch("B")
    c.tick(46000)
    c.isolate("A", detected=False)
    c.fetch("C")
    c.fetch("C")
    c.crash("C")
    c.reconnect("A")
    assert c.isr == THREE and "C" in c.controller.dead
    return c


def test_an_offline_election_keeps_only_the_live_isr_members():
    """ZooKeeper's Election.leaderForOffline (3.2; OfflinePartitionLeaderSelector in 0.10.2):
    newIsr = the old ISR's members the controller sees online."""
    c = _dead_broker_readmitted("3.2")
    c.crash("A")
    assert c.controller.leader == "B" and c.isr == ("B",)


def test_a_broker_already_failed_is_no_second_failure():
    """processBrokerChange sees only brokers whose registration changed: a broker whose session
    already expired and that then crashes changes nothing at the controller."""
    c = cluster("2.8")
    c.isolate("C")                                   # session expired: out of the ISR, epoch 1
    epoch, isr = c.leader_epoch, c.isr
    c.crash("C")
    assert (c.leader_epoch, c.isr) == (epoch, isr) and c.events[-1] == ("crash", "C", 0, True)
    # the dead broker readmitted by a 3.2 leader is not removed a second time either
    c = _dead_broker_readmitted("3.2")
    c.crash("C")                                     # already offline: the step is a skip
    assert c.isr == THREE and c.events[-1][0] == "skip"


def test_a_truncation_that_drops_nothing_is_an_event():
    """Log.truncateTo logs "Truncating to X has no effect as the largest offset in the log is Y":
    the trace says so too."""
    c = cluster("0.10.2", replicas=("A", "B"))
    c.produce("x")
    c.fetch("B")
    c.fetch("B")
    c.elect("B")
    assert ("truncate_noop", "A", 1, 1, "truncate to HW") in c.events


def test_each_generation_runs_the_rules_of_the_release_it_names():
    """``--protocol kip320`` is Kafka 2.1's rules: every flag of the generation's own release
    equals the generation's default, so a generation and its release give the same trace."""
    from hwlib.engine.protocols import GENERATIONS
    from hwlib.engine.releases import REPRESENTATIVE
    for name, key in REPRESENTATIVE.items():
        row = release(key)
        assert row.generation == name
        for attr, value in row.flags().items():
            assert getattr(GENERATIONS[name], attr) == value, (name, attr)
        by_generation = hwlib.run_scenario("data-loss", protocol=name)
        by_release = hwlib.run_scenario("data-loss", release=key)
        assert by_generation.trace.events == by_release.trace.events


def test_kafka_7415_comes_whole_a_leader_answers_below_its_first_epoch():
    """2.0.1's LeaderEpochFileCache.endOffsetFor answers an epoch below the first cached one with
    (that epoch, the first start offset); with 2.0.0's undefined answer and 2.0.1's caching at
    election together, a follower would keep a diverging record (a model-made divergence, found
    by hwlib check --release 2.0.1 and fixed)."""
    steps = [("produce", "m1"), ("elect", "B"), ("produce", "m2"), ("elect", "A"), ("fetch", "B"), ("fetch", "B")]
    for name in ("2.0.0", "2.0.1", "2.1"):
        c = cluster(name, replicas=("A", "B"))
        for kind, arg in steps:
            getattr(c, kind)(arg)
        assert c.by_id["B"].log.values == c.by_id["A"].log.values[:c.by_id["B"].leo], name
