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
from dataclasses import dataclass, field
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


# --------------------------------------------------------------------------- line layouts
_TS = r"(?P<ts>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?)"
_LEVEL = r"(?P<level>TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE)"
#: Kafka's ``[%d] %p %m (%c)``: the logger is the last parenthesised word
KAFKA = re.compile(r"\[" + _TS + r"\]\s++" + _LEVEL + r"\s++(?P<msg>.*)")
#: ISO-8601 first, an optional [thread], the level
ISO = re.compile(_TS + r"\s++(?:\[(?P<thread>[^\]]{0,200})\]\s++)?" + _LEVEL + r"\s*+(?::\s*+)?(?P<msg>.*)")
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


def parse_line(text: str, source: str | None = None, timestamp: float | None = None) -> Parsed | None:
    """The layout of one line (prefixes stripped): a ``Parsed`` when it starts an event, None
    when it has no timestamp and no level - a continuation, or a bare message (the caller
    decides which)."""
    match = COMPOSE.fullmatch(text)
    if match is not None and (RFC3339.match(match["rest"]) or KAFKA.match(match["rest"])
                              or ISO.match(match["rest"]) or match["rest"].startswith("[")):
        source, text = match["source"], match["rest"]
    match = RFC3339.fullmatch(text)
    if match is not None:
        timestamp = parse_time(match["ts"]) if timestamp is None else timestamp
        text = match["rest"]
    for layout in (KAFKA, ISO, LEVEL_FIRST):
        match = layout.fullmatch(text)
        if match is None:
            continue
        message = match["msg"]
        logger = None
        found = LOGGER.search(message)
        if found is not None:
            logger, message = found["logger"], message[:found.start()]
        stamp = parse_time(match["ts"]) if "ts" in layout.groupindex else None
        level = match["level"]
        return Parsed(message.strip(), stamp if stamp is not None else timestamp,
                      "WARN" if level == "WARNING" else level, logger, source)
    if timestamp is not None:
        found = LOGGER.search(text)
        if found is not None:
            return Parsed(text[:found.start()].strip(), timestamp, None, found["logger"], source)
        return Parsed(text.strip(), timestamp, None, None, source)
    return None


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
SOURCE_KEYS = ("host", "hostname", "container", "container_name", "pod", "pod_name", "kubernetes.pod_name",
               "source", "instance", "broker")


def _field(obj: dict, keys: tuple[str, ...]) -> object:
    for key in keys:
        if key in obj and obj[key] not in (None, ""):
            return obj[key]
        head, _, tail = key.partition(".")
        if tail and isinstance(obj.get(head), dict) and obj[head].get(tail) not in (None, ""):
            return obj[head][tail]
    return None


def _from_fields(obj: dict) -> Parsed | None:
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


def _sniff(first: str) -> str:
    """A file's kind from its first non-empty line: json-lines, json-array, csv or lines."""
    stripped = first.lstrip("\ufeff").strip()
    if stripped.startswith("{"):
        return "json-lines"
    if stripped.startswith("["):
        try:                                            # "[2024-...] INFO" is a Kafka line, not JSON
            if KAFKA.match(stripped) or ISO.match(stripped.lstrip("[")):
                return "lines"
        except re.error:
            pass
        return "json-array" if stripped in ("[", "[{") or stripped.startswith(("[{", "[ {")) else "lines"
    try:
        header = next(csv.reader([stripped]))
    except (csv.Error, StopIteration):
        return "lines"
    names = {h.strip().lower() for h in header}
    if len(header) >= 2 and names & {k.lower() for k in MESSAGE_KEYS}:
        return "csv"
    return "lines"


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
        first: tuple[int, str, str | None] | None = None
        for item in lines:
            if item[1].strip():
                first = item
                break
        if first is None:
            return
        kind = _sniff(first[1])
        rest = _chain([first], lines)
        if kind == "csv":
            yield from _csv_records(label, rest)
        elif kind in ("json-lines", "json-array"):
            yield from _json_records(label, rest)
        else:
            yield from _line_records(label, rest)


def _chain(head: list, tail: Iterator) -> Iterator:
    yield from head
    yield from tail


def _line_records(label: str, lines: Iterator[tuple[int, str, str | None]]) -> Iterator[Record]:
    """Plain log lines: a new record at each line with a layout; others continue the last one
    (a stack frame as continuation, else joined to its message), or - before any record, or in a
    file whose lines carry no layout at all - stand alone."""
    current: Record | None = None
    laid_out = False
    for number, text, problem in lines:
        if ELISION.fullmatch(text):
            if current is not None:
                yield current
            current = None
            yield Record(label, number, number, text, text.strip(), problem=problem, elision=True)
            continue
        parsed = parse_line(text) if problem is None or not problem.startswith("binary") else None
        if parsed is not None:
            laid_out = True
            if current is not None:
                yield current
            current = Record(label, number, number, text, parsed.message, parsed.timestamp, parsed.level,
                             parsed.logger, parsed.source, problem)
            continue
        if current is not None and problem is None and (laid_out or STACK.match(text)) and text.strip():
            current.end_line = number
            if STACK.match(text):
                if len(current.continuation) < MAX_CONTINUATION:
                    current.continuation.append(text)
            else:
                current.message = f"{current.message} {text.strip()}"
                found = LOGGER.search(current.message)
                if found is not None and current.logger is None:
                    current.logger, current.message = found["logger"], current.message[:found.start()].strip()
            continue
        if current is not None:
            yield current
            current = None
        if not text.strip():
            continue
        found = LOGGER.search(text)
        logger = found["logger"] if found is not None and problem is None else None
        message = text[:found.start()].strip() if logger is not None and found is not None else text.strip()
        yield Record(label, number, number, text, message, None, None, logger, None, problem)
    if current is not None:
        yield current


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


def _csv_records(label: str, lines: Iterator[tuple[int, str, str | None]]) -> Iterator[Record]:
    """CSV with a header naming the message column (quoted fields may span lines)."""
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
        parsed = _from_fields(dict(zip(header, row, strict=False)))
        text = ",".join(row)
        if parsed is None:
            yield Record(label, first, last, text, text, problem="CSV row without a message")
            continue
        yield Record(label, first, last, text, parsed.message, parsed.timestamp, parsed.level, parsed.logger,
                     parsed.source)
