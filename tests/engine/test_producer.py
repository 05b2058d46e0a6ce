"""The producer: retries, lost acknowledgements, idempotence, max.in.flight ordering."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, find, given, settings

import hwlib
from hwlib import Cluster, ClusterConfig, ConfigError, run_steps

from ..helpers.strategies import schedules

REPLICAS = ("A", "B", "C")


def test_retries_run_out_and_the_last_error_stands():
    c = Cluster(ClusterConfig(replicas=("A", "B"), min_insync_replicas=2, retries=1))
    c.crash("B")                                  # ISR {A} < 2
    request = c.produce("x")
    assert request.status == "retrying" and request.attempts == 1
    c.retry()
    assert request.status == "NOT_ENOUGH_REPLICAS" and request.attempts == 2
    c.retry()
    assert ("skip", "retry", None, "no batch awaits a retry") in c.events


def test_a_lost_acknowledgement_only_loses_the_first_answer():
    c = Cluster(ClusterConfig(replicas=("A",), acks="1", retries=1))
    request = c.produce("x", lose_ack=True)
    assert request.status == "retrying" and c.acked == []
    c.retry()
    assert request.status == "acked" and c.acked == ["x"]
    assert c.leader.log.values == ["x", "x"]      # no idempotence: written twice


def test_acknowledging_one_batch_never_acknowledges_another_twice():
    """Regression: an ack that frees an in-flight slot sends a queued batch whose append
    completes pending batches again; each must be answered once."""
    result = hwlib.run_scenario("producer-inflight-reorder")
    assert sorted(result.acked) == sorted(set(result.acked))


def test_idempotent_duplicate_is_recognised_by_a_new_leader_from_the_replicated_log():
    c = Cluster(ClusterConfig(replicas=("A", "B"), retries=1, enable_idempotence=True))
    c.produce("x", lose_ack=True)
    c.fetch("B")
    c.fetch("B")                                  # x committed on both; the ack is lost
    c.elect("B")
    c.retry()
    assert c.leader.id == "B" and c.leader.log.values == ["x"]
    assert ("duplicate_seq", "x", 0, 0) in c.events


@pytest.mark.parametrize(("settings_", "field"), [
    ({"enable_idempotence": True, "acks": "1"}, "config.enable_idempotence: requires acks: all"),
    ({"enable_idempotence": True, "max_in_flight_requests_per_connection": 6},
     "config.enable_idempotence: requires acks: all"),
    ({"retries": -1}, "config.retries: must be an integer >= 0"),
    ({"max_in_flight_requests_per_connection": 0}, "config.max_in_flight_requests_per_connection"),
])
def test_bad_producer_settings(settings_, field):
    with pytest.raises(ConfigError, match=field):
        ClusterConfig(**settings_)


def test_produce_step_round_trips_lose_ack():
    step = hwlib.parse_step({"produce": {"value": "v", "lose_ack": True}}, 0)
    assert step.lose_ack and hwlib.parse_step(step.to_obj(), 0) == step
    assert hwlib.parse_step({"retry": {}}, 0).kind == "retry"


@pytest.mark.parametrize(("plain", "idempotent", "kind"), [
    ("producer-retry-duplicate", "producer-retry-idempotent", "duplicate"),
    ("producer-inflight-reorder", "producer-inflight-idempotent", "reordered"),
])
def test_client_anomaly_before_and_after_idempotence(plain, idempotent, kind):
    assert kind in hwlib.run_scenario(plain).anomaly_kinds()
    fixed = hwlib.run_scenario(idempotent)
    assert fixed.anomalies == [] and sorted(fixed.acked) == sorted(hwlib.run_scenario(plain).acked)


def _config(protocol: str, idempotent: bool) -> ClusterConfig:
    return ClusterConfig(replicas=REPLICAS, protocol=protocol, acks="all", min_insync_replicas=2,
                         retries=3, enable_idempotence=idempotent,
                         max_in_flight_requests_per_connection=5)


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_idempotent_producer_never_duplicates_or_reorders(protocol):
    config = _config(protocol, idempotent=True)

    @settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(schedules(REPLICAS, power_loss=True, elect=True, clients=True))
    def check(steps):
        bad = [a for a in run_steps(config, steps, record=False).anomalies
               if a.kind in ("duplicate", "reordered")]
        assert not bad, [a.detail for a in bad]

    check()


@pytest.mark.parametrize("kind", ["duplicate", "reordered"])
def test_the_same_schedules_duplicate_and_reorder_without_idempotence(kind):
    plain = _config("kip966", idempotent=False)
    found = find(schedules(REPLICAS, power_loss=True, elect=True, clients=True),
                 lambda steps: kind in run_steps(plain, steps, record=False).anomaly_kinds(),
                 settings=settings(max_examples=3000, deadline=None, database=None,
                                   suppress_health_check=list(HealthCheck)))
    assert kind not in run_steps(_config("kip966", idempotent=True), found, record=False).anomaly_kinds()


def test_a_batch_freed_by_a_leader_change_waits_for_the_new_leaders_followers():
    """The old leader's pending batch fails once the new leader has taken over, so the batch
    queued behind it is appended by a leader that knows its followers (regression: it used
    to land before makeLeader and be acknowledged by a follower-less HW)."""
    c = hwlib.Cluster(hwlib.ClusterConfig(replicas=("A", "B", "C"), protocol="kip320", acks="all",
                                          min_insync_replicas=2, retries=0,
                                          max_in_flight_requests_per_connection=1))
    first, second = c.produce("m1"), c.produce("m2")
    assert (first.status, second.status) == ("pending", "queued")
    c.elect("B")
    assert first.status == "NOT_LEADER_OR_FOLLOWER"
    assert second.status == "pending" and second.leader == "B" and second.epoch == 1
    assert c.by_id["B"].hw == 0
