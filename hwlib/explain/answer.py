"""An explanation's written forms: the JSON object, the scenario ``hwlib run`` replays, the prefix, the out directory.

``answer_dict`` is the one JSON form (``hwlib explain --json``, ``answer.json``); ``scenario_of``
turns the explanation's schedule into a ``Scenario`` whose step notes quote the log lines each
step matched (``explanation.yaml``), or - when not explained - the shortest schedule matching
every observation before the one that failed (``prefix.yaml``). ``write_out`` writes them into
a directory, each file atomically; a file there with other content is replaced only if hwlib
wrote it (it says so in its first line).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..scenario import Scenario
from ..util.files import check_directory, write_text_atomically
from .driver import Answer, ExplainRun
from .observations import CONTROLLER_LEVEL
from .recognise import Line

#: the first line of every file ``write_out`` writes (what it may replace)
HEADER = "# written by hwlib explain"


def line_dict(line: Line) -> dict:
    record = line.record
    out = {"file": record.file, "line": record.line, "text": record.text, "status": line.status}
    if record.end_line != record.line:
        out["end_line"] = record.end_line
    if line.step is not None:
        out["step"] = line.step
    if line.reason:
        out["reason"] = line.reason
    if line.format is not None:
        out["format"] = line.format.id
    if line.observation is not None:
        out["observation"] = line.observation.describe()
    if line.writer is not None:
        out["broker"] = line.writer
    return out


def status_of(line: Line) -> str:
    """A line's final status: a recognised line the answer did not use is ``informational`` when
    another line explains the same fact, else as the search left it."""
    if line.status == "recognised":
        unattributed = line.observation is not None and line.observation.broker is None \
            and line.observation.kind not in CONTROLLER_LEVEL
        return "unattributed" if unattributed else "informational"
    return line.status


def answer_dict(answer: Answer) -> dict:
    config = answer.config
    for line in answer.lines:
        line.status = status_of(line)
    return {
        "verdict": answer.verdict,
        "sentence": answer.sentence,
        "partition": answer.partition,
        "release": answer.release,
        "rules": answer.rules_label or None,
        "release_range": list(answer.release_range) if answer.release_range else None,
        "protocol": answer.protocol,
        "config": None if config is None else {"acks": config.acks, "min_insync_replicas": config.min_insync_replicas,
                                               "unclean_leader_election": config.unclean_leader_election,
                                               "inter_broker_protocol_version": config.inter_broker_protocol_version,
                                               "metadata_version": config.metadata_version,
                                               "replicas": list(config.replicas)},
        "offset_map": [[real, model] for real, model in answer.maps.offsets],
        "epoch_map": [[real, model] for real, model in answer.maps.epochs],
        "broker_map": {real: model for real, model in answer.maps.brokers},
        "lines": [line_dict(line) for line in answer.lines],
        "steps": [{"step": n, "do": step.to_obj(), "words": step.describe(), "lines": _quoted(answer, matched)}
                  for n, (step, matched) in enumerate(answer.steps, 1)],
        "scenario": None if config is None or answer.verdict != "explained" else scenario_of(answer).to_dict(),
        "anomalies": answer.anomalies,
        "expected_effects": answer.expected_effects,
        "failed_at": answer.failed_at,
        "search": answer.search,
    }


def run_dict(run: ExplainRun) -> dict:
    """The whole run: one answer per partition, and a summary."""
    answers = [answer_dict(a) for a in run.answers]
    if len(answers) == 1:
        out = dict(answers[0])
    else:
        out = {"verdict": _summary_verdict(run), "partitions": answers}
    out["omitted"] = run.omitted
    out["seconds"] = round(run.seconds, 2)
    out["exit_code"] = run.exit_code
    return out


def _summary_verdict(run: ExplainRun) -> str:
    verdicts = {a.verdict for a in run.answers}
    for verdict in ("inconclusive", "not-explainable", "outside-model"):
        if verdict in verdicts:
            return verdict
    return "explained" if "explained" in verdicts else "nothing"


def _quoted(answer: Answer, matched: tuple[int, ...]) -> list[str]:
    out = []
    for index in matched:
        for line in answer.observed[index][1][:1]:
            out.append(f"{line.record.file}:{line.record.line}: {line.record.message}")
    return out


def scenario_of(answer: Answer, prefix: bool = False) -> Scenario:
    """The explanation (or, ``prefix``, the schedule up to the failing line) as a scenario."""
    assert answer.config is not None
    steps = answer.steps
    notes: dict[int, str | dict[str, str]] = {}
    for number, (_, matched) in enumerate(steps, 1):
        quoted = _quoted(answer, matched)
        if quoted:
            notes[number] = " | ".join(quoted)
    what = ("the shortest schedule matching every line before the one that cannot be explained" if prefix
            else "the shortest schedule of hwlib's model that explains the log lines before the first one outside "
                 "it" if answer.verdict == "outside-model"
            else "the shortest schedule of hwlib's model that explains the log lines")
    return Scenario(name=f"explain-{answer.partition}" + ("-prefix" if prefix else ""), config=answer.config,
                    steps=tuple(step for step, _ in steps), description=f"{what} ({answer.sentence})",
                    notes=notes)


def write_out(run: ExplainRun, out: str | Path) -> list[Path]:
    """``answer.json``, and per partition ``explanation.yaml`` (explained, or the lines before
    one outside the model) or ``prefix.yaml`` (not explainable), into ``out`` (one directory
    per partition when there are several)."""
    root = check_directory(out, "out")
    targets = [(root if len(run.answers) == 1 else root / answer.partition, answer) for answer in run.answers]
    for folder, _ in targets:
        for name in ("answer.json", "explanation.yaml", "prefix.yaml"):
            path = folder / name
            if path.exists() and not _ours(path):
                from .spec import ExplainError

                raise ExplainError(f"out: {path} exists and hwlib explain did not write it; give another directory")
    written = []
    for folder, answer in targets:
        folder.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"written_by": "hwlib explain", **answer_dict(answer)}, indent=1, default=str)
        written.append(write_text_atomically(folder / "answer.json", body + "\n"))
        if answer.config is not None and answer.steps:
            name = "explanation.yaml" if answer.explains else "prefix.yaml"
            text = f"{HEADER}: {answer.sentence[:200]}\n" + scenario_of(answer, name == "prefix.yaml").to_yaml()
            written.append(write_text_atomically(folder / name, text))
    return written


def _ours(path: Path) -> bool:
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        return False
    return head.startswith(HEADER) or head.lstrip("{ \n").startswith('"written_by": "hwlib explain"')
