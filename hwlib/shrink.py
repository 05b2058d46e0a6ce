"""Shrinking: delta debugging (Zeller's ddmin) over a schedule's steps, keeping one anomaly kind."""

from __future__ import annotations

from dataclasses import dataclass

from .anomalies.checker import KINDS
from .engine.config import ClusterConfig
from .engine.steps import Step
from .errors import ScenarioError
from .run import run_steps
from .scenario import Scenario


@dataclass(frozen=True)
class ShrinkResult:
    steps: tuple[Step, ...]
    before: int          # steps before shrinking
    runs: int            # schedules executed while shrinking


def shrink(config: ClusterConfig, steps, kind: str) -> ShrinkResult:
    """A 1-minimal sub-schedule of ``steps`` that still shows ``kind``: removing any one step
    loses it. Runs are deterministic, so the result is too."""
    if kind not in KINDS:
        raise ScenarioError(f"kind: {kind!r} is not an anomaly kind; allowed: {', '.join(KINDS)}")
    runs = 0

    def fails(candidate: list[Step]) -> bool:
        nonlocal runs
        runs += 1
        return kind in run_steps(config, candidate, record=False).anomaly_kinds()

    steps = list(steps)
    before = len(steps)
    if not fails(steps):
        raise ScenarioError(f"kind: the schedule does not show {kind!r} under protocol {config.protocol}")
    n = 2
    while len(steps) >= 2:
        size = -(-len(steps) // n)
        chunks = [steps[i:i + size] for i in range(0, len(steps), size)]
        for i, chunk in enumerate(chunks):
            if fails(chunk):
                steps, n = chunk, 2
                break
            complement = [s for j, c in enumerate(chunks) if j != i for s in c]
            if fails(complement):
                steps, n = complement, max(n - 1, 2)
                break
        else:
            if n >= len(steps):
                break
            n = min(len(steps), 2 * n)
    i = 0
    while i < len(steps):                      # make it 1-minimal
        candidate = steps[:i] + steps[i + 1:]
        if candidate and fails(candidate):
            steps = candidate
        else:
            i += 1
    return ShrinkResult(tuple(steps), before, runs)


def shrink_scenario(scenario: Scenario, kind: str, protocol: str | None = None) -> tuple[Scenario, ShrinkResult]:
    """The shrunk schedule as a scenario whose ``expect`` records what it shows."""
    if protocol is not None:
        scenario = scenario.with_protocol(protocol)
    result = shrink(scenario.config, scenario.steps, kind)
    shows = run_steps(scenario.config, result.steps, record=False).anomaly_kinds()
    shrunk = Scenario(
        name=f"{scenario.name}-{kind}-shrunk",
        config=scenario.config,
        steps=result.steps,
        description=(f"{scenario.name} shrunk from {result.before} to {len(result.steps)} steps "
                     f"({result.runs} runs), keeping {kind} under {scenario.config.protocol}."),
        expect={scenario.config.protocol: tuple(shows)},
    )
    return shrunk, result
