"""What a log line says happened, as a typed observation, and the observations each step of the model makes.

An ``Observation`` is a kind (``KINDS``), the broker it is about (who wrote the line, or whom
it names) and its values, each of a sort: an offset, a leader epoch, a broker, a set of
brokers. A log line recognised by ``formats`` becomes one, with Kafka's values (offsets like
6,656,337, broker ids like 1001); the model makes the same kinds with its own
(``observe_step``: from a step's events and the state before and after it - the one definition
the log writer renders and the search matches against). A line's observation holds on a step
when the step made an observation of its kind whose values are the line's under the
explanation's ``Maps``: strictly increasing maps for offsets and for epochs (real logs count far
higher than the model's handful of records) - an offset 0 and -1 map to themselves only (the
start of a log, no offset), an epoch -1 likewise (no epoch), while the model's first epoch, 0,
may stand for the epoch an excerpt begins in (a paste of a running cluster names epoch 14: its
history before is no more the model's than its records before) - and a one-to-one map of broker
ids to the model's replicas. A value a line does not carry is not compared.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..engine.kafka_errors import FENCED_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH
from ..engine.replica import FOLLOWER, LEADER

if TYPE_CHECKING:
    from ..engine.cluster import Cluster

#: every kind, with what it says and the sort of each value
KINDS: dict[str, tuple[str, dict[str, str]]] = {
    "truncate": ("the broker's log was truncated to an offset (records from it dropped)", {"offset": "offset"}),
    "truncate_noop": ("a truncation that dropped nothing: the log ends at or before the offset",
                      {"offset": "offset", "leo": "offset"}),
    "truncate_to": ("the broker truncated its log to an offset, dropping records or not",
                    {"offset": "offset"}),
    "epoch_answer": ("the leader answered the broker's OffsetsForLeaderEpoch with an end offset; the broker's log "
                     "ended at leo", {"offset": "offset", "leo": "offset"}),
    "halt": ("the broker exits rather than truncate below its own log end (Kafka <= 2.0.0, unclean election off)",
             {"leader": "broker", "leader_leo": "offset", "leo": "offset"}),
    "leader": ("the broker became the partition's leader in an epoch, its log ending at leo",
               {"epoch": "epoch", "leo": "offset", "hw": "offset", "isr": "brokers"}),
    "follower": ("the broker became a follower of a leader in an epoch",
                 {"leader": "broker", "epoch": "epoch", "leo": "offset", "hw": "offset"}),
    "elected": ("the controller wrote a new leader and leader epoch",
                {"leader": "broker", "epoch": "epoch", "isr": "brokers"}),
    "offline": ("the controller found no replica it may elect: the partition is left without a leader (offline)", {}),
    "isr_shrink": ("the leader took replicas out of the ISR", {"old": "brokers", "new": "brokers"}),
    "isr_expand": ("the leader added replicas to the ISR", {"old": "brokers", "new": "brokers"}),
    "isr_updated": ("the controller accepted the leader's ISR change (AlterIsr / AlterPartition)",
                    {"isr": "brokers"}),
    "isr_refused": ("the leader's ISR write was refused (a stale leader)", {}),
    "hw": ("the follower's high watermark moved (to the leader's, up to its own log end)", {"hw": "offset"}),
    "leader_hw": ("the leader's high watermark moved", {"hw": "offset"}),
    "fenced": ("the broker's fetch was refused: its leader epoch is older than the leader's (FENCED_LEADER_EPOCH)",
               {"leader": "broker", "epoch": "epoch"}),
    "unknown_epoch": ("the broker's fetch was refused: its leader epoch is newer than the leader's "
                      "(UNKNOWN_LEADER_EPOCH)", {"leader": "broker", "epoch": "epoch"}),
    "not_leader": ("the broker's fetch was refused: the broker it fetched from does not lead "
                   "(NOT_LEADER_FOR_PARTITION / NOT_LEADER_OR_FOLLOWER)", {"leader": "broker"}),
    "epoch_entry": ("the broker's leader-epoch cache got an entry (epoch, start offset)",
                    {"epoch": "epoch", "offset": "offset"}),
    "out_of_range": ("the broker's fetch offset was past the leader's log end (OFFSET_OUT_OF_RANGE)",
                     {"offset": "offset", "leader_leo": "offset"}),
    "reset_to_start": ("the broker's fetch was out of range below the leader's log start (or, in 2.4.0, the leader "
                       "could not read its HW): it reset its fetch offset from offset to the leader's log start",
                       {"offset": "offset", "start": "offset"}),
    "truncate_fully": ("the broker's log was emptied and restarted at an offset (truncateFullyAndStartAt)",
                       {"offset": "offset"}),
    "log_start": ("the broker's log start offset moved, for a cause (2.6+ lines name it: segment deletion - "
                  "retention; client delete records request - DeleteRecords; leader offset increment - the leader's "
                  "log start in a fetch response)", {"start": "offset", "cause": "cause"}),
    "fetcher_failed": ("the broker's fetcher met an error it does not handle while processing the partition's data "
                       "at an offset and marked the partition failed: it stops fetching it (2.8.0: the leader's log "
                       "start above its HW, KAFKA-12996)", {"offset": "offset"}),
    "started": ("the broker's process started", {}),
    "stopped": ("the broker shut down cleanly", {}),
}

#: kinds that concern a broker's process, not a partition (they hold for every partition it has)
BROKER_LEVEL = ("started", "stopped")
#: kinds the controller makes, not a replica: a line of one says no broker of the partition, even
#: in a file of one broker's (the controller's own state-change.log holds its brokers' lines too)
CONTROLLER_LEVEL = ("elected", "offline")

#: why a log start moved, as Kafka 2.6+ names it (``LogStartOffsetIncrementReason.toString``), by
#: the engine's reason
CAUSES = {"retention": "segment deletion", "DeleteRecords": "client delete records request",
          "leader's log start": "leader offset increment"}

#: the refusals a follower's fetcher logs, by error code
REFUSALS = {FENCED_LEADER_EPOCH: "fenced", UNKNOWN_LEADER_EPOCH: "unknown_epoch", NOT_LEADER_OR_FOLLOWER: "not_leader"}


@dataclass(frozen=True)
class Observation:
    """A kind, the broker it is about (None: unknown - the line names none) and its values,
    in Kafka's terms (a log line's) or the model's (a step's)."""

    kind: str
    broker: str | None
    values: tuple[tuple[str, object], ...] = ()

    def value(self, name: str) -> object:
        for key, value in self.values:
            if key == name:
                return value
        return None

    def describe(self) -> str:
        what = ", ".join(f"{k} {_show(v)}" for k, v in self.values)
        return f"{self.kind}({'broker ' + self.broker if self.broker is not None else 'some broker'}" + \
            (f"; {what})" if what else ")")


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return "{" + ",".join(map(str, value)) + "}"
    return str(value)


def observation(kind: str, broker: str | None, **values: object) -> Observation:
    """An observation of ``kind`` (one of ``KINDS``; its values by name, None: not carried)."""
    sorts = KINDS[kind][1]
    unknown = set(values) - set(sorts)
    if unknown:
        raise ValueError(f"{kind}: no value {', '.join(sorted(unknown))}")
    return Observation(kind, broker, tuple((k, v) for k, v in values.items() if v is not None))


# ------------------------------------------------------------------------------------ maps
@dataclass(frozen=True)
class Maps:
    """An explanation's value maps, each a sorted tuple of (Kafka's value, the model's):
    offsets and epochs strictly increasing both ways, -1 fixed, an offset 0 fixed, an epoch 0 of
    Kafka's the model's 0 (the model's 0 may stand for Kafka's first epoch named); brokers one to one."""

    offsets: tuple[tuple[int, int], ...] = ()
    epochs: tuple[tuple[int, int], ...] = ()
    brokers: tuple[tuple[str, str], ...] = ()

    def bind(self, sort: str, real: object, model: object) -> list[Maps]:
        """These maps extended with ``real`` -> ``model`` for a value of ``sort``: one way, or
        none if that breaks them, or - for a set of brokers - every way of pairing its members."""
        if sort == "broker":
            one = self._bind_broker(str(real), str(model))
            return [] if one is None else [one]
        if sort == "cause":                 # words, the same in Kafka's line and the model
            return [self] if real == model else []
        if sort == "brokers":
            if not isinstance(real, tuple) or not isinstance(model, tuple) or len(set(real)) != len(set(model)):
                return []
            out: list[Maps] = []
            for order in itertools.permutations(sorted(set(model))):
                maps: Maps | None = self
                for r, m in zip(sorted(set(real), key=str), order, strict=True):
                    maps = None if maps is None else maps._bind_broker(str(r), m)
                if maps is not None and maps not in out:
                    out.append(maps)
            return out
        pairs = self.offsets if sort == "offset" else self.epochs
        bound = _bind_monotone(pairs, int(real), int(model), sort == "offset")    # type: ignore[call-overload]
        if bound is None:
            return []
        if bound is pairs:
            return [self]
        return [Maps(bound, self.epochs, self.brokers) if sort == "offset" else Maps(self.offsets, bound, self.brokers)]

    def _bind_broker(self, real: str, model: str) -> Maps | None:
        for r, m in self.brokers:
            if r == real:
                return self if m == model else None
            if m == model:
                return None
        return Maps(self.offsets, self.epochs, tuple(sorted(self.brokers + ((real, model),))))

    def broker_of(self, real: str) -> str | None:
        for r, m in self.brokers:
            if r == real:
                return m
        return None


def _bind_monotone(pairs: tuple[tuple[int, int], ...], real: int, model: int,
                   zero_fixed: bool = True) -> tuple[tuple[int, int], ...] | None:
    """``pairs`` (sorted by Kafka's value, strictly increasing in both) with real -> model, or
    None where that breaks the order; -1 maps to itself only, and 0 too where ``zero_fixed``
    (else Kafka's 0 maps to the model's 0, and the model's 0 may stand for a Kafka value above:
    the order keeps it for the smallest)."""
    if (real == -1 or model == -1) and real != model:
        return None
    if real == 0 and model != 0:
        return None
    if zero_fixed and model == 0 and real != 0:
        return None
    i = bisect.bisect_left(pairs, (real, -(1 << 62)))
    if i < len(pairs) and pairs[i][0] == real:
        return pairs if pairs[i][1] == model else None
    if i > 0 and pairs[i - 1][1] >= model:
        return None
    if i < len(pairs) and pairs[i][1] <= model:
        return None
    return pairs[:i] + ((real, model),) + pairs[i:]


def matches(seen: Observation, made: Observation, maps: Maps) -> list[Maps]:
    """Every extension of ``maps`` under which the log's observation ``seen`` is the step's
    ``made`` (none: it is not)."""
    if seen.kind != made.kind:
        return []
    found = [maps]
    if seen.broker is not None:
        if made.broker is None:
            return []
        found = maps.bind("broker", seen.broker, made.broker)
    sorts = KINDS[seen.kind][1]
    for name, value in seen.values:
        other = made.value(name)
        if other is None:
            return []
        found = [bound for each in found for bound in each.bind(sorts[name], value, other)]
        if not found:
            return []
    return found


# ------------------------------------------------------------------- what the model shows
@dataclass
class StepView:
    """What ``observe_step`` reads of the state before a step: each replica's role, leader,
    epoch, epoch-cache entries, log end and cached ISR (the state after is the cluster itself)."""

    roles: list[tuple[str, str | None, int]] = field(default_factory=list)
    entries: list[tuple[tuple[int, int], ...]] = field(default_factory=list)
    leos: list[int] = field(default_factory=list)
    isrs: list[tuple[str, ...]] = field(default_factory=list)

    @classmethod
    def of(cls, cluster: Cluster) -> StepView:
        replicas = cluster.replicas
        return cls([(r.role, r.leader_id, r.leader_epoch) for r in replicas],
                   [r.log.cache.key() for r in replicas], [r.leo for r in replicas], [r.isr for r in replicas])


def observe_creation(cluster: Cluster) -> list[Observation]:
    """What Kafka writes when a partition is created and its first leader elected, the model's
    initial state: the controller's election (leader epoch 0), the leader's start ("Previous
    leader epoch was -1") and each follower's (``Partition.makeLeader``/``makeFollower``)."""
    ctl = cluster.controller
    count = len(cluster.replicas)
    blank = StepView([("", None, -1)] * count, [()] * count, [0] * count, [()] * count)
    # the starts alone: when a replica's epoch cache gets its first entry differs by release
    # (the leader's at election from 2.0, Partition.makeLeader; a follower's on its first fetch)
    made = [seen for seen in observe_step(blank, cluster, []) if seen.kind in ("leader", "follower")]
    if ctl.leader is not None:
        made.insert(0, observation("elected", None, leader=ctl.leader, epoch=ctl.leader_epoch, isr=ctl.isr))
    return made


def observe_step(before: StepView, after: Cluster, events: list[tuple]) -> list[Observation]:
    """Every observation one step of the model makes (in the model's values): from its
    events, and from what changed between ``before`` and the state ``after`` it."""
    out: list[Observation] = []
    ctl = after.controller
    halted = {event[1] for event in events if event[0] == "halt"}
    # a log start that moved rewrites the first epoch-cache entry (LeaderEpochFileCache
    # .truncateFromStart): no epoch was appended, and Kafka logs none
    moved: dict[str, int] = {}
    for event in events:
        kind = event[0]
        if kind == "truncate":
            out.append(observation("truncate", event[1], offset=event[3]))
            out.append(observation("truncate_to", event[1], offset=event[3]))
        elif kind == "truncate_noop":
            out.append(observation("truncate_noop", event[1], offset=event[3], leo=event[2]))
            out.append(observation("truncate_to", event[1], offset=event[3]))
        elif kind == "epoch_request":
            answer = event[3]
            end = answer[1] if isinstance(answer, tuple) else answer
            out.append(observation("epoch_answer", event[1], offset=end,
                                   leo=before.leos[after.by_id[event[1]].index]))
        elif kind == "halt":
            leader = before.roles[after.by_id[event[1]].index][1]
            out.append(observation("halt", event[1], leader=leader, leader_leo=event[2], leo=event[3]))
        elif kind == "hw":
            out.append(observation("leader_hw" if event[4] else "hw", event[1], hw=event[3]))
        elif kind == "isr":
            old, new, reason = event[1], event[2], event[3]
            if not reason.startswith(("controller:", "election of")) and ctl.leader is not None:
                grew = len(new) > len(old)
                out.append(observation("isr_expand" if grew else "isr_shrink", ctl.leader, old=old, new=new))
                out.append(observation("isr_updated", ctl.leader, isr=new))
        elif kind == "alter_isr_sent":
            leader, new = event[1], event[3]
            old = before.isrs[after.by_id[leader].index]
            if len(new) < len(old):
                out.append(observation("isr_shrink", leader, old=old, new=new))
        elif kind == "isr_refused":
            out.append(observation("isr_refused", event[1]))
        elif kind == "refused":
            name = REFUSALS.get(event[3])
            if name == "not_leader":
                out.append(observation(name, event[1], leader=event[2]))
            elif name is not None:
                out.append(observation(name, event[1], leader=event[2], epoch=event[4]))
        elif kind == "leader":
            if event[2] is not None:
                out.append(observation("elected", None, leader=event[2], epoch=event[3], isr=ctl.isr))
            elif event[1] is not None:                # a leader lost and none to elect
                out.append(observation("offline", None))
        elif kind == "out_of_range" and event[1] not in halted:    # a broker that exits resets nothing
            out.append(observation("out_of_range", event[1], offset=event[2], leader_leo=event[3]))
        elif kind in ("out_of_range_start", "out_of_range_hw"):
            start = event[3] if kind == "out_of_range_start" else event[4]
            out.append(observation("reset_to_start", event[1], offset=event[2], start=start))
        elif kind == "truncate_fully":
            out.append(observation("truncate_fully", event[1], offset=event[3]))
        elif kind == "log_start":
            moved[event[1]] = event[3]
            out.append(observation("log_start", event[1], start=event[3], cause=CAUSES[event[4]]))
        elif kind == "fetcher_failed":
            out.append(observation("fetcher_failed", event[1], offset=event[2]))
        elif kind == "restart":
            out.append(observation("started", event[1]))
        elif kind == "replace_disk":
            out.append(observation("started", event[1]))
        elif kind == "stopped":
            out.append(observation("stopped", event[1]))
    for r, (role, leader, epoch), entries in zip(after.replicas, before.roles, before.entries, strict=True):
        if not r.online:
            continue
        if r.role == LEADER and (role != LEADER or epoch != r.leader_epoch):
            out.append(observation("leader", r.id, epoch=r.leader_epoch, leo=r.leo, hw=r.hw, isr=r.isr))
        elif (r.role == FOLLOWER and r.leader_id is not None
              and (role != FOLLOWER or epoch != r.leader_epoch or leader != r.leader_id)):
            out.append(observation("follower", r.id, leader=r.leader_id, epoch=r.leader_epoch, leo=r.leo, hw=r.hw))
        cache = r.log.cache.key()
        if cache is not entries and cache != entries:
            for entry_epoch, start in cache:
                if (entry_epoch, start) not in entries and moved.get(r.id) != start:
                    out.append(observation("epoch_entry", r.id, epoch=entry_epoch, offset=start))
    return out
