"""The checks and the log start offset: what a leader deleted (retention, DeleteRecords) is deleted, not lost.

Nor diverged, nor truncated: below the highest log start a serving leader has had, the
checks compare nothing.
"""

from __future__ import annotations

import hwlib
from hwlib.engine import ClusterConfig
from hwlib.engine.steps import parse_steps


def _run(release: str, steps: list) -> hwlib.RunResult:
    config = ClusterConfig(replicas=("A", "B"), release=release, acks="all", min_insync_replicas=1)
    return hwlib.run_steps(config, parse_steps(steps, ("A", "B")))


def test_a_record_the_leader_deleted_is_not_lost_when_a_stale_replica_leads_after():
    """B leads and acknowledges m2 at offset 0, then its retention deletes it (log start 1). A comes
    back holding its own, never-acknowledged m1 at offset 0: B's epoch cache, truncated from its
    start, answers A's last fetched epoch 0 with (0, 1) (LeaderEpochFileCache.endOffsetFor), so A
    keeps m1, joins the ISR and is elected before it learns B's log start. m2 was deleted by the
    partition's retention, not lost by replication: no lost-write, no committed-truncated."""
    run = _run("3.9-kraft", [{"produce": "m1"}, {"crash": "A"}, {"produce": "m2"}, {"restart": "A"},
                             {"retention": {"offset": -1, "replica": "B"}}, {"fetch_request": "A"}, {"elect": "A"}])
    final = run.final["replicas"]
    assert run.acked == ["m2"] and final["A"]["log"] == [[0, 0, "m1"]] and final["B"]["log_start"] == 1
    assert run.anomaly_kinds() == ["hw-regression"]


def test_an_acknowledged_record_truncated_away_above_every_log_start_is_still_lost():
    """The same without retention: the KIP-101-era loss stays a loss (0.10.2 truncates to the HW)."""
    run = hwlib.run_scenario("data-loss", release="0.10.2")
    assert "lost-write" in run.anomaly_kinds()


def test_records_below_both_log_starts_are_not_compared():
    """Two replicas that hold different records only below their log starts agree: nobody reads
    there (the sweep of the retention profile once reported them diverged)."""
    run = _run("2.4.1", [{"elect": "B"}, {"produce": "v1"}, {"elect": "A"}, {"produce": "v2"}, {"tick": 31000},
                         {"retention": {"offset": -1, "replica": "A"}}, {"fetch": "B"}, {"fetch": "B"}])
    assert "log-divergence" not in run.anomaly_kinds() and "strong-isr" not in run.anomaly_kinds()
    assert run.final["replicas"]["B"]["log_start"] == run.final["replicas"]["A"]["log_start"] == 1
    cluster = hwlib.Cluster(run.config)
    for step in run.trace.steps:
        cluster.apply(step)
    a, b = cluster.by_id["A"].log, cluster.by_id["B"].log
    assert (a.values[0], b.values[0]) == ("v2", "v1")          # they do differ there, below both starts
