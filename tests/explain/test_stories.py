"""Hand-written excerpts of common stories (tests/explain/stories): each explained, the story it tells."""

from __future__ import annotations

from pathlib import Path

import pytest

from hwlib.explain import ExplainSpec, explain
from hwlib.views.explain_words import sentence

STORIES = Path(__file__).resolve().parent / "stories"


def _run(name: str, said: list[str] | None = None):
    paths = tuple(str(p) for p in sorted((STORIES / name).glob("*.log")))
    run = explain(ExplainSpec(paths, time_limit=60), progress=None if said is None else said.append)
    (answer,) = run.answers
    return run, answer


def test_a_follower_fenced_after_an_isr_shrink_and_a_leader_move_in_2_8():
    """Epochs 14 -> 15 (the controller drops 102 from the ISR, 101 still leads) -> 16 (103 leads);
    102, still in epoch 14, is fenced by 101: the model's first epoch stands for 14, the ISR
    shrink and the leader move are the two elections the controller's lines state."""
    run, answer = _run("fenced-2.8")
    assert answer.verdict == "explained", sentence(answer, run.lines)
    assert dict(answer.maps.epochs) == {14: 0, 15: 1, 16: 2}
    kinds = [step.kind for step, _ in answer.steps]
    assert "isolate" in kinds and kinds.count("elect") == 1 and kinds[-1] == "fetch"
    assert answer.config.release_row.version >= (2, 8, 0) and answer.config.release_row.version < (3, 2, 0)


def test_kip_101s_first_scenario_in_0_10_2_from_its_info_lines():
    said: list[str] = []
    run, answer = _run("kip101-0.10.2", said)
    assert answer.verdict == "explained", sentence(answer, run.lines)
    # the wait for a shorter explanation is announced before it starts, and said when done
    looking = next(i for i, text in enumerate(said) if "looking for a shorter explanation" in text)
    assert "the shortest explanation has" in said[looking + 1]

    assert all(v.status == "matched" for _, v in run.verdicts(answer))
    elected = next(o for o, _ in answer.observed if o.kind == "elected")
    assert elected.value("leader") == "2" and elected.value("isr") == ("2",)


@pytest.mark.parametrize("name", ["noop-truncation-1.1"])
def test_a_restarted_follower_truncating_an_empty_log(name):
    run, answer = _run(name)
    assert answer.verdict == "explained", sentence(answer, run.lines)
    assert sorted(o.kind for o, _ in answer.observed) == ["isr_expand", "started", "truncate_noop"]
