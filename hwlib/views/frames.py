"""What a stepper shows, as data: one frame per trace position, the HW lag per position, the steps that matter.

``frames`` is the data each view renders (``stepper`` as HTML, the explorer live); it holds no
markup. The HW lag is the trace's (``Cluster.hw_lag``), read here, not computed again.
"""

from __future__ import annotations

from ..run import RunResult
from .messages import step_messages
from .sequence import actors


def frames(result: RunResult) -> list[dict]:
    """One frame per trace position (0 = before the first step): what the stepper shows -
    the state, the step's messages (``messages.step_messages``), the records each replica
    lost on the way (ghosts: truncated or lost in a crash, and when), the acknowledged
    records the leader no longer has, and what changed since the previous position."""
    trace = result.recorded()
    messages = step_messages(result)
    lanes = actors(result)
    ghosts: dict[str, dict[tuple, tuple[int, str]]] = {rid: {} for rid in result.config.replicas}
    out = []
    previous: dict | None = None
    for i, snap in enumerate(trace.snapshots):
        leader = snap["leader"]
        phw = snap["partition_hw"]
        how = {e[1]: ("truncated" if e[0] == "truncate" else "lost in a crash")
               for e in trace.events[i] if e[0] in ("truncate", "crash")}
        for rid, rep in snap["replicas"].items():
            now_records = {tuple(r) for r in rep["log"]}
            if previous is not None:
                for record in previous["replicas"][rid]["log"]:
                    if tuple(record) not in now_records:
                        ghosts[rid].setdefault(tuple(record), (i, how.get(rid, "gone")))
            for record in [g for g in ghosts[rid] if g in now_records]:
                del ghosts[rid][record]
        held = {r[2] for r in snap["replicas"][leader]["log"]} if leader is not None else None
        out.append({
            "index": i,
            "label": trace.step_label(i),
            "events": trace.event_texts(i),
            "leader": leader,
            "epoch": snap["leader_epoch"],
            "isr": snap["isr"],
            "elr": snap["elr"],
            "partition_hw": phw,
            "leader_lag": snap["hw_lag"],
            "remote_leo": snap["remote_leo"],
            "acked": snap["acked"],
            "lost": [v for v in snap["acked"] if held is not None and v not in held],
            "replicas": snap["replicas"],
            "ghosts": {rid: [{"offset": g[0], "epoch": g[1], "value": g[2], "step": at, "how": why}
                             for g, (at, why) in sorted(ghosts[rid].items())] for rid in ghosts},
            "changed": _changes(previous, snap),
            "messages": messages[i],
            "actors": lanes,
            "anomalies": [a.as_dict() for a in result.anomalies if a.step <= i],
            "new_anomalies": [a.as_dict() for a in result.anomalies if a.step == i],
        })
        previous = snap
    return out


def _changes(before: dict | None, after: dict) -> dict:
    """What differs from the previous position: the partition's leader, epoch, ISR and HW, and
    per replica its LEO, HW, remote LEO (the leader's view of it), state and epoch cache."""
    if before is None:
        return {"partition": [], "replicas": {}}
    partition = [name for name, key in (("leader", "leader"), ("epoch", "leader_epoch"), ("isr", "isr"),
                                        ("hw", "partition_hw")) if before[key] != after[key]]
    replicas = {}
    for rid, rep in after["replicas"].items():
        old = before["replicas"][rid]
        fields = [name for name in ("leo", "hw", "epoch_cache", "role", "online") if old[name] != rep[name]]
        if before["remote_leo"].get(rid) != after["remote_leo"].get(rid):
            fields.append("remote")
        replicas[rid] = fields
    return {"partition": partition, "replicas": replicas}


def key_steps(results: list[RunResult]) -> dict[str, int | None]:
    """The steps that matter: the first anomaly (any run) and, for two runs, the first step
    where they differ."""
    steps = [a.step for r in results for a in r.anomalies]
    return {"anomaly": min(steps) if steps else None,
            "difference": first_divergent_step(results[0], results[1]) if len(results) == 2 else None}


def key_step(results: list[RunResult]) -> int:
    """Where a stepper opens: the first anomaly, else where two runs start to differ, else the
    start - a run with nothing to point at is read from its first step (the gallery's HW
    stories), not from its end."""
    keys = key_steps(results)
    return next((k for k in (keys["anomaly"], keys["difference"]) if k is not None), 0)


def hw_lag_by_step(result: RunResult, run_frames: list[dict] | None = None) -> dict[str, list[int | None]]:
    """Per position: leader LEO - partition HW (``leader``) and partition HW - each follower's
    HW (by replica id); None while there is no leader. ``run_frames``: ``frames(result)`` if
    already at hand."""
    series: dict[str, list[int | None]] = {"leader": []}
    for rid in result.config.replicas:
        series[rid] = []
    for frame in run_frames if run_frames is not None else frames(result):
        series["leader"].append(frame["leader_lag"])
        for rid, rep in frame["replicas"].items():
            series[rid].append(rep["hw_lag"])
    return series


def first_divergent_step(a: RunResult, b: RunResult) -> int | None:
    """The first position where the two runs' replicas differ (logs, HWs, roles), or None."""
    for i, (x, y) in enumerate(zip(a.recorded().snapshots, b.recorded().snapshots, strict=False)):
        if _shape(x) != _shape(y):
            return i
    return None


def _shape(snap: dict):
    return (snap["leader"], [(r["role"], r["log"], r["hw"]) for r in snap["replicas"].values()])
