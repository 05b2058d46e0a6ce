"""An explain answer's written forms: the JSON object, the scenario ``hwlib run`` replays, the out directory.

``answer_dict`` is the one JSON form (``hwlib explain --json``, ``answer.json``): the verdict,
its sentence (``explain_words``), release, settings, maps, steps, anomalies, the search, and
``lines`` - every physical line of the input with its status in this answer (a line joined into
the record of another says which; a line with no record, blank or an export's punctuation, is
``empty``). ``scenario_of`` turns the explanation's schedule into a ``Scenario`` whose step notes
quote the log lines each step matched (``explanation.yaml``), or - when not explained - the
shortest schedule matching every observation before the one that failed (``prefix.yaml``).
``write_out`` writes them into a directory, each file atomically; a file there with other
content is replaced only if hwlib wrote it (it says so in its first line).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..engine.config import FEATURE_SETTINGS
from ..explain.answer import Answer, ExplainRun, LineVerdict
from ..explain.recognise import Line
from ..explain.spec import ExplainError
from ..scenario import Scenario
from ..util.files import check_directory, write_text_atomically
from .explain_words import sentence

#: the first line of every file ``write_out`` writes (what it may replace)
HEADER = "# written by hwlib explain"


def line_dict(line: Line, verdict: LineVerdict) -> dict:
    record = line.record
    out: dict[str, object] = {"file": record.file, "line": record.line, "text": record.text, "status": verdict.status}
    if record.end_line != record.line:
        out["end_line"] = record.end_line
    if verdict.step is not None:
        out["step"] = verdict.step
    if verdict.reason:
        out["reason"] = verdict.reason
    if line.format is not None:
        out["format"] = line.format.id
    if line.cut:
        out["cut"] = True
    if line.observation is not None:
        out["observation"] = line.observation.describe()
    if line.writer is not None:
        out["broker"] = line.writer
    if line.partition is not None:
        out["partition"] = line.partition
    return out


def physical_lines(answer: Answer, run: ExplainRun) -> Iterator[dict]:
    """Every physical line of every file, in order: a record's first line with its verdict, the
    lines joined into it, and the lines no record holds."""
    by_file: dict[str, list[tuple[Line, LineVerdict]]] = {}
    for line, verdict in run.verdicts(answer):
        by_file.setdefault(line.record.file, []).append((line, verdict))
    for name, items in by_file.items():
        items.sort(key=lambda item: item[0].record.line)
        count = run.physical.get(name)
        at = 1
        for line, verdict in items:
            record = line.record
            if count is not None:
                for number in range(at, record.line):
                    yield {"file": name, "line": number, "status": "empty"}
            yield line_dict(line, verdict)
            for number in range(record.line + 1, record.end_line + 1):
                yield {"file": name, "line": number, "status": "joined", "into": record.line}
            at = max(at, record.end_line + 1)
        if count is not None:
            for number in range(at, count + 1):
                yield {"file": name, "line": number, "status": "empty"}


def answer_dict(answer: Answer, run: ExplainRun) -> dict:
    config = answer.config
    return {
        "verdict": answer.verdict,
        "sentence": sentence(answer, run.lines),
        "partition": answer.partition,
        "release": None if config is None else config.release,
        "rules": answer.rules_label or None,
        "release_range": list(_named(answer.release_range.span)) if answer.release_range else None,
        "release_ranges": [list(_named(r)) for r in answer.release_range.ranges] if answer.release_range else None,
        "protocol": answer.protocol,
        "config": None if config is None else {"acks": config.acks, "min_insync_replicas": config.min_insync_replicas,
                                               "unclean_leader_election": config.unclean_leader_election,
                                               **{key: getattr(config, key) for key, _ in FEATURE_SETTINGS},
                                               "replicas": list(config.replicas)},
        "offset_map": [[real, model] for real, model in answer.maps.offsets],
        "epoch_map": [[real, model] for real, model in answer.maps.epochs],
        "broker_map": {real: model for real, model in answer.maps.brokers},
        "notes": list(answer.notes),
        "partitions_named": dict(answer.partitions) if answer.partitions else None,
        "lines": list(physical_lines(answer, run)),
        "steps": [{"step": n, "do": step.to_obj(), "words": step.describe(), "lines": quoted(answer, run, matched)}
                  for n, (step, matched) in enumerate(answer.steps, 1)],
        "scenario": None if config is None or answer.verdict != "explained" else scenario_of(answer, run).to_dict(),
        "anomalies": [a.as_dict() for a in answer.anomalies],
        "expected_effects": [a.as_dict() for a in answer.expected_effects],
        "failed_at": failed_at(answer, run),
        "search": {} if answer.verdict == "nothing" else answer.search.as_dict(),
    }


def failed_at(answer: Answer, run: ExplainRun) -> dict | None:
    """Where the answer stops, as the JSON says it (None: it does not)."""
    failure = answer.failure
    if failure is None:
        return None
    record = run.lines[failure.line].record
    return {"file": record.file, "line": record.line, "text": record.text, "category": failure.category,
            "needs": failure.needs, "model_can": list(failure.model_can)}


def _named(span: tuple[tuple[int, ...], tuple[int, ...]] | None) -> tuple[str, str]:
    assert span is not None
    return tuple(".".join(map(str, v)) if v[0] < 9 else "later" for v in span)       # type: ignore[return-value]


def run_dict(run: ExplainRun) -> dict:
    """The whole run: one answer per partition, and a summary."""
    answers = [answer_dict(a, run) for a in run.answers]
    if len(answers) == 1:
        out = dict(answers[0])
    else:
        out = {"verdict": _summary_verdict(run), "partitions": answers}
    out["omitted"] = dict(run.omitted)
    out["seconds"] = round(run.seconds, 2)
    out["exit_code"] = run.exit_code
    return out


def _summary_verdict(run: ExplainRun) -> str:
    verdicts = {a.verdict for a in run.answers}
    for verdict in ("inconclusive", "not-explainable", "outside-model"):
        if verdict in verdicts:
            return verdict
    return "explained" if "explained" in verdicts else "nothing"


def quoted(answer: Answer, run: ExplainRun, matched: tuple[int, ...]) -> list[str]:
    """The first line of each observation a step matched, as ``file:line: message``."""
    out = []
    for index in matched:
        record = run.lines[answer.observed[index][1][0]].record
        out.append(f"{record.file}:{record.line}: {record.message}")
    return out


def scenario_of(answer: Answer, run: ExplainRun, prefix: bool = False) -> Scenario:
    """The explanation (or, ``prefix``, the schedule up to the failing line) as a scenario."""
    assert answer.config is not None
    notes: dict[int, str | dict[str, str]] = {}
    for number, (_, matched) in enumerate(answer.steps, 1):
        said = quoted(answer, run, matched)
        if said:
            notes[number] = " | ".join(said)
    what = ("the shortest schedule matching every line before the one that cannot be explained" if prefix
            else "the shortest schedule of hwlib's model that explains the log lines before the first one outside "
                 "it" if answer.verdict == "outside-model"
            else "the shortest schedule of hwlib's model that explains the log lines")
    return Scenario(name=f"explain-{answer.partition}" + ("-prefix" if prefix else ""), config=answer.config,
                    steps=tuple(step for step, _ in answer.steps),
                    description=f"{what} ({sentence(answer, run.lines)})", notes=notes)


def write_out(run: ExplainRun, out: str | Path) -> list[Path]:
    """``answer.json``, and per partition ``explanation.yaml`` (explained, or the lines before
    one outside the model) or ``prefix.yaml`` (not explainable), into ``out`` (one directory
    per partition when there are several)."""
    root = check_directory(out, "out")
    targets = [(root if len(run.answers) == 1 else root / _folder(answer.partition), answer) for answer in run.answers]
    for folder, _ in targets:
        for name in ("answer.json", "explanation.yaml", "prefix.yaml"):
            path = folder / name
            if path.exists() and not _ours(path):
                raise ExplainError(f"out: {path} exists and hwlib explain did not write it; give another directory")
    written = []
    for folder, answer in targets:
        folder.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"written_by": "hwlib explain", **answer_dict(answer, run)}, indent=1, default=str)
        written.append(write_text_atomically(folder / "answer.json", body + "\n"))
        if answer.config is not None and answer.steps:
            name = "explanation.yaml" if answer.explains else "prefix.yaml"
            said = sentence(answer, run.lines)[:200]
            text = f"{HEADER}: {said}\n" + scenario_of(answer, run, name == "prefix.yaml").to_yaml()
            written.append(write_text_atomically(folder / name, text))
    return written


def _folder(partition: str) -> str:
    """A partition's name as a directory name (a redacted name may hold any character)."""
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in partition) or "_"


def _ours(path: Path) -> bool:
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        return False
    return head.startswith(HEADER) or head.lstrip("{ \n").startswith('"written_by": "hwlib explain"')
