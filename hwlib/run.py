"""Running a schedule: the step loop with its checker, the result, and the trace hash (version 2).

``run_steps`` is the hot path of every sweep: it records snapshots only when asked, and
builds the final state, the produce list and the consumer statistics of its result only
when someone reads them.

The trace hash (version 2) is SHA-256 over the config, then a memo-free pickle (protocol 5,
``fast`` mode: no object references, so equal values give equal bytes in any process,
compiled or not) of the step marks and every event, of the final state and of the
anomalies: equal hashes mean equal traces. Version 1 hashed ``repr``/JSON text of the same
content.
"""

from __future__ import annotations

import functools
import hashlib
from typing import TYPE_CHECKING, Any

from .anomalies.checker import Anomaly, AnomalyChecker
from .engine.cluster import Cluster
from .engine.config import ClusterConfig
from .trace import Trace, final_state, snapshot
from .util.canonical import canonical_bytes

if TYPE_CHECKING:
    from .engine.steps import Step

#: the trace and schedule hashes' format (docs/operations.md)
HASH_VERSION = 2

#: settings added after the first release, with their defaults: at the default they stay out
#: of the trace hash, so traces recorded before they existed keep their hashes
_LATER_SETTINGS = {"client_metadata": "current", "release": None, "inter_broker_protocol_version": None,
                   "metadata_version": None, "eligible_leader_replicas_version": None,
                   "message_format_version": None}


@functools.lru_cache(maxsize=256)
def _config_bytes(config: ClusterConfig) -> bytes:
    """The config part of the trace hash (sweeps run thousands of times per config)."""
    settings = config.to_dict()
    for name, default in _LATER_SETTINGS.items():
        if settings[name] == default:
            del settings[name]
    return repr(settings).encode()


def _hashed_state(cluster: Cluster) -> tuple:
    """The final state as the hash sees it: leader, epoch, ISR, ELR, acknowledged values,
    and every replica's liveness, HW, log and epoch cache."""
    ctl = cluster.controller
    return (ctl.leader, ctl.leader_epoch, ctl.isr, ctl.elr, cluster.producer.acked,
            [(r.id, r.online, r.hw, r.log.values, r.log.epochs, r.log.cache.entries) for r in cluster.replicas])


#: per event kind, its fields the hash sees: labels added after the first release (the same run,
#: so the same hash) are left out - a "leader" event's election kind, an ISR change's route
_HASHED_FIELDS = {"leader": 4, "isr": 4, "alter_isr_sent": 5}


def _hashed_events(events: list) -> list:
    """The events as the hash sees them (``_HASHED_FIELDS``)."""
    return [e[:_HASHED_FIELDS[e[0]]] if e[0] in _HASHED_FIELDS else e for e in events]


def trace_hash(config: ClusterConfig, cluster: Cluster, marks: list[int], anomalies: list[Anomaly]) -> str:
    anomaly_fields = [(a.kind, a.step, a.detail, a.replica, a.offset, a.value) for a in anomalies]
    digest = hashlib.sha256(_config_bytes(config))
    digest.update(canonical_bytes((marks, _hashed_events(cluster.events), _hashed_state(cluster), anomaly_fields)))
    return digest.hexdigest()


class LagMeter:
    """Called after every step (``run_steps(on_step=...)``): the HW lag (``Cluster.hw_lag``)
    while a leader serves, and the steps without one."""

    def __init__(self) -> None:
        self.total = 0
        self.max = 0
        self.led = 0
        self.leaderless = 0

    def __call__(self, cluster: Cluster) -> None:
        lag = cluster.hw_lag()
        if lag is None:
            self.leaderless += 1
            return
        self.total += lag
        self.led += 1
        if lag > self.max:
            self.max = lag


class RunResult:
    """What a run left: anomalies, acknowledged values, events, the hash, and (recorded runs)
    the trace; ``final``, ``produces`` and ``consumer`` are computed on first use."""

    def __init__(self, name: str, config: ClusterConfig, steps: tuple[Step, ...], cluster: Cluster,
                 anomalies: list[Anomaly], trace_hash: str, marks: list[int], trace: Trace | None) -> None:
        self.name = name
        self.config = config
        self.steps = steps
        self.anomalies = anomalies
        self.acked = list(cluster.producer.acked)
        self.trace_hash = trace_hash
        self.trace = trace
        #: every event of the run, and ``marks[i]`` = how many came before the end of step i
        #: (``marks[0]``: at the start), so step i's own events are ``events[marks[i-1]:marks[i]]``
        self.events = cluster.events
        self.marks = marks
        self._cluster = cluster
        self._final: dict | None = None

    def __repr__(self) -> str:
        return (f"RunResult({self.name!r}, protocol={self.protocol!r}, steps={len(self.steps)}, "
                f"anomalies={self.anomaly_kinds()}, trace_hash={self.trace_hash[:16]!r})")

    @property
    def protocol(self) -> str:
        return self.config.protocol

    def recorded(self) -> Trace:
        """The trace of a recorded run; a ValueError for a run made with ``record=False``."""
        if self.trace is None:
            raise ValueError(f"run {self.name!r} kept no trace (it ran with record=False)")
        return self.trace

    @property
    def final(self) -> dict:
        """The ``hwlib run --json`` shape of the final state, without anomalies."""
        if self._final is None:
            last = self.trace.snapshots[-1] if self.trace is not None else snapshot(self._cluster)
            self._final = final_state(last)
        return self._final

    @property
    def produce_errors(self) -> dict[str, int]:
        """Error code -> how many produce answers carried it."""
        return dict(self._cluster.producer.error_counts)

    @property
    def produces(self) -> list[dict]:
        return [p.as_dict() for p in self._cluster.producer.produces]

    @property
    def consumer(self) -> dict:
        """Polls, records read, values read by more than one consumer session (at-least-once
        reprocessing after a consumer crash), committed offset, position."""
        consumer = self._cluster.consumer
        sessions_by_value: dict[str, set[int]] = {}
        for session, records in consumer.polls:
            for _, _, value in records:
                sessions_by_value.setdefault(value, set()).add(session)
        return {
            "polls": len(consumer.polls),
            "read": sum(len(records) for _, records in consumer.polls),
            "reprocessed": [v for v, sessions in sessions_by_value.items() if len(sessions) > 1],
            "committed": consumer.committed_offset,
            "position": consumer.position,
        }

    def anomaly_kinds(self) -> list[str]:
        return sorted({a.kind for a in self.anomalies})

    def to_json(self) -> dict[str, Any]:
        out = dict(self.final)
        out["anomalies"] = [a.as_dict() for a in self.anomalies]
        out["scenario"] = self.name
        out["protocol"] = self.protocol
        out["release"] = self.config.release
        out["produces"] = self.produces
        out["trace_hash"] = self.trace_hash
        out["consumer"] = self.consumer
        out["elections"] = self.elections()
        return out

    def elections(self) -> list[dict[str, Any]]:
        """Every leader change, in order: the step (1-based), old and new leader, the leader
        epoch and how the new leader was chosen (``controller.ELECTIONS``: isr, elr,
        last-known-leader, unclean, controlled-shutdown, requested, none)."""
        out = []
        for step in range(1, len(self.marks)):
            for e in self.events[self.marks[step - 1]:self.marks[step]]:
                if e[0] == "leader" and e[1] != e[2]:
                    out.append({"step": step, "from": e[1], "to": e[2], "leader_epoch": e[3], "election": e[4]})
        return out


def run_steps(config: ClusterConfig, steps, name: str = "run", record: bool = True,
              on_step=None) -> RunResult:
    """Run ``steps`` on a fresh cluster. ``record=False`` keeps no snapshots (for sweeps); the
    hash is the same either way. ``on_step(cluster)`` is called after every step (sweeps
    measure HW lag with it); it must not change the cluster."""
    cluster = Cluster(config)
    checker = AnomalyChecker(cluster)
    checker.observe(0)
    snapshots = [snapshot(cluster)] if record else []
    events = cluster.events
    marks = [len(events)]
    steps = tuple(steps)
    apply, observe = cluster.apply, checker.observe
    for i, step in enumerate(steps, 1):
        apply(step)
        observe(i)
        marks.append(len(events))
        if on_step is not None:
            on_step(cluster)
        if record:
            snapshots.append(snapshot(cluster))
    anomalies = checker.finish(len(steps))
    digest = trace_hash(config, cluster, marks, anomalies)
    trace = None
    if record:
        step_events = [events[marks[i - 1] if i else 0:marks[i]] for i in range(len(marks))]
        trace = Trace(steps, snapshots, step_events, anomalies)
    return RunResult(name, config, steps, cluster, anomalies, digest, marks, trace)
