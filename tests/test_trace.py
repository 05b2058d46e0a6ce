"""Trace: snapshots per step, tidy DataFrame with HW-lag columns, deterministic hash."""

from __future__ import annotations

import hwlib


def test_dataframe_is_tidy_with_lag_columns():
    result = hwlib.run_scenario("hw-update-two-records")
    frame = result.trace.to_dataframe()
    assert len(frame) == (len(result.steps) + 1) * 2
    b = frame[frame.replica == "B"].set_index("step")
    a = frame[frame.replica == "A"].set_index("step")
    assert list(b.hw) == [0, 0, 0, 0, 0, 1, 2]
    assert list(b.remote_leo) == [0, 0, 0, 1, 1, 1, 2]
    assert list(a.hw_lag_leader) == [0, 1, 1, 0, 1, 1, 0]        # leader LEO - partition HW
    assert list(b.hw_lag) == [0, 0, 0, 1, 1, 0, 0]               # partition HW - B's HW
    assert a.hw_lag.isna().all()
    assert b.loc[3, "label"] == "3. fetch_request B"
    assert not frame.in_elr.any()


def test_dataframe_shows_the_elr():
    frame = hwlib.run_scenario("last-replica-standing", protocol="kip966").trace.to_dataframe()
    c = frame[frame.replica == "C"].set_index("step")
    assert list(c.in_elr[6:11]) == [False, True, True, True, False]


def test_events_are_described_per_step():
    trace = hwlib.run_scenario("data-loss").trace
    assert "B truncates to 1 (LEO 2 -> 1; truncate to HW)" in trace.event_texts(10)
    assert "partition HW 1 -> 2" in trace.event_texts(8)
    assert "leader A -> B, epoch 1" in trace.event_texts(11)


def test_trace_hash_is_deterministic_and_sensitive():
    one = hwlib.run_scenario("divergence")
    two = hwlib.run_scenario("divergence")
    other = hwlib.run_scenario("divergence", protocol="kip101")
    assert one.trace_hash == two.trace_hash
    assert one.trace_hash != other.trace_hash
    assert one.trace.snapshots == two.trace.snapshots


def test_json_shape_matches_the_contract():
    out = hwlib.run_scenario("data-loss").to_json()
    assert {"leader", "leader_epoch", "isr", "partition_hw", "acked", "replicas", "anomalies"} <= set(out)
    rep = out["replicas"]["A"]
    assert set(rep) == {"online", "leo", "hw", "log", "epoch_cache"}
    assert out["anomalies"][0].keys() >= {"kind", "step", "detail"}


def test_trace_hash_is_the_same_in_other_processes():
    """Executors are other processes with other hash seeds: the hash must not depend on them."""
    import os
    import subprocess
    import sys

    code = ("import hwlib; print(hwlib.run_scenario('divergence').trace_hash, "
            "hwlib.run_scenario('msg1-msg5-unclean-divergence', record=False).trace_hash)")
    outputs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("0", "1", "12345")
    }
    here = f"{hwlib.run_scenario('divergence').trace_hash} " \
           f"{hwlib.run_scenario('msg1-msg5-unclean-divergence').trace_hash}\n"
    assert outputs == {here}
