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
from dataclasses import replace
from pathlib import Path

from .formats import about, normal_partition
from .observations import BROKER_LEVEL, CONTROLLER_LEVEL, Observation
from .read import read_records
from .recognise import Line, assemble
from .search import Target
from .spec import ExplainSpec
from .stated import read_stated

#: lines kept per file and status beyond the partition's own (the rest are counted)
KEEP_OTHERS = 20_000


def read_lines(spec: ExplainSpec, progress: Callable[[str], None] | None = None
               ) -> tuple[list[Line], dict[str, int], dict[str, int]]:
    """Every line of the logs read, assembled and recognised (``recognise.assemble``), the files
    attributed; lines of other partitions beyond ``KEEP_OTHERS`` per file are counted, not kept.
    Also each file's count of physical lines."""
    named = dict(spec.brokers)
    lines: list[Line] = []
    omitted: dict[str, int] = {}
    physical: dict[str, int] = {}
    names = [Path(p).name for p in spec.logs]
    for path in spec.logs:
        label = Path(path).name if names.count(Path(path).name) == 1 else str(path)
        writers: set[str] = set()
        sources: dict[str, set[str]] = {}
        kept_other = 0
        file_lines: list[Line] = []
        meter = _Meter(label, progress)
        for line in assemble(read_records(path, label, meter)):
            record = line.record
            physical[label] = max(physical.get(label, 0), record.end_line)
            if line.writer is not None:
                writers.add(line.writer)
                if record.source is not None:
                    sources.setdefault(record.source, set()).add(line.writer)
            if spec.partition is not None and line.partition is not None and not about(line.partition,
                                                                                     spec.partition):
                kept_other += 1
                if kept_other > KEEP_OTHERS:
                    omitted["other-partition"] = omitted.get("other-partition", 0) + 1
                    continue
            file_lines.append(line)
        physical[label] = max(physical.get(label, 0), meter.lines)
        own = named.get(path) or named.get(label) or (next(iter(writers)) if len(writers) == 1 else None)
        lines += [_attributed(line, own, sources) for line in file_lines]
    for path in spec.observations:
        lines += read_stated(path, spec.partition, spec.logs)
    return lines, omitted, physical


def _attributed(line: Line, own: str | None, sources: dict[str, set[str]]) -> Line:
    """``line`` with the broker of its file (``own``) or of its container, where the line names
    none itself and its kind is a replica's (a controller's line names no broker of the partition)."""
    if line.observation is None or line.observation.broker is not None or line.observation.kind in CONTROLLER_LEVEL:
        return line
    who = own
    source = line.record.source
    if who is None and source is not None and len(sources.get(source, ())) == 1:
        who = next(iter(sources[source]))
    if who is None:
        return line
    return replace(line, writer=who, observation=Observation(line.observation.kind, who, line.observation.values))


class _Meter:
    """Called with the bytes read as a file is read: says how far it got every 64 MB."""

    STEP = 1 << 26

    def __init__(self, label: str, progress: Callable[[str], None] | None) -> None:
        self.label, self.progress, self.read, self.lines = label, progress, 0, 0

    def __call__(self, size: int) -> None:
        self.lines += 1
        before, self.read = self.read, self.read + size
        if self.progress is not None and self.read // self.STEP > before // self.STEP:
            self.progress(f"{self.label}: {self.read / (1 << 20):,.0f} MB read")


def partitions_of(lines: list[Line]) -> dict[str, int]:
    """The partitions the lines name (recognised or not), each with its count of lines, in the
    order first met; a topic named alone (the oldest fatal exit) counts for no partition."""
    out: dict[str, int] = {}
    for line in lines:
        if line.partition is not None and not _topic_only(line):
            name = normal_partition(line.partition)
            out[name] = out.get(name, 0) + 1
    return out


def _topic_only(line: Line) -> bool:
    return line.format is not None and "topic" in line.format.fields() and "tp" not in line.format.fields() \
        and "tpb" not in line.format.fields() and "log" not in line.format.fields()


def to_explain(lines: list[Line]) -> list[str]:
    """The partitions to answer for: those a line states something of the model's about."""
    out: list[str] = []
    for line in lines:
        if (line.observation is not None or line.status == "outside-model") and line.partition is not None \
                and not _topic_only(line) and normal_partition(line.partition) not in out:
            out.append(normal_partition(line.partition))
    return out


def partition_lines(lines: list[Line], partition: str, alone: bool) -> list[int]:
    """The lines (by index) about ``partition`` (or its topic alone), the broker-level ones, and
    - where ``partition`` is the only one the lines name (``alone``) - the lines of a partition's
    kind that name none (a message pasted without the ident that named it)."""
    own: list[int] = []
    for index, line in enumerate(lines):
        if line.partition is not None:
            if about(line.partition, partition):
                own.append(index)
            continue
        kind = None if line.observation is None else line.observation.kind
        if kind in BROKER_LEVEL or (alone and (kind is not None or line.status == "outside-model")):
            own.append(index)
    return own


def observed_of(lines: list[Line], refs: list[int]) -> list[tuple[Observation, tuple[int, ...]]]:
    """The observations to explain among ``refs``, in file order per file: repeated identical
    lines (the same file, one after another) are one observation, seen at least once."""
    out: list[tuple[Observation, tuple[int, ...]]] = []
    last: dict[str, tuple[str, int]] = {}
    for ref in refs:
        line = lines[ref]
        if line.observation is None:
            continue
        key = line.record.file
        previous = last.get(key)
        if previous is not None and previous[0] == line.record.message:
            seen, shown = out[previous[1]]
            out[previous[1]] = (seen, (*shown, ref))
            continue
        last[key] = (line.record.message, len(out))
        out.append((line.observation, (ref,)))
    return out


def target_of(lines: list[Line], observed: list[tuple[Observation, tuple[int, ...]]], skew_ms: float) -> Target:
    files: list[str] = []
    chain_of, stamps = [], []
    for _, refs in observed:
        record = lines[refs[0]].record
        if record.file not in files:
            files.append(record.file)
        chain_of.append(files.index(record.file))
        stamps.append(record.timestamp)
    return Target.of([o for o, _ in observed], chain_of, stamps, skew_ms)
