"""The consumer: polls up to the HW, commits, crashes and resumes, offset reset; its checks."""

from __future__ import annotations

import pytest

import hwlib
from hwlib import Cluster, ClusterConfig


def test_reprocessing_after_a_consumer_crash_is_counted_not_flagged():
    result = hwlib.run_scenario("consumer-reprocess-after-crash")
    assert result.anomalies == []
    assert result.consumer == {"polls": 3, "read": 5, "reprocessed": ["v2", "v3"],
                               "committed": 1, "position": 3}


def test_auto_commit_commits_the_position_at_a_poll_after_the_interval():
    c = Cluster(ClusterConfig(replicas=("A",), acks="1", enable_auto_commit=True))
    c.produce("x")
    c.consume()                                   # t=0: nothing committed yet... interval counts from 0
    assert c.committed_offset == 0
    c.produce("y")
    c.tick(5000)
    c.consume()                                   # commits position 1 first, then reads y
    assert c.committed_offset == 1 and c.consumer_position == 2
    c.consumer_crash()
    assert c.consume() == [(1, 0, "y")]


@pytest.mark.parametrize(("policy", "reset_to", "kinds"), [
    # latest: B's HW 1; w1 at offset 0 is skipped for good
    ("latest", 1, ["inconsistent-offsets", "nonmonotonic-poll", "unseen"]),
    # earliest: back to 0; w1 is read where v1 was
    ("earliest", 0, ["inconsistent-offsets", "nonmonotonic-poll"]),
])
def test_offset_out_of_range_resets_the_position(policy, reset_to, kinds):
    config = ClusterConfig(replicas=("A", "B"), acks="1", unclean_leader_election=True,
                           auto_offset_reset=policy)
    steps = hwlib.parse_steps([{"produce": "v1"}, {"produce": "v2"}, {"tick": 45000}, {"consume": {}},
                               {"crash": "A"}, {"produce": "w1"}, {"consume": {}}, {"produce": "w2"},
                               {"consume": {}}], config.replicas)
    result = hwlib.run_steps(config, steps)
    assert ("consumer_reset", 2, reset_to, policy) in result.trace.events[7]
    found = [k for k in result.anomaly_kinds() if k in ("inconsistent-offsets", "nonmonotonic-poll", "unseen")]
    assert found == kinds


def test_unseen_records_below_the_consumer_position():
    result = hwlib.run_scenario("consumer-unseen-after-unclean-election")
    unseen = [a for a in result.anomalies if a.kind == "unseen"]
    assert [(a.value, a.offset) for a in unseen] == [("w1", 0), ("w2", 1)]
    assert sorted(a.value for a in result.anomalies if a.kind == "lost-write") == ["v1", "v2"]


def test_consumer_steps_parse_and_round_trip():
    for kind in ("commit", "consumer_crash"):
        step = hwlib.parse_step({kind: {}}, 0)
        assert step.kind == kind and hwlib.parse_step(step.to_obj(), 0) == step
    with pytest.raises(hwlib.ScenarioError, match=r"steps\[0\]\.commit: takes no arguments"):
        hwlib.parse_step({"commit": 3}, 0)
    with pytest.raises(hwlib.ConfigError, match="config.auto_offset_reset: 'none' is not allowed"):
        ClusterConfig(auto_offset_reset="none")
