"""Recognising what a log record says: its format (``formats``), partition, writer and observation, or why it is none.

``recognise(record)`` tries the formats whose longest literal piece the message holds and
returns a ``Line``: the record, its status so far - ``recognised`` (an observation about one
partition), ``informational`` (a known message that states nothing the model has, an elision),
``outside-model`` (Kafka did something the model does not have: ``outside_reason``),
``unrecognised`` (no format matched; ``reason`` says what was wrong with the bytes if anything)
- the format, the partition it names (``topic-N``; a topic alone for the oldest fatal exit),
the broker that wrote it where the line itself says (``replicaId=``, ``[Broker id=N]``,
``broker=N``, ``[KafkaServer id=N]``, ``on broker N``) and its observation in Kafka's values.
Files and container names are attributed afterwards (``Attribution``): a file, or a container
prefix, whose lines name one writer only is that broker's log; ``--broker FILE=ID`` says it
outright.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .formats import BROKER_SETS, FORMATS, PARTITION_FIELDS, REASSIGNED, Format, change_fields, partition_of
from .observations import KINDS, Observation, observation
from .read import Record

#: a broker id a line's own words give (any message, recognised or not)
WRITER = re.compile(r"replicaId=(\d{1,10})|\[Broker id=(\d{1,10})\]|broker=(\d{1,10})\]|"
                    r"\[KafkaServer id=(\d{1,10})\]|on broker (\d{1,10}):|\[BrokerServer id=(\d{1,10})\]")
#: a partition a line names (``t-0`` or ``[t,0]``), for lines no format recognises
PARTITION = re.compile(r"(?<![\w.\-])([A-Za-z0-9._\-]{1,249})-(\d{1,9})(?![\w\-])"
                       r"|\[([A-Za-z0-9._\-]{1,249}),(\d{1,9})\]")

#: statuses a line can end with (``matched`` is the search's)
STATUSES = ("matched", "informational", "other-partition", "unattributed", "unrecognised", "outside-model")

#: values a format carries in another form than the observation's (``largest``: the largest
#: offset in the log, the log end minus one)
DERIVED = {"largest": ("leo", 1)}
#: fields that carry an observation's value under another name
RENAMED = {"isr_list": "isr"}


@dataclass
class Line:
    """One record as recognised; ``status`` and ``reason`` say what became of it."""

    record: Record
    status: str
    reason: str = ""
    format: Format | None = None
    partition: str | None = None
    writer: str | None = None
    observation: Observation | None = None
    #: the step of the explanation it matched (1-based), once matched
    step: int | None = None
    #: the other records merged into this one (the same line repeated)
    repeats: list[Record] = field(default_factory=list)
    #: the releases whose code writes this text at this level (first, last)
    releases: tuple[tuple[int, ...], tuple[int, ...]] | None = None


def own_writer(message: str) -> str | None:
    found = WRITER.search(message)
    if found is None:
        return None
    return next(g for g in found.groups() if g is not None)


def recognise(record: Record) -> Line:
    """The record's format, partition, writer and observation (see the module docstring)."""
    if record.elision:
        return Line(record, "informational", "an elision: lines were left out here")
    if record.problem is not None and record.problem.startswith("binary"):
        return Line(record, "unrecognised", f"{record.problem}: not a log line")
    message = record.message
    writer = own_writer(message)
    found: list[tuple[Format, dict[str, str]]] = []
    for fmt in FORMATS:
        fields = fmt.parse(message)
        if fields is not None and (record.level is None or fmt.level == record.level or not found):
            found.append((fmt, fields))
    if found:
        # the same text at the record's level where it says one; the line's releases are every
        # range that writes that text so
        same = [item for item in found if record.level is None or item[0].level == record.level] or found[:1]
        fmt, fields = same[0]
        first = min(f.releases[0] for f, _ in same if f.template == fmt.template)
        last = max(f.releases[1] for f, _ in same if f.template == fmt.template)
        partition = partition_of(fields)
        who = fields.get("writer") or writer
        moves: list[str] = []
        if fields.get("diff") is not None:              # a KRaft partition change: its fields
            changed, moves = change_fields(fields["diff"])
            fields = {**fields, **changed}
            if "epoch" not in changed and not moves:    # no new leader epoch: not an election
                return Line(record, "informational", fmt.id, fmt, partition, who, releases=(first, last))
        outside = outside_reason(fmt, fields, moves)
        if outside is not None:
            return Line(record, "outside-model", outside, fmt, partition, who, releases=(first, last))
        if fmt.kind is None:
            return Line(record, "informational", fmt.id, fmt, partition, who, releases=(first, last))
        return Line(record, "recognised", "", fmt, partition, who, to_observation(fmt, fields, who),
                    releases=(first, last))
    reason = record.problem or "no message hwlib knows"
    named = PARTITION.search(message)
    partition = None
    if named is not None:
        partition = f"{named[1]}-{named[2]}" if named[1] is not None else f"{named[3]}-{named[4]}"
    return Line(record, "unrecognised", reason, None, partition, writer)


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
        if name in BROKER_SETS:
            target = RENAMED.get(name, name)
            if target in sorts:
                values[target] = tuple(part.strip() for part in text.split(",") if part.strip())
            continue
        if name not in sorts:
            continue
        values[name] = text if sorts[name] == "broker" else int(text)
    return observation(kind, writer, **values)
