"""The clock: a tick moves logical time and runs what falls due in order (timeouts, ISR checks, HW checkpoints)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..errors import ScenarioError
from .replica import LEADER

if TYPE_CHECKING:
    from .channel import ControllerChannel
    from .config import ClusterConfig
    from .controller import Controller
    from .delayed import DelayedOperations
    from .logical_time import Time
    from .partition import Partition
    from .protocols import Protocol
    from .replica import Replica
    from .state_key import KeyContext


#: identical refused ISR writes a long tick writes out one by one; beyond, once with a count
REPEAT_LIMIT = 1000


class Clock:
    """What moves the time (``tick`` steps) and the periodic tasks it drives: the ISR shrink
    check every ``replica.lag.time.max.ms / 2`` (every ``replica.lag.time.max.ms`` up to
    Kafka 0.10.1, ``isr_check_every_lag``) and the HW checkpoint every
    ``replica.high.watermark.checkpoint.interval.ms``, besides the one-off timeouts: parked
    fetches and waiting produces (``delayed``), a session that lapses after an unnoticed crash
    (the controller's failure handling, through the ``channel``), the ISR shrink of every
    broker that believes it leads (``partition``), the replicas' HW checkpoints."""

    def __init__(self, config: ClusterConfig, protocol: Protocol, events: list, time: Time,
                 replicas: list[Replica], controller: Controller, partition: Partition,
                 delayed: DelayedOperations, channel: ControllerChannel, source: Clock | None = None) -> None:
        self.events = events
        self.time = time
        self.replicas = replicas
        self.controller = controller
        self.partition = partition
        self.delayed = delayed
        self.channel = channel
        if source is None:
            self.lag: int = config.replica_lag_time_max_ms
            #: the ISR-expiry check's period (``ReplicaManager.startup``'s "isr-expiration" task)
            self.isr_period: int = protocol.isr_check_period(self.lag)
            self.session_timeout: int = config.session_timeout_ms
            self.checkpoint_interval: int = config.replica_high_watermark_checkpoint_interval_ms
        else:       # a clone's constants are its source's (not read again)
            self.lag, self.isr_period = source.lag, source.isr_period
            self.session_timeout, self.checkpoint_interval = source.session_timeout, source.checkpoint_interval
        self.next_isr_check: int = self.isr_period if source is None else source.next_isr_check
        self.next_checkpoint: int = self.checkpoint_interval if source is None else source.next_checkpoint

    UNKEYED: ClassVar[dict[str, str]] = {
        "replicas": "wiring: the brokers whose periodic tasks it runs", "events": "observes: the run's events",
        "lag": "constant: replica.lag.time.max.ms (config)",
        "isr_period": "constant: the ISR check's period (config and rules)",
        "session_timeout": "constant: the session timeout (config)",
        "checkpoint_interval": "constant: replica.high.watermark.checkpoint.interval.ms (config)"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): how long until the next ISR check and HW checkpoint."""
        now = ctx.now
        return (self.next_isr_check - now, self.next_checkpoint - now)

    def tick(self, ms: int, jump: bool = True) -> None:
        """Advance logical time by ``ms``, running what falls due in time order.

        Long idle stretches are jumped, not walked: once no one-off deadline (a request or
        session timeout) falls before the target, every ISR member has been out of contact
        for longer than ``replica.lag.time.max.ms`` (so no ISR check can decide
        differently later), and an ISR check and a checkpoint have each run since without
        changing anything, every further run would repeat exactly that - nothing, or a
        zombie leader's refused ISR write - so the periodic timers move straight past the
        target. The state and events equal walking (``jump=False``), except that more than
        ``REPEAT_LIMIT`` identical refusals are written once with a ``repeated`` count."""
        if ms < 0:
            raise ScenarioError(f"tick: milliseconds must be >= 0, got {ms}")
        events, time = self.events, self.time
        target = time.now + ms
        idle_isr = idle_checkpoint = False
        refusals: list[tuple] = []
        while True:
            due = self.next_due()
            if due > target:
                break
            if jump and idle_isr and idle_checkpoint and self.next_one_off() > target:
                self._skip_to(target, refusals)
                break
            ran_isr, ran_checkpoint = self.next_isr_check <= due, self.next_checkpoint <= due
            time.now = due
            mark = len(events)
            self.run_due(due)
            new = events[mark:]
            if all(event[0] == "isr_refused" for event in new) and due >= self.settled_at():
                if ran_isr:
                    idle_isr, refusals = True, list(new)
                idle_checkpoint = idle_checkpoint or ran_checkpoint
            else:
                idle_isr = idle_checkpoint = False
        time.now = target
        events.append(("time", target))

    def _skip_to(self, target: int, refusals: list[tuple]) -> None:
        """The periodic runs up to ``target`` in one go (see ``tick``)."""
        period = self.isr_period
        checks = (target - self.next_isr_check) // period + 1 if self.next_isr_check <= target else 0
        self.next_isr_check += checks * period
        if self.next_checkpoint <= target:
            self.next_checkpoint += ((target - self.next_checkpoint) // self.checkpoint_interval + 1) * \
                self.checkpoint_interval
        if refusals and checks:
            if checks <= REPEAT_LIMIT:
                for _ in range(checks):
                    self.events.extend(refusals)
            else:
                self.events.extend(refusals)
                self.events.append(("repeated", checks - 1, len(refusals)))

    def settled_at(self) -> int:
        """From when no ISR check can decide differently as time passes: every follower in a
        leader's ISR has been out of contact longer than the lag by then - so an ISR check has
        dropped it, or (from Kafka 2.1, KAFKA-7152) keeps it for being caught up, which only
        a fetch or a produce can change."""
        latest = -1
        for r in self.replicas:
            if r.online and r.role == LEADER:
                for rid in r.isr:
                    if rid != r.id:
                        latest = max(latest, r.remotes[rid].last_caught_up_ms)
        return latest + self.lag + 1 if latest >= 0 else 0

    def next_one_off(self) -> int:
        """The earliest request or session timeout (no periodic task), or a time beyond any."""
        earliest = 1 << 126
        dead = self.controller.dead
        for r in self.replicas:
            for request in r.purgatory:
                earliest = min(earliest, request.deadline)
            if not r.online and r.crashed_at_ms is not None and r.id not in dead:
                earliest = min(earliest, r.crashed_at_ms + self.session_timeout)
        for produce in self.delayed.produces:
            earliest = min(earliest, produce.deadline)
        return earliest

    def next_due(self) -> int:
        return min(self.next_isr_check, self.next_checkpoint, self.next_one_off())

    def run_due(self, now: int) -> None:
        replicas, events = self.replicas, self.events
        self.delayed.expire_due(replicas, now)
        self.delayed.time_out(now)
        for r in replicas:
            if (not r.online and r.crashed_at_ms is not None and r.id not in self.controller.dead
                    and r.crashed_at_ms + self.session_timeout <= now):
                events.append(("detected", r.id))
                self.channel.on_broker_failure(r)
        if self.next_isr_check <= now:
            self.next_isr_check += self.isr_period
            for r in replicas:   # every broker that believes it leads (zombies too)
                if r.online and r.role == LEADER:
                    self.partition.maybe_shrink_isr(r)
        if self.next_checkpoint <= now:
            self.next_checkpoint += self.checkpoint_interval
            for r in replicas:
                if r.online and r.hw_checkpoint != r.hw:
                    r.hw_checkpoint = r.hw
                    events.append(("checkpoint", r.id, r.hw))
