"""Client-visible checks (Jepsen's Kafka checker's names): lost writes, duplicates, order, what the consumer read."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from ..engine.replica import Replica
from .memory import Remembered

if TYPE_CHECKING:
    from ..engine.cluster import Cluster


class ClientChecks(Remembered):
    acked_seen: int
    #: acknowledged value -> the step since which the leader's log lacks it
    _absent_since: dict[str, int]
    polls_seen: int
    _read_at: dict[int, str]            # offset -> value the consumer first read there
    _inconsistent: set[int]
    _session_last: dict[int, int]       # consumer session -> last offset it read
    _values_read: set[str]

    #: what the checks hold and leave out of the verdict key, each with why (``memory``); the
    #: acknowledged count is in the checker's (``AnomalyChecker.verdict_key``)
    UNKEYED: ClassVar[dict[str, str]] = {
        "cluster": "wiring: the cluster the checks watch",
        "report": "wiring: the checker's report callback",
        "_absent_since": "annotates: the step a later lost-write names, not whether one is reported",
        "polls_seen": "synced: the number of the consumer's polls, after every observation"}

    def __init__(self, cluster: Cluster, report: Callable[..., None], source: ClientChecks | None = None) -> None:
        self.cluster = cluster
        self.report = report
        if source is not None:          # continue ``source``'s watch on a clone of its cluster
            self.acked_seen = source.acked_seen
            self._absent_since = source._absent_since        # shared until either side writes
            self.polls_seen = source.polls_seen
            self._read_at = source._read_at
            self._inconsistent = source._inconsistent
            self._session_last = source._session_last
            self._values_read = source._values_read
            self._share(source)
            return
        self.acked_seen = 0
        self._absent_since = {}
        self.polls_seen = 0
        self._read_at = {}
        self._inconsistent = set()
        self._session_last = {}
        self._values_read = set()
        self._fresh()

    def _own(self) -> None:
        self._absent_since = dict(self._absent_since)
        self._read_at = dict(self._read_at)
        self._inconsistent = set(self._inconsistent)
        self._session_last = dict(self._session_last)
        self._values_read = set(self._values_read)

    def _verdict(self, values: dict[str, int]) -> tuple:
        """What the consumer read, where it read two values, each session's last offset."""
        return (tuple(sorted((o, values[v]) for o, v in self._read_at.items())), tuple(sorted(self._inconsistent)),
                tuple(sorted(self._session_last.items())), tuple(sorted(values[v] for v in self._values_read)))

    def track_acked(self, step: int, leader: Replica, rewritten: bool) -> None:
        acked = self.cluster.producer.acked
        if self._absent_since or rewritten:        # else the pops below find nothing to remove
            self._write()
        for value in acked[self.acked_seen:]:
            self._absent_since.pop(value, None)
        self.acked_seen = len(acked)
        if rewritten and acked:
            present = set(leader.log.values)
            for value in acked:
                if value in present:
                    self._absent_since.pop(value, None)
                else:
                    self._absent_since.setdefault(value, step)

    def check_polls(self, step: int) -> None:
        """Jepsen's consumer checks on the polls since the last step: two values read at one
        offset (``inconsistent-offsets``); one consumer session reading an offset at or below
        one it already read (``nonmonotonic-poll``)."""
        polls = self.cluster.consumer.polls
        self._write()
        for session, records in polls[self.polls_seen:]:
            rewound = False
            for offset, _, value in records:
                first = self._read_at.setdefault(offset, value)
                if first != value and offset not in self._inconsistent:
                    self._inconsistent.add(offset)
                    self.report("inconsistent-offsets", step, f"the consumer read {first} and later {value} "
                                 f"at offset {offset}", offset=offset, value=value)
                last = self._session_last.get(session)
                if last is not None and offset <= last and not rewound:
                    rewound = True
                    self.report("nonmonotonic-poll", step, f"consumer session {session} read offset {offset} "
                                 f"after offset {last}", offset=offset, value=value)
                self._session_last[session] = offset
                self._values_read.add(value)
        self.polls_seen = len(polls)

    def finish(self, step: int, leader: Replica, deleted_below: int = 0) -> None:
        """Judge acknowledged records against the final (online) leader's log, from its log start:
        a record acknowledged below it, or below the highest log start a leader had
        (``deleted_below``), was deleted (retention, DeleteRecords), not lost."""
        start = leader.log.start
        present = set(leader.log.values[start:])
        if deleted_below > start:
            start = deleted_below
        offsets: dict[str, int] = {}
        for request in self.cluster.producer.produces:
            if request.status == "acked":
                offsets.setdefault(request.value, request.offset)
        for value in dict.fromkeys(self.cluster.producer.acked):
            acked_at = offsets.get(value)
            if value not in present and not (acked_at is not None and 0 <= acked_at < start):
                self.report("lost-write", self._absent_since.get(value, step),
                            f"{value} was acknowledged at offset {offsets.get(value)} and is "
                            f"not in the final log of leader {leader.id}",
                            value=value, offset=offsets.get(value))
        self.check_client_order(step, leader)
        self.check_unseen(step, leader, start)

    def check_unseen(self, step: int, leader: Replica, start: int = 0) -> None:
        """``unseen``: acknowledged, in the final log below the consumer's position (it went
        past them), and never read - skipped by a reset, or rewritten under it."""
        cluster = self.cluster
        if not cluster.consumer.polls:
            return
        acked = set(cluster.producer.acked)
        values = leader.log.values
        start = max(start, leader.log.start)     # below: deleted by the partition's policy
        for offset in range(min(cluster.consumer.position, len(values))):
            value = values[offset]
            if value in acked and value not in self._values_read:
                if offset < start:      # deleted before the consumer got to it: an effect of retention
                    self.report("consumer-skipped", step, f"{value} (offset {offset}) was deleted below the log "
                                 f"start {start} before the consumer read it", offset=offset, value=value)
                    continue
                self.report("unseen", step, f"{value} is acknowledged and at offset {offset}, below the "
                             f"consumer's position {cluster.consumer.position}, but was never read",
                             offset=offset, value=value)

    def check_client_order(self, step: int, leader: Replica) -> None:
        """``duplicate``: a record sent once stands at several offsets of the final log;
        ``reordered``: a record sent earlier stands after one sent later. Only values that
        exactly one produce call sent are judged (a scenario may send a value twice)."""
        sends: dict[str, int] = {}
        for request in self.cluster.producer.produces:
            sends[request.value] = sends.get(request.value, 0) + 1
        where: dict[str, list[int]] = {}
        values = leader.log.values
        for offset in range(leader.log.start, len(values)):     # below the log start: deleted
            value = values[offset]
            if sends.get(value) == 1:
                where.setdefault(value, []).append(offset)
        for value, offsets in where.items():
            if len(offsets) > 1:
                self.report("duplicate", step, f"{value}, sent once, stands at offsets "
                             f"{', '.join(map(str, offsets))} of leader {leader.id}'s log",
                             value=value, offset=offsets[1])
        latest_offset, latest_value = -1, None
        for request in self.cluster.producer.produces:          # in the order they were first sent
            at = where.get(request.value)
            if not at:
                continue
            if at[0] < latest_offset:
                self.report("reordered", step, f"{request.value} was sent after {latest_value} but "
                             f"stands before it (offset {at[0]} < {latest_offset})",
                             value=request.value, offset=at[0])
            else:
                latest_offset, latest_value = at[0], request.value
