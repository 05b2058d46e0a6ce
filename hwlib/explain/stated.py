"""Facts stated rather than logged: observations as YAML, read as lines (--observations) and written (--emit-...).

An incident report often says in prose what no excerpt shows ("broker 2 led in epoch 7 with
its log ending at 2051"). An observations file states such facts in the kinds the log lines
become (``observations.KINDS``), one mapping each::

    # hwlib explain observations
    partition: orders-0
    observations:
      - {kind: leader, broker: 2, epoch: 7, leo: 2051, at: "2024-03-01T10:00:00Z"}
      - {kind: truncate, broker: 1, offset: 2051}

Each fact: ``kind``; ``broker`` (the broker it is about; left out: some broker, to be
inferred); its values, each of its sort (an offset or epoch: an integer >= -1; a broker: an
id; a set of brokers: a list of ids), a value left out is not compared; ``partition`` (else the
file's, else ``--partition``); ``at`` (ISO 8601 or milliseconds since the epoch: orders it
against other logs' lines); ``log`` and ``line`` (where it was read: facts of one log are in
their order, facts of different logs ordered by ``at`` only; default: this file, in its order)
and ``text`` (the line quoted). ``emit`` writes what the logs' lines were understood to say in
this form, each with the releases whose code writes its line (``releases: [first, last]``), so
that reading it back asks the same question.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import yaml

from ..util.files import check_replaceable, write_text_atomically
from ..util.yamlfile import StrictLoader, describe_error
from .formats import Releases, about
from .observations import BROKER_LEVEL, KINDS, observation
from .read import Record, check_input, parse_time
from .recognise import Line
from .spec import PARTITION, ExplainError

#: the first line of an observations file hwlib writes (what ``emit`` may replace)
HEADER = "# hwlib explain observations"
#: the keys a fact may have besides its kind's values
FACT_KEYS = ("kind", "broker", "partition", "at", "log", "line", "text", "releases")
#: an observations file's size, at most (it is read whole)
MAX_BYTES = 16 << 20


def read_stated(path: str | Path, partition: str | None, logs: Iterable[str] = ()) -> list[Line]:
    """The facts of an observations file as recognised lines (one line naming the field when bad;
    read by hwlib's strict YAML loader: no duplicate key, no alias bomb)."""
    source = check_input(path)
    label = source.name
    if source.stat().st_size > MAX_BYTES:
        raise ExplainError(f"observations: {label} is larger than {MAX_BYTES >> 20} MB; state facts, not logs")
    try:
        text = source.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExplainError(f"observations: {label}: not UTF-8 text (at offset {exc.start})") from None
    loader = StrictLoader(text)
    try:
        return _facts(loader, label, partition, {Path(p).name for p in logs})
    except yaml.YAMLError as exc:
        raise ExplainError(f"observations: {label}:{describe_error(exc)}") from None
    except RecursionError:
        raise ExplainError(f"observations: {label}: nested too deep") from None
    finally:
        loader.dispose()


def _facts(loader: StrictLoader, label: str, partition: str | None, given_logs: set[str]) -> list[Line]:
    root = loader.get_single_node()
    if root is None:
        return []
    default_partition = partition
    items = root
    if isinstance(root, yaml.MappingNode):
        top = {key.value: value for key, value in root.value}
        unknown = sorted(set(map(str, top)) - {"partition", "observations"})
        if unknown:
            raise ExplainError(f"observations: {label}: unknown key {unknown[0]!r}; allowed: partition, observations")
        if "partition" in top:
            default_partition = _partition(loader.construct_document(top["partition"]), "partition", label)
        items = top.get("observations")
        if items is None:
            raise ExplainError(f"observations: {label}: give the facts as a list under 'observations:'")
    if not isinstance(items, yaml.SequenceNode):
        raise ExplainError(f"observations: {label}: the facts must be a list of mappings")
    return [_line(loader.construct_document(node), f"{label}: observations[{number}]", label,
                  node.start_mark.line + 1, default_partition, given_logs)
            for number, node in enumerate(items.value)]


def _line(fact: object, where: str, label: str, yaml_line: int, partition: str | None,
          given_logs: set[str]) -> Line:
    if not isinstance(fact, dict):
        raise ExplainError(f"observations: {where}: a fact is a mapping with a kind, e.g. "
                           "{kind: truncate, broker: 1, offset: 2051}")
    kind = fact.get("kind")
    if kind not in KINDS:
        raise ExplainError(f"observations: {where}.kind: {kind!r}; allowed: {', '.join(KINDS)}")
    sorts = KINDS[kind][1]
    unknown = sorted(set(map(str, fact)) - set(FACT_KEYS) - set(sorts))
    if unknown:
        allowed = ", ".join([*sorts, *FACT_KEYS[1:]])
        raise ExplainError(f"observations: {where}.{unknown[0]}: not a value of {kind}; allowed: {allowed}")
    values = {name: _value(fact[name], sort, f"{where}.{name}") for name, sort in sorts.items()
              if fact.get(name) is not None}
    broker = None if fact.get("broker") is None else _broker(fact["broker"], f"{where}.broker")
    named = fact.get("partition", None if kind in BROKER_LEVEL else partition)
    if named is None and kind not in BROKER_LEVEL:
        raise ExplainError(f"observations: {where}.partition: say which partition (here, at the file's top, "
                           "or --partition)")
    if named is not None:
        named = _partition(named, f"{where}.partition", label)
    log = label if fact.get("log") is None else str(fact["log"])
    if log != label and log in given_logs:
        raise ExplainError(f"observations: {where}.log: {log} is also given as a LOG; its facts would "
                           "have no order among its lines - drop one of them")
    line = fact.get("line", yaml_line)
    if isinstance(line, bool) or not isinstance(line, int) or line < 1:
        raise ExplainError(f"observations: {where}.line: a line number >= 1, got {line!r}")
    at = None if fact.get("at") is None else _time(fact["at"], f"{where}.at")
    seen = observation(kind, broker, **values)
    text = str(fact.get("text") or seen.describe())
    releases = None if fact.get("releases") is None else Releases.of([_releases(fact["releases"], f"{where}.releases")])
    record = Record(log, line, line, text, text, timestamp=at)
    return Line(record, "recognised", "", None, named, broker, seen, releases=releases)


def _releases(value: object, where: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``[first, last]``: the releases whose code writes the fact's line, as version tuples."""
    versions = value if isinstance(value, list) and len(value) == 2 else None
    parsed = [tuple(int(part) for part in str(v).split(".")) for v in versions
              if all(part.isdigit() for part in str(v).split("."))] if versions else []
    if len(parsed) != 2 or parsed[0] > parsed[1]:
        raise ExplainError(f"observations: {where}: [first, last] releases, e.g. [0.10.2.0, 0.10.2.2], got {value!r}")
    return parsed[0], parsed[1]


def _value(value: object, sort: str, where: str) -> object:
    if sort == "broker":
        return _broker(value, where)
    if sort == "brokers":
        if not isinstance(value, list):
            raise ExplainError(f"observations: {where}: a list of broker ids, e.g. [1, 2], got {value!r}")
        return tuple(_broker(each, where) for each in value)
    if isinstance(value, bool) or not isinstance(value, int) or value < -1:
        raise ExplainError(f"observations: {where}: an {sort}, an integer >= -1, got {value!r}")
    return value


def _broker(value: object, where: str) -> str:
    if isinstance(value, bool) or not str(value).isdigit():
        raise ExplainError(f"observations: {where}: a broker id (a number), got {value!r}")
    return str(int(str(value)))


def _partition(value: object, where: str, label: str) -> str:
    if not isinstance(value, str) or not PARTITION.match(value):
        raise ExplainError(f"observations: {label}: {where.split(': ')[-1]}: {value!r} is not a partition as the "
                           "logs write it (text without spaces, e.g. orders-0)")
    return value


def _time(value: object, where: str) -> float:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp() * 1000.0
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    moment = parse_time(str(value))
    if moment is None:
        raise ExplainError(f"observations: {where}: an ISO 8601 time or milliseconds since the epoch, got {value!r}")
    return moment


# ---------------------------------------------------------------------------------- writing
def fact_of(line: Line) -> dict:
    """A recognised line's observation as a fact of an observations file (where it was read kept)."""
    seen = line.observation
    assert seen is not None
    fact: dict[str, object] = {"kind": seen.kind}
    if seen.broker is not None:
        fact["broker"] = int(seen.broker)
    for name, value in seen.values:
        fact[name] = [int(b) for b in value] if isinstance(value, tuple) else \
            (int(str(value)) if KINDS[seen.kind][1][name] == "broker" else value)
    if line.partition is not None:
        fact["partition"] = line.partition
    record = line.record
    if record.timestamp is not None:
        moment = datetime.fromtimestamp(record.timestamp / 1000.0, tz=UTC)
        fact["at"] = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    span = None if line.releases is None else line.releases.span
    if span is not None:
        fact["releases"] = [".".join(map(str, version)) for version in span]
    fact.update({"log": record.file, "line": record.line, "text": record.text})
    return fact


def emit_target(path: str | Path) -> Path:
    """Where ``emit`` may write (one line naming the field when not: a directory, unwritable, or
    a file hwlib did not write)."""
    return check_replaceable(path, "emit-observations", HEADER, head=len(HEADER))


def emit(lines: Iterable[Line], path: str | Path, partition: str | None = None) -> tuple[Path, int]:
    """Writes the observation of every line about a partition (``partition`` only, where given)
    or a broker's process, in read order, as an observations file (replacing a file there only
    if hwlib wrote it); the path and the count."""
    target = emit_target(path)
    facts = [fact_of(line) for line in lines
             if line.observation is not None
             and (line.observation.kind in BROKER_LEVEL
                  or (line.partition is not None and (partition is None or about(line.partition, partition))))]
    body = yaml.safe_dump({"observations": facts}, sort_keys=False, allow_unicode=True, width=1 << 30,
                          default_flow_style=None)
    text = (f"{HEADER}: what the logs' lines were understood to say ({len(facts)} facts); edit, then give it\n"
            f"# back as hwlib explain --observations {target.name}\n{body}")
    return write_text_atomically(target, text), len(facts)
