"""A cloned state and its replay have one fingerprint, with log starts that move.

A state reached by cloning step by step (as the search does) and the same schedule replayed
from the start (as its workers and resumes do) must key alike.
"""

from __future__ import annotations

import random

import pytest

from hwlib.check.spec import CheckSpec
from hwlib.engine import ClusterConfig
from hwlib.model.space import Bounds


@pytest.mark.parametrize("release", ["0.10.2", "2.4.0", "3.9-kraft"])
def test_a_cloned_state_and_its_replay_share_the_fingerprint_with_retention(release):
    config = ClusterConfig(replicas=("A", "B", "C"), release=release)
    spec = CheckSpec.of_search(config, Bounds(replicas=3, depth=10), ("retention", "crash", "elect"),
                               ("lost-write", "hw-below-log-start"), False, 1, None)
    search = spec.search(True)
    rng = random.Random(release)
    compared = 0
    for _ in range(60):
        cluster, checker = search.initial()
        schedule = []
        records = 0
        for depth in range(1, 11):
            step = rng.choice(search.steps)
            if step.kind == "produce":
                if records == 2:
                    continue
                records += 1
                step = type(step)("produce", value=f"m{records}")
            cluster = cluster.clone()
            checker = type(checker)(cluster, checker)
            cluster.apply(step)
            checker.observe(depth)
            schedule.append(step)
            fresh, fresh_checker = search.initial()
            for i, again in enumerate(schedule, 1):
                fresh.apply(again)
                fresh_checker.observe(i)
            assert search.key(cluster, checker, 0) == search.key(fresh, fresh_checker, 0), \
                [s.describe() for s in schedule]
            compared += 1
    assert compared > 400
