"""A recorded run: per-step snapshots and events, the final state, DataFrame views."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .anomalies.checker import Anomaly
from .engine.events import describe
from .engine.replica import LEADER
from .engine.steps import Step

if TYPE_CHECKING:
    from .engine.cluster import Cluster


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
            "log_start": r.log.start,
            "log": [list(rec) for rec in r.log.records()],
            "epoch_cache": [list(e) for e in r.log.cache.entries],
            "fetch_state": r.fetch_state,
            "known_epoch": r.leader_epoch,    # the leader epoch the broker last heard of
            "known_leader": r.leader_id,      # ... and the leader it names (a follower fetches from it)
            "isolated": r.isolated,
            # epochs of the LeaderAndIsr requests waiting for it in the controller's channel
            "queued": [q.epoch for q in cluster.channel.pending(r.id)],
            "in_flight": (None if r.in_flight is None
                          else ("parked" if r.in_flight.parked else r.in_flight.kind)),
            "hw_lag": cluster.follower_hw_lag(r),     # behind the partition HW (None: leader, down, no leader)
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
        "hw_lag": cluster.hw_lag(),
        "remote_leo": remote,
        "acked": list(cluster.acked),
        "replicas": replicas,
    }


def final_state(snap: dict) -> dict:
    """The ``hwlib run --json`` shape (docs/python-and-layout.md), without anomalies, from a snapshot."""
    return {
        "leader": snap["leader"],
        "leader_epoch": snap["leader_epoch"],
        "isr": snap["isr"],
        "elr": snap["elr"],
        "partition_hw": snap["partition_hw"],
        "acked": snap["acked"],
        "replicas": {rid: {k: v[k] for k in ("online", "log_start", "leo", "hw", "log", "epoch_cache")}
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
                    "hw_lag_leader": snap["hw_lag"],
                    "hw_lag": rep["hw_lag"],
                    "acked": len(snap["acked"]),
                })
        frame = pd.DataFrame(rows)
        for col in ("remote_leo", "partition_hw", "leader_leo", "hw_lag_leader", "hw_lag"):
            frame[col] = frame[col].astype("Int64")
        return frame
