"""Running a scenario: per-step snapshots and events, anomalies, the trace hash, DataFrame views."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field

from .checks import Anomaly, AnomalyChecker
from .cluster import Cluster
from .config import ClusterConfig
from .events import describe
from .replica import LEADER
from .scenario import Scenario
from .steps import Step


def snapshot(cluster: Cluster) -> dict:
    """Everything an analyst sees at one moment: every replica and the leader's remote LEOs."""
    leader = cluster.leader
    replicas = {}
    for r in cluster.replicas:
        replicas[r.id] = {
            "online": r.online,
            "role": r.role,
            "leo": r.leo,
            "hw": r.hw,
            "hw_checkpoint": r.hw_checkpoint,
            "flushed": r.log.flushed,
            "log": [list(rec) for rec in r.log.records()],
            "epoch_cache": [list(e) for e in r.log.cache.entries],
            "fetch_state": r.fetch_state,
            "known_epoch": r.leader_epoch,    # the leader epoch the broker last heard of
            "isolated": r.isolated,
            # epochs of the LeaderAndIsr requests waiting for it in the controller's channel
            "queued": [q.epoch for q in cluster.channel.pending(r.id)],
            "in_flight": (None if r.in_flight is None
                          else ("parked" if r.in_flight.parked else r.in_flight.kind)),
        }
    remote = {}
    if leader is not None and leader.role == LEADER:
        remote = {rid: rr.leo for rid, rr in leader.remotes.items()}
    return {
        "now": cluster.now,
        "leader": cluster.controller.leader,
        "leader_epoch": cluster.leader_epoch,
        "isr": list(cluster.isr),
        "elr": list(cluster.controller.elr),
        "partition_hw": cluster.partition_hw,
        "remote_leo": remote,
        "acked": list(cluster.acked),
        "replicas": replicas,
    }


def final_state(snap: dict) -> dict:
    """The ``hwlib run --json`` shape (DESIGN.md), without anomalies, from a snapshot."""
    return {
        "leader": snap["leader"],
        "leader_epoch": snap["leader_epoch"],
        "isr": snap["isr"],
        "elr": snap["elr"],
        "partition_hw": snap["partition_hw"],
        "acked": snap["acked"],
        "replicas": {rid: {k: v[k] for k in ("online", "leo", "hw", "log", "epoch_cache")}
                     for rid, v in snap["replicas"].items()},
    }


@dataclass
class Trace:
    """Snapshot 0 is the initial state; snapshot i is the state after step i (1-based)."""

    steps: tuple[Step, ...]
    snapshots: list[dict]
    events: list[list[tuple]]
    anomalies: list[Anomaly] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.snapshots)

    def event_texts(self, i: int) -> list[str]:
        return [describe(e) for e in self.events[i]]

    def step_label(self, i: int) -> str:
        return "start" if i == 0 else f"{i}. {self.steps[i - 1].describe()}"

    def to_dataframe(self):
        """Tidy: one row per (step, replica), with HW-lag columns."""
        import pandas as pd

        rows = []
        for i, snap in enumerate(self.snapshots):
            leader = snap["leader"]
            phw = snap["partition_hw"]
            leader_leo = snap["replicas"][leader]["leo"] if leader is not None else None
            for rid, rep in snap["replicas"].items():
                rows.append({
                    "step": i,
                    "kind": "start" if i == 0 else self.steps[i - 1].kind,
                    "label": self.step_label(i),
                    "now_ms": snap["now"],
                    "replica": rid,
                    "online": rep["online"],
                    "role": rep["role"],
                    "is_leader": rid == leader,
                    "in_isr": rid in snap["isr"],
                    "in_elr": rid in snap["elr"],
                    "leo": rep["leo"],
                    "hw": rep["hw"],
                    "hw_checkpoint": rep["hw_checkpoint"],
                    "flushed": rep["flushed"],
                    "remote_leo": snap["remote_leo"].get(rid),
                    "leader": leader,
                    "leader_epoch": snap["leader_epoch"],
                    "partition_hw": phw,
                    "leader_leo": leader_leo,
                    "hw_lag_leader": None if phw is None else leader_leo - phw,
                    "hw_lag": None if phw is None or rid == leader else phw - rep["hw"],
                    "acked": len(snap["acked"]),
                })
        frame = pd.DataFrame(rows)
        for col in ("remote_leo", "partition_hw", "leader_leo", "hw_lag_leader", "hw_lag"):
            frame[col] = frame[col].astype("Int64")
        return frame


@dataclass
class RunResult:
    name: str
    config: ClusterConfig
    steps: tuple[Step, ...]
    anomalies: list[Anomaly]
    acked: list[str]
    produces: list[dict]
    final: dict
    trace_hash: str
    trace: Trace | None = None
    #: polls, records read, values read by more than one consumer session (at-least-once
    #: reprocessing after a consumer crash), committed offset, position
    consumer: dict = field(default_factory=dict)
    #: every event of the run, and ``marks[i]`` = how many came before the end of step i
    #: (``marks[0]``: at the start), so step i's own events are ``events[marks[i-1]:marks[i]]``
    events: list[tuple] = field(default_factory=list, repr=False)
    marks: list[int] = field(default_factory=list, repr=False)

    @property
    def protocol(self) -> str:
        return self.config.protocol

    def anomaly_kinds(self) -> list[str]:
        return sorted({a.kind for a in self.anomalies})

    def to_json(self) -> dict:
        out = dict(self.final)
        out["anomalies"] = [a.as_dict() for a in self.anomalies]
        out["scenario"] = self.name
        out["protocol"] = self.protocol
        out["produces"] = self.produces
        out["trace_hash"] = self.trace_hash
        out["consumer"] = self.consumer
        return out


def consumer_stats(cluster: Cluster) -> dict:
    sessions_by_value: dict[str, set[int]] = {}
    for session, records in cluster.polls:
        for _, _, value in records:
            sessions_by_value.setdefault(value, set()).add(session)
    return {
        "polls": len(cluster.polls),
        "read": sum(len(records) for _, records in cluster.polls),
        "reprocessed": [v for v, sessions in sessions_by_value.items() if len(sessions) > 1],
        "committed": cluster.committed_offset,
        "position": cluster.consumer_position,
    }


#: settings added after the first release, with their defaults: at the default they stay out
#: of the trace hash, so traces recorded before they existed keep their hashes
_LATER_SETTINGS = {"client_metadata": "current"}


@functools.lru_cache(maxsize=256)
def _config_bytes(config: ClusterConfig) -> bytes:
    """The config part of the trace hash (sweeps run thousands of times per config)."""
    settings = config.to_dict()
    for name, default in _LATER_SETTINGS.items():
        if settings[name] == default:
            del settings[name]
    return repr(settings).encode()


def run_steps(config: ClusterConfig, steps, name: str = "run", record: bool = True,
              on_step=None) -> RunResult:
    """Run ``steps`` on a fresh cluster. ``record=False`` keeps only events, anomalies and the
    hash (for sweeps); the hash is the same either way. ``on_step(cluster)`` is called after
    every step (sweeps measure HW lag with it); it must not change the cluster."""
    cluster = Cluster(config)
    checker = AnomalyChecker(cluster)
    checker.observe(0)
    snapshots = [snapshot(cluster)] if record else None
    marks = [len(cluster.events)]
    steps = tuple(steps)
    observe, events = checker.observe, cluster.events
    for i, call in enumerate([cluster.bind(step) for step in steps], 1):
        call()
        observe(i)
        marks.append(len(events))
        if on_step is not None:
            on_step(cluster)
        if record:
            snapshots.append(snapshot(cluster))
    anomalies = checker.finish(len(steps))
    final = final_state(snapshots[-1] if record else snapshot(cluster))
    # The hash covers the config, every event with the step it belongs to, the final state
    # and the anomalies: equal hashes mean equal traces.
    digest = hashlib.sha256(_config_bytes(config))
    digest.update(repr(marks).encode())
    digest.update(repr(events).encode())
    digest.update(json.dumps(final, sort_keys=True).encode())
    digest.update(repr([a.as_dict() for a in anomalies]).encode())
    trace = None
    if record:
        step_events = [events[marks[i - 1] if i else 0:marks[i]] for i in range(len(marks))]
        trace = Trace(steps, snapshots, step_events, anomalies)
    return RunResult(name, config, steps, anomalies, list(cluster.acked),
                     [p.as_dict() for p in cluster.produces], final, digest.hexdigest(), trace,
                     consumer_stats(cluster), events, marks)


def run_scenario(scenario: Scenario | str, protocol: str | None = None,
                 record: bool = True) -> RunResult:
    """Run a scenario (object, built-in name or path), optionally under another protocol."""
    if not isinstance(scenario, Scenario):
        from .scenario import load_scenario

        scenario = load_scenario(scenario)
    if protocol is not None:
        scenario = scenario.with_protocol(protocol)
    return run_steps(scenario.config, scenario.steps, scenario.name, record)
