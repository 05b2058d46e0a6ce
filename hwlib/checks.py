"""Anomaly checks (SPEC section 9), run incrementally after every step of a run."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

from .replica import FETCHING, LEADER

KINDS = ("lost-write", "log-divergence", "committed-truncated", "strong-isr", "hw-regression",
         "epoch-cache-order", "duplicate", "reordered", "inconsistent-offsets", "nonmonotonic-poll",
         "unseen")

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


def _record(log, offset: int) -> str:
    return f"{log.values[offset]} (epoch {log.epochs[offset]})"


class AnomalyChecker:
    """Watches one cluster. ``observe(step)`` after each step; ``finish(step)`` at the end.

    Pairwise log comparisons are amortised: for each pair of replicas it remembers the prefix
    already found equal and shortens it only when a truncation rewrote one of the logs.
    A condition that persists over several steps (divergence, a strong-ISR violation) is
    reported once, when it first appears.
    """

    def __init__(self, cluster) -> None:
        self.cluster = cluster
        self.anomalies: list[Anomaly] = []
        reps = cluster.replicas
        self._pairs = [(a, b, (a.id, b.id)) for i, a in enumerate(reps) for b in reps[i + 1:]]
        self._agree = {key: 0 for _, _, key in self._pairs}
        self._key = {}
        for a, b, key in self._pairs:
            self._key[a.id, b.id] = self._key[b.id, a.id] = key
        self._events_seen = 0
        self._diverged: dict[tuple[str, str], int] = {}
        #: strong-isr violations standing after the last check: (presumed leader, ISR member)
        #: pairs, and ("", member) for a member lacking a committed record
        self._weak_isr: set[tuple[str, str]] = set()
        #: per replica, a prefix of its log known to equal the partition's committed prefix
        self._has_committed = {r.id: 0 for r in reps}
        self._committed_epochs: list[int] = []
        self._committed_values: list[str] = []
        self._last_hw: int | None = None
        self._last_leader: str | None = None
        self._cache_versions = {r.id: r.log.cache.version for r in reps}
        self._acked_seen = 0
        self._absent_since: dict[str, int] = {}
        self._polls_seen = 0
        self._read_at: dict[int, str] = {}          # offset -> value the consumer first read there
        self._inconsistent: set[int] = set()
        self._session_last: dict[int, int] = {}     # consumer session -> last offset it read
        self._values_read: set[str] = set()

    def _report(self, kind: str, step: int, detail: str, **extra) -> None:
        self.anomalies.append(Anomaly(kind, step, detail, **extra))

    def _first_difference(self, a, b, key, upto: int) -> int | None:
        """First offset below ``upto`` where a and b differ (or one lacks it), else None."""
        start = self._agree[key]
        if upto <= start:
            return None
        la, lb = a.log, b.log
        end = min(upto, len(la.values), len(lb.values))
        if (la.values[start:end] == lb.values[start:end]
                and la.epochs[start:end] == lb.epochs[start:end]):
            if end == upto:
                self._agree[key] = upto
                return None
            self._agree[key] = end
            return end
        for o in range(start, end):
            if la.values[o] != lb.values[o] or la.epochs[o] != lb.epochs[o]:
                self._agree[key] = o
                return o
        raise AssertionError("unreachable: slices differ but no offset does")

    def _changed(self) -> bool:
        """Whether any event since the last observation can change a pairwise verdict."""
        events = self.cluster.events
        seen = self._events_seen
        self._events_seen = len(events)
        if seen > len(events):  # the owner cleared the event list
            return True
        for i in range(seen, len(events)):
            if events[i][0] not in _IRRELEVANT:
                return True
        return False

    def observe(self, step: int) -> None:
        cluster = self.cluster
        changed = self._changed()
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
            for key, agreed in self._agree.items():
                if agreed > rewritten and r.id in key:
                    self._agree[key] = rewritten
            if self._has_committed[r.id] > rewritten:
                self._has_committed[r.id] = rewritten
            for key, offset in list(self._diverged.items()):
                if r.id in key and rewritten <= offset:
                    del self._diverged[key]
        self._last_leader = leader.id if leader is not None else None

        if leader is not None:
            # each check only when its inputs moved (most steps move none of them)
            if leader.hw != self._last_hw:
                self._check_hw_regression(step, leader)
            if leader_rewritten or leader.hw > len(self._committed_values):
                self._check_committed(step, leader, leader_rewritten)
            if leader_rewritten or len(cluster.acked) > self._acked_seen:
                self._track_acked(step, leader, leader_rewritten)
        if changed or self._weak_isr:
            self._check_strong_isr(step)
        if changed:
            self._check_divergence(step)
        versions = self._cache_versions
        for r in cluster.replicas:
            if r.log.cache.version != versions[r.id]:
                self._check_epoch_caches(step)
                break
        if len(cluster.polls) > self._polls_seen:
            self._check_polls(step)

    def _check_polls(self, step: int) -> None:
        """Jepsen's consumer checks on the polls since the last step: two values read at one
        offset (``inconsistent-offsets``); one consumer session reading an offset at or below
        one it already read (``nonmonotonic-poll``)."""
        polls = self.cluster.polls
        for session, records in polls[self._polls_seen:]:
            rewound = False
            for offset, _, value in records:
                first = self._read_at.setdefault(offset, value)
                if first != value and offset not in self._inconsistent:
                    self._inconsistent.add(offset)
                    self._report("inconsistent-offsets", step, f"the consumer read {first} and later {value} "
                                 f"at offset {offset}", offset=offset, value=value)
                last = self._session_last.get(session)
                if last is not None and offset <= last and not rewound:
                    rewound = True
                    self._report("nonmonotonic-poll", step, f"consumer session {session} read offset {offset} "
                                 f"after offset {last}", offset=offset, value=value)
                self._session_last[session] = offset
                self._values_read.add(value)
        self._polls_seen = len(polls)

    def _check_hw_regression(self, step: int, leader) -> None:
        hw = leader.hw
        if self._last_hw is not None and hw < self._last_hw:
            self._report("hw-regression", step,
                         f"partition HW {self._last_hw} -> {hw} (leader {leader.id}, "
                         f"epoch {self.cluster.leader_epoch})", replica=leader.id)
        self._last_hw = hw

    def _check_committed(self, step: int, leader, rewritten: bool) -> None:
        log = leader.log
        epochs, values = self._committed_epochs, self._committed_values
        if rewritten and values:
            n = len(values)
            have = min(n, len(log.values))
            same = n   # the longest prefix the leader's log shares with the committed one
            for o in range(n):
                if o >= have or log.values[o] != values[o] or log.epochs[o] != epochs[o]:
                    same = min(same, o)
                    self._report("committed-truncated", step,
                                 f"offset {o}: {values[o]} (epoch {epochs[o]}) was below the "
                                 f"partition HW and is gone from leader {leader.id}'s log",
                                 replica=leader.id, offset=o, value=values[o])
            # adopt the leader's log as the partition's committed prefix from here on; what a
            # replica was known to hold of it stands only up to where the two agree
            for rid, upto in self._has_committed.items():
                if upto > same:
                    self._has_committed[rid] = same
            del epochs[:], values[:]
            epochs.extend(log.epochs[:have])
            values.extend(log.values[:have])
        if leader.hw > len(values):
            start = len(values)
            epochs.extend(log.epochs[start:leader.hw])
            values.extend(log.values[start:leader.hw])

    def _track_acked(self, step: int, leader, rewritten: bool) -> None:
        acked = self.cluster.acked
        for value in acked[self._acked_seen:]:
            self._absent_since.pop(value, None)
        self._acked_seen = len(acked)
        if rewritten and acked:
            present = set(leader.log.values)
            for value in acked:
                if value in present:
                    self._absent_since.pop(value, None)
                else:
                    self._absent_since.setdefault(value, step)

    def _check_strong_isr(self, step: int) -> None:
        """SPEC section 9: every online replica that believes it leads - the controller's
        leader or a stale one (a zombie) - has its log below its own HW on every member of the
        controller's ISR; and no ISR member lacks a record that was ever below the partition
        HW (a new leader's HW may be stale, so the first part alone misses an ISR join below a
        committed record). A violation is reported when it appears, and again only after it
        went away."""
        cluster = self.cluster
        ctl = cluster.controller
        isr = ctl.isr
        by_id = cluster.by_id
        weak: set[tuple[str, str]] = set()
        for leader in cluster.replicas:
            if leader.role != LEADER or not leader.online:
                continue
            hw = leader.hw
            for rid in isr:
                if rid == leader.id:
                    continue
                member = by_id[rid]
                bad = self._first_difference(leader, member, self._key[leader.id, rid], hw)
                if bad is None:
                    continue
                weak.add((leader.id, rid))
                if (leader.id, rid) in self._weak_isr:
                    continue
                if leader.id == ctl.leader and leader.leader_epoch == ctl.leader_epoch:
                    who = f"leader {leader.id}"
                else:
                    who = (f"stale leader {leader.id} (epoch {leader.leader_epoch}; the controller's leader is "
                           f"{ctl.leader or 'none'}, epoch {ctl.leader_epoch})")
                self._report("strong-isr", step,
                             f"{who} has HW {hw} with {_record(leader.log, bad)} at offset {bad}, but ISR member "
                             f"{rid} {_what_is_at(member, bad)}", replica=rid, offset=bad)
        values, epochs = self._committed_values, self._committed_epochs
        has, n = self._has_committed, len(values)
        for rid in isr:
            if has[rid] >= n:
                continue
            bad = self._lacks_committed(by_id[rid])
            if bad is None:
                continue
            weak.add(("", rid))
            if ("", rid) in self._weak_isr or any(pair[1] == rid for pair in weak if pair[0]):
                continue   # new, or the same gap already reported against a leader
            self._report("strong-isr", step,
                         f"ISR member {rid} {_what_is_at(by_id[rid], bad)}, where {values[bad]} (epoch "
                         f"{epochs[bad]}) was below the partition HW", replica=rid, offset=bad)
        self._weak_isr = weak

    def _lacks_committed(self, replica) -> int | None:
        """The first offset of the committed prefix that ``replica``'s log lacks or holds
        another record at, else None."""
        values, epochs = self._committed_values, self._committed_epochs
        n = len(values)
        start = self._has_committed[replica.id]
        if start >= n:
            return None
        log = replica.log
        end = min(n, len(log.values))
        if log.values[start:end] == values[start:end] and log.epochs[start:end] == epochs[start:end]:
            self._has_committed[replica.id] = end
            return None if end == n else end
        for o in range(start, end):
            if log.values[o] != values[o] or log.epochs[o] != epochs[o]:
                self._has_committed[replica.id] = o
                return o
        raise AssertionError("unreachable: slices differ but no offset does")

    def _check_divergence(self, step: int) -> None:
        reconciled = {r.id for r in self.cluster.replicas if _reconciled(r)}
        for a, b, key in self._pairs:
            if a.id not in reconciled or b.id not in reconciled:
                continue
            upto = a.hw if a.hw < b.hw else b.hw
            if upto <= self._agree[key]:
                continue
            bad = self._first_difference(a, b, key, upto)
            if bad is not None and key not in self._diverged:
                self._diverged[key] = bad
                self._report("log-divergence", step,
                             f"{a.id} and {b.id} differ at offset {bad}, below both HWs "
                             f"({a.id}: {_record(a.log, bad)}, {b.id}: {_record(b.log, bad)})",
                             replica=f"{a.id},{b.id}", offset=bad)

    def _check_epoch_caches(self, step: int) -> None:
        for r in self.cluster.replicas:
            cache = r.log.cache
            if cache.version != self._cache_versions[r.id]:
                self._cache_versions[r.id] = cache.version
                if not cache.is_strictly_increasing():
                    self._report("epoch-cache-order", step,
                                 f"{r.id}'s epoch cache {cache.entries} is not strictly increasing",
                                 replica=r.id)

    def finish(self, step: int) -> list[Anomaly]:
        """Judge acknowledged records against the final leader's log; returns all anomalies.
        With no leader, or the leader down, at the end the question stays open: nothing is
        reported."""
        leader = self.cluster.leader
        if leader is not None and leader.online:
            present = set(leader.log.values)
            offsets = {}
            for request in self.cluster.produces:
                if request.status == "acked":
                    offsets.setdefault(request.value, request.offset)
            for value in dict.fromkeys(self.cluster.acked):
                if value not in present:
                    self._report("lost-write", self._absent_since.get(value, step),
                                 f"{value} was acknowledged at offset {offsets.get(value)} and is "
                                 f"not in the final log of leader {leader.id}",
                                 value=value, offset=offsets.get(value))
            self._check_client_order(step, leader)
            self._check_unseen(step, leader)
        return self.anomalies

    def _check_unseen(self, step: int, leader) -> None:
        """``unseen``: acknowledged, in the final log below the consumer's position (it went
        past them), and never read - skipped by a reset, or rewritten under it."""
        cluster = self.cluster
        if not cluster.polls:
            return
        acked = set(cluster.acked)
        values = leader.log.values
        for offset in range(min(cluster.consumer_position, len(values))):
            value = values[offset]
            if value in acked and value not in self._values_read:
                self._report("unseen", step, f"{value} is acknowledged and at offset {offset}, below the "
                             f"consumer's position {cluster.consumer_position}, but was never read",
                             offset=offset, value=value)

    def _check_client_order(self, step: int, leader) -> None:
        """``duplicate``: a record sent once stands at several offsets of the final log;
        ``reordered``: a record sent earlier stands after one sent later. Only values that
        exactly one produce call sent are judged (a scenario may send a value twice)."""
        sends = Counter(request.value for request in self.cluster.produces)
        where: dict[str, list[int]] = {}
        for offset, value in enumerate(leader.log.values):
            if sends.get(value) == 1:
                where.setdefault(value, []).append(offset)
        for value, offsets in where.items():
            if len(offsets) > 1:
                self._report("duplicate", step, f"{value}, sent once, stands at offsets "
                             f"{', '.join(map(str, offsets))} of leader {leader.id}'s log",
                             value=value, offset=offsets[1])
        latest_offset, latest_value = -1, None
        for request in self.cluster.produces:          # in the order they were first sent
            offsets = where.get(request.value)
            if not offsets:
                continue
            if offsets[0] < latest_offset:
                self._report("reordered", step, f"{request.value} was sent after {latest_value} but "
                             f"stands before it (offset {offsets[0]} < {latest_offset})",
                             value=request.value, offset=offsets[0])
            else:
                latest_offset, latest_value = offsets[0], request.value


def _what_is_at(replica, offset: int) -> str:
    if offset >= replica.leo:
        return f"lacks offset {offset} (its LEO is {replica.leo})"
    return f"holds {_record(replica.log, offset)} at offset {offset}"


def _reconciled(replica) -> bool:
    """Online and done reconciling with its leader (or the leader itself)."""
    return replica.online and (replica.role == LEADER or (
        not replica.awaiting_leader and replica.fetch_state == FETCHING))
