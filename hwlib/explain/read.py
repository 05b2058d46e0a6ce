"""Reading broker logs as people paste them: any layout, prefix or export, continuations joined, hostile input bounded.

``read_records(path, ...)`` streams one file and yields ``Record``s: one per log event, with
its file, first and last line, timestamp (milliseconds, None where the line has none), level,
logger, where it came from (a container or host name a prefix or an export gives) and the
message. Layouts, per line:

- Kafka's default ``[%d] %p %m (%c)`` (``config/log4j.properties``, 0.9 to 3.x) - the
  timestamp with a comma or a dot before the milliseconds;
- ISO-8601 timestamps (``2024-05-01T10:00:00.123Z INFO ...``, with or without a zone, a
  ``[thread]``), the level first, or no timestamp, level or logger at all;
- container and orchestration prefixes: ``name | ...`` (docker compose), an RFC 3339
  timestamp before the line (``kubectl logs --timestamps``, ``docker logs -t``), both;
- exports: one JSON object per line (``message`` / ``msg`` / ``log`` / ``_raw`` ..., with
  ``@timestamp``, ``level``, ``logger_name``, ``host`` ... where given; docker's json-file
  ``{"log": ...}`` too), a JSON array, or CSV with a header naming the message column.

A line that starts no new event - a wrapped message, a stack trace - belongs to the record
before it (``continuation``: a stack frame, ``Caused by:``; otherwise joined to the message);
a line of only ``...`` (an elision) is a record of its own. Nothing is held beyond one record:
a file of any size is streamed, a line longer than ``MAX_LINE`` bytes is read in pieces and
kept as its first ``MAX_LINE`` bytes (``problem`` says so), invalid UTF-8 and binary bytes are
replaced and said (``problem``). Regular expressions here are anchored and run on at most
``MAX_LINE`` characters, with no nested repetition: their cost is linear in the line.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from ..errors import HwlibError

#: the longest line recognised whole (bytes); a longer one is kept as its first MAX_LINE bytes
MAX_LINE = 64 * 1024
#: lines of a record beyond which continuation lines are counted, not kept
MAX_CONTINUATION = 200

LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL", "SEVERE")


class LogInputError(HwlibError, ValueError):
    """A LOG argument that cannot be read at all (a directory, missing, unreadable)."""


@dataclass
class Record:
    """One log event as read: where it is (``file``, ``line`` .. ``end_line``, 1-based), when
    (``timestamp``: milliseconds since the epoch, UTC where no zone is given; None: the line
    carries none), ``level``, ``logger``, ``source`` (a container or host name), the
    ``message`` (its wrapped lines joined), the ``continuation`` lines (a stack trace), the raw
    first line (``text``) and ``problem`` (what made the bytes unusable: invalid UTF-8, binary
    data, a line too long, a cut last line)."""

    file: str
    line: int
    end_line: int
    text: str
    message: str
    timestamp: float | None = None
    level: str | None = None
    logger: str | None = None
    source: str | None = None
    problem: str | None = None
    continuation: list[str] = field(default_factory=list)
    #: whether the record is an elision ("...") someone put in place of lines
    elision: bool = False
    #: lines after the first that carry no layout (a message wrapped by a terminal or a page), as
    #: (line number, text); ``recognise.assemble`` joins them to the message or splits them off
    wrapped: list[tuple[int, str]] = field(default_factory=list)
    #: whether the line carries no layout at all (no timestamp, level or logger)
    bare: bool = False
    #: whether the message is known to end early: a cut last line, a message ending in "..."
    cut: bool = False
    #: the end of a time range the line stands for (``[t1]~[t2] ...``: repeated until t2)
    until: float | None = None
    #: what the line is when it is not a broker's log line (e.g. a DumpLogSegments listing)
    listing: str | None = None

    def own(self, text: str) -> str:
        """A line of this record without the container prefix its stream puts on every line."""
        if self.source is not None:
            prefixed = COMPOSE.fullmatch(text)
            if prefixed is not None and prefixed["source"] == self.source:
                return prefixed["rest"]
        return text

    def merged(self, pieces: list[tuple[int, str]], separator: str = " ") -> Record:
        """This record with ``pieces`` - lines (number, text) that continue its message - joined
        to the message by ``separator`` (a logger ending them read as the record's), its last
        line the last piece's; the pieces are kept as ``wrapped`` (what the record joined)."""
        texts = [self.own(unmangle(text)).strip() for _, text in pieces]
        joined = separator.join([self.message.rstrip() if separator else self.message.rstrip("\n"), *texts])
        message, logger = split_logger(joined)
        last = pieces[-1][0] if pieces else self.end_line
        merged = replace(self, message=message.strip(), logger=self.logger or logger, wrapped=list(pieces),
                         end_line=max(self.end_line, last))
        for mark in ELLIPSIS:
            if merged.message.endswith(mark) and len(merged.message) > len(mark):
                merged = replace(merged, message=merged.message[:-len(mark)].rstrip(), cut=True)
        return merged


# --------------------------------------------------------------------------- line layouts
_TS = r"(?P<ts>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?)"
_LEVEL = r"(?P<level>TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE)"
#: Kafka's ``[%d] %p %m (%c)``: the logger is the last parenthesised word
KAFKA = re.compile(r"\[" + _TS + r"\]\s++(?:\[[^\]]{0,200}\]\s++)?" + _LEVEL + r"\s++(?P<msg>.*)")
#: the same inside a line, after a prefix of someone else's (syslog, a file name, a host)
KAFKA_INSIDE = re.compile(r"\[" + _TS + r"\]\s++" + _LEVEL + r"\s")
#: ISO-8601 first, an optional [thread], the level
ISO = re.compile(_TS + r"\s++(?:\[[^\]]{0,200}\]\s++){0,2}" + _LEVEL + r"\s*+(?::\s*+)?(?P<msg>.*)")
#: the logger before the thread and the level: ``[%d] (%c) [%t] %p - %m``
LOGGER_FIRST = re.compile(r"\[" + _TS + r"\]\s++\((?P<logger>[A-Za-z_$][\w$.]{0,300})\)\s++(?:\[[^\]]{0,200}\]\s++)?"
                          + _LEVEL + r"\s++(?:-\s++)?(?P<msg>.*)")
#: a bracketed timestamp and the message, no level (a copy from a log viewer)
STAMPED = re.compile(r"\[" + _TS + r"\]\s++(?P<msg>.*)")
#: the level first, no timestamp
LEVEL_FIRST = re.compile(_LEVEL + r"\s++(?P<msg>.*)")
#: a trailing ``(logger)`` as log4j's %c writes it
LOGGER = re.compile(r"\s\((?P<logger>[A-Za-z_$][\w$.]{0,300})\)\s*+$")
#: docker compose: ``name  | line``
COMPOSE = re.compile(r"(?P<source>[A-Za-z0-9][\w.\-]{0,100})\s*+\|\s?(?P<rest>.*)")
#: an RFC 3339 timestamp before the line (kubectl logs --timestamps, docker logs -t)
RFC3339 = re.compile(r"(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d))\s(?P<rest>.*)")
#: a line that continues a Java stack trace
STACK = re.compile(r"\s++at\s|Caused by:|\s*+\.\.\. \d+ more|\s*+Suppressed:|[\w$.]{1,300}(?:Exception|Error)\b")
#: a time range standing for repeats (``[t1]~[t2] INFO ...``, ``[t1] - [t2] ...``)
RANGE = re.compile(r"\[" + _TS.replace("?P<ts>", "?P<first>") + r"\]\s*+(?:~|-|to)\s*+\[" +
                   _TS.replace("?P<ts>", "?P<until>") + r"\]\s++(?P<rest>.*)")
#: stern's and kubectl's prefixes (``pod container ...``, ``[pod/name/container] ...``) before a timestamp
POD = re.compile(r"(?:\[pod/(?P<kpod>[^\]/ ]{1,253})/[^\] ]{1,253}\]|(?P<pod>[a-z0-9][a-z0-9.\-]{0,252})"
                 r"(?: [a-z0-9][a-z0-9.\-]{0,62})?) (?P<rest>\[?\d{4}-\d\d-\d\d[ T].*)")
#: Strimzi's layout and others: a ``[thread]`` after the logger; a ``[logger]`` or ``logger -`` before the message
TRAILING_THREAD = re.compile(r"\s\((?P<logger>[A-Za-z_$][\w$.]{0,300})\)\s*+\[[^\]]{0,200}\]\s*+$")
LEADING_LOGGER = re.compile(r"\[?(?P<logger>(?:[a-z][\w$]*\.)+[A-Z][\w$]*|state\.change\.logger)\]?(?:\s*+[-:]\s|\s)"
                            r"(?P<msg>.*)")
#: lines of a ``kafka-dump-log`` / DumpLogSegments listing pasted beside a log
LISTING = re.compile(r"\s*+(?:Dumping \S|Starting offset: \d|baseOffset: \d|offset: \d+ position: |"
                     r"\| offset: \d|Log starting offset: \d|\{\"type\":\"[A-Z_]{1,60}_RECORD\"|"
                     r"\S{0,300}\d{20}\.(?:log|index|timeindex|snapshot)\b)")
#: a line standing for lines left out
ELISION = re.compile(r"\s*+(?:\.\.\.|\u2026|\[\.\.\.\]|\[snip\]|<snip>|\(\.\.\.\)|\[…\])\s*+")


def parse_time(text: str) -> float | None:
    """A timestamp as milliseconds since the epoch (no zone: UTC), None if it is not one."""
    text = text.replace(",", ".").replace(" ", "T", 1)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    frac = re.search(r"\.(\d+)", text)
    if frac and len(frac.group(1)) > 6:                 # datetime takes microseconds at most
        text = text[:frac.start(1)] + frac.group(1)[:6] + text[frac.end(1):]
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp() * 1000.0


@dataclass
class Parsed:
    """What one line's layout gives: None for a line that starts no event."""

    message: str
    timestamp: float | None = None
    level: str | None = None
    logger: str | None = None
    source: str | None = None
    until: float | None = None


#: characters a page or an old code page put in place of Kafka's: ISO 646-SE brackets (``Ä`` ``Å``
#: for ``[`` ``]``), typographic quotes, non-breaking and zero-width spaces
MANGLED = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u00a0": " ",
                         "\u202f": " ", "\u200b": None, "\ufeff": None})
BRACKETS = str.maketrans({"\u00c4": "[", "\u00c5": "]"})
ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#39;", "'"), ("&apos;", "'"), ("&amp;", "&"))


def unmangle(text: str) -> str:
    """``text`` with what a page or a code page did to it undone (``MANGLED``; brackets only
    where the line has none of its own; HTML entities)."""
    text = text.translate(MANGLED)
    if ("\u00c4" in text or "\u00c5" in text) and "[" not in text and "]" not in text:
        text = text.translate(BRACKETS)
    if "&" in text and ";" in text:
        for entity, char in ENTITIES:
            text = text.replace(entity, char)
    return text


def parse_line(text: str, source: str | None = None, timestamp: float | None = None) -> Parsed | None:
    """The layout of one line (prefixes stripped): a ``Parsed`` when it starts an event, None
    when it has no timestamp and no level - a continuation, or a bare message (the caller
    decides which)."""
    until = None
    match = COMPOSE.fullmatch(text)
    if match is not None and (RFC3339.match(match["rest"]) or KAFKA.match(match["rest"])
                              or ISO.match(match["rest"]) or match["rest"].startswith("[")):
        source, text = match["source"], match["rest"]
    match = POD.fullmatch(text)
    if match is not None:
        source, text = match["kpod"] or match["pod"], match["rest"]
    match = RFC3339.fullmatch(text)
    if match is not None and (KAFKA.match(match["rest"]) or ISO.match(match["rest"]) or RANGE.match(match["rest"])
                              or LEVEL_FIRST.match(match["rest"]) or match["rest"].startswith("[")):
        timestamp = parse_time(match["ts"]) if timestamp is None else timestamp
        text = match["rest"]
    match = RANGE.fullmatch(text)
    if match is not None:                             # [t1]~[t2] LEVEL ...: as a line at t1, repeated until t2
        until = parse_time(match["until"])
        text = f"[{match['first']}] {match['rest']}"
    for layout in (KAFKA, LOGGER_FIRST, ISO, STAMPED, LEVEL_FIRST):
        match = layout.fullmatch(text)
        if match is None:
            continue
        message, logger = split_logger(match["msg"])
        logger = match["logger"] if "logger" in layout.groupindex else logger
        stamp = parse_time(match["ts"]) if "ts" in layout.groupindex else None
        level = match["level"] if "level" in layout.groupindex else None
        return Parsed(message.strip(), stamp if stamp is not None else timestamp,
                      "WARN" if level == "WARNING" else level, logger, source, until)
    if timestamp is not None:
        message, logger = split_logger(text)
        return Parsed(message.strip(), timestamp, None, logger, source, until)
    inside = KAFKA_INSIDE.search(text, 0, 300)
    if inside is not None and inside.start() > 0:      # someone's prefix, then Kafka's layout
        parsed = parse_line(text[inside.start():], source, timestamp)
        if parsed is not None and parsed.source is None:
            parsed.source = text[:inside.start()].strip(" |:-[]") or None
        return parsed
    return None


def split_logger(message: str) -> tuple[str, str | None]:
    """A message without the logger around it - ``(logger)`` at its end (a ``[thread]`` after
    it, as Strimzi writes), or ``[logger]`` / ``logger -`` at its start - and the logger."""
    found = TRAILING_THREAD.search(message) or LOGGER.search(message)
    if found is not None:
        return message[:found.start()], found["logger"]
    lead = LEADING_LOGGER.match(message)
    if lead is not None:
        return lead["msg"], lead["logger"]
    return message, None


# ------------------------------------------------------------------------------ raw lines
def _decode(raw: bytes) -> tuple[str, str | None]:
    """Bytes as text, and what was wrong with them (None: nothing)."""
    try:
        text = raw.decode("utf-8")
        problem = None
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        problem = "invalid UTF-8"
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\r\n")
    if controls and (controls > 4 or "\x00" in text):
        problem = "binary data"
        text = "".join(ch if ord(ch) >= 32 or ch == "\t" else "\ufffd" for ch in text)
    return text, problem


def raw_lines(stream: io.BufferedIOBase, progress: Callable[[int], None] | None = None
              ) -> Iterator[tuple[int, str, str | None]]:
    """(line number, text, problem) of each line of a binary stream, in bounded memory: a
    line longer than ``MAX_LINE`` is kept as its first ``MAX_LINE`` bytes and the rest read
    past; a last line without its newline is said to be cut."""
    number = 0
    while True:
        chunk = stream.readline(MAX_LINE + 1)
        if not chunk:
            return
        number += 1
        size = len(chunk)
        problem = None
        if not chunk.endswith(b"\n") and len(chunk) > MAX_LINE:
            while True:                                   # read past the rest of the line
                more = stream.readline(1 << 20)
                size += len(more)
                if not more or more.endswith(b"\n"):
                    size -= more.endswith(b"\n")         # the line's own bytes, without its end
                    break
            problem = f"line too long ({size:,} bytes; the first {MAX_LINE:,} are read)"
            chunk = chunk[:MAX_LINE]
        elif not chunk.endswith(b"\n"):
            problem = "cut: the last line has no end"
        if progress is not None:
            progress(size)
        text, bad = _decode(chunk.rstrip(b"\r\n"))
        yield number, text, problem or bad


# ---------------------------------------------------------------------------------- files
#: JSON fields that hold the message, the time, the level, the logger, the writer, most likely first
MESSAGE_KEYS = ("message", "msg", "log", "_raw", "line", "textPayload", "body", "content", "@message", "Message")
TIME_KEYS = ("@timestamp", "timestamp", "time", "ts", "_time", "date", "Timestamp", "datetime")
LEVEL_KEYS = ("level", "log.level", "severity", "levelname", "loglevel", "Level")
LOGGER_KEYS = ("logger", "logger_name", "loggerName", "log.logger", "category", "class")
MESSAGE_KEYS_LOWER = {key.lower() for key in MESSAGE_KEYS}
SOURCE_KEYS = ("host", "hostname", "container", "container_name", "pod", "pod_name", "kubernetes.pod_name",
               "source", "instance", "broker")


def _field(obj: dict, keys: tuple[str, ...]) -> object:
    """The first of ``keys`` ``obj`` holds a value under (in any case; ``a.b`` inside ``a``)."""
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for key in keys:
        value = lowered.get(key.lower())
        if value not in (None, ""):
            return value
        head, _, tail = key.lower().partition(".")
        inner = lowered.get(head)
        if tail and isinstance(inner, dict):
            found = {str(k).lower(): v for k, v in inner.items()}.get(tail)
            if found not in (None, ""):
                return found
    return None


def _from_fields(obj: dict) -> Parsed | None:
    if isinstance(obj.get("_source"), dict):                # an Elasticsearch / Kibana hit
        obj = {**obj["_source"], **{k: v for k, v in obj.items() if k != "_source"}}
    return _from_export(obj)


def _from_export(obj: dict) -> Parsed | None:
    """An exported event (a JSON object or a CSV row) as a ``Parsed``: its message field,
    itself parsed as a line when it carries Kafka's layout, and the fields around it."""
    message = _field(obj, MESSAGE_KEYS)
    if not isinstance(message, str):
        return None
    stamp = _field(obj, TIME_KEYS)
    when = parse_time(stamp) if isinstance(stamp, str) else (
        float(stamp) * (1000.0 if float(stamp) < 1e11 else 1.0) if isinstance(stamp, (int, float)) else None)
    source = _field(obj, SOURCE_KEYS)
    inner = parse_line(message.rstrip("\r\n").split("\n", 1)[0], str(source) if source else None, when)
    level, logger = _field(obj, LEVEL_KEYS), _field(obj, LOGGER_KEYS)
    if inner is None:
        inner = Parsed(message.strip(), when, None, None, str(source) if source else None)
    if inner.level is None and isinstance(level, str) and level.upper() in LEVELS:
        inner.level = "WARN" if level.upper() == "WARNING" else level.upper()
    if inner.logger is None and isinstance(logger, str):
        inner.logger = logger
    if inner.timestamp is None:
        inner.timestamp = when
    return inner


#: column names an export may give its message under (beside ``MESSAGE_KEYS``), in any case
MESSAGE_COLUMNS = ("log line", "logline", "log message", "event", "text", "raw", "raw message", "content",
                   "message text", "line")
#: non-empty lines a file's kind is told from
SNIFFED = 5


def _sniff(head: list[str]) -> tuple[str, str | None]:
    """A file's kind from its first non-empty lines - json-lines, json-array, csv or lines - and,
    for CSV, the column holding the message: one named so (``MESSAGE_KEYS``, ``MESSAGE_COLUMNS``),
    else the one whose first value reads as a log line or is the longest."""
    stripped = head[0].lstrip("\ufeff").strip()
    if stripped.startswith("{"):
        return "json-lines", None
    if stripped.startswith("["):
        try:                                            # "[2024-...] INFO" is a Kafka line, not JSON
            if KAFKA.match(stripped) or ISO.match(stripped.lstrip("[")) or STAMPED.match(stripped):
                return "lines", None
        except re.error:
            pass
        return ("json-array" if stripped in ("[", "[{") or stripped.startswith(("[{", "[ {")) else "lines"), None
    if parse_line(stripped) is not None:
        return "lines", None
    try:
        rows = list(csv.reader(io.StringIO("\n".join(line.lstrip("\ufeff") for line in head))))
    except csv.Error:
        return "lines", None
    header = [h.strip() for h in rows[0]] if rows else []
    if len(header) < 2 or any(len(h) > 60 or not h for h in header):
        return "lines", None
    names = {h.lower(): h for h in header}
    for key in (*MESSAGE_KEYS, *MESSAGE_COLUMNS):
        if key.lower() in names:
            return "csv", names[key.lower()]
    data = [row for row in rows[1:] if len(row) == len(header)]
    if not data:
        return "lines", None
    first = data[0]
    laid = [i for i, value in enumerate(first) if parse_line(value.strip()) is not None]
    column = laid[0] if laid else max(range(len(first)), key=lambda i: len(first[i]))
    return "csv", header[column]


def check_input(path: str | Path) -> Path:
    """LogInputError (one line) unless ``path`` is a readable file."""
    path = Path(path)
    try:
        if path.is_dir():
            raise LogInputError(f"LOG: {path} is a directory; give a log file (e.g. {path}/server.log)")
        if not path.exists():
            raise LogInputError(f"LOG: {path} does not exist")
        if not path.is_file():
            raise LogInputError(f"LOG: {path} is not a regular file")
        with path.open("rb"):
            pass
    except PermissionError:
        raise LogInputError(f"LOG: {path} cannot be read (permission denied)") from None
    except OSError as exc:
        if isinstance(exc, LogInputError):
            raise
        raise LogInputError(f"LOG: {path} cannot be read ({exc.strerror})") from None
    return path


def read_records(path: str | Path, name: str | None = None,
                 progress: Callable[[int], None] | None = None) -> Iterator[Record]:
    """Every ``Record`` of one log file, in file order (see the module docstring); ``name`` is
    how the file is called in what hwlib writes (default: as given); ``progress`` is called with
    the bytes read as they are."""
    path = check_input(path)
    label = name or str(path)
    with path.open("rb") as stream:
        lines = raw_lines(stream, progress)
        peeked: list[tuple[int, str, str | None]] = []
        for item in lines:
            if item[1].strip() or peeked:
                peeked.append(item)
            if sum(1 for _, text, _ in peeked if text.strip()) >= SNIFFED:
                break
        if not peeked:
            return
        kind, column = _sniff([text for _, text, _ in peeked if text.strip()])
        rest = _chain(peeked, lines)
        if kind == "csv":
            yield from _csv_records(label, rest, column)
        elif kind in ("json-lines", "json-array"):
            yield from _json_records(label, rest)
        else:
            yield from _line_records(label, rest)


def _chain(head: list, tail: Iterator) -> Iterator:
    yield from head
    yield from tail


def _line_records(label: str, lines: Iterator[tuple[int, str, str | None]]) -> Iterator[Record]:
    """Plain log lines: a new record at each line with a layout; a stack trace's lines continue
    the record before them; other lines without a layout are kept as the record's ``wrapped``
    lines in a file whose lines carry a layout, and stand alone (``bare``) in one whose lines
    carry none - ``recognise.assemble`` decides which join. Blank lines end a record."""
    current: Record | None = None
    laid_out = False
    for number, raw, problem in lines:
        binary = problem is not None and problem.startswith("binary")
        text = raw if binary else unmangle(raw)
        if ELISION.fullmatch(text) or LISTING.match(text) or not text.strip():
            if current is not None:
                yield current
            current = None
            if ELISION.fullmatch(text):
                yield Record(label, number, number, raw, text.strip(), problem=problem, elision=True)
            elif text.strip():
                yield Record(label, number, number, raw, text.strip(), problem=problem,
                             listing="a DumpLogSegments (kafka-dump-log) listing: a segment's records, not a line "
                                     "a broker logged")
            continue
        parsed = None if binary else parse_line(text)
        if parsed is not None:
            laid_out = True
            if current is not None:
                yield current
            current = _record(label, number, raw, parsed.message, problem, parsed)
            continue
        if current is not None and not binary and STACK.match(current.own(text)):
            current.end_line = number
            if len(current.continuation) < MAX_CONTINUATION:
                current.continuation.append(current.own(text))
            continue
        if current is not None and laid_out and (problem is None or problem.startswith("cut")) \
                and len(current.wrapped) < MAX_CONTINUATION:
            current.end_line = number
            current.wrapped.append((number, text))
            if problem is not None and problem.startswith("cut"):
                current.cut = True
            continue
        if current is not None:
            yield current
        message, logger = (text, None) if binary else split_logger(text)
        current = _record(label, number, raw, message.strip(), problem, Parsed(message, logger=logger), bare=True)
    if current is not None:
        yield current


#: what a person writes at the end of a message they cut short
ELLIPSIS = ("...", "\u2026", "[...]", "(...)")


def _record(label: str, number: int, raw: str, message: str, problem: str | None, parsed: Parsed,
            bare: bool = False) -> Record:
    """A record of one line; a message ending in an ellipsis, or a cut last line, is cut short."""
    stripped = message.rstrip()
    cut = problem is not None and problem.startswith("cut")
    for mark in ELLIPSIS:
        if stripped.endswith(mark) and len(stripped) > len(mark):
            stripped, cut = stripped[:-len(mark)].rstrip(), True
            break
    return Record(label, number, number, raw, stripped, parsed.timestamp, parsed.level, parsed.logger, parsed.source,
                  problem, bare=bare, cut=cut, until=parsed.until)


def _json_records(label: str, lines: Iterator[tuple[int, str, str | None]]) -> Iterator[Record]:
    """One JSON object per line (a JSON array written one element a line too: its brackets and
    commas are read past)."""
    for number, text, problem in lines:
        stripped = text.strip().rstrip(",")
        if stripped in ("", "[", "]", "[]"):
            continue
        stripped = stripped.lstrip("[").rstrip("]") if stripped.startswith("[{") else stripped
        try:
            obj = json.loads(stripped) if problem is None or not problem.startswith("line too long") else None
        except (ValueError, RecursionError):
            obj = None
        parsed = _from_fields(obj) if isinstance(obj, dict) else None
        if parsed is None:
            yield Record(label, number, number, text, text.strip(), problem=problem or "not a JSON object with a "
                         "message field (message, msg, log, _raw ...)")
            continue
        yield Record(label, number, number, text, parsed.message, parsed.timestamp, parsed.level, parsed.logger,
                     parsed.source, problem)


def _csv_records(label: str, lines: Iterator[tuple[int, str, str | None]], column: str | None = None
                 ) -> Iterator[Record]:
    """CSV with a header; ``column`` holds the message (quoted fields may span lines)."""
    numbers: list[int] = []

    def texts() -> Iterator[str]:
        for number, text, _problem in lines:
            numbers.append(number)
            yield text + "\n"

    reader = csv.reader(texts())
    try:
        header = [h.strip() for h in next(reader)]
    except (StopIteration, csv.Error):
        return
    while True:
        start = len(numbers) + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield Record(label, numbers[-1] if numbers else start, numbers[-1] if numbers else start, "", "",
                         problem=f"CSV: {exc}")
            continue
        first, last = (numbers[start - 1] if start - 1 < len(numbers) else start), (numbers[-1] if numbers else start)
        if not row:
            continue
        fields = dict(zip(header, row, strict=False))
        if column is not None and column in fields:
            others = {k: v for k, v in fields.items() if k.lower() not in MESSAGE_KEYS_LOWER}
            fields = {**others, "message": fields[column]}
        parsed = _from_fields(fields)
        text = ",".join(row)
        if parsed is None:
            yield Record(label, first, last, text, text, problem="CSV row without a message")
            continue
        yield Record(label, first, last, text, parsed.message, parsed.timestamp, parsed.level, parsed.logger,
                     parsed.source)
