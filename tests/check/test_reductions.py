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
from hwlib.check import state_key
from hwlib.engine.protocols import get_protocol

from ..helpers.remotes import replace_view
from ..helpers.steps import every_step, numbered_produces

FAULTS = ("elect", "isolate", "isolate_unseen", "deliver", "crash", "quick_restart", "power_loss", "flush", "tick",
          "controller_failover")
VALUES = {f"m{i}": i for i in range(1, 40)}


def schedule(seed: int, n: int) -> list[Step]:
    """A random schedule over 3 replicas; ticks of 7 s (below replica.lag.time.max.ms, so
    caught-up times and last fetches interleave) and of 45 s; with the responses of split
    fetches, which a sweep's runs deliver apart (the search has them as ``fetch``)."""
    rng = random.Random(seed)
    steps = every_step(("A", "B", "C"), FAULTS, 7000) + [Step("tick", ms=45001)]
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
