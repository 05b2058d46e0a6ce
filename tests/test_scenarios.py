"""Built-in scenarios: each story (KIP-101's data loss and divergence, KIP-279's, ...) with its expected anomalies."""

from __future__ import annotations

import pytest

import hwlib

BUILTINS = sorted(hwlib.builtin_scenarios())


def test_all_expected_builtins_ship():
    assert {"hw-update-one-record", "hw-update-two-records", "data-loss", "divergence",
            "hw8-leo10-loss", "msg1-msg5-unclean-divergence"} <= set(BUILTINS)


@pytest.mark.parametrize("name", BUILTINS)
@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_builtin_reports_exactly_its_expected_anomalies(name, protocol):
    scenario = hwlib.load_scenario(name)
    assert protocol in scenario.expect, f"{name} must state its expectation under {protocol}"
    result = hwlib.run_scenario(scenario, protocol=protocol)
    assert result.anomaly_kinds() == sorted(scenario.expect[protocol])


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_under_every_release_reports_its_release_or_generation_expectation(name):
    """Every release of the table (``hwlib releases``) answers as its generation does unless the
    scenario states the release's own answer - where a flag, a default (unclean election before
    0.11, ELR off in 4.0) or 2.7's kip320 fetch path changes it."""
    from hwlib.engine.releases import RELEASES

    scenario = hwlib.load_scenario(name)
    for row in RELEASES:
        expected = scenario.expect.get(row.key, scenario.expect[row.generation])
        got = hwlib.run_scenario(scenario.with_release(row.key)).anomaly_kinds()
        assert got == sorted(expected), (name, row.key)
    for key in scenario.expect:
        if key not in hwlib.PROTOCOLS:            # a release's own answer differs from its generation's
            row = next(r for r in RELEASES if r.key == key)
            assert sorted(scenario.expect[key]) != sorted(scenario.expect[row.generation]), (name, key)


def by_kind(result, kind):
    return [a for a in result.anomalies if a.kind == kind]


def test_data_loss_under_hw_loses_m2_at_offset_1():
    result = hwlib.run_scenario("data-loss", protocol="hw")
    (lost,) = by_kind(result, "lost-write")
    assert (lost.value, lost.offset) == ("m2", 1)
    assert lost.step == 11                                    # A crashes, B leads without m2
    (weak,) = by_kind(result, "strong-isr")
    assert (weak.step, weak.replica, weak.offset) == (10, "B", 1)   # B truncated while in ISR
    trace = result.trace
    assert ("truncate", "B", 2, 1, "truncate to HW") in trace.events[10]
    assert ("truncate", "A", 2, 1, "truncate to HW") in trace.events[12]
    final = result.final["replicas"]
    assert [r[2] for r in final["A"]["log"]] == [r[2] for r in final["B"]["log"]] == ["m1"]


def test_data_loss_under_kip101_keeps_m2_and_logs_match():
    result = hwlib.run_scenario("data-loss", protocol="kip101")
    assert result.anomalies == []
    final = result.final["replicas"]
    assert final["A"]["log"] == final["B"]["log"] == [[0, 0, "m1"], [1, 0, "m2"]]
    # B did not truncate at restart: it had to ask the leader first, and the leader died.
    assert not [e for e in result.trace.events[10] if e[0] == "truncate"]
    assert result.final["leader"] == "B"


def test_divergence_under_hw_at_offset_1():
    result = hwlib.run_scenario("divergence", protocol="hw")
    (div,) = by_kind(result, "log-divergence")
    assert div.offset == 1 and div.replica == "A,B"
    final = result.final["replicas"]
    assert final["A"]["log"][1] == [1, 0, "m2"] and final["B"]["log"][1] == [1, 3, "m3"]


def test_divergence_under_kip101_converges():
    result = hwlib.run_scenario("divergence", protocol="kip101")
    assert not by_kind(result, "log-divergence")
    final = result.final["replicas"]
    assert final["A"]["log"] == final["B"]["log"] == [[0, 0, "m1"], [1, 3, "m3"]]
    assert ("truncate", "A", 2, 1, "OffsetsForLeaderEpoch") in result.trace.events[15]
    # m2 was acknowledged and lost to the double power loss in both generations.
    assert [a.value for a in by_kind(result, "lost-write")] == ["m2"]


def test_the_hw8_leo10_example_loses_committed_offset_7():
    result = hwlib.run_scenario("hw8-leo10-loss", protocol="hw")
    snap_before = result.trace.snapshots[16]                   # after the fetch that moved HW
    assert snap_before["replicas"]["A"]["leo"] == 10 and snap_before["partition_hw"] == 8
    assert snap_before["replicas"]["B"]["leo"] == 8 and snap_before["replicas"]["B"]["hw"] == 7
    after_election = result.trace.snapshots[19]
    b = after_election["replicas"]["B"]
    assert (after_election["leader"], b["leo"], b["hw"]) == ("B", 7, 7)
    assert [a.value for a in by_kind(result, "lost-write")] == ["r7"]
    assert not by_kind(hwlib.run_scenario("hw8-leo10-loss", protocol="kip101"), "lost-write")


def test_the_msg1_msg5_example_ends_with_diverged_logs():
    result = hwlib.run_scenario("msg1-msg5-unclean-divergence", protocol="hw")
    final = result.final["replicas"]
    assert [r[2] for r in final["A"]["log"]] == ["msg1", "msg2", "msg5"]
    assert [r[2] for r in final["B"]["log"]] == ["msg1", "msg2", "msg4"]
    # kip101 keeps a divergent suffix here (the KIP-279 case): B asked about epoch 1 and
    # leader A answered 3, the start of its epoch 2, though A's offset 2 is msg3 of epoch 0.
    k = hwlib.run_scenario("msg1-msg5-unclean-divergence", protocol="kip101")
    assert ("epoch_request", "B", 1, 3) in k.trace.events[15]
    (div,) = by_kind(k, "log-divergence")
    assert div.offset == 2
