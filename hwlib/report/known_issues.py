"""Kafka issues that explain a later generation's loss an earlier one did not have, recognised in a run's events.

A sweep can find a generation that loses acknowledged writes under a profile where an earlier
generation lost none. That is either a real bug of the releases the later generation models
(the report names the Kafka issue, read from Kafka's code) or a defect of this model (the report
says so plainly). :func:`diagnose` replays a shrunk counterexample with its trace and asks each
known issue whether its mechanism is what happened; an issue counts only if the same steps,
replayed under the first generation with its fix, no longer show the loss.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..engine.epoch_cache import UNDEFINED_OFFSET
from ..run import RunResult, run_steps
from ..scenario import Scenario


@dataclass(frozen=True)
class KnownIssue:
    """A Kafka issue: which generations have it, which first has its fix, what it does, and a
    test of a recorded run (does its mechanism happen in this trace?)."""

    key: str
    affects: tuple[str, ...]
    fixed_in: str
    fixed_by: str            # the release (or generation) with the fix: the same steps are replayed there
    text: str
    happened: Callable[[RunResult], bool]


def _undefined(answer) -> bool:
    return (answer[1] if isinstance(answer, tuple) else answer) == UNDEFINED_OFFSET


def _kafka_7415(result: RunResult) -> bool:
    """A leader that has not cached its own epoch (it has not appended in it) answers a
    follower's OffsetsForLeaderEpoch for an epoch between its latest cached epoch and its
    current one with an undefined offset, and the follower truncates in the same step."""
    trace = result.recorded()
    for i in range(1, len(trace)):
        before = trace.snapshots[i - 1]
        leader = before["leader"]
        if leader is None:
            continue
        cache = before["replicas"][leader]["epoch_cache"]
        latest = cache[-1][0] if cache else None
        for event in trace.events[i]:
            if event[0] != "epoch_request" or not _undefined(event[3]):
                continue
            asked = event[2]
            if latest is not None and latest < asked < before["leader_epoch"] and any(
                    e[0] == "truncate" and e[1] == event[1] and e[3] < e[2] for e in trace.events[i]):
                return True
    return False


#: Kafka 2.0.0's ``LeaderEpochFileCache.endOffsetFor`` answers (UNDEFINED_EPOCH,
#: UNDEFINED_EPOCH_OFFSET) when no cached epoch is above the requested one; 0.11's answers
#: UNDEFINED_EPOCH_OFFSET alike, and both followers then truncate to their HW
#: (``ReplicaFetcherThread.maybeTruncate`` / ``getOffsetTruncationState``). 2.0.1 (commit
#: "KAFKA-7415; Persist leader epoch and start offset on becoming a leader") makes
#: ``Partition.makeLeader`` assign ``(leaderEpoch, LEO)`` in the cache at election.
KAFKA_7415 = KnownIssue(
    key="KAFKA-7415",
    affects=("kip101", "kip279"),
    fixed_in="2.0.1",
    fixed_by="2.0.1",
    text=("a new leader caches its leader epoch only when it first appends in it; until then it answers an "
          "OffsetsForLeaderEpoch request for an epoch newer than its latest cached one with an undefined offset, "
          "and the follower truncates to its own high watermark, dropping acknowledged records it held - lost for "
          "good once that follower is elected (Kafka 0.11.0 to 2.0.0, LeaderEpochFileCache.endOffsetFor; 2.0.1 and "
          "2.1.0 cache the epoch at election, in Partition.makeLeader)"),
    happened=_kafka_7415,
)

KNOWN_ISSUES: tuple[KnownIssue, ...] = (KAFKA_7415,)


def diagnose(scenario: Scenario, kind: str, issues: tuple[KnownIssue, ...] = KNOWN_ISSUES) -> KnownIssue | None:
    """The known issue that explains ``scenario`` showing ``kind`` under its generation: its
    mechanism is in the run's events, the generation is one the issue affects, and the same
    steps under the generation with the fix do not show ``kind``. None when none does."""
    protocol = scenario.config.protocol
    result = run_steps(scenario.config, scenario.steps, scenario.name)
    if kind not in result.anomaly_kinds():
        return None
    for issue in issues:
        if protocol not in issue.affects or not issue.happened(result):
            continue
        fixed = run_steps(scenario.config.with_rules(issue.fixed_by), scenario.steps, record=False)
        if kind not in fixed.anomaly_kinds():
            return issue
    return None
