"""The log writer: a run of the model rendered as one release's broker logs, from the same format table that reads them.

``write_logs(config, steps, release)`` runs ``steps`` under ``config`` and renders every
observation each step makes (``observations.observe_step``) with the format the release writes
for its kind (``formats.formats_for``; the first of the table where several would do), one
file per broker, in Kafka's default layout ``[%d] %p %m (%c)``. ``Renaming`` turns the model's
values into Kafka-like ones - broker ids, a topic, offsets and epochs through strictly
increasing maps that keep 0 and -1, timestamps - so tests can check that an answer does not
depend on them. There is no real broker here: this is how hwlib's tests get logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..engine.cluster import Cluster
from ..engine.config import ClusterConfig
from ..engine.releases import KRAFT
from ..engine.steps import Step
from .formats import Format, formats_for, offset_metadata, version
from .observations import KINDS, Observation, StepView, observe_step


@dataclass(frozen=True)
class Renaming:
    """How model values become Kafka's: broker ids by replica, the topic and partition, an
    offset o >= 1 as ``offset_base + o * offset_step`` (0 and -1 stay), likewise epochs, and the
    clock (milliseconds since the epoch at step 0, then ``step_ms`` a step)."""

    brokers: dict[str, str] = field(default_factory=lambda: {"A": "1", "B": "2", "C": "3", "D": "4", "E": "5"})
    topic: str = "orders"
    partition: int = 0
    offset_base: int = 0
    offset_step: int = 1
    epoch_base: int = 0
    epoch_step: int = 1
    start_ms: int = 1_700_000_000_000
    step_ms: int = 1000
    log_dir: str = "/var/lib/kafka/data"

    def offset(self, value: int) -> int:
        return value if value <= 0 else self.offset_base + value * self.offset_step

    def epoch(self, value: int) -> int:
        return value if value <= 0 else self.epoch_base + value * self.epoch_step

    @property
    def tp(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass
class WrittenLine:
    """A line the writer made: its file, text, the step (1-based) and observation it renders."""

    file: str
    text: str
    step: int
    observation: Observation
    format: Format


def _stamp(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S,") + f"{ms % 1000:03d}"


def render(fmt: Format, made: Observation, naming: Renaming, writer: str, leader: str | None = None,
           state: tuple[int, int] | None = None) -> str:
    """``made`` (the model's) as ``fmt``'s message, in ``naming``'s values; ``leader``: the
    broker the writer follows (a fetcher's ``leaderId``), where the observation names none;
    ``state``: the writer's (HW, log end) before the step, where the text prints them and the
    observation carries neither (a shrinking ISR's line from 2.2.0, the HW it moved from)."""
    sorts = KINDS[made.kind][1]
    values: dict[str, object] = {"tp": naming.tp, "log": naming.tp, "topic": naming.topic, "dir": naming.log_dir,
                                 "tpb": f"[{naming.topic},{naming.partition}]", "writer": writer, "fetcher": 0,
                                 "count": naming.partition, "entries": 1, "prev_epoch": 0, "prev_offset": 0,
                                 "controller": 0, "controller_epoch": 1, "state": "OfflinePartition",
                                 "to_state": "OnlinePartition", "topic_id": "None", "under": "", "prev_leader": "None",
                                 "partition_epoch": 0, "adding": "", "removing": "", "rest": "", "rest2": "RECOVERED",
                                 "segment": "0:0", "old_hw": naming.offset(0)}
    for name, value in made.values:
        sort = sorts[name]
        if sort == "offset":
            values[name] = naming.offset(int(value))      # type: ignore[call-overload]
        elif sort == "epoch":
            values[name] = naming.epoch(int(value))       # type: ignore[call-overload]
        elif sort == "broker":
            values[name] = naming.brokers[str(value)]
        elif sort == "brokers":
            ids = [naming.brokers[str(r)] for r in value]           # type: ignore[attr-defined]
            values[name] = ",".join(ids)
            if name == "isr":
                values["isr_list"] = ", ".join(ids)
                values["isr_states"] = ", ".join(f"BrokerState(brokerId={i}, brokerEpoch=-1)" for i in ids)
        else:
            values[name] = value
    if state is not None:
        values["old_hw"] = naming.offset(state[0])
        if "leo" in fmt.fields():
            values.setdefault("hw", naming.offset(state[0]))
            values.setdefault("leo", naming.offset(state[1]))
    if "leo" in values:
        values["largest"] = int(values["leo"]) - 1         # type: ignore[call-overload]
    if "hw_meta" in fmt.fields():
        values["hw_meta"] = offset_metadata(int(values.get("hw", values.get("offset", 0))), fmt.releases[0])   # type: ignore[call-overload]
        values["old_hw_meta"] = offset_metadata(int(values["old_hw"]), fmt.releases[0])     # type: ignore[call-overload]
    values.setdefault("hw", values.get("offset", 0))
    values.setdefault("leader_hw", values["hw"])
    values.setdefault("leader", naming.brokers.get(str(leader), "0") if leader is not None else "0")
    return fmt.render(**values)


def written_kinds(release: tuple[int, ...], mode: str | None = None) -> dict[str, Format]:
    """The format a release writes each kind with (the first of the table) - in a cluster of
    ``mode`` (``zookeeper``, ``kraft``; None: either) only its mode's."""
    out: dict[str, Format] = {}
    for fmt in formats_for(release):
        if mode is not None and fmt.mode not in (None, mode):
            continue
        if fmt.kind is not None and fmt.written and fmt.kind not in out:
            out[fmt.kind] = fmt
    return out


def write_lines(config: ClusterConfig, steps: Sequence[Step], release: str,
                naming: Renaming | None = None) -> list[WrittenLine]:
    """Every line the run of ``steps`` under ``config`` gives in ``release``'s logs, in order."""
    naming = naming or Renaming()
    row = config.release_row
    mode = None if row is None else ("kraft" if row.mode == KRAFT else "zookeeper")
    kinds = written_kinds(version(_tag(release)), mode)
    cluster = Cluster(config)
    del cluster.events[:]
    out: list[WrittenLine] = []
    for number, step in enumerate(steps, 1):
        view = StepView.of(cluster)
        states = {r.id: (r.hw, r.leo) for r in cluster.replicas}
        cluster.apply(step)
        made = observe_step(view, cluster, cluster.events)
        del cluster.events[:]
        for seen in made:
            fmt = kinds.get(seen.kind)
            if fmt is None:
                continue
            if seen.broker is None:            # the controller's: its own log
                text = render(fmt, seen, naming, "0")
                out.append(WrittenLine("controller.log", text, number, seen, fmt))
                continue
            writer = naming.brokers[seen.broker]
            leader = view.roles[cluster.by_id[seen.broker].index][1]
            text = render(fmt, seen, naming, writer, leader, states[seen.broker])
            out.append(WrittenLine(f"broker-{writer}.log", text, number, seen, fmt))
    return out


def _tag(release: str) -> str:
    """A release name (``2.0.0``, ``3.6-zk``, ``0.10.2``) as a tag of four or three parts."""
    number = release.split("-")[0]
    parts = number.split(".")
    if parts[0] == "0":
        parts += ["0"] * (4 - len(parts))
    else:
        parts += ["0"] * (3 - len(parts))
    return ".".join(parts)


def write_logs(config: ClusterConfig, steps: Sequence[Step], release: str,
               naming: Renaming | None = None) -> dict[str, str]:
    """The run's logs, file name -> text, each line in Kafka's default layout."""
    naming = naming or Renaming()
    files: dict[str, list[str]] = {}
    clock: dict[int, int] = {}
    for line in write_lines(config, steps, release, naming):
        offset = clock.get(line.step, 0)
        clock[line.step] = offset + 1
        ms = naming.start_ms + line.step * naming.step_ms + offset
        files.setdefault(line.file, []).append(
            f"[{_stamp(ms)}] {line.format.level} {line.text} ({line.format.logger})")
    return {name: "\n".join(lines) + "\n" for name, lines in files.items()}
