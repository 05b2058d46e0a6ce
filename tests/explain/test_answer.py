"""An explain answer is a value: several partitions' answers each keep their own verdict for a line they share."""

from __future__ import annotations

import dataclasses

import pytest

from hwlib import ClusterConfig
from hwlib.engine.steps import parse_steps
from hwlib.explain import ExplainSpec, Renaming, explain
from hwlib.explain.writer import write_lines
from hwlib.views.explain_out import answer_dict, run_dict

STARTED = "[KafkaServer id=2] started"


def _broker_files(tmp_path) -> list[str]:
    """Broker 2 restarts once; its one "started" line belongs to both partitions' stories:
    orders-0 (a record, a fetch, the restart, a fetch) and orders-1 (the restart first, then a
    record and a fetch). The lines carry no timestamp: each file is ordered by its lines alone."""
    config = ClusterConfig(replicas=("A", "B"), release="1.0", acks="1")
    first = parse_steps([{"produce": "m1"}, {"fetch": "B"}, {"crash": "B"}, {"restart": "B"}, {"fetch": "B"}])
    second = parse_steps([{"crash": "B"}, {"restart": "B"}, {"produce": "m1"}, {"fetch": "B"}])
    files: dict[str, list[str]] = {}
    for steps, partition in ((first, 0), (second, 1)):
        for line in write_lines(config, steps, "1.0.0", Renaming(partition=partition)):
            text = f"{line.format.level} {line.text} ({line.format.logger})"
            if STARTED in text and any(STARTED in t for t in files.get(line.file, [])):
                continue                                   # one process start, shared
            files.setdefault(line.file, []).append(text)
    # broker 2's file: orders-0 before its restart, the start, orders-0 after it, then orders-1
    paths = []
    for name, texts in files.items():
        path = tmp_path / name
        path.write_text("\n".join(texts) + "\n")
        paths.append(str(path))
    return sorted(paths)


def test_each_partition_s_answer_keeps_its_own_step_for_a_line_both_share(tmp_path):
    paths = _broker_files(tmp_path)
    assert (tmp_path / "broker-2.log").read_text().count(STARTED) == 1
    run = explain(ExplainSpec(tuple(paths), time_limit=60))
    assert [a.partition for a in run.answers] == ["orders-0", "orders-1"]
    shared = next(ref for ref, line in enumerate(run.lines) if STARTED in line.record.text)
    steps = {}
    for answer in run.answers:
        assert answer.verdict == "explained", answer.partition
        verdict = answer.lines[shared]
        assert verdict.status == "matched"
        step, _ = answer.steps[verdict.step - 1]
        assert step.kind == "restart"                      # the step that matched it makes it
        steps[answer.partition] = verdict.step
    assert steps["orders-0"] != steps["orders-1"]          # one line, two answers, two steps
    # the JSON of the first answer, made after the second was built, still says its own step
    first = answer_dict(run.answers[0], run)
    said = next(line for line in first["lines"] if STARTED in line.get("text", ""))
    assert said["step"] == steps["orders-0"]
    whole = run_dict(run)
    assert [next(line["step"] for line in p["lines"] if STARTED in line.get("text", ""))
            for p in whole["partitions"]] == [steps["orders-0"], steps["orders-1"]]
    # every line of the other partition is said to be about it, in each answer
    for answer, other in zip(run.answers, ("orders-1", "orders-0"), strict=True):
        for ref, line in enumerate(run.lines):
            if line.partition == other:
                assert answer.lines[ref].status == "other-partition" and other in answer.lines[ref].reason


def test_an_answer_and_a_line_are_frozen(tmp_path):
    run = explain(ExplainSpec(tuple(_broker_files(tmp_path)), time_limit=60))
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.answers[0].verdict = "nothing"                 # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.lines[0].status = "matched"                    # type: ignore[misc]
