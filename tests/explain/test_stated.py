"""Observations files: facts stated in hwlib's vocabulary read beside (or instead of) logs, and written from logs.

What ``--emit-observations`` writes, read back alone, asks the same question as the logs; facts
stated in prose are explained, or refused where the release cannot make them; every bad fact is
one line naming its field; an emit never replaces a file hwlib did not write.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hwlib.explain import ExplainError, ExplainSpec, explain
from hwlib.explain.observations import KINDS
from hwlib.explain.stated import HEADER, read_stated
from hwlib.views.explain_out import failed_at
from hwlib.views.explain_words import sentence

from .test_explain import _situation, _write


def test_emitted_observations_read_back_alone_ask_the_same_question(tmp_path):
    config, steps, release, _ = _situation("noop-truncation-on-empty-log")
    paths = _write(tmp_path, config, steps, release)
    facts = tmp_path / "facts.yaml"
    logs_run = explain(ExplainSpec(tuple(paths), emit_observations=str(facts), time_limit=60))
    from_logs = logs_run.answers[0]
    text = facts.read_text()
    assert text.startswith(HEADER)
    stated = yaml.safe_load(text)["observations"]
    read = [line for line in logs_run.lines if line.observation is not None]
    assert len(stated) == len(read) > 0
    assert [(fact["log"], fact["line"]) for fact in stated] == [(line.record.file, line.record.line) for line in read]
    assert [fact["releases"] for fact in stated] == [[".".join(map(str, v)) for v in line.releases.span]
                                                     for line in read]
    facts_run = explain(ExplainSpec((), observations=(str(facts),), time_limit=60))
    from_facts = facts_run.answers[0]
    assert from_facts.verdict == from_logs.verdict == "explained", sentence(from_facts, facts_run.lines)
    assert [o for o, _ in from_facts.observed] == [o for o, _ in from_logs.observed]
    assert [s for s, _ in from_facts.steps] == [s for s, _ in from_logs.steps]
    assert from_facts.rules_label == from_logs.rules_label and from_facts.release_range == from_logs.release_range
    # each fact quotes its line and keeps where it was read
    assert [(line.record.file, line.record.line, line.record.text) for line in facts_run.lines] == \
        [(line.record.file, line.record.line, line.record.text) for line in logs_run.lines
         if line.observation is not None]


def _facts(tmp_path, body: str, name: str = "facts.yaml"):
    path = tmp_path / name
    path.write_text(body)
    return str(path)


FOLLOWER_EXIT = """partition: orders-3
observations:
  - {kind: hw, broker: 1002, hw: 6656337, at: "2018-06-12T08:50:06Z"}
  - {kind: halt, broker: 1002, leader: 1001, leader_leo: 6656336, leo: 6656337, at: "2018-06-12T08:50:10Z"}
"""


def test_facts_stated_in_prose_are_explained_under_the_release_that_can_make_them(tmp_path):
    """A follower that exits on a leader log shorter than its own: 0.10.2 does that; 2.1.0
    truncates instead (KAFKA-7414, fixed in 2.0.1), so the same fact is where it stops."""
    path = _facts(tmp_path, FOLLOWER_EXIT)
    old_run = explain(ExplainSpec((), observations=(path,), release="0.10.2", time_limit=60))
    old = old_run.answers[0]
    assert old.verdict == "explained", sentence(old, old_run.lines)
    assert old.partition == "orders-3" and dict(old.maps.brokers)["1002"] in old.config.replicas
    assert all(verdict.status == "matched" for _, verdict in old_run.verdicts(old))
    new_run = explain(ExplainSpec((), observations=(path,), release="2.1.0", time_limit=60))
    new = new_run.answers[0]
    assert new.verdict == "not-explainable", sentence(new, new_run.lines)
    failed = failed_at(new, new_run)
    assert failed["category"] == "halt" and failed["line"] == 4        # its line in the YAML


def test_broker_level_facts_need_no_partition_and_a_fact_may_leave_its_broker_out(tmp_path):
    path = _facts(tmp_path, "observations:\n  - {kind: started, broker: 2}\n"
                            "  - {kind: truncate_noop, offset: 0, leo: 0, partition: orders-0}\n")
    lines = read_stated(path, None)
    assert [line.partition for line in lines] == [None, "orders-0"]
    assert lines[1].observation.broker is None and lines[0].observation.broker == "2"


@pytest.mark.parametrize(("body", "field"), [
    ("observations: [", "malformed YAML"),
    ("partition: t-0\nobservations:\n  - {kind: hw, hw: 1, hw: 2}\n", "line 3: YAML refused: duplicate key 'hw'"),
    ("partition: t-0\nobservations: [!!python/object/apply:os.system [echo]]\n", "could not determine a constructor"),
    ("partition: orders-0\nfacts: []\n", "unknown key 'facts'"),
    ("partition: orders-0\n", "under 'observations:'"),
    ("observations: {kind: hw}\n", "must be a list"),
    ("observations: [3]\n", "observations[0]: a fact is a mapping"),
    ("observations: [{kind: leader_elected}]\n", "observations[0].kind: 'leader_elected'; allowed: truncate"),
    ("observations: [{kind: hw, hw: 5}]\n", "observations[0].partition: say which partition"),
    ("partition: orders 0\nobservations: []\n", "'orders 0' is not a partition"),
    ("partition: t-0\nobservations: [{kind: hw, hw: x}]\n", "observations[0].hw: an offset, an integer >= -1"),
    ("partition: t-0\nobservations: [{kind: hw, hw: -2}]\n", "observations[0].hw: an offset"),
    ("partition: t-0\nobservations: [{kind: hw, epoch: 2}]\n", "observations[0].epoch: not a value of hw"),
    ("partition: t-0\nobservations: [{kind: hw, broker: b1}]\n", "observations[0].broker: a broker id"),
    ("partition: t-0\nobservations: [{kind: isr_shrink, old: 1, new: [1]}]\n", "observations[0].old: a list of broker"),
    ("partition: t-0\nobservations: [{kind: hw, at: yesterday}]\n", "observations[0].at: an ISO 8601 time"),
    ("partition: t-0\nobservations: [{kind: hw, line: 0}]\n", "observations[0].line: a line number >= 1"),
    ("partition: t-0\nobservations: [{kind: hw, releases: [2.1, 1.0]}]\n", "observations[0].releases: [first, last]"),
    ("partition: t-0\nobservations: [{kind: hw, log: server.log}]\n", "observations[0].log: server.log is also given"),
])
def test_every_bad_fact_is_one_line_naming_its_field(tmp_path, body, field):
    path = _facts(tmp_path, body)
    with pytest.raises(ExplainError) as caught:
        read_stated(path, None, logs=("/somewhere/server.log",))
    message = str(caught.value)
    assert "\n" not in message and field in message and message.startswith("observations: facts.yaml")


def test_bytes_that_are_not_utf8_are_one_line(tmp_path):
    path = tmp_path / "facts.yaml"
    path.write_bytes(b"observations: [{kind: hw, hw: 1, partition: t-0}]\n\xff\xfe")
    with pytest.raises(ExplainError, match=r"^observations: facts.yaml: not UTF-8 text \(at offset 50\)$"):
        read_stated(str(path), None)


def test_the_command_line_reads_facts_alone_and_refuses_to_replace_a_file_it_did_not_write(tmp_path):
    config, steps, release, _ = _situation("noop-truncation-on-empty-log")
    paths = _write(tmp_path, config, steps, release)
    mine = tmp_path / "notes.yaml"
    mine.write_text("my own notes\n")
    refused = subprocess.run([sys.executable, "-m", "hwlib", "explain", *paths, "--emit-observations", str(mine)],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and mine.read_text() == "my own notes\n"
    assert refused.stderr.count("\n") == 1 and "emit-observations:" in refused.stderr
    facts = tmp_path / "facts.yaml"
    facts.write_text(f"{HEADER}: an older one\n")                        # hwlib's own: replaced
    emitted = subprocess.run([sys.executable, "-m", "hwlib", "explain", *paths, "--emit-observations", str(facts),
                              "--quiet"], capture_output=True, text=True, timeout=120)
    assert emitted.returncode == 0, emitted.stderr
    alone = subprocess.run([sys.executable, "-m", "hwlib", "explain", "--observations", str(facts), "--quiet"],
                           capture_output=True, text=True, timeout=120)
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.splitlines()[0] == emitted.stdout.splitlines()[0] == "orders-0: EXPLAINED"
    nothing = subprocess.run([sys.executable, "-m", "hwlib", "explain"], capture_output=True, text=True, timeout=60)
    assert nothing.returncode == 2 and "LOG: give at least one log file" in nothing.stderr


def test_the_docs_name_every_kind_of_fact():
    """docs/explain.md lists the kinds a fact may have: the list is the model's, no more, no less."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "explain.md").read_text()
    listed = docs.split("Each fact has a `kind` (", 1)[1].split(" - ", 1)[0]
    assert set(re.findall(r"`(\w+)`", listed)) == set(KINDS)
