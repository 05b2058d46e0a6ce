"""Engine behaviour, rule by rule: HW, fetch, truncation, elections, ISR (Partition, ReplicaManager, fetcher)."""

from __future__ import annotations

import random

import pytest

from hwlib import PROTOCOLS, Cluster, ClusterConfig
from hwlib.engine.replica import NEVER_MS, TRUNCATING

from ..helpers.remotes import replace_view, view_fields
from ..helpers.steps import every_step, numbered_produces


def cluster(replicas=("A", "B", "C"), **kw) -> Cluster:
    return Cluster(ClusterConfig(replicas=replicas, **kw))


def kinds(c: Cluster, since: int = 0) -> list[str]:
    return [e[0] for e in c.events[since:]]


def replicate(c: Cluster, *followers: str, rounds: int = 2) -> None:
    for _ in range(rounds):
        for f in followers:
            c.fetch(f)


# ------------------------------------------------------------------------------ produce
def test_acks_1_is_acknowledged_on_append_acks_0_gets_no_answer():
    c = cluster(acks="1")
    one = c.produce("x")
    zero = c.produce("y", acks="0")
    assert one.status == "acked" and c.acked == ["x"]
    assert zero.status == "no-answer" and c.leader.leo == 2 and c.partition_hw == 0


def test_acks_all_waits_for_hw_to_pass_the_record():
    c = cluster()
    request = c.produce("x")
    assert request.status == "pending"
    replicate(c, "B", "C", rounds=1)
    assert request.status == "pending"           # remote LEOs still 0 after round 1
    replicate(c, "B", "C", rounds=1)
    assert request.status == "acked" and c.partition_hw == 1


def test_not_enough_replicas_appends_nothing():
    c = cluster(min_insync_replicas=3)
    c.crash("C")                                  # controller removes C: ISR {A,B}
    request = c.produce("x")
    assert request.status == "NOT_ENOUGH_REPLICAS"
    assert c.leader.leo == 0


def test_not_enough_replicas_after_append_keeps_the_record():
    c = cluster(min_insync_replicas=2)
    request = c.produce("x")
    c.crash("C")
    c.crash("B")                                  # ISR {A}: HW = A's LEO, but ISR < 2
    assert request.status == "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
    assert c.leader.log.values == ["x"] and c.partition_hw == 1
    assert c.acked == []


def test_no_leader_and_offline_leader_errors():
    c = cluster(replicas=("A",))
    c.crash("A", detected=False)
    assert c.produce("x").status == "NETWORK_EXCEPTION"
    c.restart("A")
    c.crash("A")
    assert c.leader is None
    assert c.produce("y").status == "NOT_LEADER_OR_FOLLOWER"


def test_pending_produce_times_out_and_fails_on_leader_change():
    c = cluster(replicas=("A", "B"))
    slow = c.produce("x")
    c.tick(30000)
    assert slow.status == "REQUEST_TIMED_OUT"
    moved = c.produce("y")
    c.elect("B")
    assert moved.status == "NOT_LEADER_OR_FOLLOWER"


def test_log_flush_interval_messages_makes_appends_durable():
    c = cluster(replicas=("A", "B"), acks="1", log_flush_interval_messages=1)
    c.produce("x")
    c.crash("A", lose_unflushed=True, detected=False)
    c.restart("A")                                # leads again, from disk
    assert c.leader.id == "A" and c.by_id["A"].log.values == ["x"]


# ---------------------------------------------------------------------------- purgatory
def test_parked_fetch_expires_on_tick_with_current_hw():
    c = cluster(replicas=("A", "B"))
    c.produce("x")
    c.fetch("B")
    c.fetch_request("B")                          # HW 1, nothing to send: parks
    assert c.by_id["B"].in_flight.parked
    c.tick(499)
    assert c.by_id["B"].in_flight.parked
    c.tick(1)
    assert not c.by_id["B"].in_flight.parked and c.by_id["B"].in_flight.hw == 1
    c.fetch_response("B")
    assert c.by_id["B"].hw == 1


def test_response_from_a_deposed_leader_is_dropped():
    c = cluster(replicas=("A", "B", "C"))
    c.produce("x")
    c.fetch_request("C")                          # response with x in flight
    c.elect("B")
    assert c.by_id["C"].in_flight is None
    c.fetch_response("C")
    assert kinds(c)[-1] == "skip" and c.by_id["C"].leo == 0


# ---------------------------------------------------------------------------------- ISR
def test_isr_shrinks_after_lag_checked_every_half_lag():
    c = cluster(acks="1", protocol="kip320")      # B, caught up, stays (KAFKA-7152, see below)
    c.produce("x")
    replicate(c, "B")                             # C never fetches
    c.tick(30000)                                 # checks at 15000 and 30000: not > 30000 yet
    assert c.isr == ("A", "B", "C")
    c.tick(15000)                                 # check at 45000: 45000 - 0 > 30000
    assert c.isr == ("A", "B")
    assert c.partition_hw == 1                    # HW no longer waits for C


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_caught_up_follower_that_stops_fetching_leaves_the_isr_only_up_to_kafka_2_0(protocol):
    """Partition.getOutOfSyncReplicas: up to Kafka 2.0 only the time since the follower was
    last caught up counts; from 2.1 (KAFKA-7152) a follower whose LEO equals the leader's stays."""
    c = cluster(protocol=protocol, replicas=("A", "B"), acks="1")
    c.produce("x")
    replicate(c, "B")                             # remote LEO 1 = leader LEO 1: caught up
    c.tick(45000)                                 # B sends nothing for 45 s
    stays = protocol not in ("hw", "kip101", "kip279")
    assert c.isr == (("A", "B") if stays else ("A",))
    c.produce("y")                                # A's LEO moves: B is behind, not caught up for 45 s
    c.tick(15000)
    assert c.isr == ("A",)


def test_follower_rejoins_isr_when_it_reaches_the_hw():
    c = cluster(acks="1", protocol="kip320")
    c.produce("x")
    replicate(c, "B")
    c.tick(45000)
    assert "C" not in c.isr
    c.fetch("C")                                  # fetch offset 0 < HW 1: stays out
    assert "C" not in c.isr
    c.fetch("C")                                  # fetch offset 1 >= HW 1: joins
    assert c.isr == ("A", "B", "C")


def test_caught_up_follower_outside_isr_still_holds_back_the_hw():
    """Partition.maybeIncrementLeaderHW: HW counts ISR members and followers caught up within the lag."""
    c = cluster(acks="1")
    leader = c.leader
    c.controller.isr = leader.isr = ("A", "B")      # as a LeaderAndIsr would tell the leader
    c.produce("x")
    c.produce("y")
    replace_view(leader, "B", leo=2)
    replace_view(leader, "C", leo=1, last_caught_up_ms=c.now)         # caught up just now
    c.partition.maybe_increment_leader_hw(leader)
    assert leader.hw == 1
    replace_view(leader, "C", last_caught_up_ms=NEVER_MS)             # not caught up within the lag
    c.partition.maybe_increment_leader_hw(leader)
    assert leader.hw == 2


def test_new_leader_forgets_remote_leos_and_waits_for_fetches():
    c = cluster()
    c.produce("x")
    replicate(c, "B", "C")
    c.elect("B")
    b = c.leader
    assert {rid: r.leo for rid, r in b.remotes.items()} == {"A": -1, "C": -1}
    assert b.hw == 0 and b.leo == 1               # keeps its stale HW, never truncates
    c.produce("y")
    assert b.hw == 0
    replicate(c, "A", "C")
    assert b.hw == 2


# ---------------------------------------------------------------------------- elections
def test_controller_elects_first_live_isr_member_in_assignment_order():
    c = cluster()
    c.crash("A")
    assert (c.leader.id, c.leader_epoch, c.isr) == ("B", 1, ("B", "C"))
    c.crash("C")                                  # follower failure: ISR shrinks, epoch + 1
    assert (c.leader.id, c.leader_epoch, c.isr) == ("B", 2, ("B",))
    c.crash("B")                                  # last ISR member stays in the ISR
    assert (c.leader, c.leader_epoch, c.isr) == (None, 3, ("B",))
    c.restart("A")                                # not in the ISR: no clean election
    assert c.leader is None
    c.restart("B")
    assert (c.leader.id, c.leader_epoch) == ("B", 4)


def test_unclean_election_picks_first_live_replica_and_resets_isr():
    for unclean, expected in ((False, None), (True, "B")):
        c = cluster(replicas=("A", "B"), acks="1", unclean_leader_election=unclean)
        c.produce("x")
        c.tick(45000)                             # B never fetched: ISR {A}
        c.crash("A")
        assert (c.leader.id if c.leader else None) == expected
        if unclean:
            assert c.isr == ("B",)


def test_elect_moves_leadership_and_old_leader_truncates_to_hw_under_hw():
    c = cluster(replicas=("A", "B"), acks="1")
    c.produce("x")
    replicate(c, "B")
    c.produce("y")                                # A: x, y (HW 1)
    c.elect("B")
    a = c.by_id["A"]
    assert c.leader.id == "B" and a.log.values == ["x"]
    c.crash("A")
    c.elect("A")
    assert kinds(c)[-1] == "skip"


def test_undetected_crash_is_noticed_after_the_session_timeout():
    c = cluster(replicas=("A", "B"))
    c.crash("A", detected=False)
    assert c.leader.id == "A" and c.isr == ("A", "B")
    c.tick(17999)
    assert c.leader.id == "A"
    c.tick(1)
    assert c.leader.id == "B" and ("detected", "A") in c.events


def test_leader_restarting_unnoticed_leads_again_with_unknown_remote_leos():
    c = cluster(replicas=("A", "B"))
    c.produce("x")
    replicate(c, "B")
    c.crash("A", detected=False)
    c.restart("A")
    a = c.leader
    assert a.id == "A" and a.leader_epoch == 0 and a.remotes["B"].leo == -1


# ----------------------------------------------------------------- durability, restarts
def test_hw_checkpoint_is_periodic_and_crash_reverts_hw_to_it():
    c = cluster(replicas=("A", "B"), acks="1")
    c.produce("x")
    replicate(c, "B")
    b = c.by_id["B"]
    assert b.hw == 1 and b.hw_checkpoint == 0
    c.tick(5000)
    assert b.hw_checkpoint == 1
    c.produce("y")
    replicate(c, "B")
    c.crash("B", detected=False)
    assert b.hw == 1                               # checkpoint, not the in-memory 2


def test_power_loss_keeps_only_the_flushed_prefix_and_cache():
    c = cluster(replicas=("A", "B"), acks="1")
    c.produce("x")
    c.flush("A")
    c.produce("y")
    c.crash("A", lose_unflushed=True)
    a = c.by_id["A"]
    assert a.log.values == ["x"] and a.log.flushed == 1 and a.log.cache.entries == [(0, 0)]
    assert ("crash", "A", 1, True) in c.events


def test_offset_out_of_range_truncates_follower_to_a_shorter_leader():
    """With unclean election enabled (the halt without it: tests/engine/test_release_flags.py)."""
    c = cluster(replicas=("A", "B"), acks="1", unclean_leader_election=True)
    c.produce("x")
    c.produce("y")
    replicate(c, "B")
    c.crash("A", lose_unflushed=True, detected=False)   # A loses everything, stays leader
    c.restart("A")
    c.fetch("B")
    assert ("out_of_range", "B", 2, 0) in c.events
    assert c.by_id["B"].leo == 0 and c.by_id["B"].hw == 0


def test_kip101_restart_reconciles_with_one_round_trip_before_fetching():
    c = cluster(replicas=("A", "B"), protocol="kip101", acks="1")
    c.produce("x")
    c.produce("y")
    replicate(c, "B")
    c.crash("B", detected=False)
    c.restart("B")
    b = c.by_id["B"]
    assert b.fetch_state == TRUNCATING and b.leo == 2
    mark = len(c.events)
    c.fetch("B")
    assert c.events[mark:] == [("epoch_request", "B", 0, 2), ("truncate_noop", "B", 2, 2, "OffsetsForLeaderEpoch")]
    c.produce("z")
    c.fetch("B")
    assert b.log.values == ["x", "y", "z"]


def test_kip101_follower_without_epochs_truncates_to_hw_without_a_round_trip():
    c = cluster(replicas=("A", "B"), protocol="kip101")
    c.crash("B", detected=False)
    c.restart("B")
    assert c.by_id["B"].fetch_state != TRUNCATING


def test_steps_that_cannot_act_are_recorded_as_skips():
    c = cluster(replicas=("A", "B"))
    c.crash("B")
    c.fetch("B")
    c.crash("B")
    c.restart("A")
    c.fetch_response("A")
    c.fetch_request("A")
    skips = [e for e in c.events if e[0] == "skip"]
    assert [s[3] for s in skips] == ["replica is offline", "replica is already offline", "replica is already online",
                                     "no request in flight", "replica is the leader"]


def test_every_step_kind_has_a_cluster_call_and_every_event_a_description():
    import hwlib
    from hwlib.engine.events import _DESCRIBE, describe
    from hwlib.engine.steps import STEP_KINDS

    c = cluster(replicas=("A", "B"))
    for kind in STEP_KINDS:                     # each kind, in its simplest form, is carried out
        obj = {kind: {"value": "x"} if kind == "produce" else 5 if kind in ("tick", *hwlib.engine.steps.LOG_START_STEPS)
               else "B" if kind in hwlib.engine.steps.REPLICA_STEPS else {}}
        mark = len(c.events)
        c.apply(hwlib.parse_step(obj, 0, ("A", "B")))
        assert len(c.events) > mark, kind       # it acted or said why it could not
    seen = set()
    for name in hwlib.builtin_scenarios():
        for protocol in hwlib.PROTOCOLS:
            for events in hwlib.run_scenario(name, protocol=protocol).trace.events:
                for event in events:
                    seen.add(event[0])
                    assert describe(event) != " ".join(str(x) for x in event), event
    assert seen <= set(_DESCRIBE) and len(seen) >= 15


@pytest.mark.parametrize("protocol", ["kip101", "kip966"])
def test_a_copy_shares_the_leaders_remote_views_and_never_writes_them(protocol):
    """The leader's remote views are replaced, never changed (a copy shares them): every step
    taken on a copy, on random 3-replica schedules, leaves each view its source holds as it was."""
    steps = every_step(("A", "B", "C"), ("elect", "isolate", "isolate_unseen", "deliver", "crash", "quick_restart",
                                         "power_loss", "tick"), 45001)
    replaced = 0
    for seed in range(20):
        rng = random.Random(seed)
        source = cluster(protocol=protocol)
        for step in numbered_produces(rng.choice(steps) for _ in range(60)):
            views = [(r.id, rid, remote, view_fields(remote))
                     for r in source.replicas for rid, remote in r.remotes.items()]
            copy = source.clone()
            assert all(copy.by_id[r].remotes[rid] is remote for r, rid, remote, _ in views)   # shared, not copied
            copy.apply(step)
            for r, rid, remote, fields in views:
                assert view_fields(remote) == fields, (seed, step, r, rid)
                replaced += copy.by_id[r].remotes.get(rid) is not remote
            source.apply(step)
    assert replaced > 100                         # the steps did write views (as new ones)
