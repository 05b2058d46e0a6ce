"""One model under both searches: from random reachable states, the checker's and explain's successors are the model's.

``hwlib check`` (``check.search.Search.transition``) and ``hwlib explain``
(``explain.search.ExplainSearch.children``) take their steps through one ``model.KafkaModel``;
this test holds each strategy's successors - with the checker's own cuts turned off, and explain
given no lines to match - equal to the model's, step index by step index.
"""

from __future__ import annotations

import random

import pytest

from hwlib.anomalies import AnomalyChecker
from hwlib.check.search import Node as CheckNode
from hwlib.check.search import Search
from hwlib.engine.cluster import Cluster
from hwlib.engine.config import ClusterConfig
from hwlib.explain.observations import Maps
from hwlib.explain.search import ExplainSearch, Node, Outcome, Target
from hwlib.model import Bounds, KafkaModel, state_key

FAULTS = ("elect", "isolate", "deliver", "crash", "quick_restart", "retention", "tick")
CASES = [("2.0.1", 2, {}), ("2.8.0", 3, {}), ("3.7-kraft", 3, {}), ("4.1", 3, {}),
         ("4.1", 3, {"fault_budget": (("isolate", 1), ("crash", 1)), "max_alter_partitions": 1})]


def _successors(model: KafkaModel, values: dict[str, int], cluster: Cluster, checker: AnomalyChecker,
                records: int, spent: int) -> dict[int, tuple]:
    """Step index -> the whole state key of the model's successor and its counters (steps that
    cannot act, and states past the bounds, left out)."""
    out = {}
    for index in range(len(model.steps)):
        taken = model.guard(cluster, index, records, spent)
        if taken is None:
            continue
        step, after_records, after_spent = taken
        child, _ = model.make(cluster, step, checker)
        admitted = model.admits(step, child, after_spent)
        if admitted is not None:
            out[index] = (state_key(child, values, reduced=False), after_records, admitted)
    return out


def _reachable(model: KafkaModel, rng: random.Random, walks: int, length: int):
    """States met on random walks from the initial state: (cluster, checker, records, counters)."""
    for _ in range(walks):
        cluster = Cluster(model.config)
        checker = AnomalyChecker(cluster)
        records = 0
        spent: int | None = 0
        for _ in range(rng.randrange(length)):
            options = [t for i in range(len(model.steps)) if (t := model.guard(cluster, i, records, spent))]
            if not options:
                break
            step, records, spent = rng.choice(options)
            cluster, checker = model.make(cluster, step, checker)
            spent = model.admits(step, cluster, spent)
            if spent is None:
                break
            checker.observe(1)
        else:
            yield cluster, checker, records, spent


@pytest.mark.parametrize(("release", "replicas", "budgets"), CASES)
def test_both_searches_take_the_models_successors(release, replicas, budgets):
    """The same successors, and the same counters after each (ticks, a fault budget, the
    AlterPartitions sent), from the checker and from explain."""
    bounds = Bounds(replicas=replicas, max_records=2, max_epoch=2, max_ticks=1, **budgets)
    config = ClusterConfig(replicas=list(bounds.replica_ids), release=release)
    tick_ms = bounds.tick_length(config)
    model = KafkaModel(config, bounds, FAULTS, tick_ms)
    values = {f"m{i}": i for i in range(1, bounds.max_records + 1)}

    check = Search(config, bounds, FAULTS, ("lost-write",), exhaustive=True, reduced=False)
    check.foresee = False                    # the checker's own cuts are its strategy, not the model
    explain = ExplainSearch(config, bounds, FAULTS, Target.of([], [], []), max_silent=10 ** 6)
    assert check.steps == explain.steps == model.steps

    states = 0
    for cluster, checker, records, spent in _reachable(model, random.Random(release), walks=40, length=14):
        expected = _successors(model, values, cluster, checker, records, spent)
        node = CheckNode(cluster, checker, records, spent, 0, 0)
        by_check = {}
        for index in range(len(check.steps)):
            made = check.transition(node, index, 1)
            if made is not None:
                by_check[index] = (state_key(made[0], values, reduced=False), made[2], made[3])
        assert by_check == expected
        outcome = Outcome(goal=None, best=None, complete=False)
        root = Node(cluster.clone(), None, (), Maps(), 0, records, spent)
        children = explain.children(root, 1, outcome)
        by_explain = {child.step: (state_key(child.cluster, values, reduced=False), child.records, child.spent)
                      for child in children}
        assert by_explain == expected
        states += 1
    assert states >= 10
