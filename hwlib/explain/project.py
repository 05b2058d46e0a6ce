"""From lines to observations: each file attributed to its broker, projected onto one partition, in order.

``read_lines`` reads and recognises every line (``read``, ``recognise``) and attributes each file -
or each container within it - to the broker its lines name (``--broker FILE=ID`` says it outright),
and adds the facts of observations files (``stated``); ``partition_lines`` keeps one partition's
lines and the broker-level ones (a process that started or shut down holds for every partition it
has); ``observed_of`` turns them into the observations to explain (the same line repeated is one,
seen at least once) and ``target_of`` into the search's ``Target``: a file is a chain, timestamps
order the chains.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .observations import BROKER_LEVEL, CONTROLLER_LEVEL, Observation
from .read import read_records
from .recognise import Line, recognise
from .search import Target
from .spec import ExplainSpec
from .stated import read_stated

#: lines kept per file and status beyond the partition's own (the rest are counted)
KEEP_OTHERS = 200


def read_lines(spec: ExplainSpec, progress: Callable[[str], None] | None = None) -> tuple[list[Line], dict[str, int]]:
    """Every line of the logs recognised, the files attributed; lines of other partitions beyond
    ``KEEP_OTHERS`` per file are counted, not kept."""
    named = dict(spec.brokers)
    lines: list[Line] = []
    omitted: dict[str, int] = {}
    names = [Path(p).name for p in spec.logs]
    for path in spec.logs:
        label = Path(path).name if names.count(Path(path).name) == 1 else str(path)
        writers: set[str] = set()
        sources: dict[str, set[str]] = {}
        kept_other = 0
        file_lines: list[Line] = []
        for record in read_records(path, label, _Meter(label, progress)):
            line = recognise(record)
            if line.writer is not None:
                writers.add(line.writer)
                if record.source is not None:
                    sources.setdefault(record.source, set()).add(line.writer)
            if spec.partition is not None and line.partition is not None and not _about(line.partition,
                                                                                      spec.partition):
                line.status, line.reason = "other-partition", f"about {line.partition}"
                kept_other += 1
                if kept_other > KEEP_OTHERS:
                    omitted["other-partition"] = omitted.get("other-partition", 0) + 1
                    continue
            file_lines.append(line)
        own = named.get(path) or named.get(label) or (next(iter(writers)) if len(writers) == 1 else None)
        for line in file_lines:
            if line.observation is None or line.observation.broker is not None \
                    or line.observation.kind in CONTROLLER_LEVEL:
                continue
            who = own
            source = line.record.source
            if who is None and source is not None and len(sources.get(source, ())) == 1:
                who = next(iter(sources[source]))
            if who is not None:
                line.writer = who
                line.observation = Observation(line.observation.kind, who, line.observation.values)
        lines += file_lines
    for path in spec.observations:
        lines += read_stated(path, spec.partition, spec.logs)
    return lines, omitted


class _Meter:
    """Called with the bytes read as a file is read: says how far it got every 64 MB."""

    STEP = 1 << 26

    def __init__(self, label: str, progress: Callable[[str], None] | None) -> None:
        self.label, self.progress, self.read = label, progress, 0

    def __call__(self, size: int) -> None:
        before, self.read = self.read, self.read + size
        if self.progress is not None and self.read // self.STEP > before // self.STEP:
            self.progress(f"{self.label}: {self.read / (1 << 20):,.0f} MB read")


def _about(named: str, partition: str) -> bool:
    """Whether a line naming ``named`` (a partition, or a topic alone) is about ``partition``."""
    return named == partition or named == partition.rsplit("-", 1)[0]


def partitions_of(lines: list[Line]) -> list[str]:
    """The partitions the recognised lines are about, in the order first met."""
    out: list[str] = []
    for line in lines:
        if line.observation is not None and line.partition is not None and line.partition[-1:].isdigit() \
                and "-" in line.partition and line.partition not in out:
            out.append(line.partition)
    return out


def partition_lines(lines: list[Line], partition: str) -> list[Line]:
    """The lines about ``partition`` (or its topic alone), and the broker-level ones."""
    own: list[Line] = []
    for line in lines:
        if line.status == "other-partition":
            continue
        if line.partition is not None and not _about(line.partition, partition):
            continue
        if line.partition is None and line.observation is not None and line.observation.kind not in BROKER_LEVEL:
            continue
        own.append(line)
    return own


def observed_of(lines: list[Line]) -> list[tuple[Observation, list[Line]]]:
    """The observations to explain, in file order per file: repeated identical lines (the same
    file, one after another) are one observation, seen at least once."""
    out: list[tuple[Observation, list[Line]]] = []
    last: dict[str, tuple[str, int]] = {}
    for line in lines:
        if line.observation is None:
            continue
        key = line.record.file
        previous = last.get(key)
        if previous is not None and previous[0] == line.record.message:
            out[previous[1]][1].append(line)
            continue
        last[key] = (line.record.message, len(out))
        out.append((line.observation, [line]))
    return out


def target_of(observed: list[tuple[Observation, list[Line]]], skew_ms: float) -> Target:
    files: list[str] = []
    chain_of, stamps = [], []
    for _, lines in observed:
        record = lines[0].record
        if record.file not in files:
            files.append(record.file)
        chain_of.append(files.index(record.file))
        stamps.append(record.timestamp)
    return Target.of([o for o, _ in observed], chain_of, stamps, skew_ms)
