"""Broker-internal checks (SPEC section 9): log divergence, committed truncation, strong ISR, HW regression, caches.

Pairwise log comparisons are amortised: for each pair of replicas the checks remember the
prefix already found equal and shorten it only when a truncation rewrote one of the logs. A
condition that persists over several steps (divergence, a strong-ISR violation) is reported
once, when it first appears.
"""

from __future__ import annotations

from collections.abc import Callable

from .replica import FETCHING, LEADER, Replica


class ReplicationChecks:
    def __init__(self, cluster, report: Callable[..., None]) -> None:
        self.cluster = cluster
        self.report = report
        reps = cluster.replicas
        self.pairs = [(a, b, (a.id, b.id)) for i, a in enumerate(reps) for b in reps[i + 1:]]
        #: per pair of replicas, a prefix of their logs known to be equal
        self.agree = {key: 0 for _, _, key in self.pairs}
        self._key: dict[tuple[str, str], tuple[str, str]] = {}
        for a, b, key in self.pairs:
            self._key[a.id, b.id] = self._key[b.id, a.id] = key
        self.diverged: dict[tuple[str, str], int] = {}
        #: strong-isr violations standing after the last check: (presumed leader, ISR member)
        #: pairs, and ("", member) for a member lacking a committed record
        self.weak_isr: set[tuple[str, str]] = set()
        #: the partition's committed prefix: every record that was ever below the partition HW
        self.committed_epochs: list[int] = []
        self.committed_values: list[str] = []
        #: per replica, a prefix of its log known to equal the committed prefix
        self.has_committed = {r.id: 0 for r in reps}
        self.last_hw: int | None = None
        self.cache_versions = {r.id: r.log.cache.version for r in reps}

    def on_rewrite(self, replica: Replica, rewritten: int) -> None:
        """``replica``'s log changed at and above ``rewritten``: forget what is known there."""
        rid = replica.id
        for key, agreed in self.agree.items():
            if agreed > rewritten and rid in key:
                self.agree[key] = rewritten
        if self.has_committed[rid] > rewritten:
            self.has_committed[rid] = rewritten
        for key, offset in list(self.diverged.items()):
            if rid in key and rewritten <= offset:
                del self.diverged[key]

    def first_difference(self, a, b, key, upto: int) -> int | None:
        """First offset below ``upto`` where a and b differ (or one lacks it), else None."""
        start = self.agree[key]
        if upto <= start:
            return None
        la, lb = a.log, b.log
        end = min(upto, len(la.values), len(lb.values))
        if (la.values[start:end] == lb.values[start:end]
                and la.epochs[start:end] == lb.epochs[start:end]):
            if end == upto:
                self.agree[key] = upto
                return None
            self.agree[key] = end
            return end
        for o in range(start, end):
            if la.values[o] != lb.values[o] or la.epochs[o] != lb.epochs[o]:
                self.agree[key] = o
                return o
        raise AssertionError("unreachable: slices differ but no offset does")

    def check_hw_regression(self, step: int, leader) -> None:
        hw = leader.hw
        if self.last_hw is not None and hw < self.last_hw:
            self.report("hw-regression", step,
                         f"partition HW {self.last_hw} -> {hw} (leader {leader.id}, "
                         f"epoch {self.cluster.leader_epoch})", replica=leader.id)
        self.last_hw = hw

    def check_committed(self, step: int, leader, rewritten: bool) -> None:
        log = leader.log
        epochs, values = self.committed_epochs, self.committed_values
        if rewritten and values:
            n = len(values)
            have = min(n, len(log.values))
            same = n   # the longest prefix the leader's log shares with the committed one
            for o in range(n):
                if o >= have or log.values[o] != values[o] or log.epochs[o] != epochs[o]:
                    same = min(same, o)
                    self.report("committed-truncated", step,
                                 f"offset {o}: {values[o]} (epoch {epochs[o]}) was below the "
                                 f"partition HW and is gone from leader {leader.id}'s log",
                                 replica=leader.id, offset=o, value=values[o])
            # adopt the leader's log as the partition's committed prefix from here on; what a
            # replica was known to hold of it stands only up to where the two agree
            for rid, upto in self.has_committed.items():
                if upto > same:
                    self.has_committed[rid] = same
            del epochs[:], values[:]
            epochs.extend(log.epochs[:have])
            values.extend(log.values[:have])
        if leader.hw > len(values):
            start = len(values)
            epochs.extend(log.epochs[start:leader.hw])
            values.extend(log.values[start:leader.hw])

    def check_strong_isr(self, step: int) -> None:
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
                bad = self.first_difference(leader, member, self._key[leader.id, rid], hw)
                if bad is None:
                    continue
                weak.add((leader.id, rid))
                if (leader.id, rid) in self.weak_isr:
                    continue
                if leader.id == ctl.leader and leader.leader_epoch == ctl.leader_epoch:
                    who = f"leader {leader.id}"
                else:
                    who = (f"stale leader {leader.id} (epoch {leader.leader_epoch}; the controller's leader is "
                           f"{ctl.leader or 'none'}, epoch {ctl.leader_epoch})")
                self.report("strong-isr", step,
                             f"{who} has HW {hw} with {_record(leader.log, bad)} at offset {bad}, but ISR member "
                             f"{rid} {_what_is_at(member, bad)}", replica=rid, offset=bad)
        values, epochs = self.committed_values, self.committed_epochs
        has, n = self.has_committed, len(values)
        for rid in isr:
            if has[rid] >= n:
                continue
            bad = self.lacks_committed(by_id[rid])
            if bad is None:
                continue
            weak.add(("", rid))
            if ("", rid) in self.weak_isr or any(pair[1] == rid for pair in weak if pair[0]):
                continue   # new, or the same gap already reported against a leader
            self.report("strong-isr", step,
                         f"ISR member {rid} {_what_is_at(by_id[rid], bad)}, where {values[bad]} (epoch "
                         f"{epochs[bad]}) was below the partition HW", replica=rid, offset=bad)
        self.weak_isr = weak

    def lacks_committed(self, replica) -> int | None:
        """The first offset of the committed prefix that ``replica``'s log lacks or holds
        another record at, else None."""
        values, epochs = self.committed_values, self.committed_epochs
        n = len(values)
        start = self.has_committed[replica.id]
        if start >= n:
            return None
        log = replica.log
        end = min(n, len(log.values))
        if log.values[start:end] == values[start:end] and log.epochs[start:end] == epochs[start:end]:
            self.has_committed[replica.id] = end
            return None if end == n else end
        for o in range(start, end):
            if log.values[o] != values[o] or log.epochs[o] != epochs[o]:
                self.has_committed[replica.id] = o
                return o
        raise AssertionError("unreachable: slices differ but no offset does")

    def check_divergence(self, step: int) -> None:
        reconciled = {r.id for r in self.cluster.replicas if _reconciled(r)}
        for a, b, key in self.pairs:
            if a.id not in reconciled or b.id not in reconciled:
                continue
            upto = a.hw if a.hw < b.hw else b.hw
            if upto <= self.agree[key]:
                continue
            bad = self.first_difference(a, b, key, upto)
            if bad is not None and key not in self.diverged:
                self.diverged[key] = bad
                self.report("log-divergence", step,
                             f"{a.id} and {b.id} differ at offset {bad}, below both HWs "
                             f"({a.id}: {_record(a.log, bad)}, {b.id}: {_record(b.log, bad)})",
                             replica=f"{a.id},{b.id}", offset=bad)

    def check_epoch_caches(self, step: int) -> None:
        for r in self.cluster.replicas:
            cache = r.log.cache
            if cache.version != self.cache_versions[r.id]:
                self.cache_versions[r.id] = cache.version
                if not cache.is_strictly_increasing():
                    self.report("epoch-cache-order", step,
                                 f"{r.id}'s epoch cache {cache.entries} is not strictly increasing",
                                 replica=r.id)

def _record(log, offset: int) -> str:
    return f"{log.values[offset]} (epoch {log.epochs[offset]})"


def _what_is_at(replica, offset: int) -> str:
    if offset >= replica.leo:
        return f"lacks offset {offset} (its LEO is {replica.leo})"
    return f"holds {_record(replica.log, offset)} at offset {offset}"


def _reconciled(replica) -> bool:
    """Online and done reconciling with its leader (or the leader itself)."""
    return replica.online and (replica.role == LEADER or (
        not replica.awaiting_leader and replica.fetch_state == FETCHING))
