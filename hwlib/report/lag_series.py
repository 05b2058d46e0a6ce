"""HW lag step by step across a sweep's runs: median and 90th percentile per generation, from replayed runs.

Chosen cells' runs are replayed (same seeds, same engine, trace hashes checked against the run
table); per step the partition HW lag and the follower HW lag.

The run table keeps one number per run (its worst lag); how the lag evolves over a run is
recomputed here by replaying the runs, which the engine's determinism makes exact: a replay
whose trace hash differs from the sweep's row is counted and reported, never mixed in silently.

* partition HW lag: the leader's log end offset minus the partition HW (records acknowledged
  to nobody yet under acks=all), while an online leader leads;
* follower HW lag: the partition HW minus the lowest HW of an online follower in the ISR - a
  follower learns the HW only from its next fetch response, so it trails by up to one round
  (the window in which truncate-to-HW loses acknowledged records).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..engine.cluster import Cluster
from ..faults import derive_seed, generate
from ..run import run_steps

#: runs replayed per cell at most (the report's figure; the rest add nothing visible)
MAX_RUNS_PER_CELL = 200


class StepLags:
    """``run_steps(on_step=...)``: per step the partition and follower HW lag (NaN without an
    online leader; follower lag NaN without an online follower in the ISR)."""

    def __init__(self) -> None:
        self.partition: list[float] = []
        self.follower: list[float] = []

    def __call__(self, cluster: Cluster) -> None:
        lag = cluster.hw_lag()
        if lag is None:
            self.partition.append(np.nan)
            self.follower.append(np.nan)
            return
        self.partition.append(lag)
        isr = cluster.controller.isr
        followers = [f for f in (cluster.follower_hw_lag(r) for r in cluster.replicas if r.id in isr) if f is not None]
        self.follower.append(max(followers) if followers else np.nan)


@dataclass
class LagSeries:
    """Per generation: step -> median and 90th percentile of both lags; how many runs were
    replayed and how many replays disagreed with the sweep's trace hash (left out)."""

    table: pd.DataFrame          # protocol, step, partition_p50, partition_p90, follower_p50, follower_p90
    replayed: int
    mismatched: int


def replay(spec, cells: list, runs: pd.DataFrame, per_cell: int = MAX_RUNS_PER_CELL) -> LagSeries:
    """Replay the first ``per_cell`` runs of each cell in ``cells`` (``spec``'s Cell objects);
    ``runs`` is the sweep's run table (``cell``, ``run``, ``trace_hash``)."""
    hashes = {(c, int(r)): h for c, r, h in zip(runs["cell"], runs["run"], runs["trace_hash"], strict=True)}
    series: dict[str, list[tuple[list[float], list[float]]]] = {}
    replayed = mismatched = 0
    for cell in cells:
        for run in range(min(per_cell, spec.runs)):
            schedule = generate(cell.profile, derive_seed(spec.seed, cell.schedule_key, run), cell.config.replicas)
            lags = StepLags()
            result = run_steps(cell.config, schedule.steps, cell.id, record=False, on_step=lags)
            replayed += 1
            if hashes.get((cell.id, run)) != result.trace_hash[:16]:
                mismatched += 1
                continue
            series.setdefault(cell.config.rules_name, []).append((lags.partition, lags.follower))
    frames = []
    for protocol, runs_of in series.items():
        length = max(len(p) for p, _ in runs_of)
        part = np.full((len(runs_of), length), np.nan)
        foll = np.full((len(runs_of), length), np.nan)
        for i, (p, f) in enumerate(runs_of):
            part[i, :len(p)] = p
            foll[i, :len(f)] = f
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # a step at which no run had a leader
            frames.append(pd.DataFrame({
                "protocol": protocol, "step": np.arange(1, length + 1),
                "partition_p50": np.nanpercentile(part, 50, axis=0),
                "partition_p90": np.nanpercentile(part, 90, axis=0),
                "follower_p50": np.nanpercentile(foll, 50, axis=0),
                "follower_p90": np.nanpercentile(foll, 90, axis=0),
            }))
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["protocol", "step", "partition_p50", "partition_p90", "follower_p50", "follower_p90"])
    return LagSeries(table, replayed, mismatched)
