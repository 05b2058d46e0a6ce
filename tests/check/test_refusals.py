"""Reduction 8: a follower waiting for a refused fetch need not be kept; its twin without the refusal does as much.

``model.reductions.refused`` names a fetch that the broker the follower believes leads refuses
before reading anything; ``Search.transition`` leaves such a ``fetch_request`` untaken (its
state is never kept) and foresees such a whole ``fetch`` (it makes the state it leaves). The
argument, tested here on states met along random schedules (every fault the alphabet has,
time passing, the consumer, stale produces): taken anyway, a refused request changes nothing
but the follower's request in flight and reports nothing; a twin without it then runs every
other step alike - same events, same reports, the same state once the refusal is set aside -
until a step drops the refusal and the two are one. The whole searches are held to each other
in ``test_check.py``.
"""

from __future__ import annotations

import pytest

from hwlib import PROTOCOLS, AnomalyChecker, Cluster, ClusterConfig, Step
from hwlib.engine.kafka_errors import REFUSED
from hwlib.model.reductions import refused
from hwlib.model.space import fingerprint, key_context

from ..helpers.steps import taken_on_a_clone
from .test_reductions import VALUES, schedule

FAULTS = ("elect", "isolate", "isolate_unseen", "deliver", "crash", "quick_restart", "power_loss", "flush", "tick",
          "controller_failover", "lost_ack", "stale_produce", "consume", "consumer_crash")
REPLICAS = ("A", "B", "C")


def _without_refusal(cluster: Cluster, follower: str) -> Cluster:
    """A copy of ``cluster`` with ``follower``'s refusal in flight (if it still waits for one)
    set aside."""
    copy = cluster.clone()
    request = copy.by_id[follower].in_flight
    if request is not None and request.error in REFUSED:
        copy.by_id[follower].in_flight = None
    return copy


def _key(cluster: Cluster, checker: AnomalyChecker) -> int:
    return fingerprint(cluster, checker, key_context(cluster.config.replicas, VALUES), 0)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_refused_fetch_changes_nothing_but_the_request_and_a_twin_without_it_runs_alike(protocol):
    """At every state of 120 schedules and for every follower: ``refused`` names exactly the
    fetch requests answered with a refusal (NOT_LEADER_OR_FOLLOWER, and from kip320 a fenced or
    unknown leader epoch). Taken, such a request makes the parent's fingerprint once the refusal
    is set aside and reports nothing; a whole fetch refused makes the parent's fingerprint. Then
    the state with the refusal and its twin without run the schedule's next 20 steps (all but
    the follower's own fetches): the same events and reports at each, the same fingerprint with
    the refusal set aside."""
    config = ClusterConfig(replicas=REPLICAS, protocol=protocol, acks="all", retries=1)
    named = twins_ran = dropped = 0
    for seed in range(120):
        steps = schedule(seed, 80, FAULTS)
        cluster = Cluster(config)
        checker = AnomalyChecker(cluster)
        for i, step in enumerate(steps):
            cluster.apply(step)
            checker.observe(i + 1)
            before = _key(cluster, checker)
            for follower in REPLICAS:
                request = Step("fetch_request", replica=follower)
                if cluster.skip_reason(request) is not None:
                    continue
                sent, watch = taken_on_a_clone(cluster, checker, request, i + 2)
                refusal = sent.by_id[follower].in_flight
                assert refusal is not None
                assert refused(cluster, request) == (refusal.error in REFUSED), (seed, i, follower, refusal.error)
                assert refused(cluster, Step("fetch", replica=follower)) == refused(cluster, request)
                if not refused(cluster, request):
                    continue
                named += 1
                assert watch.anomalies == []
                assert _key(_without_refusal(sent, follower), watch) == before
                whole, whole_watch = taken_on_a_clone(cluster, checker, Step("fetch", replica=follower), i + 2)
                assert whole_watch.anomalies == [] and _key(whole, whole_watch) == before
                # the twin without the refusal runs the next steps alike
                twin = cluster.clone()
                twin_watch = AnomalyChecker(twin, checker)
                del watch.anomalies[:]
                sent.events.clear()
                for j, later in enumerate(steps[i + 1:i + 21], i + 2):
                    if later.replica == follower and later.kind.startswith("fetch"):
                        continue
                    assert (sent.skip_reason(later) is None) == (twin.skip_reason(later) is None), (seed, i, later)
                    sent.apply(later)
                    twin.apply(later)
                    watch.observe(j)
                    twin_watch.observe(j)
                    assert sent.events == twin.events, (seed, i, later)
                    assert watch.anomalies == twin_watch.anomalies, (seed, i, later)
                    assert _key(_without_refusal(sent, follower), watch) == _key(twin, twin_watch), (seed, i, later)
                    sent.events.clear()
                    twin.events.clear()
                twins_ran += 1
                dropped += sent.by_id[follower].in_flight is None
    assert named > 100 and twins_ran == named
    assert dropped > 50            # the twins became one: a crash, a LeaderAndIsr, the leader stepping down


def test_refused_names_only_a_fetch_that_starts_a_request():
    """Not a fetch that delivers the response in flight, a step of another kind, nor a
    follower that knows no leader."""
    cluster = Cluster(ClusterConfig(replicas=REPLICAS, protocol="kip320", acks="all"))
    for step in (Step("produce", value="m1"), Step("isolate", replica="C", detected=False), Step("elect", replica="B")):
        cluster.apply(step)
    # C, cut off from the controller, still fetches from A, which no longer leads
    assert refused(cluster, Step("fetch_request", replica="C")) and refused(cluster, Step("fetch", replica="C"))
    assert not refused(cluster, Step("fetch_request", replica="A"))       # A follows B, in B's epoch
    assert not refused(cluster, Step("produce", value="m2"))
    cluster.apply(Step("fetch_request", replica="C"))
    assert cluster.by_id["C"].in_flight is not None
    assert not refused(cluster, Step("fetch", replica="C"))                # it delivers the refusal
    cluster.apply(Step("fetch", replica="C"))
    assert cluster.by_id["C"].in_flight is None and ("refused", "C", "A") == cluster.events[-1][:3]
