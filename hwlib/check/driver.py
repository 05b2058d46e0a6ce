"""Carrying out a check request: ``run(spec)`` opens its directory, searches each rule set, writes the files, finishes.

The command line, notebook 03 and the report each build a ``CheckSpec`` and call ``run``:
the pipeline is written once. Per rule set it ``explore``s (the runners pick processes or
Spark), with a checkpoint after each level when the spec has a directory, going on from what
a resumed directory holds, and measures coverage when the spec asks for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .checkpoints import CheckDir
from .coverage import Visits
from .runners import Hooks, explore
from .search import CheckResult, Search
from .spec import CheckSpec
from .verdicts import write_outputs

#: per rule set (its name), the level callback ``explore`` calls: (depth, distinct, generated)
Progress = Callable[[str], Callable[[int, int, int], None] | None]


@dataclass
class CheckRun:
    """A finished check: each rule set's result and the files written (counterexample
    scenarios by ``<rules>-<kind>``, and the matrix) when the spec had a directory."""

    spec: CheckSpec
    results: list[CheckResult]
    written: list[Path] = field(default_factory=list)

    @property
    def scenarios(self) -> dict[str, Path]:
        return {path.stem: path for path in self.written if path.suffix == ".yaml"}


def open_directory(spec: CheckSpec) -> CheckDir | None:
    """The spec's directory, validated and marked (a bad one is one line, nothing written)."""
    if spec.out is None:
        return None
    directory = CheckDir(spec.out, spec.identity())
    directory.open(spec.resume)
    return directory


def run(spec: CheckSpec, progress: Progress | None = None, spark: Any = None,
        directory: CheckDir | None = None) -> CheckRun:
    """Search every rule set of ``spec`` in order; ``progress(name)`` gives each search's level
    callback; ``spark`` (a SparkSession) runs large levels as Spark jobs. ``directory``: the
    spec's, if the caller opened it already (``open_directory``: to refuse a bad one before
    other work); it is opened here otherwise. Returns the results and the files written."""
    if directory is None:
        directory = open_directory(spec)
    results = [_search(spec, protocol, progress, spark, directory) for protocol in spec.protocols]
    written: list[Path] = []
    if directory is not None:
        written = write_outputs(directory.out, results, spec.kinds)
        directory.finish()
    return CheckRun(spec, results, written)


def _search(spec: CheckSpec, protocol: str, progress: Progress | None, spark: Any,
            directory: CheckDir | None) -> CheckResult:
    """One rule set: taken as a resumed directory finished it, else searched (checkpointed)."""
    config = spec.config_for(protocol)
    resumed = directory if spec.resume else None
    profile, runs = spec.profile, spec.coverage_runs
    asked = (profile.name, runs) if profile is not None and runs is not None else None     # the coverage asked for
    result = resumed.finished(protocol, config, spec.bounds, spec.faults) if resumed is not None else None
    if result is not None:
        measured = result.coverage
        if measured is not None and (measured.profile, measured.runs) != asked:
            result.coverage = None          # measured for other runs by the check being resumed
        return result
    visits = Visits() if asked is not None else None     # holds the search's visited set
    checkpoint = None if directory is None else directory.checkpointer(protocol, spec.checkpoint_every)

    def level_done(search: Search) -> None:
        if visits is not None:
            visits.level_done(search)
        if checkpoint is not None:
            checkpoint(search)

    result = explore(spec, protocol, Hooks(progress=None if progress is None else progress(protocol),
                                           level_done=level_done, spark=spark,
                                           restore=resumed.saved_search(protocol) if resumed is not None else None))
    if visits is not None:
        if result.complete and profile is not None and runs is not None:
            result.coverage = visits.measure(profile, runs, spec.coverage_seed)
        visits.search = None        # its visited set is not needed any more
    if directory is not None:
        directory.done(result)
    return result
