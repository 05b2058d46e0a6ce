"""The state key's reductions, one by one: what a reduction leaves out, changed at will, never changes the future.

``model.reductions`` leaves out of the fingerprint what no later step and no check can
read. The searches in ``test_check.py`` hold the reduced search to the whole one; here each
reduction's argument is tested directly: in states met along random schedules (every fault,
time passing), the dropped values are scrambled in a clone, and the clone and the original then
run the same steps - their events and their reduced state keys must stay equal at every step.
"""

from __future__ import annotations

import random

import pytest

from hwlib import PROTOCOLS, Cluster, ClusterConfig, Step
from hwlib.check import Bounds, state_key
from hwlib.engine.controller import LeaderAndIsr
from hwlib.engine.protocols import GENERATIONS, get_protocol
from hwlib.engine.replica import LEADER
from hwlib.model.reductions import (
    age_past_cap,
    asked_epoch_unread,
    crash_noticed,
    deadline_unwaited,
    finished_request,
    isolation_settled,
    metadata_unread,
    offline,
    unclean_flag_read,
)
from hwlib.model.space import settled_epoch

from ..helpers.remotes import replace_view
from ..helpers.steps import every_step, numbered_produces

FAULTS = ("elect", "isolate", "isolate_unseen", "deliver", "crash", "quick_restart", "power_loss", "flush", "tick",
          "controller_failover")
VALUES = {f"m{i}": i for i in range(1, 40)}


def schedule(seed: int, n: int, faults: tuple[str, ...] = FAULTS) -> list[Step]:
    """A random schedule over 3 replicas of ``faults``; with ``tick`` among them, ticks of 7 s
    (below replica.lag.time.max.ms, so caught-up times and last fetches interleave) and of 45 s;
    with the responses of split fetches, which a sweep's runs deliver apart (the search has
    them as ``fetch``)."""
    rng = random.Random(seed)
    steps = every_step(("A", "B", "C"), faults, 7000) + ([Step("tick", ms=45001)] if "tick" in faults else [])
    return numbered_produces(rng.choice(steps) for _ in range(n))


def scramble_last_fetch(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 6: where a follower's caught-up time is at or after its last fetch, the
    leader's LEO at that fetch and the fetch's time (kept no later than the caught-up time)
    are set to other values (a remote view is never changed, only replaced: a copy of the
    cluster shares it). Returns how many remotes were changed."""
    changed = 0
    for r in cluster.replicas:
        for rid, remote in list(r.remotes.items()):
            if remote.last_fetch_ms <= remote.last_caught_up_ms:
                replace_view(r, rid, last_fetch_leader_leo=rng.randrange(-1, 9),
                             last_fetch_ms=remote.last_caught_up_ms - rng.randrange(0, 50_000))
                changed += 1
    return changed


def scramble_member_epochs(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 5: before KIP-903, an AlterIsr in flight gets other member broker epochs."""
    changed = 0
    for r in cluster.replicas:
        if r.alter_isr is not None:
            new_isr, epoch, partition_epoch, members, reason = r.alter_isr
            r.alter_isr = (new_isr, epoch, partition_epoch, tuple(e + rng.randrange(1, 4) for e in members), reason)
            changed += 1
    return changed


def _run_alike(protocol: str, scramble, seeds: range, n: int = 70, ahead: int = 25,
               faults: tuple[str, ...] = FAULTS, **settings) -> int:
    """Scrambles a clone at every step of each seed's schedule (of ``faults``, under
    ``settings``) and runs both ``ahead`` steps on; returns how many states had something to
    scramble."""
    config = ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, **{"acks": "all", "retries": 1, **settings})
    scrambled = 0
    for seed in seeds:
        rng = random.Random(seed)
        steps = schedule(seed, n, faults)
        cluster = Cluster(config)
        for i, step in enumerate(steps):
            cluster.apply(step)
            copy = cluster.clone()
            if not scramble(copy, rng):
                continue
            scrambled += 1
            original = cluster.clone()
            assert state_key(copy, VALUES) == state_key(original, VALUES)
            for later in steps[i + 1:i + 1 + ahead]:
                original.apply(later)
                copy.apply(later)
                assert copy.events == original.events, (seed, i, later)
                assert state_key(copy, VALUES) == state_key(original, VALUES), (seed, i, later)
    return scrambled


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_followers_last_fetch_never_acts_once_it_caught_up_then(protocol):
    assert _run_alike(protocol, scramble_last_fetch, range(20)) > 100


@pytest.mark.parametrize("protocol", [p for p in PROTOCOLS if get_protocol(p).alter_isr_via_controller
                                      and not get_protocol(p).alter_isr_checks_broker_epochs])
def test_member_broker_epochs_never_act_before_kip903(protocol):
    assert _run_alike(protocol, scramble_member_epochs, range(40)) > 5


@pytest.mark.parametrize("scramble", [scramble_last_fetch, scramble_member_epochs])
def test_the_scrambles_do_change_the_whole_state(scramble):
    """The scrambles reach the unreduced key: the reductions are what makes the keys equal."""
    met = 0
    for seed in range(40):
        cluster = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol="kip595", acks="all"))
        for step in schedule(seed, 40):
            cluster.apply(step)
            copy = cluster.clone()
            if scramble(copy, random.Random(seed)):
                met += 1
                assert state_key(copy, VALUES, reduced=False) != state_key(cluster, VALUES, reduced=False)
                assert state_key(copy, VALUES) == state_key(cluster, VALUES)
    assert met > 5


# ------------------------------------------------ reductions 1-4 and 9-13, one scramble each
CLIENT_FAULTS = FAULTS + ("lost_ack", "consume", "consumer_crash", "stale_produce", "controlled_shutdown",
                          "replace_disk")


def scramble_finished_requests(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 1: a finished produce request gets another offset, leader, epoch, deadline,
    attempts, acks, sequence number, lost-ack flag, first broker and finished status."""
    changed = 0
    for p in cluster.producer.produces:
        if finished_request(p.status):
            p.offset, p.leader, p.epoch = rng.randrange(-1, 9), rng.choice(["A", "B", "C", None]), rng.randrange(9)
            p.deadline, p.attempts, p.acks = rng.randrange(99_999), rng.randrange(1, 5), rng.choice(["0", "1", "all"])
            p.seq, p.lose_ack, p.to = rng.randrange(-1, 9), rng.random() < 0.5, rng.choice(["A", "B", None])
            p.status = rng.choice(["acked", "no-answer", "NOT_ENOUGH_REPLICAS", "REQUEST_TIMED_OUT"])
            changed += 1
    return changed


def scramble_offline(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 2: an offline replica gets another role, leader, leader epoch, fetch state, HW
    (no higher than its LEO), cached ISR, isolation, awaiting flag, start of its epoch and
    partition epoch, and its queued changes are dropped (its request in flight, purgatory,
    AlterIsr and view of followers are gone since it stopped)."""
    changed = 0
    for r in cluster.replicas:
        if offline(r.online):
            r.role, r.leader_id = rng.choice(["leader", "follower", "offline"]), rng.choice(["A", "B", "C", None])
            r.leader_epoch, r.fetch_state = rng.randrange(-1, 9), rng.choice(["fetching", "truncating"])
            r.hw, r.isr = rng.randrange(0, r.leo + 1), tuple(rng.sample(["A", "B", "C"], rng.randrange(4)))
            r.isolated, r.awaiting_leader = rng.random() < 0.5, rng.random() < 0.5
            r.leader_epoch_start, r.partition_epoch = rng.randrange(9), rng.randrange(-1, 99)
            r.remotes = {}
            cluster.channel.queues[r.id] = []
            changed += 1
    return changed


def scramble_unread_flag_and_floor(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 3: without Eligible Leader Replicas the unclean-shutdown flag is flipped;
    where the ISR join floor is 0 (before kip320) the start of each leader's epoch is moved."""
    changed = 0
    for r in cluster.replicas:
        if not unclean_flag_read(cluster.controller.elr_enabled):
            r.unclean_shutdown = not r.unclean_shutdown
            changed += 1
        if not cluster.protocol.isr_join_needs_epoch_start:
            r.leader_epoch_start = rng.randrange(99)
            changed += 1
    return changed


def scramble_asked_epoch(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 4: a request in flight asked about another epoch."""
    changed = 0
    for r in cluster.replicas:
        if r.in_flight is not None and asked_epoch_unread():
            r.in_flight.asked_epoch = rng.randrange(-1, 9)
            changed += 1
    return changed


def scramble_old_ages(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 9: every time whose age is past its rule's cap is moved further back by one
    amount (so two times of one follower keep their order): a follower's caught-up time and
    last fetch, an unnoticed crash, the last commit."""
    now, config, back = cluster.now, cluster.config, rng.randrange(1, 90_000)
    lag, changed = config.replica_lag_time_max_ms, 0
    for r in cluster.replicas:
        for rid, m in list(r.remotes.items()):
            caught, fetched = m.last_caught_up_ms, m.last_fetch_ms
            old_caught, old_fetch = age_past_cap(now - caught, lag) > lag, age_past_cap(now - fetched, lag) > lag
            if old_caught or old_fetch:
                replace_view(r, rid, last_caught_up_ms=caught - back if old_caught else caught,
                             last_fetch_ms=fetched - back if old_fetch else fetched)
                changed += 1
        if r.crashed_at_ms is not None and now - r.crashed_at_ms > config.session_timeout_ms:
            r.crashed_at_ms -= back
            changed += 1
    consumer = cluster.consumer
    if now - consumer.last_commit_ms > config.auto_commit_interval_ms:
        consumer.last_commit_ms -= back
        changed += 1
    return changed


def scramble_unwaited_deadlines(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 10: the deadline of a fetch not parked, and of a produce request not pending."""
    changed = 0
    for r in cluster.replicas:
        if r.in_flight is not None and deadline_unwaited(r.in_flight.parked):
            r.in_flight.deadline = rng.randrange(99_999)
            changed += 1
    for p in cluster.producer.produces:
        if deadline_unwaited(p.status == "pending"):
            p.deadline = rng.randrange(99_999)
            changed += 1
    return changed


def scramble_noticed_crash(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 11: a crash the controller noticed happened at another time."""
    changed = 0
    for r in cluster.replicas:
        if r.crashed_at_ms is not None and crash_noticed(r.id, cluster.controller.dead):
            r.crashed_at_ms = cluster.now - rng.randrange(0, 99_999)
            changed += 1
    return changed


def rename_counters(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 12 (and 5's registrations): an order-preserving renaming of every partition
    epoch - the controller's, each running replica's, each queued change's, each AlterIsr's - and
    of every registration (the controller's broker epochs, each AlterIsr's member epochs); under
    ZooKeeper-era rules the partition epochs are set at random instead (never read). An offline
    replica's partition epoch is set at random (a restart forgets it)."""
    a, b = rng.randrange(2, 5), rng.randrange(0, 50)
    kraft = cluster.protocol.kraft

    def epoch(value: int) -> int:
        return a * value + b if kraft else rng.randrange(-1, 99)

    ctl = cluster.controller
    ctl.partition_epoch = epoch(ctl.partition_epoch)
    ctl.broker_epochs = {r: a * e + b for r, e in ctl.broker_epochs.items()}
    queues = cluster.channel.queues
    for r in cluster.replicas:
        r.partition_epoch = epoch(r.partition_epoch) if r.online else rng.randrange(-1, 99)
        queues[r.id] = [LeaderAndIsr(q.epoch, q.leader, q.isr, epoch(q.partition_epoch)) for q in queues[r.id]]
        if r.alter_isr is not None:
            new_isr, leader_epoch, partition_epoch, members, reason = r.alter_isr
            r.alter_isr = (new_isr, leader_epoch, epoch(partition_epoch), tuple(a * e + b for e in members), reason)
    return 1


def scramble_current_metadata(cluster: Cluster, rng: random.Random) -> int:
    """Reduction 13: with current client metadata, what each client learned is set at random."""
    metadata = cluster.metadata
    if not metadata_unread(metadata.stale):
        return 0
    metadata.known = {client: (rng.choice(["A", "B", "C", None]), rng.randrange(9)) for client in metadata.known}
    return 1


SCRAMBLES = {"finished-request": (scramble_finished_requests, CLIENT_FAULTS, {"client_metadata": "stale"}),
             "offline": (scramble_offline, CLIENT_FAULTS, {}),
             "unread-flag-and-floor": (scramble_unread_flag_and_floor, CLIENT_FAULTS, {}),
             "asked-epoch": (scramble_asked_epoch, FAULTS, {}),
             "old-ages": (scramble_old_ages, CLIENT_FAULTS, {"enable_auto_commit": True}),
             "unwaited-deadlines": (scramble_unwaited_deadlines, CLIENT_FAULTS, {}),
             "noticed-crash": (scramble_noticed_crash, CLIENT_FAULTS, {}),
             "counters": (rename_counters, CLIENT_FAULTS, {}),
             "current-metadata": (scramble_current_metadata, CLIENT_FAULTS, {})}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("reduction", sorted(SCRAMBLES))
def test_what_a_reduction_leaves_out_never_acts(reduction, protocol):
    """What each reduction leaves out, scrambled in a copy of states met along random
    schedules (every fault, the clients' too), changes neither the events nor the reduced key of
    any later step."""
    scramble, faults, settings = SCRAMBLES[reduction]
    met = _run_alike(protocol, scramble, range(6), n=60, ahead=20, faults=faults, **settings)
    assert met == 0 if (reduction, protocol) in NEVER_MET else met > 3


#: where a reduction has nothing to leave out: under kip966 the unclean-shutdown flag is read
#: (Eligible Leader Replicas) and the start of the leader's epoch too (from kip320)
NEVER_MET = {("unread-flag-and-floor", "kip966")}


def test_finished_is_the_producer_no_longer_acting_on_a_request():
    """Reduction 1's predicate reads a request's status: pending exactly while it waits in a
    leader's purgatory, retrying while in the producer's retry list, queued while in its queue."""
    for protocol in ("kip101", "kip320", "kip966"):
        for settings in ({"client_metadata": "stale"}, {"max_in_flight_requests_per_connection": 1},
                         {"enable_idempotence": True}):
            config = ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="all", retries=2, **settings)
            for seed in range(15):
                cluster = Cluster(config)
                for step in schedule(seed, 60, CLIENT_FAULTS):
                    cluster.apply(step)
                    producer, waiting = cluster.producer, cluster.delayed.produces
                    for p in producer.produces:
                        assert (p.status == "pending") == any(p is w for w in waiting)
                        assert (p.status == "retrying") == any(p is w for w in producer.retrying)
                        assert (p.status == "queued") == any(p is w for w in producer.queued)


# ------------------------------------------------ reduction 7: an unnoticed isolation, settled
#: faults under which an isolation can settle (``model.space.settled_epoch``): no ticks, no failover
SETTLING = tuple(f for f in FAULTS if f not in ("tick", "controller_failover"))
#: where an isolation can settle: every generation whose ISR shrink writes a new leader epoch
SETTLING_GENERATIONS = [p for p in PROTOCOLS if get_protocol(p).isr_shrink_bumps_leader_epoch]
#: what only concerns the changes waiting for a broker: queued, applied late, merged in one delta
QUEUE_EVENTS = ("leader_and_isr_queued", "leader_and_isr", "leader_and_isr_stale", "metadata_delta")


def _about_others(events: list[tuple], broker: str) -> list[tuple]:
    return [e for e in events if not (e[0] in QUEUE_EVENTS and e[1] == broker)]


def _flipped_alike(protocol: str, seeds: range, n: int = 60, ahead: int = 30) -> tuple[int, int, int]:
    """At every state of each seed's schedule where a broker's unnoticed isolation is settled
    (the bound taken at the current leader epoch), a clone reconnected - the flag gone, under
    KRaft what waited for it applied - and the original run the schedule on: their keys stay
    equal until the epoch passes the bound, their events too except for that broker's own
    isolate / reconnect / deliver and the changes queued for it (under KRaft, ISR expansions in
    the same epoch); where only one of them leaves the bound, it is the noticed isolation the
    original cannot take. Returns how many states flipped, in how many of them changes waited
    for the broker, and in how many the broker led."""
    config = ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="all", retries=1)
    flipped = waiting = leading = 0
    for seed in seeds:
        steps = schedule(seed, n, SETTLING)
        cluster = Cluster(config)
        for i, step in enumerate(steps):
            cluster.apply(step)
            bound = cluster.controller.leader_epoch
            for r in cluster.replicas:
                if not (r.online and r.isolated and isolation_settled(cluster, r)):
                    continue
                flipped += 1
                waiting += bool(cluster.channel.queues[r.id])
                leading += r.role == LEADER
                original, copy = cluster.clone(), cluster.clone()
                copy.reconnect(r.id)
                assert not copy.by_id[r.id].isolated and not copy.channel.queues[r.id]
                assert state_key(copy, VALUES, settled=bound) == state_key(original, VALUES, settled=bound)
                assert state_key(copy, VALUES) != state_key(original, VALUES)      # only reduction 7 merges them
                for later in steps[i + 1:i + 1 + ahead]:
                    del original.events[:], copy.events[:]
                    original.apply(later)
                    copy.apply(later)
                    past = (original.controller.leader_epoch > bound, copy.controller.leader_epoch > bound)
                    if past == (True, True):
                        break
                    if past == (False, True):
                        assert (later.kind, later.detected, later.replica) == ("isolate", True, r.id), (seed, i, later)
                        assert original.events[0][0] == "skip"
                        break
                    assert past == (False, False), (seed, i, later)
                    assert state_key(copy, VALUES, settled=bound) == state_key(original, VALUES, settled=bound), \
                        (seed, i, later)
                    if later.replica != r.id or later.kind not in ("isolate", "reconnect", "deliver"):
                        assert _about_others(copy.events, r.id) == _about_others(original.events, r.id), \
                            (seed, i, later)
    return flipped, waiting, leading


@pytest.mark.parametrize("protocol", SETTLING_GENERATIONS)
def test_a_settled_isolation_never_acts_while_the_leader_epoch_stays_at_the_bound(protocol):
    """In ZooKeeper mode nothing can wait for a settled broker; under KRaft the ISR expansions
    of the same epoch can, applied at once by its reconnected twin. A leader settles too, where
    its ISR changes are AlterIsr requests (kip595+) only with every replica in its ISR."""
    kraft = get_protocol(protocol).kraft
    flipped, waiting, leading = _flipped_alike(protocol, range(200 if kraft else 60))
    assert flipped > 30
    assert (waiting > 5) if kraft else (waiting == 0)
    assert leading > 5


def test_an_isolation_settles_only_where_what_reaches_the_broker_within_the_epoch_cannot_act():
    """Not where an ISR shrink keeps the leader epoch (kip966, KAFKA-15021), nor under KRaft
    with a queue bound (which reads what waits for a cut-off broker); a controller failover
    sends the current state again; a tick can shrink the ISR without a new epoch."""
    bounds = Bounds(replicas=3)
    assert settled_epoch(GENERATIONS["kip320"], bounds, SETTLING) == bounds.max_epoch
    assert settled_epoch(GENERATIONS["kip595"], Bounds(replicas=3, max_epoch=4), ("isolate_unseen",)) == 4
    assert settled_epoch(GENERATIONS["kip841"], bounds, SETTLING) == bounds.max_epoch
    assert settled_epoch(GENERATIONS["kip903"], bounds, SETTLING) == bounds.max_epoch
    assert settled_epoch(GENERATIONS["kip966"], bounds, SETTLING) is None
    assert settled_epoch(GENERATIONS["kip841"], Bounds(replicas=3, max_queued=2), SETTLING) is None
    assert settled_epoch(GENERATIONS["kip320"], Bounds(replicas=3, max_queued=2), SETTLING) == bounds.max_epoch
    assert settled_epoch(GENERATIONS["kip320"], bounds, SETTLING + ("controller_failover",)) is None
    assert settled_epoch(GENERATIONS["kip320"], Bounds(replicas=3, max_ticks=1), SETTLING + ("tick",)) is None
    # max_ticks 0: no tick at all
    assert settled_epoch(GENERATIONS["kip320"], bounds, SETTLING + ("tick",)) == bounds.max_epoch

    # why a failover must be left out: the flag decides whether the current state waits for the broker
    config = ClusterConfig(replicas=("A", "B", "C"), protocol="kip320", acks="all")
    cluster = Cluster(config)
    for step in (Step("produce", value="m1"), Step("fetch", replica="B"), Step("fetch", replica="C"),
                 Step("elect", replica="B"), Step("isolate", replica="C", detected=False)):
        cluster.apply(step)
    settled = cluster.controller.leader_epoch
    copy = cluster.clone()
    copy.by_id["C"].isolated = False
    assert isolation_settled(cluster, cluster.by_id["C"])
    assert state_key(copy, VALUES, settled=settled) == state_key(cluster, VALUES, settled=settled)
    for c in (cluster, copy):
        c.apply(Step("controller_failover"))
    assert cluster.channel.pending("C") and not copy.channel.pending("C")
    assert state_key(copy, VALUES, settled=settled) != state_key(cluster, VALUES, settled=settled)
