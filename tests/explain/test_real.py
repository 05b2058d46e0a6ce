"""hwlib explain on real pastes (tests/explain/real): replication lines recognised, each verdict as its sidecar says.

The excerpts were copied byte for byte out of public incident threads; their sidecars say the
answer expected from reading the thread (or, reviewed, why hwlib's differs and is right).
"""

from __future__ import annotations

import json

import pytest

from hwlib.engine.releases import release as release_row
from hwlib.explain import ExplainSpec, explain
from hwlib.explain.formats import version
from hwlib.explain.inventory import calls
from hwlib.explain.project import read_lines
from hwlib.views.explain_out import run_dict
from hwlib.views.explain_words import sentence

from .real_corpus import VERDICTS, excerpts

EXCERPTS = excerpts()
#: the loggers of the replication path (the inventory's): an ERROR or FATAL line of one is never unrecognised
LOGGERS = {call.logger for call in calls()}
#: the share of lines naming a partition that must be recognised
SHARE = 0.95


def _lines(case):
    lines, _, _ = read_lines(ExplainSpec((str(case.log),)))
    return lines


def test_the_corpus_is_large_and_each_sidecar_says_where_it_came_from_and_what_to_expect():
    assert len(EXCERPTS) >= 40
    assert len({case.source for case in EXCERPTS}) >= 20
    for case in EXCERPTS:
        assert case.source.startswith("https://"), case.id
        assert case.expected in VERDICTS and case.why, case.id
        assert case.reviewed is None or (case.reviewed in VERDICTS and case.reviewed_why), case.id
        assert case.log.read_bytes().endswith(b"\n"), case.id


def test_lines_naming_a_partition_are_recognised_and_no_error_of_the_replication_path_is_unknown():
    named = recognised = 0
    unknown_errors = []
    for case in EXCERPTS:
        for line in _lines(case):
            if line.partition is not None:
                named += 1
                recognised += line.status != "unrecognised"
            if line.status == "unrecognised" and line.record.level in ("ERROR", "FATAL") \
                    and line.record.logger in LOGGERS:
                unknown_errors.append((case.id, line.record.line, line.record.message[:100]))
    assert recognised / named >= SHARE, f"{recognised}/{named} lines naming a partition recognised"
    assert unknown_errors == []


@pytest.mark.parametrize("case", [c for c in EXCERPTS if c.recognised], ids=lambda c: c.id)
def test_the_lines_a_reader_of_kafka_s_code_recognises_are_recognised(case):
    lines = _lines(case)
    held = {number: line for line in lines        # a record's lines: its message's, then its stack trace's
            for number in range(line.record.line, line.record.end_line + len(line.record.continuation) + 1)}
    for number in case.recognised:
        assert number in held and held[number].status != "unrecognised", (number, held.get(number))


def _release_fits(answer) -> bool:
    """Whether the release an answer ran is one whose code writes every recognised line."""
    if answer.config is None or answer.config.release is None or answer.release_range is None:
        return True
    row = release_row(answer.config.release, "release")
    patches = [version(p if p.count(".") > 1 or p.startswith("0") else p + ".0") for p in row.patches]
    return any(patch in answer.release_range for patch in patches)


@pytest.mark.parametrize("case", EXCERPTS, ids=lambda c: c.id)
def test_each_excerpt_gets_the_answer_its_sidecar_says(case):
    run = explain(ExplainSpec((str(case.log),), time_limit=20))
    verdict = run_dict(run)["verdict"]
    said = [f"{a.partition}: {a.verdict}: {sentence(a, run.lines)}" for a in run.answers]
    assert verdict == case.verdict, (case.expected, case.why, said)
    for answer in run.answers:
        assert _release_fits(answer), (answer.partition, answer.rules_label, answer.release_range)


def _case(stem: str):
    return next(case for case in EXCERPTS if case.id == stem)


def test_a_partition_s_first_leader_is_its_creation_and_one_broker_named_is_one_replica():
    """cp-all-in-one#49: 'Leader eventbus-0 starts at leader epoch 0 ... ISR [1] ... Previous
    leader epoch was -1' on a one-broker cluster is the partition's creation, the model's initial
    state (step 0), with one replica."""
    run = explain(ExplainSpec((str(_case("gh-cp-all-in-one-49-1").log),), time_limit=20))
    answer = run.answers[0]
    assert answer.verdict == "explained" and answer.steps == ()
    assert answer.config is not None and len(answer.config.replicas) == 1
    first = next(ref for ref, line in enumerate(run.lines) if line.record.line == 1)
    assert answer.lines[first].status == "matched" and answer.lines[first].step == 0
    said = sentence(answer, run.lines)
    assert "as the partition's creation" in said and "with one replica" in said
    from hwlib.views import incident_markup

    assert "the partition's creation itself" in incident_markup(run)       # the page says why no stepper


def test_the_brokers_an_isr_names_are_replicas_of_the_model():
    """KAFKA-19407: one 'Shrinking ISR from 15,16,17 to 17' line, written by broker 17, names three
    replicas: the model has three (it had as many as brokers wrote lines: one, then two)."""
    run = explain(ExplainSpec((str(_case("jira-kafka-19407-1").log),), time_limit=20))
    answer = run.answers[0]
    assert answer.verdict == "explained", sentence(answer, run.lines)
    assert answer.search.bounds["replicas"] == 3 and answer.config is not None and len(answer.config.replicas) == 3


def test_the_kraft_quorum_s_lines_are_the_metadata_log_outside_the_model():
    """A KRaft node's Raft election and metadata high watermark (QuorumState, FollowerState) are
    about __cluster_metadata-0, outside the model; a message cut inside the text after a value
    ('... for the first time for ep') is read too."""
    case = _case("more-gh-bitnami-containers-43226-1")
    lines = _lines(case)
    raft = [line for line in lines if line.record.line in (1, 2, 3, 7)]
    assert all(line.status == "outside-model" and line.partition == "__cluster_metadata-0" for line in raft)
    assert raft[-1].cut
    run = explain(ExplainSpec((str(case.log),), time_limit=20))
    assert [(a.partition, a.verdict) for a in run.answers] == [("__cluster_metadata-0", "outside-model")]


def test_a_paste_piped_to_explain_dash_is_read_from_standard_input_and_leaves_nothing_behind(tmp_path):
    """``pbpaste | hwlib explain -``: the paste is read as a file named stdin; the copy hwlib made
    is gone afterwards. A quoted glob is expanded by hwlib; one matching nothing is one line, exit 2."""
    import os
    import subprocess
    import sys

    case = _case("jira-kafka-19407-1")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "hwlib", "explain", "-", "--quiet", "--json"],
                          input=case.log.read_bytes(), capture_output=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["verdict"] == "explained" and {line["file"] for line in answer["lines"]} == {"stdin"}
    assert list(tmp_path.iterdir()) == []
    pattern = str(case.log.parent / "jira-kafka-19407-1*.log")
    done = subprocess.run([sys.executable, "-m", "hwlib", "explain", pattern, "--quiet", "--json"],
                          capture_output=True, env=env, timeout=300)
    assert done.returncode == 0 and json.loads(done.stdout)["verdict"] == "explained"
    done = subprocess.run([sys.executable, "-m", "hwlib", "explain", str(tmp_path / "none-*.log")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2 and done.stderr.strip().endswith("matches no file")
    assert len(done.stderr.strip().splitlines()) == 1
