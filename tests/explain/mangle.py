"""A paste mangler: a broker log in Kafka's layout made into the shapes people paste (for the property tests).

Each shape takes the files of one incident (name -> text, Kafka's ``[%d] %p %m (%c)`` layout,
as ``hwlib.explain.write_logs`` makes them) and returns the files as someone would paste them.
The shapes were each seen on a real paste (tests/explain/real/): prefix parts dropped, lines
wrapped at a column, a cut last line, brackets mangled by a code page, names redacted, an
export as CSV or JSON with other column names, container and time-range prefixes, ``...``
elisions, another partition's lines interleaved. None changes what a line says.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
from collections.abc import Callable

Files = dict[str, str]

#: Kafka's default layout: [timestamp] LEVEL message (logger)
LAYOUT = re.compile(r"^\[(?P<ts>[^\]]+)\] (?P<level>[A-Z]+) (?P<msg>.*) \((?P<logger>[\w.$]+)\)$")


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _join(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _parts(line: str) -> re.Match:
    match = LAYOUT.match(line)
    assert match is not None, line
    return match


def level_and_logger_dropped(files: Files, rng: random.Random) -> Files:
    """``[ts] message``: the level and the logger left out (a copy from a log viewer)."""
    return {name: _join([f"[{(m := _parts(line))['ts']}] {m['msg']}" for line in _lines(text)])
            for name, text in files.items()}


def wrapped(files: Files, rng: random.Random) -> Files:
    """Every line longer than a column (80 - 160) cut there onto the next line, as a terminal or
    a page wraps it: the continuation carries no timestamp."""
    width = rng.randint(80, 160)
    out = {}
    for name, text in files.items():
        lines = []
        for line in _lines(text):
            while len(line) > width:
                lines.append(line[:width])
                line = line[width:]
            lines.append(line)
        out[name] = _join(lines)
    return out


def cut_last_line(files: Files, rng: random.Random) -> Files:
    """The last line of one file cut short past its message's first words (a paste that ended
    early), without its newline."""
    name = rng.choice(sorted(files))
    lines = _lines(files[name])
    last = lines[-1]
    message = _parts(last)["msg"]
    keep = last.index(message) + max(40, len(message) * 3 // 4)
    out = dict(files)
    out[name] = "\n".join(lines[:-1] + [last[:keep]])
    return out


def brackets_mangled(files: Files, rng: random.Random) -> Files:
    """Square brackets read through an old code page (ISO 646-SE): ``[`` as ``Ä``, ``]`` as ``Å``."""
    return {name: text.replace("[", "\u00c4").replace("]", "\u00c5") for name, text in files.items()}


def redacted(files: Files, rng: random.Random, topic: str = "orders") -> Files:
    """The topic's name redacted, in both of Kafka's partition forms."""
    mask = "X" * rng.randint(1, 8)
    return {name: text.replace(f"{topic}-", f"{mask}-").replace(f"[{topic},", f"[{mask},")
            for name, text in files.items()}


def csv_export(files: Files, rng: random.Random) -> Files:
    """Each file exported from a log search as CSV, with column names of its own and the message
    column somewhere among them."""
    out = {}
    for name, text in files.items():
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["Time", "Host", "Severity", "Log Line"])
        for line in _lines(text):
            m = _parts(line)
            writer.writerow([m["ts"], name.removesuffix(".log"), m["level"], line])
        out[name.removesuffix(".log") + ".csv"] = buffer.getvalue()
    return out


def json_export(files: Files, rng: random.Random) -> Files:
    """Each file exported as one JSON object per line: the message alone under ``msg``, its time,
    level and logger beside it."""
    out = {}
    for name, text in files.items():
        rows = []
        for line in _lines(text):
            m = _parts(line)
            rows.append(json.dumps({"ts": m["ts"].replace(",", ".").replace(" ", "T") + "Z", "severity": m["level"],
                                    "logger_name": m["logger"], "msg": m["msg"]}))
        out[name.removesuffix(".log") + ".json"] = _join(rows)
    return out


def container_prefixed(files: Files, rng: random.Random) -> Files:
    """``docker compose logs``: every broker's lines in one stream, in time order, each behind
    its container's name padded to a column."""
    tagged = []
    for name, text in files.items():
        container = name.removesuffix(".log")
        for line in _lines(text):
            tagged.append((_parts(line)["ts"], container, line))
    width = max(len(c) for _, c, _ in tagged) + 2
    return {"compose.log": _join([f"{c:<{width}}| {line}" for _, c, line in sorted(tagged, key=lambda t: t[0])])}


def time_ranges(files: Files, rng: random.Random) -> Files:
    """A line that repeated, written once with the range of its times (``[t1]~[t2] ...``)."""
    out = {}
    for name, text in files.items():
        lines = []
        for line in _lines(text):
            m = _parts(line)
            lines.append(f"[{m['ts']}]~[{m['ts']}] {m['level']} {m['msg']} ({m['logger']})")
        out[name] = _join(lines)
    return out


def elided(files: Files, rng: random.Random) -> Files:
    """``...`` put between lines, as people mark lines they left out."""
    out = {}
    for name, text in files.items():
        lines = []
        for line in _lines(text):
            lines.append(line)
            if rng.random() < 0.5:
                lines.append("...")
        out[name] = _join(lines)
    return out


def interleaved(files: Files, rng: random.Random, other: Files | None = None, topic: str = "payments") -> Files:
    """Lines of another partition's incident (``other``: its files; its lines naming ``topic``
    only - a broker's start or stop would say something of this incident too) interleaved with
    these, file by file."""
    assert other is not None
    out = {}
    for name, text in files.items():
        mine = _lines(text)
        theirs = [line for line in _lines(other.get(name, "")) if topic in line]
        lines = []
        while mine or theirs:
            source = mine if mine and (not theirs or rng.random() < 0.5) else theirs
            lines.append(source.pop(0))
        out[name] = _join(lines)
    return out


#: every shape, by name
SHAPES: dict[str, Callable[..., Files]] = {
    "level-and-logger-dropped": level_and_logger_dropped, "wrapped": wrapped, "cut-last-line": cut_last_line,
    "brackets-mangled": brackets_mangled, "redacted": redacted, "csv-export": csv_export, "json-export": json_export,
    "container-prefixed": container_prefixed, "time-ranges": time_ranges, "elided": elided,
    "interleaved": interleaved,
}
