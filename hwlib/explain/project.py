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

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
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
    """Whether the line names a topic alone (the oldest fatal exit's ``{topic}``)."""
    fmt = line.format
    return fmt is not None and not fmt.generic and "topic" in fmt.fields() and not {"tp", "tpb", "log"} & set(
        fmt.fields())


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


#: the kinds of line that make a leader epoch (the controller's election, the leader's start), and
#: those that name an epoch a broker can only have learnt after it was made
MAKES_EPOCH = ("elected", "leader")
NAMES_EPOCH = ("follower", "fenced", "unknown_epoch", "epoch_entry", "leader", "elected")


@dataclass(frozen=True)
class Ordered:
    """The observations in the order the search takes them: each one's chain (a broker's lines
    in one file), its timestamp, the skew allowed between two chains whose clocks disagree with
    what their lines say, and what the reading did (said in the answer)."""

    observed: list[tuple[Observation, tuple[int, ...]]]
    chain_of: list[int]
    stamps: list[float | None]
    pair_skew: dict[tuple[int, int], float]
    #: pairs (i, j): observation i comes after observation j, by what they say
    after: list[tuple[int, int]]
    notes: tuple[str, ...]


def ordered(lines: Sequence[Line], observed: list[tuple[Observation, tuple[int, ...]]]) -> Ordered:
    """The observations in chains - one per file, or per broker in a file holding several
    brokers' lines - each chain in time order where its timestamps say another order than the
    file's (an unsorted paste), and the skew two chains need where a line of one names a leader
    epoch stamped before the line of the other that made it (a broker's clock behind: lines are
    then ordered by what they say, not by their stamps)."""
    notes: list[str] = []
    writers: dict[str, set[str]] = {}
    for seen, refs in observed:
        if seen.broker is not None:
            writers.setdefault(lines[refs[0]].record.file, set()).add(seen.broker)
    keys: list[tuple[str, str | None]] = []
    chain_keys = []
    for seen, refs in observed:
        file = lines[refs[0]].record.file
        key = (file, seen.broker if len(writers.get(file, ())) > 1 else None)
        if key not in keys:
            keys.append(key)
        chain_keys.append(keys.index(key))
    stamps = [lines[refs[0]].record.timestamp for _, refs in observed]
    order = list(range(len(observed)))
    for chain in range(len(keys)):
        members = [i for i in order if chain_keys[i] == chain]
        known = [(stamp, i) for i in members if (stamp := stamps[i]) is not None]
        back = next((i for (a, i), (b, _) in itertools.pairwise(known) if b < a), None)
        if back is None:
            continue
        file, broker = keys[chain]
        line = lines[observed[back][1][0]].record
        notes.append(f"the timestamps of {file}{f' (broker {broker})' if broker else ''} go back after line "
                     f"{line.line}: its lines are taken in time order, not in the order of the file")
        sorted_members = sorted(members, key=lambda i: (stamps[i] is None, stamps[i] or 0.0, i))
        slots = sorted(order.index(i) for i in members)
        for slot, i in zip(slots, sorted_members, strict=True):
            order[slot] = i
    observed = [observed[i] for i in order]
    chain_of = [chain_keys[i] for i in order]
    stamps = [stamps[i] for i in order]
    pair_skew, after, said = _clock_skew(observed, chain_of, stamps, keys)
    return Ordered(observed, chain_of, stamps, pair_skew, after, tuple(notes + said))


def _clock_skew(observed: list[tuple[Observation, tuple[int, ...]]], chain_of: list[int], stamps: list[float | None],
                keys: list[tuple[str, str | None]]
                ) -> tuple[dict[tuple[int, int], float], list[tuple[int, int]], list[str]]:
    """The chains whose clocks disagree with what their lines say - a line stamped before a
    line of another chain it must follow (``_follows``) - and how they are ordered instead: not
    by time against the other chains (by how much the clock is off nothing says but a lower
    bound), only by what the lines say (the pairs, kept as ``after``). The chain of the line
    stamped too early is the one whose clock is off, unless the other chain's lines are early
    against more chains. The skews, the pairs, what was done in words."""
    pairs = [(i, j) for i, j in _follows(observed, stamps) if chain_of[i] != chain_of[j]]
    broken = [(i, j) for i, j in pairs if stamps[i] < stamps[j]]                   # type: ignore[operator]
    if not broken:
        return {}, [], []
    blamed: dict[int, set[int]] = {}
    for i, j in broken:
        blamed.setdefault(chain_of[i], set()).add(chain_of[j])
    off: dict[int, float] = {}
    for i, j in broken:
        early, other = chain_of[i], chain_of[j]
        chain = other if len(blamed.get(other, ())) > len(blamed[early]) else early
        off[chain] = max(off.get(chain, 0.0), stamps[j] - stamps[i])               # type: ignore[operator]
    skew = {pair: math.inf for chain in off for other in range(len(keys)) if other != chain
            for pair in ((chain, other), (other, chain))}
    said = [f"the clock of {_chain_name(keys[chain])} disagrees with what its lines say by at least {gap / 1000.0:,.1f}"
            f" s (a line stamped before one it must follow): its lines are ordered against the other files' by what "
            f"they say, not by their timestamps" for chain, gap in sorted(off.items())]
    return skew, pairs, said


def _follows(observed: list[tuple[Observation, tuple[int, ...]]], stamps: list[float | None]
             ) -> list[tuple[int, int]]:
    """Pairs (i, j): observation i can only come after observation j, by what they say - a
    leader epoch is named only once it is made (``MAKES_EPOCH``: the first line making it); a
    fetch fenced in epoch e comes after a later epoch was made; a follower's HW h comes after
    the leader's HW reached h (the first line saying so)."""
    made: dict[int, int] = {}
    leader_hw: list[tuple[int, int]] = []
    for i, (seen, _) in enumerate(observed):
        if stamps[i] is None:
            continue
        epoch, hw = seen.value("epoch"), seen.value("hw")
        if seen.kind in MAKES_EPOCH and isinstance(epoch, int):
            if epoch not in made or stamps[i] < stamps[made[epoch]]:                # type: ignore[operator]
                made[epoch] = i
        if seen.kind == "leader_hw" and isinstance(hw, int):
            leader_hw.append((hw, i))
    out = []
    for i, (seen, _) in enumerate(observed):
        if stamps[i] is None:
            continue
        epoch, hw = seen.value("epoch"), seen.value("hw")
        if seen.kind in NAMES_EPOCH and isinstance(epoch, int) and epoch in made:
            out.append((i, made[epoch]))
        if seen.kind == "fenced" and isinstance(epoch, int):
            later = [e for e in made if e > epoch]
            if later:
                out.append((i, made[min(later)]))
        if seen.kind == "hw" and isinstance(hw, int) and hw > 0:
            reached = [j for value, j in leader_hw if value >= hw]
            if reached:
                out.append((i, min(reached, key=lambda j: stamps[j])))            # type: ignore[arg-type,return-value]
    return out


def _chain_name(key: tuple[str, str | None]) -> str:
    file, broker = key
    return f"{file} (broker {broker})" if broker else file


def target_of(order: Ordered, skew_ms: float) -> Target:
    return Target.of([o for o, _ in order.observed], order.chain_of, order.stamps, skew_ms, order.pair_skew,
                     order.after)
