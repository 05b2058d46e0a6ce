"""Kafka's logging calls as inventoried from its code at every release: each row, its releases and disposition.

``data/explain/kafka-log-calls.csv`` (made by ``tools/kafka_log_inventory.py`` from Kafka's
source at each release tag, 0.9.0.0 to trunk in October 2024, and a 4.1-era ``UnifiedLog.java``)
holds one row per logging call or thrown message of the replication path and range of releases:
its level as the call is written (``THROW`` for an exception's message), logger, class, template
(each value ``{expression}``), the log ident before it, the first and last release. Each row has
a disposition:

- ``format:<id>``: hwlib reads it with the hand-written format ``<id>`` of ``formats`` (the test
  holds the two equal both ways);
- ``informational``: a message about replication that states nothing the model has (the note
  says why); hwlib recognises it and uses none of it;
- ``outside-model``: Kafka did something the model does not have (the note says what): the
  answer stops at such a line;
- ``ignored``: an INFO, DEBUG or TRACE message that says nothing about replication state (the
  note says why); hwlib still recognises it, as informational.

Labels beyond the tags: ``trunk-2024-10`` (the last commit read, before 4.0 branched) is "and
later" (``OPEN``), except for a class the 4.1 tree replaced (``REPLACED``) and the ZooKeeper mode's
(``ZOOKEEPER_ONLY``: gone in 4.0); ``index-*`` is the
4.1-era tree (apache/kafka#19030 moved ``UnifiedLog`` to the storage module in March 2025,
after 4.0 branched: 4.1.0).
"""

from __future__ import annotations

import csv
import functools
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from ..util.paths import builtin_files

Version = tuple[int, ...]

#: "and later": a row still in the last tree read
OPEN: Version = (9, 9, 9)
#: the release a label stands for, beyond the tags
LABELS: dict[str, Version] = {"trunk-2024-10": OPEN}
#: the 4.1-era tree's first release (apache/kafka#19030, merged after 4.0 branched)
INDEX_FIRST: Version = (4, 1, 0)
#: classes the 4.1-era tree replaced (Scala ``kafka.log.UnifiedLog`` -> Java, apache/kafka#19030):
#: their rows still at trunk end at 4.0
REPLACED = {"kafka.log.UnifiedLog": (4, 0, 0)}
#: the ZooKeeper mode's classes, removed in 4.0 (KIP-500; the 4.0.0 release has no ZooKeeper mode): their
#: rows still at trunk in October 2024 end at 3.9
ZOOKEEPER_ONLY = ("kafka.controller.", "kafka.zk.", "kafka.server.KafkaServer", "kafka.server.metadata.ZkMetadataCache",
                  "kafka.server.ZkAdminManager")
ZOOKEEPER_LAST: Version = (3, 9, 1)
#: dispositions besides a format's
DISPOSITIONS = ("informational", "outside-model", "ignored")
#: the release from which Kafka's Scala ``Logging.fatal`` logs at log4j ERROR (with a FATAL marker)
FATAL_AS_ERROR: Version = (1, 1, 0)


def version(label: str) -> Version:
    return tuple(int(p) for p in label.split("."))


@dataclass(frozen=True)
class Call:
    """One inventory row (see the module docstring)."""

    level: str
    logger: str
    cls: str
    function: str
    template: str
    ident: str
    first: str
    last: str
    file: str
    kind: str
    disposition: str
    note: str

    @property
    def releases(self) -> tuple[Version, Version]:
        return self._release(self.first), self._end(self.last)

    def _release(self, label: str) -> Version:
        if label.startswith("index-"):
            return INDEX_FIRST
        return LABELS.get(label) or version(label)

    def _end(self, label: str) -> Version:
        if label.startswith("index-"):
            return OPEN
        if label in LABELS and self.cls in REPLACED:
            return REPLACED[self.cls]
        if label in LABELS and self.cls.startswith(ZOOKEEPER_ONLY):
            return ZOOKEEPER_LAST
        return self._release(label)

    def printed(self) -> list[tuple[str, Version, Version]]:
        """The level log4j prints, per range of releases: a FATAL call prints ERROR from 1.1.0."""
        first, last = self.releases
        if self.level != "FATAL" or last < FATAL_AS_ERROR:
            return [(self.level, first, last)]
        if first >= FATAL_AS_ERROR:
            return [("ERROR", first, last)]
        return [("FATAL", first, (1, 0, 2)), ("ERROR", FATAL_AS_ERROR, last)]

    @property
    def format_id(self) -> str | None:
        return self.disposition.removeprefix("format:") if self.disposition.startswith("format:") else None

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """A message this call can print - its ident (optional) and text, any value in each field."""
        return re.compile(f"(?:{_loose(self.ident)})?{_loose(self.template)}", re.DOTALL)

    def prints(self, message: str) -> bool:
        """Whether ``message`` (a whole message, ident first where it has one) is this call's."""
        return self.pattern.fullmatch(message) is not None


def _loose(template: str) -> str:
    """A template as a pattern: its literal text, any text for each value."""
    return "".join(re.escape(literal) + (".*?" if name is not None else "")
                   for literal, name, _, _ in string.Formatter().parse(template))


@functools.cache
def calls() -> tuple[Call, ...]:
    """Every row of the inventory."""
    path = builtin_files("explain")["kafka-log-calls"]
    with path.open(encoding="utf-8", newline="") as stream:
        return tuple(Call(row["level"], row["logger"], row["class"], row["function"], row["template"], row["ident"],
                          row["first"], row["last"], row["file"], row["kind"], row.get("disposition") or "",
                          row.get("note") or "") for row in csv.DictReader(stream))


def coverage(releases: list[tuple[str, Version]], readable: Callable[[Call], bool]
             ) -> list[tuple[str, int, dict[str, int], int]]:
    """Per release (label, version): the calls its code has (one per level, logger, class and
    template), how many have each disposition (``format`` for hwlib's own formats), and how many
    of them hwlib recognises (``readable(call)``: a format of its own, or one read from here)."""
    out = []
    for label, release in releases:
        seen: dict[tuple[str, str, str, str], Call] = {}
        for call in calls():
            first, last = call.releases
            if first <= release <= last:
                seen.setdefault((call.level, call.logger, call.cls, call.template), call)
        counts: dict[str, int] = {}
        for call in seen.values():
            kind = "format" if call.format_id is not None else (call.disposition or "none")
            counts[kind] = counts.get(kind, 0) + 1
        out.append((label, len(seen), counts, sum(1 for call in seen.values() if readable(call))))
    return out
