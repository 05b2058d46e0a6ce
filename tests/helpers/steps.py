"""The steps random schedules in the tests draw from: the model checker's alphabet and the split fetches' responses."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hwlib import AnomalyChecker, Cluster, Step
from hwlib.check import alphabet


def every_step(replicas: tuple[str, ...], faults: tuple[str, ...], tick_ms: int) -> list[Step]:
    """``model.space.alphabet`` with a ``fetch_response`` per replica after the fetch requests:
    the search has a response as the whole ``fetch`` it equals, but a run (a sweep's) delivers
    it apart, and clones, reductions and guards must hold in those states too."""
    steps = alphabet(replicas, faults, tick_ms)
    at = max(i for i, step in enumerate(steps) if step.kind == "fetch_request") + 1
    steps[at:at] = [Step("fetch_response", replica=r) for r in replicas]
    return steps


def numbered_produces(drawn: Iterable[Step], broker: Callable[[], str | None] | None = None) -> list[Step]:
    """A schedule from randomly ``drawn`` steps (taken one by one): each produce becomes the next
    record, m1, m2, ..., sent to the broker a call of ``broker`` names (None: the producer's
    choice; without ``broker``, always that)."""
    out, records = [], 0
    for step in drawn:
        if step.kind == "produce":
            records += 1
            step = Step("produce", value=f"m{records}", replica=None if broker is None else broker())
        out.append(step)
    return out


def taken_on_a_clone(cluster: Cluster, checker: AnomalyChecker, step: Step,
                     at: int) -> tuple[Cluster, AnomalyChecker]:
    """``step`` taken on a clone of ``cluster``, watched by a clone of ``checker`` that observes
    it as step number ``at`` (what it reports is in its ``anomalies``): as the search takes a
    step (``KafkaModel.make``, then ``observe``), leaving ``cluster`` and ``checker`` as they were."""
    taken = cluster.clone()
    watch = AnomalyChecker(taken, checker)
    taken.apply(step)
    watch.observe(at)
    return taken, watch
