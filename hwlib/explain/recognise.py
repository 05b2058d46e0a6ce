"""Recognising what a log record says: its format (``formats``), partition, writer and observation, or why it is none.

``recognise(record)`` looks for every format's text anywhere in the message (``Format.find``:
an ident, a timestamp, a level and a logger are optional - people paste messages without them),
keeps the longest match (ties: the format at the record's level, then at its logger), and
returns a ``Line``: the record, its status - ``recognised`` (an observation about one
partition), ``informational`` (a known message that states nothing the model has, an elision),
``outside-model`` (Kafka did something the model does not have: ``outside_reason``),
``unrecognised`` (no format matched; ``reason`` says what was wrong with the bytes, or which
known message it resembles and what did not fit) - the format, the partition it names
(``topic-N``; a topic alone for the oldest fatal exit), the broker that wrote it where the line
itself says (``replicaId=``, ``[Broker id=N]``, ``broker=N``, ``[KafkaServer id=N]``, ``on broker
N``), its observation in Kafka's values and the releases whose code writes that text at that
level. A record whose message ends inside a format's text (cut short) matches it, and says so;
a stack trace's exception messages are read too (an exception a format knows tells what the
record is about when its own message does not).

Lines are values: files and container names are attributed afterwards (``project``), each
answer keeps its own verdict per line (``answer.LineVerdict``).
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from .formats import BROKER_SETS, FORMATS, PARTITION_FIELDS, REASSIGNED, Format, Releases, change_fields, partition_of
from .inventory import calls
from .observations import KINDS, Observation, observation
from .read import Record, split_logger, unmangle
from .template import collapsed

#: a broker id a line's own words give (any message, recognised or not)
WRITER = re.compile(r"replicaId=(\d{1,10})|\[Broker id=(\d{1,10})\]|broker=(\d{1,10})\]|"
                    r"\[KafkaServer id=(\d{1,10})\]|on broker (\d{1,10}):|\[BrokerServer id=(\d{1,10})\]|"
                    r"\[KafkaRaftServer nodeId=(\d{1,10})\]|\[Kafka Server (\d{1,10})\]|"
                    r"\[ReplicaManager broker=(\d{1,10})\]|\[BrokerLifecycleManager id=(\d{1,10})\]")
#: a partition a line names (``t-0`` or ``[t,0]``), for lines no format recognises
PARTITION = re.compile(r"(?<![\w.\-])([A-Za-z0-9._\-]{1,249})-(\d{1,9})(?![\w\-]|\.\w)"
                       r"|\[([A-Za-z0-9._\-]{1,249}), ?(\d{1,9})\]")
#: an exception's message in a stack trace line (``Caused by: x.y.ZException: text``)
EXCEPTION = re.compile(r"(?:Caused by: )?[\w$.]{1,300}(?:Exception|Error)(?::\s*+(?P<text>.+))?")
#: the exception message of the one fetcher failure the model has (``fetcher_failed``)
MODELLED_FETCHER_FAILURE = "Cannot increment the log start offset"

#: statuses recognition gives a line, best first (``Line.score``)
RANK = {"recognised": 3, "outside-model": 3, "informational": 2, "unrecognised": 0}
#: lines a wrapped message may be joined from, at most
MAX_JOINED = 8

#: values a format carries in another form than the observation's (``largest``: the largest
#: offset in the log, the log end minus one)
DERIVED = {"largest": ("leo", 1)}
#: fields that carry an observation's value under another name
RENAMED = {"isr_list": "isr", "hw_meta": "hw", "isr_states": "isr"}


@dataclass(frozen=True)
class Line:
    """One record as recognised (see the module docstring)."""

    record: Record
    status: str
    reason: str = ""
    format: Format | None = None
    partition: str | None = None
    writer: str | None = None
    observation: Observation | None = None
    #: the releases whose code writes this text at this level
    releases: Releases | None = None
    #: whether the message ends inside the format's text (cut short)
    cut: bool = False
    #: the literal characters of the format matched (how good the match is: the longest wins)
    literal: int = 0

    @property
    def score(self) -> tuple[int, bool, int]:
        """How much of a known message this line is: its status, whether it is whole, its literal."""
        return RANK.get(self.status, 0), not self.cut, self.literal

    @property
    def complete(self) -> bool:
        """Whether the line is a known message in full (not cut short, not unrecognised)."""
        return self.status != "unrecognised" and not self.cut and self.format is not None


def own_writer(message: str) -> str | None:
    found = WRITER.search(message)
    if found is None:
        return None
    return next(g for g in found.groups() if g is not None)


@dataclass(frozen=True)
class _Match:
    fmt: Format
    fields: dict[str, str]
    literal: int
    cut: bool


#: a word of a format's text (what the index of formats by word keys on)
WORD = re.compile(r"[A-Za-z]{4,}")


def _words(literal: str) -> list[str]:
    """The whole words of a literal piece (one touching an end may run on into a value)."""
    words = WORD.findall(literal)
    if words and literal[:1].isalpha():
        words = words[1:]
    if words and literal[-1:].isalpha():
        words = words[:-1]
    return words


@functools.cache
def _index() -> tuple[dict[str, list[int]], list[int], dict[str, list[int]], list[int]]:
    """The formats by a word their longest piece must hold (its rarest among the formats'), those
    with no whole word (always tried); likewise by a word of their first piece (for a cut message)."""
    by_anchor: dict[str, list[int]] = {}
    by_head: dict[str, list[int]] = {}
    always: list[int] = []
    always_cut: list[int] = []
    pieces = [((fmt.body.anchor, by_anchor, always), (fmt.body.head, by_head, always_cut)) for fmt in FORMATS]
    counts: dict[str, int] = {}
    for both in pieces:
        for piece, _, _ in both:
            for word in set(_words(piece)):
                counts[word] = counts.get(word, 0) + 1
    for number, both in enumerate(pieces):
        for piece, index, rest in both:
            words = _words(piece)
            if words:                                   # the rarest word: the fewest formats tried per line
                index.setdefault(min(words, key=lambda word: (counts[word], -len(word))), []).append(number)
            else:
                rest.append(number)
    return by_anchor, always, by_head, always_cut


def candidates(message: str, cut: bool) -> list[Format]:
    """The formats that may be found in ``message`` (their key word is in it), in table order."""
    by_anchor, always, by_head, always_cut = _index()
    index, rest = (by_head, always_cut) if cut else (by_anchor, always)
    chosen = set(rest)
    for word in set(WORD.findall(message)):
        chosen.update(index.get(word, ()))
    return [FORMATS[number] for number in sorted(chosen)]


def best_match(message: str, level: str | None = None, logger: str | None = None) -> list[_Match]:
    """The formats found in ``message`` with the most literal characters matched (in full; else
    cut short), the one at the record's level and logger first; empty when none is."""
    spaced = collapsed(message)
    for cut in (False, True):
        found: list[_Match] = []
        for fmt in candidates(message, cut):
            if fmt.by_ident and logger is not None and fmt.logger != logger:
                continue
            hit = fmt.find(spaced if fmt.generic else message, cut)
            if hit is not None:
                found.append(_Match(fmt, hit.fields, hit.literal, hit.cut))
        if found:
            top = max(m.literal for m in found)
            best = [m for m in found if m.literal == top]
            best.sort(key=lambda m: (level is not None and m.fmt.level != level,
                                     logger is not None and m.fmt.logger != logger))
            return best
    return []


def releases_of(best: list[_Match], level: str | None, logger: str | None) -> Releases:
    """The releases whose code writes the text matched - at the record's level and logger where
    it says them and some format of that text has them."""
    fmt = best[0].fmt
    shape = _shape(fmt)
    same = [m.fmt for m in best if _shape(m.fmt) == shape] or [fmt]
    if level is not None and any(f.level == level for f in same):
        same = [f for f in same if f.level == level]
    if logger is not None and any(f.logger == logger for f in same):
        same = [f for f in same if f.logger == logger]
    return Releases.of(f.releases for f in same)


def _shape(fmt: Format) -> tuple[str, str]:
    """A format's ident and text with each value as ``{}`` (two rows printing the same text
    from different expressions - ``{_file}``, ``{file}`` - are one text)."""
    def plain(text: str) -> str:
        return "".join(literal.replace("{", "{{").replace("}", "}}") + ("{}" if name is not None else "")
                       for literal, name, _, _ in string.Formatter().parse(text))
    return plain(fmt.ident), plain(fmt.text)


#: the KRaft metadata log: replicated by the controllers' Raft quorum (KIP-595), not by a
#: leader and its ISR
METADATA_LOG = "__cluster_metadata-0"
#: the loggers of the Raft quorum's classes (kafka.raft, org.apache.kafka.raft)
RAFT_LOGGER = re.compile(r"^(?:kafka|org\.apache\.kafka)\.raft\.")
#: what a line about the metadata log says Kafka did
METADATA_REASON = ("the KRaft metadata log __cluster_metadata-0, replicated by the controllers' own Raft "
                   "quorum (KIP-595): its elections, epochs and high watermark are not a topic partition's "
                   "leader and ISR, which hwlib models")


def recognise(record: Record) -> Line:
    """The record's format, partition, writer and observation (see the module docstring); a line
    of the Raft quorum's classes or about the metadata log is about ``__cluster_metadata-0``,
    outside the model (``METADATA_REASON``)."""
    line = _recognise(record)
    raft = line.format is not None and RAFT_LOGGER.match(line.format.logger) is not None
    if (raft and line.partition is None) or (line.partition == METADATA_LOG and line.status != "unrecognised"):
        reason = line.reason if line.status == "outside-model" and raft else METADATA_REASON
        return replace(line, status="outside-model", partition=METADATA_LOG, reason=reason, observation=None)
    return line


def _recognise(record: Record) -> Line:
    if record.elision:
        return Line(record, "informational", "an elision: lines were left out here")
    if record.listing is not None:
        return Line(record, "informational", record.listing)
    if record.problem is not None and record.problem.startswith("binary"):
        return Line(record, "unrecognised", f"{record.problem}: not a log line")
    line = _recognise_message(record, record.message)
    if line.format is not None and line.format.kind == "fetcher_failed" and record.continuation:
        return _fetcher_failure(line, record.continuation)
    if line.status in ("recognised", "outside-model") or not record.continuation:
        return line
    for text in record.continuation:                  # a stack trace: what its exceptions say
        found = EXCEPTION.match(text.strip())
        if found is None or not found["text"]:
            continue
        thrown = _recognise_message(record, found["text"])
        if thrown.status == "outside-model" or (thrown.status != "unrecognised" and line.status == "unrecognised"):
            return replace(thrown, partition=thrown.partition or line.partition, writer=thrown.writer or line.writer)
    return line


def _fetcher_failure(line: Line, continuation: Iterable[str]) -> Line:
    """A fetcher that marked a partition failed, read with the exception under it: the model's
    fetchers fail on one error only (2.8.0, KAFKA-12996: the leader's log start above their HW,
    ``maybeIncrementLogStartOffset``); any other exception there is outside the model. Pasted
    without its stack trace, the line is taken as the modelled failure."""
    for text in continuation:
        found = EXCEPTION.match(text.strip())
        if found is None:
            continue
        if MODELLED_FETCHER_FAILURE in text:
            return line
        thrown = text.strip().removeprefix("Caused by: ").split(":", 1)[0].rsplit(".", 1)[-1]
        return replace(line, status="outside-model", observation=None,
                       reason=f"the fetcher stopped the partition on {thrown}: the model's fetchers stop only when "
                       "the leader's log start is above their HW (2.8.0, KAFKA-12996)")
    return line


def assemble(records: Iterable[Record]) -> Iterator[Line]:
    """Each record recognised, its wrapped lines read as a person would: a record's lines
    without a layout are joined to its message - by a space, or by nothing where that reads a
    known message better (a line cut at a column) - unless a line is a whole known message
    itself (a message pasted without its layout); in a file whose lines carry no layout, a line
    that is no whole known message is joined to the next ones while that reads it better."""
    pending: Line | None = None
    for record in records:
        for line in _split(record):
            if pending is not None and _joins(pending, line):
                pending = _joined(pending, line)
                continue
            if pending is not None:
                yield pending
            pending = line
    if pending is not None:
        yield pending


def _split(record: Record) -> list[Line]:
    """A laid-out record and its wrapped lines as lines: joined, or split where a wrapped line is
    a whole known message of its own (and the message before it whole too)."""
    if not record.wrapped:
        return [recognise(record)]
    out: list[Line] = []
    base = replace(record, wrapped=[], end_line=record.line)
    pieces: list[tuple[int, str]] = []
    for number, text in record.wrapped:
        alone = recognise(_bare(record, number, text))
        if alone.complete and (pieces or recognise(base).complete):
            out.append(_best_join(base, pieces))
            base, pieces = alone.record, []
            continue
        pieces.append((number, text))
    out.append(_best_join(base, pieces))
    return out


def _bare(record: Record, number: int, text: str) -> Record:
    message, logger = _logger_of(text)
    return Record(record.file, number, number, text, message, None, None, logger, record.source, bare=True)


def _logger_of(text: str) -> tuple[str, str | None]:
    message, logger = split_logger(unmangle(text))
    return message.strip(), logger


def _best_join(base: Record, pieces: list[tuple[int, str]]) -> Line:
    """``base`` with ``pieces`` joined by a space or by nothing, whichever reads better (a space on a tie)."""
    if not pieces:
        return recognise(base)
    spaced = recognise(base.merged(pieces, " "))
    tight = recognise(base.merged(pieces, ""))
    return tight if tight.score > spaced.score else spaced


def _joins(pending: Line, line: Line) -> bool:
    """Whether ``line`` (a bare line right after ``pending``, a bare one too) continues its message."""
    first, record = pending.record, line.record
    if not (first.bare and record.bare) or record.file != first.file or record.line != first.end_line + 1:
        return False
    if pending.complete or line.complete or len(first.wrapped) + 1 >= MAX_JOINED:
        return False
    joined = _best_join(replace(first, wrapped=[]), [*first.wrapped, (record.line, record.text)])
    return joined.score > pending.score and joined.score > line.score


def _joined(pending: Line, line: Line) -> Line:
    first = pending.record
    joined = _best_join(replace(first, wrapped=[], continuation=[*first.continuation, *line.record.continuation]),
                        [*first.wrapped, (line.record.line, line.record.text)])
    return joined


#: what the exception a fetcher's "Error for partition ..." line names says happened: the broker
#: fetched from does not lead the partition (an observation), or does not host it at all (outside)
FETCH_ERRORS = {"NotLeaderForPartitionException": "not_leader", "NotLeaderOrFollowerException": "not_leader",
                "UnknownTopicOrPartitionException": "outside"}
FETCH_EXCEPTION = re.compile(r"(?:NotLeaderForPartition|NotLeaderOrFollower|UnknownTopicOrPartition)Exception")
#: what a fetch refused as unknown topic or partition says Kafka did
NOT_HOSTED = ("the broker fetched from does not host the partition: it was created, deleted or moved (reassigned) "
              "while the follower fetched - hwlib's partition has the same replicas from start to end")


def _fetch_error(line: Line, fields: dict[str, str]) -> Line:
    """A fetcher's "Error for partition ..." line read by the exception it names (in the line or
    its stack trace): a fetch refused by a broker that does not lead (``not_leader``), or that
    does not host the partition (outside the model); else as it is."""
    record = line.record
    named = FETCH_EXCEPTION.search(" ".join([record.text, *record.continuation]))
    if named is None:
        return line
    meaning = FETCH_ERRORS[named.group(0)]
    if meaning == "outside":
        return replace(line, status="outside-model", reason=NOT_HOSTED)
    leader = fields.get("sourceBroker.id") or fields.get("leader")
    seen = observation("not_leader", line.writer, leader=leader if leader and leader.isdigit() else None)
    return replace(line, status="recognised", reason="", observation=seen)


def _recognise_message(record: Record, message: str) -> Line:
    writer = own_writer(message)
    best = best_match(message, record.level, record.logger)
    if not best:
        return _unrecognised(record, message, writer)
    match = best[0]
    fmt, fields = match.fmt, match.fields
    releases = releases_of(best, record.level, record.logger)
    partition = generic_partition(fields) if fmt.generic else partition_of(fields)
    if partition is None and (not fmt.generic or any(PARTITION_EXPRESSION.search(name) for name in fmt.fields())):
        partition = named_partition(message)           # a value holding it among others ([{t.topic},{t.partition}])
    who = fields.get("writer") or writer
    cut = " (cut short: the message ends inside it)" if match.cut else ""
    moves: list[str] = []
    if fields.get("diff") is not None:              # a KRaft partition change: its fields
        changed, moves = change_fields(fields["diff"])
        fields = {**fields, **changed}
        if "epoch" not in changed and not moves:    # no new leader epoch: not an election
            return Line(record, "informational", fmt.id + cut, fmt, partition, who, releases=releases,
                        cut=match.cut, literal=match.literal)
        if changed.get("leader") == "-1" and not moves:     # no leader: the partition went offline
            return Line(record, "recognised", cut.strip(" ()"), fmt, partition, None, observation("offline", None),
                        releases=releases, cut=match.cut, literal=match.literal)
    outside = outside_reason(fmt, fields, moves)
    if outside is not None:
        return Line(record, "outside-model", outside, fmt, partition, who, releases=releases, cut=match.cut,
                    literal=match.literal)
    if fmt.kind is None:
        line = Line(record, "informational", (fmt.note or fmt.id) + cut, fmt, partition, who, releases=releases,
                    cut=match.cut, literal=match.literal)
        if fmt.generic and fmt.text.startswith("Error for partition ") and "Fetcher" in fmt.logger:
            return _fetch_error(line, fields)
        return line
    return Line(record, "recognised", cut.strip(" ()"), fmt, partition, who, to_observation(fmt, fields, who),
                releases=releases, cut=match.cut, literal=match.literal)


#: a value whose expression in Kafka's code names a partition
PARTITION_EXPRESSION = re.compile(r"(?i)partition|\btp\b|topicAndPartition|\btopicPartition")


#: a value that is a partition's name alone (a log's name: ``{log.name}``, ``{name}``)
PARTITION_VALUE = re.compile(r"[A-Za-z0-9._\-]{1,249}-\d{1,9}")


def generic_partition(fields: dict[str, str]) -> str | None:
    """The partition an inventoried message names: in a value whose expression names a
    partition (``{topicPartition}``, ``{tp}``), either of Kafka's forms; else a value that is a
    partition's name and nothing else (a log's name; never a path: ``/data/kafka-logs-1``)."""
    for name, value in fields.items():
        if PARTITION_EXPRESSION.search(name):
            named = named_partition(value)
            if named is not None:
                return named
    for value in fields.values():
        value = value.strip(" .,;:()[]'\"")
        if PARTITION_VALUE.fullmatch(value) and not NOT_A_PARTITION.search(value):
            return value
    return None


#: names shaped like a partition that are not one: a thread (``ReplicaFetcherThread-0-1001``,
#: ``kafka-request-handler-3``), a pod or host of a stateful set (``kafka-controller-0.svc``)
NOT_A_PARTITION = re.compile(r"(?i)thread|handler|cleaner|-executor|scheduler|kafka-controller|kafka-broker|"
                             r"^kafka-\d+$|^broker-\d+$|^zookeeper-\d+$|^zk-\d+$")


def named_partition(text: str) -> str | None:
    """The partition ``text`` names, in either of Kafka's forms - ``[t,0]`` first (a thread's
    name is shaped like ``t-0``) - leaving out names that only look like one (``NOT_A_PARTITION``)."""
    found = None
    for named in PARTITION.finditer(text):
        if named[3] is not None:
            return f"{named[3]}-{named[4]}"
        if found is None and not NOT_A_PARTITION.search(named[1]):
            found = f"{named[1]}-{named[2]}"
    return found


def _unrecognised(record: Record, message: str, writer: str | None) -> Line:
    if not record.problem and elsewhere(record.logger):
        return Line(record, "informational", f"a message of Kafka's {record.logger}, a class outside the "
                    "replication path whose messages hwlib reads (data/explain/kafka-log-calls.csv)",
                    None, named_partition(message), writer)
    reason = record.problem or near_miss(message) or "no message hwlib knows"
    return Line(record, "unrecognised", reason, None, named_partition(message), writer)


@functools.cache
def _inventoried_loggers() -> frozenset[str]:
    return frozenset(call.logger for call in calls()) | frozenset(fmt.logger for fmt in FORMATS)


def elsewhere(logger: str | None) -> bool:
    """Whether a record's logger is one of Kafka's classes outside the replication path the
    inventory reads (the group coordinator, ZooKeeper's client, a thread's start): Kafka's line,
    about something else."""
    return logger is not None and logger.startswith(("kafka.", "org.apache.kafka.")) \
        and logger not in _inventoried_loggers() and not logger.startswith("kafka.log4j")


def near_miss(message: str) -> str | None:
    """Which known message ``message`` resembles, and what did not fit (None: none)."""
    best: tuple[int, Format, str] | None = None
    for fmt in candidates(message, False):
        what = fmt.body.near(message)
        if what is not None and (best is None or len(fmt.body.anchor) > best[0]):
            best = (len(fmt.body.anchor), fmt, what)
    if best is None:
        return None
    _, fmt, what = best
    words = " ".join(fmt.body.anchor.split()[:6])
    return f"like the {fmt.first} - {fmt.last.replace('9.9.9', 'later')} {words!r} message, but {what}"


def outside_reason(fmt: Format, fields: dict[str, str], moves: list[str]) -> str | None:
    """What the line says Kafka did that hwlib's model does not have (None: nothing): the
    format's reason, or a reassignment - a leader's line naming replicas being added or removed
    (Partition.makeLeader from 2.6.0), a KRaft partition change that moves the replica set
    (``moves``, from ``formats.change_fields``)."""
    if fmt.outside:
        return fmt.outside
    adding, removing = ((fields.get(name) or "").strip() for name in ("adding", "removing"))
    if adding or removing:
        return f"{REASSIGNED} (adding replicas [{adding}], removing replicas [{removing}])"
    if moves:
        return f"{REASSIGNED} ({', '.join(moves)})"
    return None


def to_observation(fmt: Format, fields: dict[str, str], writer: str | None) -> Observation:
    """The observation a recognised line carries, in Kafka's values."""
    kind = fmt.kind
    assert kind is not None
    sorts = KINDS[kind][1]
    values: dict[str, object] = {}
    for name, text in fields.items():
        if name in PARTITION_FIELDS or text is None:
            continue
        if name in DERIVED:
            target, plus = DERIVED[name]
            if target in sorts:
                values[target] = int(text) + plus
            continue
        target = RENAMED.get(name, name)
        if name in BROKER_SETS:
            if target in sorts:
                values[target] = tuple(part.strip() for part in text.split(",") if part.strip())
            continue
        if target not in sorts:
            continue
        values[target] = text if sorts[target] in ("broker", "cause") else int(text)
    return observation(kind, writer, **values)
