"""The shapes people paste logs in change no answer: the verdict, the anomalies and every surviving line's status hold.

One incident (a follower's HW moving backwards after a leader change, 2.0.1) is written by the
log writer and mangled into each shape of ``mangle.SHAPES``; ``hwlib explain`` must answer each
as it answers the clean logs. One case per shape runs in CI; the slow test draws seeds.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlib.explain import ExplainSpec, Renaming, explain, write_logs
from hwlib.views.explain_words import sentence

from .mangle import SHAPES, Files
from .test_explain import _situation


@cache
def _incident() -> tuple[tuple[str, str], ...]:
    config, steps, release, _ = _situation("follower-hw-backwards")
    return tuple(sorted(write_logs(config, steps, release).items()))


@cache
def _other() -> tuple[tuple[str, str], ...]:
    """Another partition's incident on the same brokers: payments-4, a no-op truncation."""
    config, steps, release, _ = _situation("noop-truncation-on-empty-log")
    naming = Renaming(topic="payments", partition=4, start_ms=1_700_000_000_500)
    return tuple(sorted(write_logs(config, steps, release, naming).items()))


def _run(tmp_path, files: Files):
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    return explain(ExplainSpec(tuple(sorted(paths)), time_limit=60))


def _key(line) -> tuple | None:
    """What a line says, whatever its shape (None: a line that says nothing of the model's)."""
    if line.observation is None:
        return None
    return line.format.id if line.format is not None else None, line.observation.describe()


def _statuses(run, answer) -> dict[tuple, set[str]]:
    out: dict[tuple, set[str]] = {}
    for line, verdict in run.verdicts(answer):
        key = _key(line)
        if key is not None and verdict.status != "other-partition":
            out.setdefault(key, set()).add(verdict.status)
    return out


@cache
def _base(root: str):
    from pathlib import Path

    run = _run(Path(root) / "clean", dict(_incident()))
    (answer,) = run.answers
    return run, answer


def _same_answer(tmp_path, shape: str, seed: int) -> None:
    base_run, base = _base(str(tmp_path.parent / f"base-{tmp_path.parent.name}"))
    assert base.verdict == "explained", sentence(base, base_run.lines)
    rng = random.Random(seed)
    files = dict(_incident())
    mangled = SHAPES[shape](files, rng, other=dict(_other())) if shape == "interleaved" else SHAPES[shape](files, rng)
    run = _run(tmp_path / f"{shape}-{seed}", mangled)
    answers = [a for a in run.answers if a.partition.endswith("-0")]
    assert len(answers) == 1, [a.partition for a in run.answers]
    answer = answers[0]
    assert answer.verdict == base.verdict, (shape, sentence(answer, run.lines))
    assert {a.kind for a in answer.anomalies} == {a.kind for a in base.anomalies}, shape
    expected = _statuses(base_run, base)
    for key, statuses in _statuses(run, answer).items():
        if key in expected:                    # a surviving line: the same status
            assert statuses <= expected[key], (shape, key, statuses, expected[key])
    unknown = [line.record.text for line, v in run.verdicts(answer) if v.status == "unrecognised"]
    assert unknown == [], (shape, unknown)
    if shape == "cut-last-line":
        assert any(line.cut for line in run.lines), "the cut line is read as cut short"
    if shape == "interleaved":
        assert any(v.status == "other-partition" for _, v in run.verdicts(answer))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_paste_shape_keeps_the_answer(tmp_path, shape):
    _same_answer(tmp_path, shape, seed=7)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=st.sampled_from(sorted(SHAPES)), seed=st.integers(0, 10_000))
def test_any_seed_of_any_shape_keeps_the_answer(tmp_path, shape, seed):
    _same_answer(tmp_path / f"h{seed}", shape, seed)
