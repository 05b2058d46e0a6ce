"""One search of a cluster config, as the checker's tests write it: ``explore`` of that search's ``CheckSpec``."""

from __future__ import annotations

from hwlib.anomalies.checker import KINDS
from hwlib.check import Bounds, CheckResult, CheckSpec, Hooks, explore
from hwlib.engine.config import ClusterConfig


def explored(config: ClusterConfig, bounds: Bounds, faults: tuple[str, ...], kinds: tuple[str, ...] = KINDS,
             exhaustive: bool = False, *, workers: int = 1, memory: float | None = None, reduced: bool = True,
             **hooks) -> CheckResult:
    """``explore`` of the one-search spec of ``config`` (``CheckSpec.of_search``); ``hooks`` are
    ``Hooks``' fields (progress, level_done, restore, spark)."""
    spec = CheckSpec.of_search(config, bounds, faults, kinds, exhaustive, workers, memory)
    return explore(spec, hooks=Hooks(**hooks), reduced=reduced)
