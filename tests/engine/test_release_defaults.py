"""Each release its own defaults: one schedule under the last release with one default and the first with the next."""

from __future__ import annotations

import re

import pytest

from hwlib import Cluster, ClusterConfig, ConfigError
from hwlib.cli import main


def _cluster(release: str, **settings) -> Cluster:
    return Cluster(ClusterConfig(replicas=("A", "B"), release=release, **settings))


def _isr_after_silence(release: str, ms: int) -> tuple[str, ...]:
    """B caught up at time 0, then silent for ``ms`` while the leader has a record it lacks: the leader's ISR."""
    c = _cluster(release)
    c.produce("x")
    c.tick(ms)
    return c.isr


def test_replica_lag_time_max_ms_is_10_s_up_to_2_4_and_30_s_from_2_5():
    """KafkaConfig.scala Defaults.ReplicaLagTimeMaxMs: 10000L at 2.4.1, 30000L at 2.5.0 (KIP-537).
    A follower silent for 16 s is out of the ISR under 2.4 (the check at 15 s finds it 15 s behind),
    still in under 2.5."""
    assert ClusterConfig(release="2.4").replica_lag_time_max_ms == 10000
    assert ClusterConfig(release="2.5").replica_lag_time_max_ms == 30000
    assert _isr_after_silence("2.4", 16000) == ("A",)
    assert _isr_after_silence("2.5", 16000) == ("A", "B")


@pytest.mark.parametrize(("release", "detected_by"), [("2.4", 6000), ("2.5", 18000), ("3.7-zk", 18000),
                                                      ("3.7-kraft", 9000)])
def test_a_broker_that_stopped_unnoticed_is_noticed_when_its_session_times_out(release, detected_by):
    """zookeeper.session.timeout.ms: 6000 at 2.4.1, 18000 at 2.5.0 (KafkaConfig Defaults.ZkSessionTimeoutMs,
    KIP-537); KRaft's broker.session.timeout.ms: 9000 (3.3.0 KafkaConfig Defaults.BrokerSessionTimeoutMs)."""
    c = _cluster(release, replica_lag_time_max_ms=60000)
    c.crash("B", detected=False)
    c.tick(detected_by - 1)
    assert ("detected", "B") not in c.events
    c.tick(1)
    assert ("detected", "B") in c.events


def test_the_producer_retries_only_from_2_1():
    """ProducerConfig RETRIES_CONFIG: 0 at 2.0.1, Integer.MAX_VALUE at 2.1.0 (KIP-91). A batch whose
    acknowledgement is lost is given up under 2.0.1 and sent again - written twice - under 2.1."""
    old = _cluster("2.0.1", acks="1")
    request = old.produce("x", lose_ack=True)
    assert request.status == "REQUEST_TIMED_OUT" and old.leader.log.values == ["x"]
    new = _cluster("2.1", acks="1")
    request = new.produce("x", lose_ack=True)
    new.retry()
    assert request.status == "acked" and new.leader.log.values == ["x", "x"]


def test_idempotence_stays_off_unless_given_in_every_release():
    """Kafka's producer enables idempotence by default from 3.0.1 / 3.1.1 / 3.2.0 (KAFKA-13598), and
    then resends a refused batch by itself, in order (KIP-360); hwlib's producer resends only at retry
    steps, so the default stays off (``ClusterConfig.enable_idempotence``) and a given value is kept."""
    assert not ClusterConfig(release="3.2").enable_idempotence
    assert ClusterConfig(release="3.2", enable_idempotence=True).replace(release="4.1").enable_idempotence


def test_an_idempotent_producer_written_without_retries_retries_without_end_and_with_retries_0_is_refused():
    """2.0.1 KafkaProducer.configureRetries: idempotence on and retries not configured -> Integer.MAX_VALUE;
    configured 0 -> ConfigException "Must set retries to non-zero when using the idempotent producer"."""
    assert ClusterConfig(release="2.0.1", enable_idempotence=True).retries == 2147483647
    assert ClusterConfig(enable_idempotence=True).retries == 2147483647
    with pytest.raises(ConfigError, match="config.enable_idempotence: requires acks: all, retries >= 1"):
        ClusterConfig(release="3.2", enable_idempotence=True, retries=0)


def test_a_generation_keeps_its_own_fixed_settings():
    config = ClusterConfig(protocol="kip320")
    assert (config.replica_lag_time_max_ms, config.session_timeout_ms, config.retries,
            config.acks) == (30000, 18000, 0, "all")


def test_run_and_check_take_any_setting_as_key_value_and_say_where_each_came_from(capsys):
    """``--config`` takes Kafka's name; the run header names each default as its release's and a
    feature level given as given; a bad key or value is one line naming it, exit 2."""
    assert main(["run", "last-replica-standing", "--release", "4.1"]) == 0
    out = capsys.readouterr().out
    assert "eligible.leader.replicas.version=1 (4.1's default: a cluster created on 4.1)" in out
    assert "broker.session.timeout.ms=9000 (4.1's default)" in out and "ANOMALY" not in out
    assert main(["run", "last-replica-standing", "--release", "4.1",
                 "--config", "eligible.leader.replicas.version=0",
                 "--config", "zookeeper.session.timeout.ms=7000"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"eligible\.leader\.replicas\.version=0\s", out)          # given: no "default"
    assert re.search(r"broker\.session\.timeout\.ms=7000\s", out)
    assert "lost-write: v0 was acknowledged" in out
    assert main(["check", "--release", "4.1", "--max-records", "1", "--max-epoch", "1", "--quiet",
                 "--config", "eligible.leader.replicas.version=0"]) == 0
    assert "eligible.leader.replicas.version=0)" in capsys.readouterr().out
    for bad, words in ((["--config", "eligible.leader.replicas.version=2"],
                        "config.eligible_leader_replicas_version: 2"),
                       (["--config", "nonsense=1"], "config.nonsense: unknown setting"),
                       (["--config", "retries=many"], "config.retries: 'many' is not an integer"),
                       (["--release", "3.9-kraft", "--config", "eligible.leader.replicas.version=1"],
                        "3.9 KRaft has no Eligible Leader Replicas")):
        assert main(["run", "data-loss", *(bad if bad[0] == "--release" else ["--release", "4.1", *bad])]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0], err


def test_a_check_of_several_releases_names_each_one_s_default_where_they_differ(capsys):
    """2.1 runs replica.lag.time.max.ms 10 s (a tick of 10 + 5 + 0.001 s), 2.8 30 s (45 s); 2.8's acks
    default is 1, 3.7's all (KIP-679): the header says which release ran which."""
    assert main(["check", "--release", "2.1,2.8-zk", "--max-records", "1", "--max-epoch", "1", "--faults", "crash,tick",
                 "--quiet"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "time passing (<= 1 tick of 15 s under 2.1, 45 s under 2.8-zk)" in out
    assert "acks=1 (each release's default)" in out
    assert main(["check", "--release", "2.8-zk,3.7-kraft", "--max-records", "1", "--max-epoch", "1", "--quiet"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "acks=1 under 2.8-zk, all under 3.7-kraft (each release's default)" in out
