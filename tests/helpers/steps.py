"""The steps random schedules in the tests draw from: the model checker's alphabet and the split fetches' responses."""

from __future__ import annotations

from hwlib import Step
from hwlib.check import alphabet


def every_step(replicas: tuple[str, ...], faults: tuple[str, ...], tick_ms: int) -> list[Step]:
    """``check.model.alphabet`` with a ``fetch_response`` per replica after the fetch requests:
    the search has a response as the whole ``fetch`` it equals, but a run (a sweep's) delivers
    it apart, and clones, reductions and guards must hold in those states too."""
    steps = alphabet(replicas, faults, tick_ms)
    at = max(i for i, step in enumerate(steps) if step.kind == "fetch_request") + 1
    steps[at:at] = [Step("fetch_response", replica=r) for r in replicas]
    return steps
