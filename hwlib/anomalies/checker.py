"""Anomaly checks: the Anomaly record and the checker that runs them incrementally after every step."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, ClassVar

from ..engine.replica import LEADER
from .clients import ClientChecks
from .kinds import EFFECT_NOTES, EFFECTS, KINDS, SAFETY, SEVERITY, UNAVAILABILITY_NOTE, effect_tag, is_safety
from .replication import ReplicationChecks

if TYPE_CHECKING:
    from ..engine.cluster import Cluster

# the kinds are records (``kinds``); the tables the views read are re-exported here
__all__ = ["EFFECTS", "EFFECT_NOTES", "KINDS", "SAFETY", "SEVERITY", "UNAVAILABILITY_NOTE", "Anomaly",
           "AnomalyChecker", "effect_tag", "is_safety"]

#: Event kinds that cannot change a pairwise verdict: they touch no log below an HW, no HW,
#: no role, no ISR and no reconciliation state (appends land above every HW; HW moves have
#: their own event). Any other kind - including one added later - makes the checker compare.
_IRRELEVANT = frozenset(("append", "replicate", "park", "wake", "expire", "fetch", "skip", "flush",
                         "checkpoint", "consume", "time", "ack", "produce_error", "ack_lost", "retry",
                         "queued", "duplicate_seq", "commit", "consumer_crash", "consumer_reset",
                         "refused", "isr_refused", "leader_and_isr_queued", "leader_and_isr_stale",
                         "controller_failover", "metadata"))


@dataclass(frozen=True)
class Anomaly:
    """One finding. ``step`` is 1-based: the anomaly showed after that step ran."""

    kind: str
    step: int
    detail: str
    replica: str | None = None
    offset: int | None = None
    value: str | None = None

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def __reduce__(self):
        """By the constructor (see ``Step.__reduce__``)."""
        return (Anomaly, (self.kind, self.step, self.detail, self.replica, self.offset, self.value))


def _released(kind: str, step: int, detail: str, **extra) -> None:
    """What a released checker's parts report to: nothing may."""
    raise AssertionError(f"a released checker was told of {kind} at step {step}")


class AnomalyChecker:
    """Watches one cluster. ``observe(step)`` after each step; ``finish(step)`` at the end.
    The broker-internal checks are ``ReplicationChecks``, the client-visible ones
    ``ClientChecks``; this class tells them what moved."""

    #: what the checker holds and ``verdict_key`` leaves out, each with why
    #: (``tests/anomalies/test_checker_memory.py`` holds each to its reason)
    UNKEYED: ClassVar[dict[str, str]] = {
        "cluster": "wiring: the cluster it watches",
        "_acked": "wiring: the producer's acknowledged list",
        "_polls": "wiring: the consumer's polls",
        "anomalies": "observes: the reports made, read by the caller and never by a check",
        "_events_seen": "synced: the number of the cluster's events, after every observation"}

    def __init__(self, cluster: Cluster, source: AnomalyChecker | None = None) -> None:
        """A checker for ``cluster``; with ``source``, one that continues ``source``'s watch on
        ``cluster``, a clone of the cluster ``source`` watches (what it knows and what it
        reported stay; its report list starts empty)."""
        self.cluster = cluster
        self.anomalies: list[Anomaly] = []
        report = self._report           # (one bound method for both parts)
        self.replication: ReplicationChecks = ReplicationChecks(
            cluster, report, None if source is None else source.replication)
        self.clients: ClientChecks = ClientChecks(cluster, report, None if source is None else source.clients)
        self._events_seen = 0           # a clone's event list starts empty
        self._last_leader: str | None = None if source is None else source._last_leader
        self._acked = cluster.producer.acked
        self._polls = cluster.consumer.polls

    def verdict_key(self, values: dict[str, int]) -> tuple:
        """What the checks remember that decides their later reports (with the cluster's own
        state, a model-checking state): the committed prefix, the highest HW
        seen, standing violations, what the consumer read, the leader last seen, integers only."""
        last = -1 if self._last_leader is None else self.cluster.by_id[self._last_leader].index
        return (last, self.clients.acked_seen, self.replication.verdict_key(values), self.clients.verdict_key(values))

    def release(self) -> None:
        """Break the checker's reference cycles (its parts report back to it) when done with
        it, so it is freed at once; a report afterwards fails (``_released``). (Not by deleting
        the parts: the compiled engine deletes an attribute through a generic call.)"""
        self.replication.report = _released
        self.clients.report = _released

    def _report(self, kind: str, step: int, detail: str, **extra) -> None:
        self.anomalies.append(Anomaly(kind, step, detail, **extra))

    def _changed(self, step: int) -> bool:
        """Whether any event since the last observation can change a pairwise verdict; reports
        each fetcher that stopped among them (``fetcher-stopped``: an event, not a standing
        condition - the replica's fetch state keeps it)."""
        events = self.cluster.events
        seen = self._events_seen
        self._events_seen = len(events)
        if seen > len(events):  # the owner cleared the event list
            return True
        changed = False
        for i in range(seen, len(events)):
            event = events[i]
            if event[0] not in _IRRELEVANT:
                changed = True
                if event[0] == "fetcher_failed":
                    self._report("fetcher-stopped", step, f"{event[1]}'s fetcher marked the partition failed: the "
                                 f"leader's log start {event[3]} is above its HW {event[4]} (fetch offset "
                                 f"{event[2]})", replica=event[1], offset=event[2])
        return changed

    def observe(self, step: int) -> None:
        cluster = self.cluster
        changed = self._changed(step)
        leader = cluster.leader
        if leader is not None and not leader.online:
            # Nobody reads from a leader that is down; if it returns as leader with less, the
            # loss shows at that step.
            leader = None
        leader_rewritten = leader is not None and leader.id != self._last_leader
        for r in cluster.replicas:
            rewritten = r.log.rewritten_from
            if rewritten is None:
                continue
            r.log.rewritten_from = None
            if leader is not None and r is leader:
                leader_rewritten = True
            self.replication.on_rewrite(r, rewritten)
        self._last_leader = leader.id if leader is not None else None

        # each check only when its inputs moved (most steps move none of them)
        rep, clients = self.replication, self.clients
        if leader is not None:
            if leader.role == LEADER and leader.log.start > rep.deleted_below:
                rep.note_deletion(leader.log.start)
            if leader.hw != rep.last_hw:
                rep.check_hw_regression(step, leader)
            if leader_rewritten or leader.hw > len(rep.committed_values):
                rep.check_committed(step, leader, leader_rewritten)
            if leader_rewritten or len(self._acked) > clients.acked_seen:
                clients.track_acked(step, leader, leader_rewritten)
        if changed or rep.weak_isr:
            rep.check_strong_isr(step)
        if changed:
            rep.check_divergence(step)
            rep.check_log_start(step)
        versions = rep.cache_versions
        for r in cluster.replicas:
            if r.log.cache.version != versions[r.index]:
                rep.check_epoch_caches(step)
                break
        if len(self._polls) > clients.polls_seen:
            clients.check_polls(step)

    def finish(self, step: int) -> list[Anomaly]:
        """Judge acknowledged records against the final leader's log; returns all anomalies.
        With no leader, or the leader down, at the end the question stays open: nothing is
        reported."""
        leader = self.cluster.leader
        if leader is not None and leader.online:
            self.clients.finish(step, leader, self.replication.deleted_below)
        return self.anomalies
