"""Property tests over random schedules (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlib import PROTOCOLS, AnomalyChecker, Cluster, ClusterConfig, run_steps

from .strategies import schedules

REPLICAS = ("A", "B", "C")
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def configs():
    return st.builds(
        lambda protocol, acks, min_isr, unclean, flush: ClusterConfig(
            replicas=REPLICAS, protocol=protocol, acks=acks, min_insync_replicas=min_isr,
            unclean_leader_election=unclean, log_flush_interval_messages=flush),
        st.sampled_from(PROTOCOLS), st.sampled_from(["0", "1", "all"]),
        st.integers(1, 3), st.booleans(), st.sampled_from([None, 1, 3]))


@SETTINGS
@given(configs(), schedules(REPLICAS))
def test_invariants_hold_after_every_step(config, steps):
    """Never raises on a valid schedule; HW <= LEO everywhere; the partition HW never goes
    down while one leader incarnation lasts (same epoch, leader not crashed in between: an
    unnoticed leader restart keeps its epoch but comes back with its checkpointed HW);
    epoch caches stay strictly increasing."""
    cluster = Cluster(config)
    checker = AnomalyChecker(cluster)
    last = (cluster.leader_epoch, cluster.partition_hw)
    for i, step in enumerate(steps, 1):
        mark = len(cluster.events)
        cluster.apply(step)
        if any(e[0] == "crash" and e[1] == cluster.controller.leader
               for e in cluster.events[mark:]):
            last = (None, None)
        checker.observe(i)
        for r in cluster.replicas:
            assert 0 <= r.hw <= r.leo, (i, step, r)
            assert 0 <= r.log.flushed <= r.leo
            assert r.log.cache.is_strictly_increasing(), (i, r.log.cache)
            assert len(r.log.epochs) == len(r.log.values)
        epoch, hw = cluster.leader_epoch, cluster.partition_hw
        if hw is not None and last[1] is not None and epoch == last[0]:
            assert hw >= last[1], (i, step, last, hw)
        last = (epoch, hw)
        assert set(cluster.isr) <= set(REPLICAS) and cluster.isr
    assert not [a for a in checker.finish(len(steps)) if a.kind == "epoch-cache-order"]


@SETTINGS
@given(config=configs(), steps=schedules(REPLICAS))
def test_same_config_and_schedule_give_the_same_trace_hash(config, steps):
    first = run_steps(config, steps)
    second = run_steps(config, steps, record=False)
    assert first.trace_hash == second.trace_hash
    assert first.anomalies == second.anomalies


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedules(REPLICAS, power_loss=False, max_actions=40))
def test_kip101_acks_all_min_isr_2_clean_no_power_loss_never_loses_a_write(steps):
    config = ClusterConfig(replicas=REPLICAS, protocol="kip101", acks="all",
                           min_insync_replicas=2, unclean_leader_election=False)
    result = run_steps(config, steps, record=False)
    lost = [a for a in result.anomalies if a.kind == "lost-write"]
    assert not lost, [a.detail for a in lost]
