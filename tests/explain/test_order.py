"""Lines ordered by what they say where the clocks disagree: a clock minutes behind, brokers pasted unsorted."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from hwlib.explain import ExplainSpec, explain, write_logs
from hwlib.views.explain_words import sentence

from .test_explain import _situation

STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]")


def _shifted(text: str, minutes: float) -> str:
    def shift(match: re.Match) -> str:
        moment = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f") + timedelta(minutes=minutes)
        return "[" + moment.strftime("%Y-%m-%d %H:%M:%S,") + f"{moment.microsecond // 1000:03d}]"

    return "\n".join(STAMP.sub(shift, line) for line in text.splitlines()) + "\n"


def _fenced_logs() -> dict[str, str]:
    config, steps, release, _ = _situation("fetch-fenced-by-leader-epoch")
    return write_logs(config, steps, release)


def _explain(tmp_path, files: dict[str, str]):
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    run = explain(ExplainSpec(tuple(sorted(paths)), time_limit=60))
    return run, run.answers[0]


def test_a_broker_whose_clock_is_minutes_behind_is_ordered_by_what_its_lines_say(tmp_path):
    """Broker 2's clock is 5 minutes behind: its fenced fetch (epoch 0) is stamped before the
    election of epoch 1 it can only follow. Taken by their stamps, the lines ask for a fetch
    fenced by a leader epoch not yet made; ordered by what they say, they are the same story as
    with the clocks right."""
    (tmp_path / "right").mkdir()
    right_run, right = _explain(tmp_path / "right", _fenced_logs())
    files = _fenced_logs()
    files["broker-2.log"] = _shifted(files["broker-2.log"], -5)
    skewed = tmp_path / "skewed"
    skewed.mkdir()
    run, answer = _explain(skewed, files)
    assert right.verdict == "explained" and not right.notes, sentence(right, right_run.lines)
    assert answer.verdict == "explained", sentence(answer, run.lines)
    assert len(answer.steps) == len(right.steps)
    (note,) = answer.notes
    assert note.startswith("the clock of broker-2.log disagrees with what its lines say by at least 29")


def test_several_brokers_lines_pasted_unsorted_into_one_file_are_taken_in_time_order(tmp_path):
    """Every broker's lines pasted into one file one broker after another (not in time order):
    each broker's lines are a chain of their own, ordered by their stamps, and the answer says
    it reordered - an explanation no longer than from the separate files (lines that name no
    broker, such as the epoch cache's, are no longer tied to one broker's file: it may be shorter)."""
    files = _fenced_logs()
    separate_dir = tmp_path / "separate"
    separate_dir.mkdir()
    separate_run, separate = _explain(separate_dir, files)
    pasted = "".join(files[name] for name in sorted(files, reverse=True))      # broker 3's, then 2's, 1's, ...
    one_dir = tmp_path / "one"
    one_dir.mkdir()
    run, answer = _explain(one_dir, {"paste.log": pasted})
    assert answer.verdict == separate.verdict == "explained", sentence(answer, run.lines)
    assert len(answer.steps) <= len(separate.steps)
    assert any("paste.log" in note and "go back after line" in note for note in answer.notes), answer.notes
