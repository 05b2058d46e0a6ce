"""Broker-internal checks: log divergence, committed truncation, strong ISR, HW regression, HW below log start.

Pairwise log comparisons are amortised: for each pair of replicas the checks remember the
prefix already found equal and shorten it only when a truncation rewrote one of the logs. A
condition that persists over several steps (divergence, a strong-ISR violation) is reported
once, when it first appears. The checks of a cloned cluster share what they remember with the
checks they continue until either side writes (``memory.Remembered``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from ..engine.log import ReplicaLog
from ..engine.replica import FETCHING, LEADER, Replica
from .memory import Remembered

if TYPE_CHECKING:
    from ..engine.cluster import Cluster


class ReplicationChecks(Remembered):
    """State is kept per replica index and per pair code ``i * n + j`` (replica indices,
    ``i < j`` for a pair, ``i`` the presumed leader for a strong-ISR violation)."""

    #: every pair of replicas as (index, index, pair code), the lower index first
    pairs: list[tuple[int, int, int]]
    #: the pair codes each replica belongs to
    _pairs_of: list[list[int]]
    #: per pair, a prefix of the two logs known to be equal (indexed by pair code)
    agree: list[int]
    #: pair code -> offset of a reported divergence, while it stands
    diverged: dict[int, int]
    #: strong-isr violations standing after the last check: leader * n + member, and
    #: n * n + member for a member lacking a committed record
    weak_isr: set[int]
    #: leaders (by index) serving an HW below their log start, after the last check
    low_hw: frozenset[int]
    #: the highest log start a serving leader has had: the partition deleted the records below
    #: it (retention, DeleteRecords) - what a replica still holds there is not compared
    deleted_below: int
    #: the partition's committed prefix: every record that was ever below the partition HW
    committed_epochs: list[int]
    committed_values: list[str]
    #: per replica, a prefix of its log known to equal the committed prefix
    has_committed: list[int]
    last_hw: int | None

    #: what the checks hold and ``verdict_key`` leaves out, each with why (``memory``)
    UNKEYED: ClassVar[dict[str, str]] = {
        "cluster": "wiring: the cluster the checks watch",
        "report": "wiring: the checker's report callback",
        "n": "constant: the number of replicas",
        "pairs": "constant: every pair of replica indices",
        "_pairs_of": "constant: the pairs each replica belongs to",
        "agree": "cache: a prefix known equal, only saves comparing it again",
        "has_committed": "cache: a prefix known to hold the committed records, only saves comparing it again",
        "cache_versions": "synced: each replica's epoch cache version, after every observation"}

    def __init__(self, cluster: Cluster, report: Callable[..., None],
                 source: ReplicationChecks | None = None) -> None:
        self.cluster = cluster
        self.report = report
        reps = cluster.replicas
        n = self.n = len(reps)
        self.cache_versions = [r.log.cache.version for r in reps]
        if source is not None:       # continue ``source``'s watch on a clone of its cluster
            self.pairs = source.pairs                # by index only, never changed
            self._pairs_of = source._pairs_of
            self.agree = source.agree                # shared until either side writes
            self.diverged = source.diverged
            self.weak_isr = source.weak_isr          # replaced, never changed in place
            self.low_hw = source.low_hw
            self.deleted_below = source.deleted_below
            self.committed_epochs = source.committed_epochs
            self.committed_values = source.committed_values
            self.has_committed = source.has_committed
            self.last_hw = source.last_hw
            self._share(source)
            return
        self.pairs = [(i, j, i * n + j) for i in range(n) for j in range(i + 1, n)]
        self._pairs_of = [[] for _ in reps]
        for i, j, code in self.pairs:
            self._pairs_of[i].append(code)
            self._pairs_of[j].append(code)
        self.agree = [0] * (n * n)
        self.diverged = {}
        self.weak_isr = set()
        self.low_hw = frozenset()
        self.deleted_below = 0
        self.committed_epochs = []
        self.committed_values = []
        self.has_committed = [0] * n
        self.last_hw = None
        self._fresh()

    def _own(self) -> None:
        self.agree = list(self.agree)
        self.diverged = dict(self.diverged)
        self.committed_epochs = list(self.committed_epochs)
        self.committed_values = list(self.committed_values)
        self.has_committed = list(self.has_committed)

    def _verdict(self, values: dict[str, int]) -> tuple:
        """The committed prefix, the highest partition HW seen, the violations standing (the
        agreement caches are left out: they only save work)."""
        return (tuple([values[v] for v in self.committed_values]), tuple(self.committed_epochs),
                -1 if self.last_hw is None else self.last_hw, tuple(sorted(self.weak_isr)), tuple(sorted(self.low_hw)),
                self.deleted_below,
                tuple(sorted(self.diverged.items())))

    def pair_code(self, a: Replica, b: Replica) -> int:
        i, j = a.index, b.index
        return i * self.n + j if i < j else j * self.n + i

    def on_rewrite(self, replica: Replica, rewritten: int) -> None:
        """``replica``'s log changed at and above ``rewritten``: forget what is known there."""
        self._write()
        agree, diverged = self.agree, self.diverged
        for code in self._pairs_of[replica.index]:
            if agree[code] > rewritten:
                agree[code] = rewritten
            offset = diverged.get(code)
            if offset is not None and rewritten <= offset:
                del diverged[code]
        if self.has_committed[replica.index] > rewritten:
            self.has_committed[replica.index] = rewritten

    def first_differing_offset(self, a: Replica, b: Replica, code: int, upto: int) -> int | None:
        """First offset below ``upto`` where a and b differ (or one lacks it), else None. Below
        either's log start there is nothing to compare: one of them deleted it."""
        agree = self.agree
        la, lb = a.log, b.log
        start = agree[code]
        floor = max(la.start, lb.start, self.deleted_below)
        if start < floor:
            start = floor
        if upto <= start:
            return None
        self._write()
        agree = self.agree
        end = min(upto, len(la.values), len(lb.values))
        if (la.values[start:end] == lb.values[start:end]
                and la.epochs[start:end] == lb.epochs[start:end]):
            if end == upto:
                agree[code] = upto
                return None
            agree[code] = end
            return end
        for o in range(start, end):
            if la.values[o] != lb.values[o] or la.epochs[o] != lb.epochs[o]:
                agree[code] = o
                return o
        raise AssertionError("unreachable: slices differ but no offset does")

    def check_hw_regression(self, step: int, leader: Replica) -> None:
        hw = leader.hw
        if self.last_hw is not None and hw < self.last_hw:
            self.report("hw-regression", step,
                         f"partition HW {self.last_hw} -> {hw} (leader {leader.id}, "
                         f"epoch {self.cluster.leader_epoch})", replica=leader.id)
        if hw != self.last_hw:
            self.memo = None
            self.last_hw = hw

    def check_committed(self, step: int, leader: Replica, rewritten: bool) -> None:
        self._write()
        log = leader.log
        epochs, values = self.committed_epochs, self.committed_values
        if rewritten and values:
            n = len(values)
            have = min(n, len(log.values))
            same = n   # the longest prefix the leader's log shares with the committed one
            for o in range(max(log.start, self.deleted_below), n):     # below: deleted, not truncated
                if o >= have or log.values[o] != values[o] or log.epochs[o] != epochs[o]:
                    same = min(same, o)
                    self.report("committed-truncated", step,
                                 f"offset {o}: {values[o]} (epoch {epochs[o]}) was below the "
                                 f"partition HW and is gone from leader {leader.id}'s log",
                                 replica=leader.id, offset=o, value=values[o])
            # adopt the leader's log as the partition's committed prefix from here on; what a
            # replica was known to hold of it stands only up to where the two agree
            has = self.has_committed
            for k in range(len(has)):
                if has[k] > same:
                    has[k] = same
            del epochs[:], values[:]
            epochs.extend(log.epochs[:have])
            values.extend(log.values[:have])
        if leader.hw > len(values):
            start = len(values)
            epochs.extend(log.epochs[start:leader.hw])
            values.extend(log.values[start:leader.hw])

    def note_deletion(self, start: int) -> None:
        """A serving leader's log start above ``deleted_below``: the partition deleted everything
        below it."""
        self.memo = None
        self.deleted_below = start

    def check_log_start(self, step: int) -> None:
        """Kafka's invariant log start <= HW, for the HW a leader serves: a leader whose HW lies
        below its own log start (KAFKA-9491: 2.4.0 elects a replica truncated fully to the old
        leader's log start before its HW caught up) cannot read its HW - fetches fail, the HW
        stops, produces fail. Reported when it appears, and again only after it went away."""
        low = frozenset(r.index for r in self.cluster.replicas
                        if r.role == LEADER and r.online and r.hw < r.log.start)
        for r in self.cluster.replicas:
            if r.index in low and r.index not in self.low_hw:
                self.report("hw-below-log-start", step, f"leader {r.id} serves HW {r.hw}, below its log start "
                            f"{r.log.start}", replica=r.id, offset=r.hw)
        if low != self.low_hw:
            self.memo = None            # the verdict key reads it
            self.low_hw = low

    def check_strong_isr(self, step: int) -> None:
        """The TLA+ specification's StrongIsr, for every online replica that believes it leads - the controller's
        leader or a stale one (a zombie) - has its log below its own HW on every member of the
        controller's ISR; and no ISR member lacks a record that was ever below the partition
        HW (a new leader's HW may be stale, so the first part alone misses an ISR join below a
        committed record). A violation is reported when it appears, and again only after it
        went away."""
        cluster = self.cluster
        ctl = cluster.controller
        by_id = cluster.by_id
        members = [by_id[rid] for rid in ctl.isr]
        n = self.n
        weak: set[int] = set()
        flagged: set[int] = set()           # member indices a presumed leader's check flagged
        for leader in cluster.replicas:
            if leader.role != LEADER or not leader.online:
                continue
            hw = leader.hw
            for member in members:
                if member is leader:
                    continue
                bad = self.first_differing_offset(leader, member, self.pair_code(leader, member), hw)
                if bad is None:
                    continue
                code = leader.index * n + member.index
                weak.add(code)
                flagged.add(member.index)
                if code in self.weak_isr:
                    continue
                if leader.id == ctl.leader and leader.leader_epoch == ctl.leader_epoch:
                    who = f"leader {leader.id}"
                else:
                    who = (f"stale leader {leader.id} (epoch {leader.leader_epoch}; the controller's leader is "
                           f"{ctl.leader or 'none'}, epoch {ctl.leader_epoch})")
                self.report("strong-isr", step,
                            f"{who} has HW {hw} with {_record(leader.log, bad)} at offset {bad}, but ISR member "
                            f"{member.id} {_what_is_at(member, bad)}", replica=member.id, offset=bad)
        values, epochs = self.committed_values, self.committed_epochs
        total = len(values)
        for member in members:
            if self.has_committed[member.index] >= total:
                continue
            bad = self.lacks_committed(member)
            if bad is None:
                continue
            code = n * n + member.index
            weak.add(code)
            if code in self.weak_isr or member.index in flagged:
                continue   # not new, or the same gap already reported against a leader
            self.report("strong-isr", step,
                        f"ISR member {member.id} {_what_is_at(member, bad)}, where {values[bad]} (epoch "
                        f"{epochs[bad]}) was below the partition HW", replica=member.id, offset=bad)
        if weak != self.weak_isr:
            self.memo = None
            self.weak_isr = weak

    def lacks_committed(self, replica: Replica) -> int | None:
        """The first offset of the committed prefix that ``replica``'s log lacks or holds
        another record at, else None."""
        values, epochs = self.committed_values, self.committed_epochs
        n = len(values)
        start = self.has_committed[replica.index]
        floor = max(replica.log.start, self.deleted_below)     # below: deleted, nothing to lack
        if start < floor:
            start = floor
        if start >= n:
            return None
        self._write()
        log = replica.log
        end = min(n, len(log.values))
        if log.values[start:end] == values[start:end] and log.epochs[start:end] == epochs[start:end]:
            self.has_committed[replica.index] = end
            return None if end == n else end
        for o in range(start, end):
            if log.values[o] != values[o] or log.epochs[o] != epochs[o]:
                self.has_committed[replica.index] = o
                return o
        raise AssertionError("unreachable: slices differ but no offset does")

    def check_divergence(self, step: int) -> None:
        replicas = self.cluster.replicas
        reconciled = [_reconciled(r) for r in replicas]
        for i, j, code in self.pairs:
            if not (reconciled[i] and reconciled[j]):
                continue
            a, b = replicas[i], replicas[j]
            upto = a.hw if a.hw < b.hw else b.hw
            if upto <= self.agree[code]:
                continue
            bad = self.first_differing_offset(a, b, code, upto)
            if bad is not None and code not in self.diverged:
                self._write()
                self.diverged[code] = bad
                self.report("log-divergence", step,
                            f"{a.id} and {b.id} differ at offset {bad}, below both HWs "
                            f"({a.id}: {_record(a.log, bad)}, {b.id}: {_record(b.log, bad)})",
                            replica=f"{a.id},{b.id}", offset=bad)

    def check_epoch_caches(self, step: int) -> None:
        for r in self.cluster.replicas:
            cache = r.log.cache
            if cache.version != self.cache_versions[r.index]:
                self.cache_versions[r.index] = cache.version
                if not cache.is_strictly_increasing():
                    self.report("epoch-cache-order", step,
                                 f"{r.id}'s epoch cache {cache.entries} is not strictly increasing",
                                 replica=r.id)

def _record(log: ReplicaLog, offset: int) -> str:
    return f"{log.values[offset]} (epoch {log.epochs[offset]})"


def _what_is_at(replica: Replica, offset: int) -> str:
    if offset >= replica.leo:
        return f"lacks offset {offset} (its LEO is {replica.leo})"
    return f"holds {_record(replica.log, offset)} at offset {offset}"


def _reconciled(replica: Replica) -> bool:
    """Online and done reconciling with its leader (or the leader itself)."""
    return replica.online and (replica.role == LEADER or (
        not replica.awaiting_leader and replica.fetch_state == FETCHING))
