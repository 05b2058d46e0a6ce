"""Logical time: a long tick jumps idle stretches and ends exactly where walking every periodic task ends."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlib import Cluster, ClusterConfig, Step
from hwlib.engine.clock import REPEAT_LIMIT
from hwlib.trace import snapshot

from ..helpers.strategies import schedules

REPLICAS = ("A", "B", "C")


def _expanded(events: list[tuple]) -> list[tuple]:
    """``repeated`` written out: the ``k`` events before it, ``n`` more times."""
    out: list[tuple] = []
    for event in events:
        if event[0] == "repeated":
            _, times, count = event
            out.extend(out[-count:] * times)
        else:
            out.append(event)
    return out


def _run(steps: list[Step], config: ClusterConfig, jump: bool) -> Cluster:
    cluster = Cluster(config)
    for step in steps:
        if step.kind == "tick":
            cluster.clock.tick(step.ms, jump=jump)
        else:
            cluster.apply(step)
    return cluster


@settings(max_examples=400, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(schedules(REPLICAS, faults=3, isolation=2, clients=True), st.sampled_from([1, 7, 40]),
       st.sampled_from(["hw", "kip320", "kip966"]))
def test_a_jumping_tick_ends_in_the_state_and_events_of_a_walking_one(steps, stretch, protocol):
    """Every tick made up to 40 times longer (up to 1,240 s of logical time, 1,240 ISR checks
    walked): the jump changes nothing a run can see (beyond REPEAT_LIMIT, identical refusals
    are written once with their count - written out here)."""
    steps = [Step("tick", ms=s.ms * stretch) if s.kind == "tick" else s for s in steps]
    config = ClusterConfig(replicas=REPLICAS, protocol=protocol, acks="all", replica_lag_time_max_ms=2000)
    jumped, walked = _run(steps, config, True), _run(steps, config, False)
    assert _expanded(jumped.events) == walked.events
    assert snapshot(jumped) == snapshot(walked)
    assert (jumped.clock.next_isr_check, jumped.clock.next_checkpoint) == \
        (walked.clock.next_isr_check, walked.clock.next_checkpoint)


@pytest.mark.parametrize(("protocol", "isr"), [("hw", "('A',)"), ("kip320", "('A', 'B')")])
def test_a_tick_of_10_to_the_18_ms_returns_with_what_kafka_rules_imply(protocol, isr):
    """C never fetches: the first ISR check after replica.lag.time.max.ms (10 s, so before the
    producer's 30 s request timeout) drops it - and B, caught up but silent as long, up to
    Kafka 2.0 (hw); from 2.1 (KAFKA-7152, kip320) B stays - the HW then moves to B's LEO and
    the producer's acks=all request completes; the HW checkpoint runs; then nothing changes
    for the rest of the 10^18 ms. Run in a child process with a timeout, so a walk over every
    ISR check fails the test instead of hanging the suite."""
    code = (
        "from hwlib import Cluster, ClusterConfig\n"
        f"c = Cluster(ClusterConfig(replicas=('A', 'B', 'C'), acks='all', replica_lag_time_max_ms=10000, "
        f"protocol={protocol!r}))\n"
        "c.produce('m1'); c.fetch('B'); c.fetch('B')\n"
        "c.tick(10**18)\n"
        "print(c.now, c.controller.isr, c.replica('A').hw, c.replica('A').hw_checkpoint, c.producer.acked,\n"
        "      [e[0] for e in c.events].count('checkpoint'), c.events[-1])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == (f"{10**18} {isr} 1 1 ['m1'] 1 ('time', {10**18})")


def test_a_zombie_leaders_refusals_through_a_huge_tick_are_written_once_with_a_count():
    """A leader cut off from the controller (session held) whose follower stops fetching
    retries its ISR shrink at every check and is refused every time (Kafka logs it each time):
    beyond REPEAT_LIMIT checks the refusal is written once, then ``repeated`` with the count."""
    config = ClusterConfig(replicas=("A", "B", "C"), acks="1")
    steps = [Step("produce", value="m1"), Step("isolate", replica="A", detected=False),
             Step("elect", replica="B")]
    cluster = _run(steps, config, True)
    mark = len(cluster.events)
    cluster.tick(10**12)
    events = cluster.events[mark:]
    refusals = [e for e in events if e[0] == "isr_refused"]
    repeated = [e for e in events if e[0] == "repeated"]
    assert refusals and repeated and repeated[0][1] > REPEAT_LIMIT and repeated[0][2] == 1
    assert len(events) < 20 and events[-1] == ("time", cluster.now)
