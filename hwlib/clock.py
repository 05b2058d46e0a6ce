"""Logical time: a tick runs what falls due in time order (request and session timeouts, ISR checks, checkpoints)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import ScenarioError
from .replica import LEADER

if TYPE_CHECKING:
    from .cluster import Cluster


class Clock:
    """The partition's logical clock (milliseconds; it moves only in ``tick`` steps) and the
    periodic tasks it drives: the ISR shrink check every ``replica.lag.time.max.ms / 2`` and
    the HW checkpoint every ``replica.high.watermark.checkpoint.interval.ms``."""

    def __init__(self, cluster: Cluster, source: Clock | None = None) -> None:
        self.cluster = cluster
        config = cluster.config
        self.lag = config.replica_lag_time_max_ms
        self.session_timeout = config.session_timeout_ms
        self.checkpoint_interval = config.replica_high_watermark_checkpoint_interval_ms
        self.next_isr_check: int = self.lag // 2 if source is None else source.next_isr_check
        self.next_checkpoint: int = self.checkpoint_interval if source is None else source.next_checkpoint

    def tick(self, ms: int) -> None:
        """Advance logical time by ``ms``, running what falls due in time order."""
        if ms < 0:
            raise ScenarioError(f"tick: milliseconds must be >= 0, got {ms}")
        cluster = self.cluster
        target = cluster.now + ms
        while True:
            due = self.next_due()
            if due > target:
                break
            cluster.now = due
            self.run_due(due)
        cluster.now = target
        cluster.events.append(("time", target))

    def next_due(self) -> int:
        cluster = self.cluster
        candidates = [self.next_isr_check, self.next_checkpoint]
        dead = cluster.controller.dead
        for r in cluster.replicas:
            for request in r.purgatory:
                candidates.append(request.deadline)
            if not r.online and r.crashed_at_ms is not None and r.id not in dead:
                candidates.append(r.crashed_at_ms + self.session_timeout)
        for produce in cluster.producer.pending:
            candidates.append(produce.deadline)
        return min(candidates)

    def run_due(self, now: int) -> None:
        cluster = self.cluster
        for r in cluster.replicas:
            for request in [q for q in r.purgatory if q.deadline <= now]:
                cluster.replica_manager.expire(request)
        cluster.producer.time_out(now)
        for r in cluster.replicas:
            if (not r.online and r.crashed_at_ms is not None and r.id not in cluster.controller.dead
                    and r.crashed_at_ms + self.session_timeout <= now):
                cluster.events.append(("detected", r.id))
                cluster.on_broker_failure(r)
        if self.next_isr_check <= now:
            self.next_isr_check += self.lag // 2
            for r in cluster.replicas:   # every broker that believes it leads (zombies too)
                if r.online and r.role == LEADER:
                    cluster.partition.maybe_shrink_isr(r)
        if self.next_checkpoint <= now:
            self.next_checkpoint += self.checkpoint_interval
            for r in cluster.replicas:
                if r.online and r.hw_checkpoint != r.hw:
                    r.hw_checkpoint = r.hw
                    cluster.events.append(("checkpoint", r.id, r.hw))
