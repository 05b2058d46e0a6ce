"""The state key's reductions, one by one: what a reduction leaves out, changed at will, never changes the future.

``check.model.state_key`` leaves out of the fingerprint what no later step and no check can
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
from hwlib.check.model import _isolation_settled, settled_epoch
from hwlib.engine.protocols import GENERATIONS, get_protocol
from hwlib.engine.replica import LEADER

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


def _run_alike(protocol: str, scramble, seeds: range, n: int = 70, ahead: int = 25) -> int:
    """Scrambles a clone at every step of each seed's schedule and runs both ``ahead`` steps
    on; returns how many states had something to scramble."""
    config = ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="all", retries=1)
    scrambled = 0
    for seed in seeds:
        rng = random.Random(seed)
        steps = schedule(seed, n)
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


# ------------------------------------------------ reduction 7: an unnoticed isolation, settled
#: faults under which an isolation can settle (``check.model.settled_epoch``): no ticks, no failover
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
                if not (r.online and r.isolated and _isolation_settled(cluster, r)):
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
    assert _isolation_settled(cluster, cluster.by_id["C"])
    assert state_key(copy, VALUES, settled=settled) == state_key(cluster, VALUES, settled=settled)
    for c in (cluster, copy):
        c.apply(Step("controller_failover"))
    assert cluster.channel.pending("C") and not copy.channel.pending("C")
    assert state_key(copy, VALUES, settled=settled) != state_key(cluster, VALUES, settled=settled)
