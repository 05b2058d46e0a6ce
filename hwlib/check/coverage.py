"""How much of the reachable state space random runs visit: a profile's seeded runs against a complete search.

A sweep's runs are random walks: they say how often a fault loses data, and they miss states.
Where ``hwlib check`` completes, its visited set *is* the reachable state space within the
bounds - every state but those the search need not keep (a follower waiting for a refused
fetch, ``reductions.refused``: its twin without the refusal is kept) -, so the share of it that
random runs reach is a measure of what sampling covers. Each run is drawn as a sweep draws it
(``faults.generate`` with ``faults.derive_seed``, the profile over the check's replicas) and
replayed on the check's configuration; after every step its state is fingerprinted exactly as
the search fingerprints (``Search.key``: the state, the checks' memory and the ticks passed,
the k-th record produced numbered k), so a visited state counts when the search met the same
state. States past the bounds (a third record, a later leader epoch, more ticks, ticks of
another length) are never in the reachable set: a walk that leaves the bounds is not counted
from there on, and ``in_bounds`` says how much of the runs' steps stayed inside.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from ..engine.steps import Step
from ..faults import derive_seed, generate
from ..model.space import fingerprint, key_context
from ..model.vocabulary import CheckError
from ..profiles import FaultProfile
from .search import Search, _anomalies_here


def share_text(share: float) -> str:
    """A share as a percentage that never reads as nothing when it is not: one decimal from
    0.1% up (``2.2%``), two significant digits below (``0.028%``), ``0%`` only for none."""
    percent = share * 100
    if percent <= 0:
        return "0%"
    if percent >= 0.1:
        return f"{percent:.1f}%"
    return f"{percent:.{1 - math.floor(math.log10(percent))}f}%"


@dataclass(frozen=True)
class Coverage:
    """``runs`` random runs of ``profile`` against a complete search of ``reachable`` states:
    ``visited`` of them met, ``in_bounds`` of the runs' ``steps`` taken inside the bounds."""

    profile: str
    runs: int
    reachable: int
    visited: int
    steps: int
    in_bounds: int

    @property
    def share(self) -> float:
        return self.visited / self.reachable if self.reachable else 0.0

    @property
    def within(self) -> float:
        """The share of the runs' steps taken inside the bounds."""
        return self.in_bounds / self.steps if self.steps else 0.0

    def text(self) -> str:
        """One line: ``500 random runs of power-loss visit 1,234 of 56,789 reachable states
        (2.2%); 9% of their steps stay within the bounds``."""
        return (f"{self.runs:,} random runs of {self.profile} visit {self.visited:,} of {self.reachable:,} reachable "
                f"states ({share_text(self.share)}); {self.within:.0%} of their steps stay within the bounds")


class Visits:
    """Collects the reachable states a search found (``seen``) once it completes: pass
    ``visits.level_done`` to ``explore``."""

    def __init__(self) -> None:
        self.search: Search | None = None

    def level_done(self, search: Search) -> None:
        self.search = search

    def measure(self, profile: FaultProfile, runs: int, seed: int = 0, cell: str = "coverage") -> Coverage:
        """Replays ``runs`` seeded schedules of ``profile`` (the seeds a sweep with ``seed``
        gives cell ``cell``) and counts the reachable states they meet."""
        search = self.search
        if search is None or not search.result.complete:
            raise CheckError("coverage: the search did not complete within its bounds, so its states are not "
                             "the reachable space; raise --max-states or lower the bounds")
        if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
            raise CheckError(f"coverage runs: must be an integer >= 1, got {runs!r}")
        met: set[int] = set()
        steps = inside = 0
        for run in range(runs):
            schedule = generate(profile, derive_seed(seed, cell, run), search.bounds.replica_ids)
            walked, kept = _walk(search, schedule.steps, met)
            steps += walked
            inside += kept
        return Coverage(profile.name, runs, len(search.seen), len(met), steps, inside)


def _walk(search: Search, steps: Iterable[Step], met: set[int]) -> tuple[int, int]:
    """Runs ``steps`` on the search's configuration, adding to ``met`` every reachable
    fingerprint on the way until the run leaves the bounds; returns (steps, steps within)."""
    bounds, seen = search.bounds, search.seen
    tick_ms = search.tick_ms
    cluster, checker = search.initial()
    values: dict[str, int] = {}
    context = key_context(search.config.replicas, values, search.reduced, search.settled)
    counters = search.model.counters
    spent = walked = kept = 0
    inside = True
    for depth, step in enumerate(steps, 1):
        walked += 1
        if not inside:
            continue
        if step.kind == "produce":
            values.setdefault(str(step.value), len(values) + 1)
        elif step.kind == "tick" and step.ms != tick_ms:
            inside = False
        logged = len(cluster.events)
        cluster.apply(step)
        charged = counters.after(spent, step, cluster.events[logged:])
        if charged is None or len(values) > bounds.max_records or bounds.beyond(cluster):
            inside = False
            continue
        spent = charged
        checker.observe(depth)
        _anomalies_here(checker, depth)
        key = fingerprint(cluster, checker, context, spent)
        if key in seen:
            met.add(key)
        kept += 1
    checker.release()
    cluster.release()
    return walked, kept
