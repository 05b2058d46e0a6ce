"""The log messages hwlib reads and writes: each one's text, level, logger and releases, from Kafka's logging calls.

A ``Format`` is one message as one range of releases writes it: the log ident Kafka's logger
puts before it (``ident``, optional when read: people paste messages without it), its text (the
call's own words, ``{field}`` for each value - ``template.Template``), level, logger (as log4j's
``%c`` prints it), the first and last release whose code has that exact text, where it was read,
and the observation kind it carries (``observations.KINDS``; None: the line is recognised but
states nothing the model has - ``informational``). The same table recognises a pasted message
(``Format.find``: the text anywhere in it, the ident before it where present, the longest match
preferred) and renders the model's observations as a release's lines (``Format.render``: the log
writer's test material). A text too short to say anything alone (``MIN_TEXT`` literal
characters: "started", "shut down completed") is read only with its ident.

Fields: ``tp`` a partition (``t-0`` or ``[t,0]``, either form anywhere; ``tpb`` and ``log`` the
same where Kafka printed the old form or a log's directory name); ``topic`` a topic alone;
``dir`` a log directory; ``writer`` the broker that wrote the line; ``fetcher`` a fetcher
thread's id; offsets and epochs by their observation names (``offset``, ``leo``, ``hw``,
``leader_leo``, ``epoch``; ``hw_meta`` a LogOffsetMetadata holding the HW); ``leader`` a broker
id; ``prev_epoch``, ``prev_offset``, ``entries``, ``count`` and ``rest`` are read past. Release
ranges are inclusive and name Apache Kafka tags (``release_key``): a patch release can change a
message (1.0.2, 2.0.1, 3.3.2 did).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..engine.releases import RELEASES
from .inventory import DISPOSITIONS, Call, calls
from .template import Found, Template

Version = tuple[int, ...]

#: fields that name a broker
BROKER_FIELDS = ("writer", "leader", "fetcher")
#: fields that hold a set of brokers, and how a line separates them
BROKER_SETS = {"old": ",", "new": ",", "isr": ",", "isr_list": ", ", "isr_states": ","}
#: fields that name the partition
PARTITION_FIELDS = ("tp", "tpb", "log", "topic")
#: a text with fewer literal characters than this is read only with its ident
MIN_TEXT = 20


def version(text: str) -> Version:
    return tuple(int(p) for p in text.split("."))


@dataclass(frozen=True)
class Format:
    """One message of one range of releases (see the module docstring)."""

    id: str
    kind: str | None
    first: str
    last: str
    level: str
    logger: str
    text: str
    read_at: str
    #: the log ident before the text ("": none)
    ident: str = ""
    #: whether the log writer renders the kind with it (False: a line Kafka writes only in a
    #: case the observation does not say, e.g. a truncation below the HW)
    written: bool = True
    #: what Kafka did that hwlib's model does not have, when the line says it did ("": nothing;
    #: ``recognise.outside_reason`` decides per line where the fields say whether it did)
    outside: str = ""
    #: a format read from the inventory (``inventory``): its values are any text, found by its words
    generic: bool = False
    #: why a line of it says nothing the model uses (an informational format read from the inventory)
    note: str = ""

    @property
    def template(self) -> str:
        """The whole message as Kafka prints it: the ident, then the text."""
        return self.ident + self.text

    @functools.cached_property
    def body(self) -> Template:
        return Template(self.text, self.generic)

    @functools.cached_property
    def prefix(self) -> Template | None:
        return Template(self.ident, self.generic) if self.ident else None

    @functools.cached_property
    def _ident_at_end(self) -> re.Pattern[str] | None:
        if self.prefix is None:
            return None
        return re.compile(self.prefix._regex(len(self.prefix.pieces)) + r"\s*\Z")

    @property
    def mode(self) -> str | None:
        """The cluster mode only whose brokers write it: ``zookeeper`` (the ZooKeeper controller's,
        ``KafkaServer``'s), ``kraft`` (the KRaft controller's, ``BrokerServer``'s and
        ``KafkaRaftServer``'s), None for both."""
        if self.logger in KRAFT_ONLY:
            return "kraft"
        if self.logger in ZOOKEEPER_ONLY or self.ident == CONTROLLER_SC:
            return "zookeeper"
        return None

    @property
    def by_ident(self) -> bool:
        """Whether a line of it is told by its ident alone, its text saying too little (an
        inventoried ``{msg}``): then a record naming another logger is not one of its lines."""
        return self.generic and self.prefix is not None and self.body.literal < GENERIC_LITERAL

    @property
    def needs_ident(self) -> bool:
        """Whether the text alone is too short to recognise (``MIN_TEXT``)."""
        return self.body.literal < MIN_TEXT

    @property
    def releases(self) -> tuple[Version, Version]:
        return version(self.first), version(self.last)

    def find(self, message: str, cut: bool = False) -> Found | None:
        """This message anywhere in ``message``: the text (or, ``cut``, its first pieces ending
        the message), with the ident's fields where the ident stands right before it. A short
        text needs its ident; with no ident, a short text must be the whole message."""
        if self.by_ident and self.body.literal == 0:       # a value alone: the rest after the ident
            return None if cut else self._after_ident(message)
        found = self.body.search(message) if not cut else self.body.search_cut(message)
        if found is None:
            return None
        ident = self._ident_at_end.search(message, 0, found.start) if self._ident_at_end is not None else None
        if ident is None and self.needs_ident and (self.ident or message.strip() != message[found.start:found.end]):
            return None
        if ident is None:
            return found
        groups = ident.groupdict()
        named = self.prefix.expressions(groups) if self.generic else groups     # type: ignore[union-attr]
        fields = {**{k: v for k, v in named.items() if v is not None}, **found.fields}
        return Found(fields, ident.start(), found.end, found.literal + self.prefix.literal,  # type: ignore[union-attr]
                     found.cut)

    @functools.cached_property
    def _ident_anywhere(self) -> re.Pattern[str]:
        assert self.prefix is not None
        return re.compile(self.prefix._regex(len(self.prefix.pieces)))

    def _after_ident(self, message: str) -> Found | None:
        """A message that is a value alone: the ident, then any text (the value)."""
        ident = self._ident_anywhere.search(message)
        if ident is None or not message[ident.end():].strip():
            return None
        value = self.body.search(message[ident.end():])
        if value is None:
            return None
        named = self.prefix.expressions(ident.groupdict())          # type: ignore[union-attr]
        fields = {**{k: v for k, v in named.items() if v is not None}, **value.fields}
        return Found(fields, ident.start(), len(message), self.prefix.literal)  # type: ignore[union-attr]

    def parse(self, message: str) -> dict[str, str] | None:
        """The fields of this message found in ``message`` (None: it is not there)."""
        found = self.find(message)
        return None if found is None else found.fields

    def render(self, **fields: object) -> str:
        return self.template.format(**fields)

    def fields(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(Template(self.template).fields()))


@dataclass(frozen=True)
class Releases:
    """A set of releases as inclusive ranges (sorted, disjoint): those whose code writes a text."""

    ranges: tuple[tuple[Version, Version], ...]

    @classmethod
    def of(cls, ranges: object) -> Releases:
        merged: list[tuple[Version, Version]] = []
        for low, high in sorted(ranges):                # type: ignore[call-overload]
            if merged and _touch(merged[-1][1], low):
                merged[-1] = (merged[-1][0], max(merged[-1][1], high))
            else:
                merged.append((low, high))
        return cls(tuple(merged))

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def __contains__(self, release: object) -> bool:
        return any(low <= release <= high for low, high in self.ranges)     # type: ignore[operator]

    def __and__(self, other: Releases) -> Releases:
        out = []
        for low, high in self.ranges:
            for other_low, other_high in other.ranges:
                start, end = max(low, other_low), min(high, other_high)
                if start <= end:
                    out.append((start, end))
        return Releases.of(out)

    @property
    def span(self) -> tuple[Version, Version] | None:
        """The first and last release (None: none)."""
        return (self.ranges[0][0], self.ranges[-1][1]) if self.ranges else None

    def words(self) -> str:
        """``0.10.2.0 to 0.10.2.2`` (and more ranges, ``and``-joined)."""
        return " and ".join(f"{_name(low)} to {_name(high)}" if low != high else _name(low)
                            for low, high in self.ranges)


def _touch(high: Version, low: Version) -> bool:
    """Whether a range ending at ``high`` and one starting at ``low`` leave no release between them."""
    return low <= high or not any(high < known < low for known in KNOWN)


#: every Apache Kafka release hwlib knows (its release table's patch releases)
KNOWN: tuple[Version, ...] = tuple(sorted({version(p if p.count(".") > 1 or p.startswith("0") else p + ".0")
                                           for row in RELEASES for p in row.patches}))


def _name(release: Version) -> str:
    return "later" if release[0] >= 9 else ".".join(map(str, release))


#: every release (no constraint)
ALL = Releases((((0,), (99,)),))


def partition_of(fields: dict[str, str]) -> str | None:
    """The partition a line names, as ``topic-N`` (either of Kafka's forms read; a redacted
    name kept as written); a topic alone as ``topic`` (None: none)."""
    for name in ("tp", "log", "tpb"):
        if fields.get(name):
            return normal_partition(fields[name])
    if fields.get("seg_path"):                          # a segment file: its directory is the partition's log
        folder = fields["seg_path"].rstrip("/").rsplit("/", 2)[-2:-1]
        return folder[0] if folder and folder[0] else None
    if fields.get("topic") and fields.get("pid"):
        return f"{fields['topic']}-{fields['pid']}"
    if fields.get("topic"):
        return fields["topic"]
    return None


def about(named: str, partition: str) -> bool:
    """Whether a line naming ``named`` (a partition, or a topic alone) is about ``partition``."""
    named, partition = normal_partition(named), normal_partition(partition)
    return named == partition or named == partition.rsplit("-", 1)[0]


def normal_partition(text: str) -> str:
    """``[topic,0]`` as ``topic-0``; ``topic-0`` (or anything else) as it is."""
    if text.startswith("[") and text.endswith("]") and "," in text:
        topic, number = text[1:-1].rsplit(",", 1)
        return f"{topic}-{number.strip()}"
    return text


def offset_metadata(offset: int, release: Version) -> str:
    """A LogOffsetMetadata as the release's toString prints it (an unknown segment: [0:0] here):
    ``(offset=N segment=[B:P])`` 2.0 - 3.4 (core LogOffsetMetadata.scala), ``(offset=Nsegment=[B:P])``
    3.5 (the Java class, storage LogOffsetMetadata.java), ``(offset=N, segment=[B:P])`` from 3.6."""
    if release >= (3, 6, 0):
        return f"(offset={offset}, segment=[0:0])"
    if release >= (3, 5, 0):
        return f"(offset={offset}segment=[0:0])"
    return f"(offset={offset} segment=[0:0])"


#: loggers only a KRaft cluster's processes write with, and only a ZooKeeper-mode cluster's
KRAFT_ONLY = ("kafka.server.BrokerServer", "kafka.server.KafkaRaftServer",
              "org.apache.kafka.controller.ReplicationControlManager")
ZOOKEEPER_ONLY = ("kafka.server.KafkaServer", "kafka.controller.KafkaController")

#: why a segment file's deletion says nothing the model uses
SEGMENT_DELETED = ("a segment's file deleted: the line before it says why (retention, a truncation, a deleted topic); "
                   "files are not in the model")

# ------------------------------------------------------------------------------ idents
#: the fetcher thread's prefix: 0.9.0.0 - 0.10.2.2, 0.11.0.x, from 1.0.0
FETCHER_OLD = "[ReplicaFetcherThread-{fetcher}-{leader}], "
FETCHER_011 = "[ReplicaFetcherThread-{fetcher}-{leader}]: "
FETCHER = "[ReplicaFetcher replicaId={writer}, leaderId={leader}, fetcherId={fetcher}] "
RFT = "kafka.server.ReplicaFetcherThread"
LOG_IDENT = "[Log partition={tp}, dir={dir}] "
UNIFIED_IDENT = "[UnifiedLog partition={tp}, dir={dir}] "
UNIFIED_JAVA = "org.apache.kafka.storage.internals.log.UnifiedLog"
PARTITION_OLD = "Partition {tpb} on broker {writer}: "
PARTITION = "[Partition {tp} broker={writer}] "
BROKER_SC = "[Broker id={writer}] "
CONTROLLER_SC = "[Controller id={controller} epoch={controller_epoch}] "
KRAFT_OLD = "[Controller {controller}] "
KRAFT_IDENT = "[QuorumController id={controller}] "
CONTROLLER_OLD = "[Controller {controller}]: "
CONTROLLER_ID = "[Controller id={controller}] "
SELECTOR = "[OfflinePartitionLeaderSelector]: "
#: every ident a table row's template may start with (``_f`` splits it off), longest first
IDENTS = sorted((FETCHER_OLD, FETCHER_011, FETCHER, LOG_IDENT, UNIFIED_IDENT, PARTITION_OLD, PARTITION, BROKER_SC,
                 CONTROLLER_SC, KRAFT_OLD, KRAFT_IDENT, CONTROLLER_OLD, CONTROLLER_ID, SELECTOR,
                 "[Kafka Server {writer}], ", "[KafkaServer id={writer}] ",
                 "[BrokerServer id={writer}] ", "[KafkaRaftServer nodeId={writer}] ", "[LeaderEpochCache {tp}] ",
                 "{ctl}"), key=len, reverse=True)


def _fetcher(first: str, last: str) -> list[tuple[str, str, str]]:
    """The fetcher prefix in each sub-range of ``first`` .. ``last``."""
    spans = (("0.9.0.0", "0.10.2.2", FETCHER_OLD), ("0.11.0.0", "0.11.0.3", FETCHER_011), ("1.0.0", "9.9.9", FETCHER))
    out = []
    for lo, hi, ident in spans:
        start, end = max(version(lo), version(first)), min(version(hi), version(last))
        if start <= end:
            out.append((".".join(map(str, start)), ".".join(map(str, end)), ident))
    return out


def _f(id: str, kind: str | None, first: str, last: str, level: str, logger: str, template: str,
       read_at: str, written: bool = True, outside: str = "", note: str = "") -> Format:
    """A row; a template that starts with one of ``IDENTS`` has it split off as the ident."""
    ident = next((i for i in IDENTS if template.startswith(i)), "")
    return Format(id, kind, first, last, level, logger, template[len(ident):], read_at, ident, written, outside,
                  note=note)


def _fetcher_rows(id: str, kind: str | None, first: str, last: str, level: str, text: str,
                  read_at: str, outside: str = "") -> list[Format]:
    return [_f(id, kind, lo, hi, level, RFT, ident + text, read_at, outside=outside)
            for lo, hi, ident in _fetcher(first, last)]


# -------------------------------------------------------------------- the follower's side
# Read at each tag from core/src/main/scala/kafka/{log/Log,log/UnifiedLog,server/ReplicaFetcherThread,
# server/AbstractFetcherThread,server/epoch/LeaderEpochFileCache}.scala
FOLLOWER: list[Format] = [
    # Log.truncateTo: 0.9 - 0.10.2 print it before any check (also for a target at or past the
    # log end), from 0.11 only when records are dropped
    _f("log_truncating", "truncate_to", "0.9.0.0", "0.10.2.2", "INFO", "kafka.log.Log",
       "Truncating log {log} to offset {offset}.", "0.9.0.0 Log.truncateTo"),
    _f("log_truncating", "truncate", "0.11.0.0", "1.0.1", "INFO", "kafka.log.Log",
       "Truncating log {log} to offset {offset}.", "0.11.0.0 Log.truncateTo"),
    _f("log_truncating", "truncate", "1.0.2", "3.0.2", "INFO", "kafka.log.Log",
       LOG_IDENT + "Truncating to offset {offset}", "1.0.2 Log.truncateTo"),
    _f("log_truncating", "truncate", "3.1.0", "4.0.0", "INFO", "kafka.log.UnifiedLog",
       UNIFIED_IDENT + "Truncating to offset {offset}", "3.1.0 UnifiedLog.truncateTo"),
    # 4.1: UnifiedLog is Java, in the storage module (apache/kafka#19030): the same text, another logger
    _f("log_truncating", "truncate", "4.1.0", "9.9.9", "INFO", UNIFIED_JAVA,
       UNIFIED_IDENT + "Truncating to offset {offset}", "4.1.0 UnifiedLog.truncateTo (storage, Java)"),
    # the log start offset (Log.maybeIncrementLogStartOffset, from 0.11.0.1; 0.11.0.0 logs nothing):
    # retention, DeleteRecords, or the leader's start in a fetch response
    _f("log_start_moved", "log_start", "0.11.0.1", "1.0.1", "INFO", "kafka.log.Log",
       "Incrementing log start offset of partition {tp} to {start} in dir {dir}",
       "0.11.0.1 Log.maybeIncrementLogStartOffset"),
    _f("log_start_moved", "log_start", "1.0.2", "2.5.1", "INFO", "kafka.log.Log",
       LOG_IDENT + "Incrementing log start offset to {start}", "1.0.2 Log.maybeIncrementLogStartOffset"),
    _f("log_start_moved", "log_start", "2.6.0", "3.0.2", "INFO", "kafka.log.Log",
       LOG_IDENT + "Incremented log start offset to {start} due to {cause}",
       "2.6.0 Log.maybeIncrementLogStartOffset (the cause: LogStartOffsetIncrementReason's words)"),
    _f("log_start_moved", "log_start", "3.1.0", "4.0.0", "INFO", "kafka.log.UnifiedLog",
       UNIFIED_IDENT + "Incremented log start offset to {start} due to {cause}",
       "3.1.0 UnifiedLog.maybeIncrementLogStartOffset"),
    _f("log_start_moved", "log_start", "4.1.0", "9.9.9", "INFO", UNIFIED_JAVA,
       UNIFIED_IDENT + "Incremented log start offset to {start} due to {cause}",
       "4.1.0 UnifiedLog.maybeIncrementLogStartOffset (storage, Java)"),
    # Log.truncateFullyAndStartAt (DEBUG): the log emptied and restarted at an offset
    _f("log_truncate_fully", "truncate_fully", "0.9.0.0", "0.10.2.2", "DEBUG", "kafka.log.Log",
       "Truncate and start log '{log}' to {offset}", "0.9.0.0 Log.truncateFullyAndStartAt"),
    _f("log_truncate_fully", "truncate_fully", "0.11.0.0", "1.0.1", "DEBUG", "kafka.log.Log",
       "Truncate and start log '{log}' at offset {offset}", "0.11.0.0 Log.truncateFullyAndStartAt"),
    _f("log_truncate_fully", "truncate_fully", "1.0.2", "3.0.2", "DEBUG", "kafka.log.Log",
       LOG_IDENT + "Truncate and start at offset {offset}", "1.0.2 Log.truncateFullyAndStartAt"),
    _f("log_truncate_fully", "truncate_fully", "3.1.0", "3.5.2", "DEBUG", "kafka.log.UnifiedLog",
       UNIFIED_IDENT + "Truncate and start at offset {offset}", "3.1.0 UnifiedLog.truncateFullyAndStartAt"),
    _f("log_truncate_fully", "truncate_fully", "3.6.0", "4.0.0", "DEBUG", "kafka.log.UnifiedLog",
       UNIFIED_IDENT + "Truncate and start at offset {offset}, logStartOffset: {start}",
       "3.6.0 UnifiedLog.truncateFullyAndStartAt", written=False),
    _f("log_truncate_fully", "truncate_fully", "4.1.0", "9.9.9", "DEBUG", UNIFIED_JAVA,
       UNIFIED_IDENT + "Truncate and start at offset {offset}, logStartOffset: {start}",
       "4.1.0 UnifiedLog.truncateFullyAndStartAt (storage, Java)", written=False),
    _f("log_truncate_noop", "truncate_noop", "0.9.0.0", "1.0.1", "INFO", "kafka.log.Log",
       "Truncating {log} to {offset} has no effect as the largest offset in the log is {largest}.",
       "0.9.0.0 Log.truncateTo"),
    _f("log_truncate_noop", "truncate_noop", "1.0.2", "3.0.2", "INFO", "kafka.log.Log",
       LOG_IDENT + "Truncating to {offset} has no effect as the largest offset in the log is {largest}",
       "1.0.2 Log.truncateTo"),
    _f("log_truncate_noop", "truncate_noop", "3.1.0", "4.0.0", "INFO", "kafka.log.UnifiedLog",
       UNIFIED_IDENT + "Truncating to {offset} has no effect as the largest offset in the log is {largest}",
       "3.1.0 UnifiedLog.truncateTo"),
    _f("log_truncate_noop", "truncate_noop", "4.1.0", "9.9.9", "INFO", UNIFIED_JAVA,
       UNIFIED_IDENT + "Truncating to {offset} has no effect as the largest offset in the log is {largest}",
       "4.1.0 UnifiedLog.truncateTo (storage, Java)"),
    # the fatal "truncation not allowed" (ReplicaFetcherThread.handleOffsetOutOfRange), gone in 2.0.1 (KAFKA-7414)
    *_fetcher_rows("oor_fatal_exit", "halt", "0.9.0.0", "0.10.0.0", "FATAL",
                   "Halting because log truncation is not allowed for topic {topic}, Current leader {leader}'s "
                   "latest offset {leader_leo} is less than replica {writer}'s latest offset {leo}",
                   "0.9.0.0 ReplicaFetcherThread.handleOffsetOutOfRange"),
    *_fetcher_rows("oor_fatal_exit", "halt", "0.10.0.1", "0.10.0.1", "FATAL",
                   "Exiting because log truncation is not allowed for topic {topic}, Current leader {leader}'s "
                   "latest offset {leader_leo} is less than replica {writer}'s latest offset {leo}",
                   "0.10.0.1 ReplicaFetcherThread.handleOffsetOutOfRange"),
    *_fetcher_rows("oor_fatal_exit", "halt", "0.10.1.0", "0.10.2.2", "FATAL",
                   "Exiting because log truncation is not allowed for partition {tp}, Current leader {leader}'s "
                   "latest offset {leader_leo} is less than replica {writer}'s latest offset {leo}",
                   "0.10.1.0 ReplicaFetcherThread.handleOffsetOutOfRange"),
    *_fetcher_rows("oor_fatal_exit", "halt", "0.11.0.0", "0.11.0.3", "FATAL",
                   "Exiting because log truncation is not allowed for partition {tp}, current leader {leader}'s "
                   "latest offset {leader_leo} is less than replica {writer}'s latest offset {leo}",
                   "0.11.0.0 ReplicaFetcherThread.handleOffsetOutOfRange"),
    _f("oor_fatal_exit", "halt", "1.0.0", "1.0.2", "FATAL", RFT,
       FETCHER + "Exiting because log truncation is not allowed for partition {tp}, current leader's latest offset "
       "{leader_leo} is less than replica's latest offset {leo}", "1.0.0 ReplicaFetcherThread.handleOffsetOutOfRange"),
    _f("oor_fatal_exit", "halt", "1.1.0", "2.0.0", "ERROR", RFT,
       FETCHER + "Exiting because log truncation is not allowed for partition {tp}, current leader's latest offset "
       "{leader_leo} is less than replica's latest offset {leo}",
       "1.1.0 ReplicaFetcherThread.handleOffsetOutOfRange (fatal() logs at ERROR from 1.1.0)"),
    # out of range: the follower truncates to the leader's log end (unclean election, or 2.0.1+)
    *_fetcher_rows("oor_reset_to_leader_leo", "out_of_range", "0.9.0.0", "0.10.0.1", "WARN",
                   "Replica {writer} for partition {tpb} reset its fetch offset from {offset} to current leader "
                   "{leader}'s latest offset {leader_leo}", "0.9.0.0 ReplicaFetcherThread.handleOffsetOutOfRange"),
    *_fetcher_rows("oor_reset_to_leader_leo", "out_of_range", "0.10.1.0", "0.11.0.3", "WARN",
                   "Replica {writer} for partition {tp} reset its fetch offset from {offset} to current leader "
                   "{leader}'s latest offset {leader_leo}", "0.10.1.0 ReplicaFetcherThread.handleOffsetOutOfRange"),
    _f("oor_reset_to_leader_leo", "out_of_range", "1.0.0", "9.9.9", "WARN", RFT,
       FETCHER + "Reset fetch offset for partition {tp} from {offset} to current leader's latest offset {leader_leo}",
       "1.0.0 ReplicaFetcherThread.handleOffsetOutOfRange; 2.1.0 AbstractFetcherThread.fetchOffsetAndTruncate"),
    # the fetcher's truncation decisions
    _f("trunc_epoch_no_truncation_needed", "epoch_answer", "0.11.0.0", "0.11.0.3", "INFO", RFT,
       FETCHER_011 + "Based on follower's leader epoch, leader replied with an offset {offset} >= the follower's "
       "log end offset {leo} in {tp}. No truncation needed.", "0.11.0.0 ReplicaFetcherThread.maybeTruncate"),
    _f("trunc_epoch_no_truncation_needed", "epoch_answer", "1.0.0", "1.1.1", "INFO", RFT,
       FETCHER + "Based on follower's leader epoch, leader replied with an offset {offset} >= the follower's "
       "log end offset {leo} in {tp}. No truncation needed.", "1.0.0 ReplicaFetcherThread.maybeTruncate"),
    _f("trunc_to_local_hw", "truncate_to", "2.1.1", "3.0.2", "INFO", RFT,
       FETCHER + "Truncating partition {tp} to local high watermark {offset}",
       "2.1.1 AbstractFetcherThread.truncateToHighWatermark"),
    _f("trunc_to_local_hw", "truncate_to", "3.1.0", "9.9.9", "INFO", RFT,
       FETCHER + "Truncating partition {tp} with TruncationState(offset={offset}, completed=true) due to local high "
       "watermark {hw}", "3.1.0 AbstractFetcherThread.truncateToHighWatermark"),
    _f("trunc_due_to_leader_epoch", "truncate_to", "3.1.0", "9.9.9", "INFO", RFT,
       FETCHER + "Truncating partition {tp} with TruncationState(offset={offset}, completed=true) due to leader epoch "
       "and offset EpochEndOffset(errorCode=0, partition={count}, leaderEpoch={epoch}, endOffset={leader_leo})",
       "3.1.0 AbstractFetcherThread.maybeTruncateToEpochEndOffsets", written=False),
    _f("trunc_below_hw", "truncate_to", "2.0.0", "9.9.9", "WARN", RFT,
       FETCHER + "Truncating {tp} to offset {offset} below high watermark {hw}",
       "2.0.0 ReplicaFetcherThread.maybeTruncate; 2.4.0 ReplicaFetcherThread.truncate", written=False),
    # a partition the fetcher gives up on (2.3+, KAFKA-8346: markPartitionFailed)
    _f("fetcher_failed", "fetcher_failed", "2.3.0", "9.9.9", "ERROR", RFT,
       FETCHER + "Unexpected error occurred while processing data for partition {tp} at offset {offset}",
       "2.3.0 AbstractFetcherThread.processFetchRequest (markPartitionFailed)"),
    # refused fetches (2.1+, KIP-320)
    _f("fetch_fenced_older_epoch", "fenced", "2.1.0", "9.9.9", "INFO", RFT,
       FETCHER + "Partition {tp} has an older epoch ({epoch}) than the current leader. Will await the new "
       "LeaderAndIsr state before resuming fetching.", "2.1.0 AbstractFetcherThread.onPartitionFenced"),
    _f("fetch_not_leader", "not_leader", "1.1.0", "2.0.1", "INFO", RFT,
       FETCHER + "Remote broker is not the leader for partition {tp}, which could indicate that the partition is "
       "being moved", "1.1.0 AbstractFetcherThread.processFetchRequest"),
    _f("fetch_not_leader", "not_leader", "2.1.0", "9.9.9", "DEBUG", RFT,
       FETCHER + "Remote broker is not the leader for partition {tp}, which could indicate that the partition is "
       "being moved", "2.1.0 AbstractFetcherThread.processFetchRequest"),
    _f("fetch_unknown_leader_epoch", "unknown_epoch", "2.1.0", "9.9.9", "DEBUG", RFT,
       FETCHER + "Remote broker has a smaller leader epoch for partition {tp} than this replica's current leader "
       "epoch of {epoch}.", "2.1.0 AbstractFetcherThread.processFetchRequest"),
    # the follower's HW (TRACE)
    *_fetcher_rows("follower_hw_set", "hw", "0.9.0.0", "0.10.1.1", "TRACE",
                   "Follower {writer} set replica high watermark for partition {tpb} to {hw}",
                   "0.9.0.0 ReplicaFetcherThread.processPartitionData"),
    *_fetcher_rows("follower_hw_set", "hw", "0.10.2.0", "0.11.0.3", "TRACE",
                   "Follower {writer} set replica high watermark for partition {tp} to {hw}",
                   "0.10.2.0 ReplicaFetcherThread.processPartitionData"),
    _f("follower_hw_set", "hw", "1.0.0", "3.3.1", "TRACE", RFT,
       FETCHER + "Follower set replica high watermark for partition {tp} to {hw}",
       "1.0.0 ReplicaFetcherThread.processPartitionData"),
    _f("follower_hw_set", "hw", "3.3.2", "9.9.9", "TRACE", RFT,
       FETCHER + "Follower received high watermark {leader_hw} from the leader and updated replica high watermark to "
       "{hw} for partition {tp}", "3.3.2 ReplicaFetcherThread.processPartitionData (KAFKA-14334)"),
    # the leader-epoch cache: INFO up to 2.0.0, DEBUG from 2.0.1 (KAFKA-7415)
    _f("lec_updated", "epoch_entry", "0.11.0.0", "1.0.2", "INFO", "kafka.server.epoch.LeaderEpochFileCache",
       "Updated PartitionLeaderEpoch. New: {{epoch:{epoch}, offset:{offset}}}, Current: {{epoch:{prev_epoch}, "
       "offset{prev_offset}}} for Partition: {tp}. Cache now contains {entries} entries.",
       "0.11.0.0 LeaderEpochFileCache.assign (\"offset\" without its colon until 1.1.0)"),
    _f("lec_updated", "epoch_entry", "1.1.0", "2.0.0", "INFO", "kafka.server.epoch.LeaderEpochFileCache",
       "Updated PartitionLeaderEpoch. New: {{epoch:{epoch}, offset:{offset}}}, Current: {{epoch:{prev_epoch}, "
       "offset:{prev_offset}}} for Partition: {tp}. Cache now contains {entries} entries.",
       "1.1.0 LeaderEpochFileCache.assign"),
    _f("lec_appended", "epoch_entry", "2.0.1", "3.4.1", "DEBUG", "kafka.server.epoch.LeaderEpochFileCache",
       "[LeaderEpochCache {tp}] Appended new epoch entry EpochEntry(epoch={epoch}, startOffset={offset}). Cache now "
       "contains {entries} entries.", "2.0.1 LeaderEpochFileCache.truncateAndAppend; 2.7.0 assign"),
    _f("lec_appended", "epoch_entry", "3.5.0", "9.9.9", "DEBUG",
       "org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache",
       "[LeaderEpochCache {tp}] Appended new epoch entry EpochEntry(epoch={epoch}, startOffset={offset}). Cache now "
       "contains {entries} entries.", "3.5.0 LeaderEpochFileCache.assign (Java)"),
]

# ------------------------------------------------------ the leader's side and the controller
# Read at each tag from core/src/main/scala/kafka/{cluster/Partition,controller/PartitionStateMachine,
# server/KafkaServer,server/BrokerServer}.scala
PART = "kafka.cluster.Partition"
SCL = "state.change.logger"
LEADER: list[Format] = [
    # Partition.makeLeader: "from offset" is the new leader's log end (its epoch's start offset)
    _f("partition_leader_starts", "leader", "0.11.0.0", "0.11.0.3", "INFO", PART,
       PARTITION_OLD + "{tp} starts at Leader Epoch {epoch} from offset {leo}. Previous Leader Epoch was: {prev_epoch}",
       "0.11.0.0 Partition.makeLeader"),
    _f("partition_leader_starts", "leader", "1.0.0", "2.4.0", "INFO", PART,
       PARTITION + "{tp} starts at Leader Epoch {epoch} from offset {leo}. Previous Leader Epoch was: {prev_epoch}",
       "1.0.0 Partition.makeLeader"),
    _f("partition_leader_starts", "leader", "2.4.1", "2.5.1", "INFO", PART,
       PARTITION + "{tp} starts at leader epoch {epoch} from offset {leo} with high watermark {hw}. Previous leader "
       "epoch was {prev_epoch}.", "2.4.1 Partition.makeLeader"),
    _f("partition_leader_starts", "leader", "2.6.0", "3.2.3", "INFO", SCL,
       BROKER_SC + "Leader {tp} starts at leader epoch {epoch} from offset {leo} with high watermark {hw} ISR [{isr}] "
       "addingReplicas [{adding}] removingReplicas [{removing}]. Previous leader epoch was {prev_epoch}.",
       "2.6.0 Partition.makeLeader (state-change.log)"),
    _f("partition_leader_starts", "leader", "3.3.0", "3.4.1", "INFO", SCL,
       BROKER_SC + "Leader {tp} with topic id {topic_id} starts at leader epoch {epoch} from offset {leo} with "
       "partition epoch {partition_epoch}, high watermark {hw}, ISR [{isr}], adding replicas [{adding}] and removing "
       "replicas [{removing}]. Previous leader epoch was {prev_epoch}.", "3.3.0 Partition.makeLeader"),
    _f("partition_leader_starts", "leader", "3.5.0", "3.5.2", "INFO", SCL,
       BROKER_SC + "Leader {tp} with topic id {topic_id} starts at leader epoch {epoch} from offset {leo} with "
       "partition epoch {partition_epoch}, high watermark {hw}, ISR [{isr}], adding replicas [{adding}] and removing "
       "replicas [{removing}] {under}. Previous leader epoch was {prev_epoch}.", "3.5.0 Partition.makeLeader"),
    _f("partition_leader_starts", "leader", "3.6.0", "9.9.9", "INFO", SCL,
       BROKER_SC + "Leader {tp} with topic id {topic_id} starts at leader epoch {epoch} from offset {leo} with "
       "partition epoch {partition_epoch}, high watermark {hw}, ISR [{isr}], adding replicas [{adding}] and removing "
       "replicas [{removing}] {under}. Previous leader {prev_leader} and previous leader epoch was {prev_epoch}.",
       "3.6.0 Partition.makeLeader"),
    # Partition.makeFollower (state-change.log from 2.6.0): "from offset" is the follower's own log end
    _f("partition_follower_starts", "follower", "2.6.0", "3.2.3", "INFO", SCL,
       BROKER_SC + "Follower {tp} starts at leader epoch {epoch} from offset {leo} with high watermark {hw}. Previous "
       "leader epoch was {prev_epoch}.", "2.6.0 Partition.makeFollower"),
    _f("partition_follower_starts", "follower", "3.3.0", "3.5.2", "INFO", SCL,
       BROKER_SC + "Follower {tp} starts at leader epoch {epoch} from offset {leo} with partition epoch "
       "{partition_epoch} and high watermark {hw}. Current leader is {leader}. Previous leader epoch was {prev_epoch}.",
       "3.3.0 Partition.makeFollower"),
    _f("partition_follower_starts", "follower", "3.6.0", "9.9.9", "INFO", SCL,
       BROKER_SC + "Follower {tp} starts at leader epoch {epoch} from offset {leo} with partition epoch "
       "{partition_epoch} and high watermark {hw}. Current leader is {leader}. Previous leader {prev_leader} and "
       "previous leader epoch was {prev_epoch}.", "3.6.0 Partition.makeFollower"),
    # the leader's ISR changes (Partition.maybeShrinkIsr / maybeExpandIsr); from 2.7 a shrink is
    # a proposal (AlterIsr), and from 2.8 an expansion shows only as "ISR updated to"
    _f("partition_shrink_isr", "isr_shrink", "0.9.0.0", "0.10.2.2", "INFO", PART,
       PARTITION_OLD + "Shrinking ISR for partition {tpb} from {old} to {new}", "0.9.0.0 Partition.maybeShrinkIsr"),
    _f("partition_shrink_isr", "isr_shrink", "0.11.0.0", "0.11.0.3", "INFO", PART,
       PARTITION_OLD + "Shrinking ISR from {old} to {new}", "0.11.0.0 Partition.maybeShrinkIsr"),
    _f("partition_shrink_isr", "isr_shrink", "1.0.0", "2.1.1", "INFO", PART,
       PARTITION + "Shrinking ISR from {old} to {new}", "1.0.0 Partition.maybeShrinkIsr"),
    _f("partition_shrink_isr", "isr_shrink", "2.2.0", "9.9.9", "INFO", PART,
       PARTITION + "Shrinking ISR from {old} to {new}. Leader: (highWatermark: {hw}, endOffset: {leo}). Out of sync "
       "replicas: {rest}.", "2.2.0 Partition.maybeShrinkIsr (2.7+: the AlterIsr proposal)"),
    _f("partition_expand_isr", "isr_expand", "0.9.0.0", "0.10.2.2", "INFO", PART,
       PARTITION_OLD + "Expanding ISR for partition {tpb} from {old} to {new}", "0.9.0.0 Partition.maybeExpandIsr"),
    _f("partition_expand_isr", "isr_expand", "0.11.0.0", "0.11.0.3", "INFO", PART,
       PARTITION_OLD + "Expanding ISR from {old} to {new}", "0.11.0.0 Partition.maybeExpandIsr"),
    _f("partition_expand_isr", "isr_expand", "1.0.0", "2.7.2", "INFO", PART,
       PARTITION + "Expanding ISR from {old} to {new}", "1.0.0 Partition.maybeExpandIsr; 2.7 expandIsrWithZk"),
    _f("partition_isr_updated", "isr_updated", "2.7.0", "2.7.2", "INFO", PART,
       PARTITION + "ISR updated from AlterIsr to {isr} and version updated to [{partition_epoch}]",
       "2.7.0 Partition.handleAlterIsrResponse"),
    # the ZooKeeper write's success (TRACE with Replica objects before 2.4.0; 2.7 with an IBP below
    # 2.7-IV2 too - Partition.maybeUpdateIsrAndVersionWithZk)
    _f("partition_isr_updated_zk", "isr_updated", "2.4.0", "2.7.2", "INFO", PART,
       PARTITION + "ISR updated to [{isr}] and zkVersion updated to [{partition_epoch}]",
       "2.4.0 Partition.maybeUpdateIsrAndVersion; 2.7.0 maybeUpdateIsrAndVersionWithZk"),
    _f("partition_isr_updated", "isr_updated", "2.8.0", "3.0.2", "INFO", PART,
       PARTITION + "ISR updated to {isr} and version updated to [{partition_epoch}]",
       "2.8.0 Partition.handleAlterIsrResponse"),
    _f("partition_isr_updated", "isr_updated", "3.1.0", "3.4.1", "INFO", PART,
       PARTITION + "ISR updated to {isr} and version updated to {partition_epoch}",
       "3.1.0 Partition.handleAlterIsrUpdate; 3.3.0 handleAlterPartitionUpdate"),
    _f("partition_isr_updated", "isr_updated", "3.5.0", "9.9.9", "INFO", PART,
       PARTITION + "ISR updated to {isr} {under} and version updated to {partition_epoch}",
       "3.5.0 Partition.handleAlterPartitionUpdate"),
    # the leader's HW (DEBUG; the offset printed as LogOffsetMetadata until 2.3)
    _f("partition_hw_updated", "leader_hw", "0.9.0.0", "0.10.2.2", "DEBUG", PART,
       PARTITION_OLD + "High watermark for partition {tpb} updated to {hw} [{segment}]",
       "0.9.0.0 Partition.maybeIncrementLeaderHW"),
    _f("partition_hw_updated", "leader_hw", "0.11.0.0", "0.11.0.3", "DEBUG", PART,
       PARTITION_OLD + "High watermark updated to {hw} [{segment}]", "0.11.0.0 Partition.maybeIncrementLeaderHW"),
    _f("partition_hw_updated", "leader_hw", "1.0.0", "1.1.1", "DEBUG", PART,
       PARTITION + "High watermark updated to {hw} [{segment}]", "1.0.0 Partition.maybeIncrementLeaderHW"),
    _f("partition_hw_updated", "leader_hw", "2.0.0", "2.3.1", "DEBUG", PART,
       PARTITION + "High watermark updated to {hw_meta}",
       "2.0.0 Partition.maybeIncrementLeaderHW; LogOffsetMetadata.toString \"(offset=N segment=[B:P])\""),
    # from 2.4 both sides are LogOffsetMetadata: "(offset=N segment=[B:P])" to 3.4, "(offset=Nsegment=[B:P])"
    # in 3.5 (the Java class's toString lost its space), "(offset=N, segment=[B:P])" from 3.6
    _f("partition_hw_updated", "leader_hw", "2.4.0", "9.9.9", "DEBUG", PART,
       PARTITION + "High watermark updated from {old_hw_meta} to {hw_meta}",
       "2.4.0 Partition.maybeIncrementLeaderHW; 3.5.0, 3.6.0 LogOffsetMetadata.toString (Java)"),
    # a zombie leader's ISR write refused (ZooKeeper's conditional update)
    _f("partition_cached_zkversion", "isr_refused", "0.9.0.0", "0.11.0.3", "INFO", PART,
       PARTITION_OLD + "Cached zkVersion [{partition_epoch}] not equal to that in zookeeper, skip updating ISR",
       "0.9.0.0 Partition.updateIsr"),
    _f("partition_cached_zkversion", "isr_refused", "1.0.0", "2.3.1", "INFO", PART,
       PARTITION + "Cached zkVersion [{partition_epoch}] not equal to that in zookeeper, skip updating ISR",
       "1.0.0 Partition.updateIsr"),
    _f("partition_cached_zkversion", "isr_refused", "2.4.0", "2.7.2", "INFO", PART,
       PARTITION + "Cached zkVersion {partition_epoch} not equal to that in zookeeper, skip updating ISR",
       "2.4.0 Partition.maybeUpdateIsrAndVersion"),
    # the controller's election (PartitionStateMachine; TRACE in state-change.log until 2.5, INFO from 2.6)
    _f("psm_changed_with_leader", "elected", "1.1.0", "2.5.1", "TRACE", SCL,
       "[Controller id={controller} epoch={controller_epoch}] Changed partition {tp} from {state} to {to_state} with "
       "state LeaderAndIsr(leader={leader}, leaderEpoch={epoch}, isr=List({isr_list}), zkVersion={partition_epoch})",
       "1.1.0 PartitionStateMachine.doHandleStateChanges"),
    _f("psm_changed_with_leader", "elected", "2.6.0", "3.1.2", "INFO", SCL,
       "[Controller id={controller} epoch={controller_epoch}] Changed partition {tp} from {state} to {to_state} with "
       "state LeaderAndIsr(leader={leader}, leaderEpoch={epoch}, isr=List({isr_list}), zkVersion={partition_epoch})",
       "2.6.0 PartitionStateMachine.doHandleStateChanges"),
    _f("psm_changed_with_leader", "elected", "3.2.0", "3.2.3", "INFO", SCL,
       "[Controller id={controller} epoch={controller_epoch}] Changed partition {tp} from {state} to {to_state} with "
       "state LeaderAndIsr(leader={leader}, leaderEpoch={epoch}, isr=List({isr_list}), leaderRecoveryState={rest2}, "
       "zkVersion={partition_epoch})", "3.2.0 PartitionStateMachine.doHandleStateChanges"),
    _f("psm_changed_with_leader", "elected", "3.3.0", "3.4.1", "INFO", SCL,
       "[Controller id={controller} epoch={controller_epoch}] Changed partition {tp} from {state} to {to_state} with "
       "state LeaderAndIsr(leader={leader}, leaderEpoch={epoch}, isr=List({isr_list}), leaderRecoveryState={rest2}, "
       "partitionEpoch={partition_epoch})", "3.3.0 PartitionStateMachine.doHandleStateChanges"),
    # 3.5 (KIP-903): the ISR with each member's broker epoch, BrokerState as AlterPartitionRequestData's
    # generated toString prints it (LeaderAndIsr.toString; the ZooKeeper controller is gone in 4.0)
    _f("psm_changed_with_leader", "elected", "3.5.0", "3.9.1", "INFO", SCL,
       "[Controller id={controller} epoch={controller_epoch}] Changed partition {tp} from {state} to {to_state} with "
       "state LeaderAndIsr(leader={leader}, leaderEpoch={epoch}, isrWithBrokerEpoch=List({isr_states}), "
       "leaderRecoveryState={rest2}, partitionEpoch={partition_epoch})",
       "3.5.0 PartitionStateMachine.doHandleStateChanges; LeaderAndIsr.toString"),
    # the ZooKeeper controller's elections and ISR removals before 1.1, and from 2.6 its ISR removal
    # for a broker gone offline: LeaderAndIsr printed as JSON by Json.encode (0.9 - 1.0), a
    # LeaderIsrAndControllerEpoch from 2.6 (KafkaController.scala toString)
    _f("selector_elected", "elected", "0.9.0.0", "1.0.2", "INFO", "kafka.controller.OfflinePartitionLeaderSelector",
       SELECTOR + "Selected new leader and ISR {{\"leader\":{leader},\"leader_epoch\":{epoch},\"isr\":[{isr}]}} for "
       "offline partition {tpb}", "0.9.0.0 OfflinePartitionLeaderSelector.selectLeader; LeaderAndIsr.toString (Json)",
       written=False),
    *(_f("controller_isr_removed", "elected", first, last, "INFO", "kafka.controller.KafkaController",
         ident + "New leader and ISR for partition {tpb} is {{\"leader\":{leader},\"leader_epoch\":{epoch},"
         "\"isr\":[{isr}]}}", "0.9.0.0 KafkaController.removeReplicaFromIsr; LeaderAndIsr.toString (Json)",
         written=False)
      for first, last, ident in (("0.9.0.0", "0.11.0.3", CONTROLLER_OLD), ("1.0.0", "1.0.2", CONTROLLER_ID))),
    _f("rsm_isr_removed", "elected", "2.6.0", "3.9.1", "INFO", SCL,
       CONTROLLER_SC + "Partition {tp} state changed to (Leader:{leader},ISR:{isr},LeaderEpoch:{epoch},ControllerEpoch:"
       "{ctl_epoch}) after removing replica {replica} from the ISR as part of transition to OfflineReplica",
       "2.6.0 ZkReplicaStateMachine.doRemoveReplicasFromIsr; LeaderIsrAndControllerEpoch.toString", written=False),
    # the ZooKeeper controller found no leader to elect for an offline partition (it stays offline)
    _f("psm_failed_online", "offline", "1.1.0", "3.9.1", "ERROR", SCL,
       CONTROLLER_SC + "Controller {controller} epoch {controller_epoch} failed to change state for partition {tp} "
       "from OfflinePartition to OnlinePartition", "1.1.0 PartitionStateMachine.logFailedStateChange; 2.3.0 "
       "ZkPartitionStateMachine", written=False),
    # ... and the exception it keeps for the partition, logged with the line above (a stack trace's line)
    _f("psm_no_leader", "offline", "1.1.0", "3.9.1", "THROW", "StateChangeFailedException",
       "Failed to elect leader for partition {tp} under strategy {strategy}",
       "1.1.0 PartitionStateMachine.doElectLeaderForPartitions; 2.3.0 ZkPartitionStateMachine", written=False),
    # the broker process (KafkaServer - the ZooKeeper mode's, gone in 4.0 -, BrokerServer, KafkaRaftServer)
    _f("server_started", "started", "0.9.0.0", "0.11.0.3", "INFO", "kafka.server.KafkaServer",
       "[Kafka Server {writer}], started", "0.9.0.0 KafkaServer.startup"),
    _f("server_started", "started", "1.0.0", "3.9.1", "INFO", "kafka.server.KafkaServer",
       "[KafkaServer id={writer}] started", "1.0.0 KafkaServer.startup"),
    _f("server_started", "started", "2.8.0", "3.2.3", "INFO", "kafka.server.KafkaRaftServer",
       "Kafka Server started", "2.8.0 KafkaRaftServer.startup (no log ident before 3.3.0)"),
    _f("server_started", "started", "3.3.0", "9.9.9", "INFO", "kafka.server.KafkaRaftServer",
       "[KafkaRaftServer nodeId={writer}] Kafka Server started", "3.3.0 KafkaRaftServer.startup"),
    _f("server_shut_down", "stopped", "0.9.0.0", "0.11.0.3", "INFO", "kafka.server.KafkaServer",
       "[Kafka Server {writer}], shut down completed", "0.9.0.0 KafkaServer.shutdown"),
    _f("server_shut_down", "stopped", "1.0.0", "3.9.1", "INFO", "kafka.server.KafkaServer",
       "[KafkaServer id={writer}] shut down completed", "1.0.0 KafkaServer.shutdown"),
    _f("server_shut_down", "stopped", "2.8.0", "9.9.9", "INFO", "kafka.server.BrokerServer",
       "[BrokerServer id={writer}] shut down completed", "2.8.0 BrokerServer.shutdown"),
    # recognised, but nothing the model has: said as informational
    *(_f("segment_file_deleted", None, first, last, "INFO", logger, "Deleted {file_kind} {seg_path}.",
         f"{first} LogSegment.deleteIfExists", note=SEGMENT_DELETED)
      for first, last, logger in (("1.1.0", "3.6.2", "kafka.log.LogSegment"),
                                  ("3.7.0", "9.9.9", "org.apache.kafka.storage.internals.log.LogSegment"))),
    _f("server_starting", None, "0.9.0.0", "3.9.1", "INFO", "kafka.server.KafkaServer", "starting",
       "0.9.0.0 KafkaServer.startup (before its log ident is set)"),
    _f("server_shutting_down", None, "0.9.0.0", "0.11.0.3", "INFO", "kafka.server.KafkaServer",
       "[Kafka Server {writer}], shutting down", "0.9.0.0 KafkaServer.shutdown"),
    _f("server_shutting_down", None, "1.0.0", "3.9.1", "INFO", "kafka.server.KafkaServer",
       "[KafkaServer id={writer}] shutting down", "1.0.0 KafkaServer.shutdown"),
]

# ------------------------------------------------------------------ outside hwlib's model
# Lines that say Kafka did something hwlib's model does not have: the answer stops there
# (``outside-model``, exit 4). Read at each tag from core/src/main/scala/kafka/{server/
# ReplicaFetcherThread,server/AbstractFetcherThread,controller/KafkaController}.scala
#: a replica set that changes (hwlib's partition keeps the replicas it starts with)
REASSIGNED = ("a partition reassignment: the replica set changes, and hwlib models a partition whose replicas "
              "stay the ones it starts with")
#: a follower's out-of-range fetch that keeps its own log end (3.6+): the leader's log start rose
#: between the out-of-range answer and the follower's ListOffsets, yet stayed at or below the
#: follower's log end
START_OFFSET = ("a follower's out-of-range fetch resumed at its own log end: the leader's log start moved between "
                "the out-of-range answer and the offset lookup - a race inside one fetcher round, which hwlib's "
                "follower handles in one step")
OUTSIDE: list[Format] = [
    *_fetcher_rows("oor_reset_to_leader_start", "reset_to_start", "0.9.0.0", "0.10.0.1", "WARN",
                   "Replica {writer} for partition {tpb} reset its fetch offset from {offset} to current leader "
                   "{leader}'s start offset {start}", "0.9.0.0 ReplicaFetcherThread.handleOffsetOutOfRange"),
    *_fetcher_rows("oor_reset_to_leader_start", "reset_to_start", "0.10.1.0", "0.11.0.3", "WARN",
                   "Replica {writer} for partition {tp} reset its fetch offset from {offset} to current leader "
                   "{leader}'s start offset {start}", "0.10.1.0 ReplicaFetcherThread.handleOffsetOutOfRange"),
    _f("oor_reset_to_leader_start", "reset_to_start", "1.0.0", "3.5.2", "WARN", RFT,
       FETCHER + "Reset fetch offset for partition {tp} from {offset} to current leader's start offset {start}",
       "1.0.0 ReplicaFetcherThread.handleOffsetOutOfRange; 2.1.0 AbstractFetcherThread.fetchOffsetAndTruncate"),
    _f("oor_truncate_fully", "reset_to_start", "3.6.0", "9.9.9", "WARN", RFT,
       FETCHER + "Truncate fully and reset fetch offset for partition {tp} from {offset} to the current leader's "
       "start offset {start} because the local replica's end offset is smaller than the current leader's start "
       "offsets.", "3.6.0 AbstractFetcherThread.fetchOffsetAndTruncate"),
    _f("oor_keep_local_end", None, "3.6.0", "9.9.9", "INFO", RFT,
       FETCHER + "Reset fetch offset for partition {tp} from {offset} to the current local replica's end offset "
       "{start}", "3.6.0 AbstractFetcherThread.fetchOffsetAndTruncate", outside=START_OFFSET),
]

# --------------------------------------------------------------------- the KRaft controller
# Read at 3.0.0, 3.7.0 and trunk (October 2024) from metadata/src/main/java/org/apache/kafka/
# {metadata/PartitionRegistration,controller/ReplicationControlManager}.java: the controller logs a
# partition change at INFO only when it is unclean (its leader was not in the ISR before), else at
# DEBUG; the change is PartitionRegistration.diff - "name: before -> after" for each field that
# changed (``change_fields`` reads it). The prefix is "[Controller N] " until 3.4, then
# "[QuorumController id=N] ".
RCM = "org.apache.kafka.controller.ReplicationControlManager"
KRAFT: list[Format] = [
    *(_f(id, kind, first, last, level, RCM, ident + text, read_at, written=False, outside=outside)
      for first, last, ident in (("3.0.0", "3.4.1", KRAFT_OLD), ("3.5.0", "9.9.9", KRAFT_IDENT))
      for id, kind, level, text, read_at, outside in (
          ("kraft_unclean_change", "elected", "INFO",
           "UNCLEAN partition change for {tp} with topic ID {topic_id}: {diff}",
           "3.0.0 PartitionRegistration.maybeLogPartitionChange", ""),
          ("kraft_change", "elected", "DEBUG", "partition change for {tp} with topic ID {topic_id}: {diff}",
           "3.0.0 PartitionRegistration.maybeLogPartitionChange", ""),
          ("kraft_assignment_change", None, "INFO", "Replayed partition assignment change PartitionChangeRecord("
           "partitionId={pid}, {rest}) for topic {topic}",
           "3.0.0 ReplicationControlManager.replay(PartitionChangeRecord)", REASSIGNED))),
]

#: a KRaft partition change's fields (PartitionRegistration.diff): "name: before -> after"
CHANGE = re.compile(r"(?:^|, )([A-Za-z]{1,40}): (\[[0-9, ]{0,200}\]|-?\d{1,19}|[A-Za-z_]{1,40}) -> "
                    r"(\[[0-9, ]{0,200}\]|-?\d{1,19}|[A-Za-z_]{1,40})")
#: the changes that move the replica set (a reassignment)
MOVES = ("replicas", "addingReplicas", "removingReplicas")


def change_fields(diff: str) -> tuple[dict[str, str], list[str]]:
    """A KRaft partition change read as fields - ``leader`` and ``epoch`` (the new leader and
    leader epoch), ``isr`` (the new ISR) where they changed - and the changes that move the
    replica set."""
    found = {name: after for name, _, after in CHANGE.findall(diff)}
    fields = {}
    if "leader" in found:
        fields["leader"] = found["leader"]
    if "leaderEpoch" in found:
        fields["epoch"] = found["leaderEpoch"]
    if "isr" in found:
        fields["isr"] = ",".join(part.strip() for part in found["isr"].strip("[]").split(",") if part.strip())
    return fields, [f"{name}: {found[name]}" for name in MOVES if name in found]


#: every format, in the order they are tried
# ------------------------------------------------------------------ the rest of Kafka's calls
#: an inventoried message needs this many literal characters, in a piece of at least
#: ``GENERIC_PIECE``, to be recognised by its words alone (``{msg}`` or "Error: {e}" say nothing)
GENERIC_LITERAL = 12
GENERIC_PIECE = 10


def _telling(template: Template) -> bool:
    """Whether a template has enough literal text to tell its lines from others'."""
    return template.literal >= GENERIC_LITERAL and len(template.anchor) >= GENERIC_PIECE


def readable(call: Call) -> bool:
    """Whether hwlib recognises an inventoried call's lines: one of its own formats reads it, or
    it has enough literal text to be found by its words (``inventoried``) - in its message, or
    in its log ident where the message is a value alone (``[KRaftMigrationDriver id=N] {record}``:
    ``by_ident``)."""
    if call.format_id is not None:
        return True
    return call.disposition in DISPOSITIONS and (_telling(Template(call.template, generic=True)) or by_ident(call))


def by_ident(call: Call) -> bool:
    """Whether an inventoried call is found by its log ident, its message saying too little: its
    lines are told by the ident and, where the record names one, the logger (``Format.by_ident``)."""
    return bool(call.ident) and not _telling(Template(call.template, generic=True)) \
        and _telling(Template(call.ident, generic=True))


def inventoried() -> list[Format]:
    """A format for every call of the inventory that hwlib does not read with a format of its
    own - informational, outside the model or ignored (``inventory``) - each at the level log4j
    prints it, found by its words (``generic``); those with too little literal text to tell
    them from other lines are left out."""
    out = []
    for call in calls():
        if call.format_id is not None or not readable(call):
            continue
        name = call.cls.rsplit(".", 1)[-1]
        for level, first, last in call.printed():
            out.append(Format(f"kafka:{name}.{call.function}", None, ".".join(map(str, first)),
                              ".".join(map(str, last)), level, call.logger, call.template,
                              f"{call.first} {name}.{call.function}", call.ident, written=False,
                              outside=call.note if call.disposition == "outside-model" else "", generic=True,
                              note=("not about replication state: " if call.disposition == "ignored" else "")
                              + call.note))
    return out


#: hwlib's own formats: each observation's, and the lines outside the model it reads with care
OWN: list[Format] = FOLLOWER + LEADER + KRAFT + OUTSIDE
#: every format, in the order they are tried (hwlib's own first: on a tie of literal text they win)
FORMATS: list[Format] = OWN + inventoried()


def formats_for(release: Version) -> list[Format]:
    """hwlib's own formats a release writes."""
    return [f for f in OWN if f.releases[0] <= release <= f.releases[1]]
