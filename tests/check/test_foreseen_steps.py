"""The steps the search knows the outcome of without taking them: each one, taken anyway, does what was foreseen.

``Search.transition`` leaves a step untaken (only counting it) where ``Bounds.cuts`` says it
surely leaves the leader-epoch bound, or ``model.reductions.settles_at_once`` says it is an unnoticed
isolation that makes the very state it leaves, or ``flushes_nothing`` a flush with nothing to make
durable. Here every such step met along random schedules (every fault) is taken on a clone: it
must leave the bound, or make the fingerprint it left and report nothing. ``test_check.py``
runs whole searches with the steps taken and untaken.
"""

from __future__ import annotations

import pytest

from hwlib import PROTOCOLS, AnomalyChecker, Cluster, ClusterConfig, Step
from hwlib.check import Bounds, alphabet
from hwlib.model.reductions import flushes_nothing, settles_at_once
from hwlib.model.space import fingerprint, key_context

from ..helpers.steps import taken_on_a_clone
from .test_reductions import FAULTS, SETTLING, SETTLING_GENERATIONS, VALUES, schedule

ALPHABET_FAULTS = tuple(f for f in FAULTS if f != "tick")


def _states(protocol: str, seeds: range, n: int, faults: tuple[str, ...]):
    """Each state of each seed's schedule over 3 replicas, with the checker that watched it
    come about: (cluster, checker, step number)."""
    config = ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="all", retries=1)
    for seed in seeds:
        cluster = Cluster(config)
        checker = AnomalyChecker(cluster)
        for i, step in enumerate(schedule(seed, n, faults)):
            cluster.apply(step)
            checker.observe(i + 1)
            yield cluster, checker, i + 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_step_foreseen_to_leave_the_bound_leaves_it(protocol):
    """At every state, with the bound at the state's own leader epoch (so every step that moves
    it is cut) and one above it (so none is), ``Bounds.cuts`` names exactly the elections and
    noticed isolations that leave the bound when taken. Under kip966 a noticed isolation of an
    ISR member (not the leader) shrinks the ISR in the same epoch (KAFKA-15021): there it must
    not be named."""
    steps = [s for s in alphabet(("A", "B", "C"), ALPHABET_FAULTS, 1) if s.kind in ("elect", "isolate")]
    foreseen = shrinks_inside = 0
    for cluster, _checker, _ in _states(protocol, range(25), 50, ALPHABET_FAULTS):
        ctl = cluster.controller
        at, above = (Bounds(replicas=3, max_epoch=ctl.leader_epoch + more) for more in (0, 1))
        for step in steps:
            if cluster.skip_reason(step) is not None:
                continue
            taken = cluster.clone()
            taken.apply(step)
            cut = at.cuts(cluster, step)
            assert cut == at.beyond(taken), f"{step} at epoch {ctl.leader_epoch}: foreseen {cut}"
            assert not above.cuts(cluster, step) and not above.beyond(taken)
            foreseen += cut
            if not cut and step.detected and step.replica in ctl.isr and len(ctl.isr) > 1:
                shrinks_inside += 1
    assert foreseen > 700
    assert (shrinks_inside > 0) == (protocol == "kip966")


@pytest.mark.parametrize("protocol", SETTLING_GENERATIONS)
def test_an_isolation_foreseen_to_settle_at_once_makes_the_state_it_leaves(protocol):
    """Wherever an unnoticed isolation would be settled at once (``settles_at_once``, with the
    settled epoch at the state's own leader epoch), taking it keeps the fingerprint - the
    cluster's and the checks' memory alike - and its checks report nothing."""
    foreseen = 0
    for cluster, checker, i in _states(protocol, range(40), 60, SETTLING):
        settled = cluster.controller.leader_epoch
        before = fingerprint(cluster, checker, key_context(cluster.config.replicas, VALUES, settled=settled), 0)
        for r in cluster.replicas:
            step = Step("isolate", replica=r.id, detected=False)
            if cluster.skip_reason(step) is not None or not settles_at_once(cluster, step, settled):
                continue
            foreseen += 1
            taken, watch = taken_on_a_clone(cluster, checker, step, i + 1)
            assert taken.by_id[r.id].isolated
            assert fingerprint(taken, watch, key_context(taken.config.replicas, VALUES, settled=settled), 0) == before
            assert watch.anomalies == []
    assert foreseen > 100


def test_settling_at_once_is_foreseen_only_where_reduction_7_applies():
    """Not without a settled epoch (kip966, failovers, ticks: ``settled_epoch`` gives None), below
    it, for a noticed isolation, nor - where the isolation holds its AlterIsr (kip595) - for a
    leader that has an ISR member to add."""
    clusters = {}
    for protocol in ("kip320", "kip595"):
        cluster = clusters[protocol] = Cluster(ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="all"))
        for step in (Step("produce", value="m1"), Step("fetch", replica="B"), Step("fetch", replica="C"),
                     Step("elect", replica="B")):
            cluster.apply(step)
    cluster = clusters["kip320"]
    epoch = cluster.controller.leader_epoch
    unseen = Step("isolate", replica="C", detected=False)
    assert settles_at_once(cluster, unseen, epoch)
    assert not settles_at_once(cluster, unseen, None)
    assert not settles_at_once(cluster, unseen, epoch + 1)
    assert not settles_at_once(cluster, Step("isolate", replica="C"), epoch)
    leader = Step("isolate", replica="B", detected=False)
    assert settles_at_once(cluster, leader, epoch)        # its ISR changes go to ZooKeeper itself
    cluster = clusters["kip595"]
    assert settles_at_once(cluster, unseen, epoch)
    assert settles_at_once(cluster, leader, epoch)        # every replica in its ISR: nothing to send
    cluster.apply(Step("isolate", replica="A"))           # A leaves the ISR in a new epoch
    cluster.apply(Step("reconnect", replica="A"))         # and comes back: B would add it by an AlterIsr
    epoch = cluster.controller.leader_epoch
    assert cluster.by_id["B"].isr == ("B", "C")
    assert settles_at_once(cluster, unseen, epoch)
    assert not settles_at_once(cluster, leader, epoch)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_flush_foreseen_to_flush_nothing_makes_the_state_it_leaves(protocol):
    """Wherever ``flushes_nothing`` says a flush that can act has nothing to make durable,
    taking it keeps the whole state - the cluster's and the checks' memory, no reduction - and
    its checks report nothing; wherever it says otherwise, taking it changes the whole state
    (so no flush that does something is left untaken)."""
    foreseen = acting = 0
    for cluster, checker, i in _states(protocol, range(25), 50, ALPHABET_FAULTS):
        before = fingerprint(cluster, checker, key_context(cluster.config.replicas, VALUES, reduced=False), 0)
        for r in cluster.replicas:
            step = Step("flush", replica=r.id)
            if cluster.skip_reason(step) is not None:
                continue
            taken, watch = taken_on_a_clone(cluster, checker, step, i + 1)
            after = fingerprint(taken, watch, key_context(taken.config.replicas, VALUES, reduced=False), 0)
            if flushes_nothing(cluster, step):
                foreseen += 1
                assert after == before, f"{step} at step {i}: foreseen to flush nothing, changed the state"
                assert watch.anomalies == []
            else:
                acting += 1
                assert after != before, f"{step} at step {i}: not foreseen, changed nothing"
    assert foreseen > 500 and acting > 100
