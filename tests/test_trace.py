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
    assert "leader A -> B, epoch 1 (from the ISR)" in trace.event_texts(11)


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
    assert set(rep) == {"online", "log_start", "leo", "hw", "log", "epoch_cache"}
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


def test_the_hw_lag_has_one_definition_in_the_trace_the_sweep_the_report_and_the_stepper():
    """Only while a leader serves (the controller's leader, up and leading) is there a lag: the
    snapshot's, the sweep's meter (``LagMeter``), the report's step series (``StepLags``), the
    trace's table and the stepper's chart all read ``Cluster.hw_lag`` / ``follower_hw_lag``. A
    leader that crashed unnoticed is still the controller's leader, but serves nothing: no lag."""
    import math

    import pandas as pd

    from hwlib.report.lag_series import StepLags
    from hwlib.run import LagMeter
    from hwlib.views.frames import hw_lag_by_step

    steps = hwlib.parse_steps([{"produce": "m1"}, {"fetch": "B"}, {"produce": "m2"},
                               {"crash": {"replica": "A", "lose_unflushed": False, "detected": False}}])
    seen: list = []
    meter, series = LagMeter(), StepLags()

    def observe(cluster) -> None:
        meter(cluster)
        series(cluster)
        seen.append(cluster.hw_lag())

    config = hwlib.ClusterConfig(replicas=("A", "B"), protocol="kip101")
    result = hwlib.run_steps(config, steps, on_step=observe)
    snaps = result.recorded().snapshots
    assert [s["hw_lag"] for s in snaps[1:]] == seen == [1, 1, 2, None]     # one fetch: B has m1, HW 0
    assert snaps[-1]["leader"] == "A" and snaps[-1]["partition_hw"] is not None    # named, not serving
    assert meter.leaderless == 1 and meter.max == 2 and meter.total == 4
    assert [None if math.isnan(v) else v for v in series.partition] == seen
    chart = hw_lag_by_step(result)
    assert chart["leader"] == [s["hw_lag"] for s in snaps]
    assert chart["B"] == [s["replicas"]["B"]["hw_lag"] for s in snaps] and chart["B"][-1] is None
    table = result.recorded().to_dataframe()
    b = table[table.replica == "B"].set_index("step")
    assert [None if pd.isna(v) else int(v) for v in b.hw_lag] == chart["B"]
