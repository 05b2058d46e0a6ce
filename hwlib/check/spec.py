"""A model-check request (``CheckSpec``): what to search and how, validated once, in one written form.

The command line builds one from its options, notebook 03 and the report from their
parameters; ``driver.run`` carries it out. ``to_dict`` / ``from_dict`` are its one written
form: the ``--out`` directory's marker holds its ``identity`` (what makes two checks the same
check), worker processes and Spark tasks rebuild the search from it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from ..anomalies import KINDS
from ..engine.config import PROTOCOLS, ClusterConfig
from ..engine.releases import rules_named
from ..errors import ConfigError
from ..model.space import Bounds, must_end
from ..model.vocabulary import DEFAULT_FAULTS, DEFAULT_KINDS, CheckError, parse_faults, parse_kinds, profile_faults
from ..profiles import FaultProfile
from .search import Search

#: the marker's format (2: a CheckSpec's identity; 1 listed its parts apart)
FORMAT = 2


def parse_protocols(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``all`` (every generation, in release order), or generations and releases as a comma
    list or a list (``hw,3.7-kraft``), kept in the order given."""
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    names = tuple(str(v).strip() for v in value)
    if names == ("all",):
        return tuple(PROTOCOLS)
    if not names:
        raise CheckError("protocols: give at least one generation or release, or all")
    for name in names:
        try:
            rules_named(name)
        except ConfigError as exc:
            raise CheckError(f"protocols: {name!r} is neither a generation ({', '.join(PROTOCOLS)}) nor a "
                             f"release ({exc})") from None
    return names


@dataclass(frozen=True)
class CheckSpec:
    """One check: the rules to search (``protocols``: generations or releases, in order), the
    cluster settings besides the rules (``config``) and ``unclean_leader_election`` (None: each
    rule set's own default - on before 0.11 -, a value: kept under every rule set), ``bounds``,
    ``faults`` (default ``DEFAULT_FAULTS``; or a fault ``profile``'s, every step it can draw),
    the anomaly ``kinds`` (default ``DEFAULT_KINDS``), whether to go on after every kind was
    found (``exhaustive``), and how: ``workers`` processes within ``memory`` GiB, the directory ``out`` (``resume`` from
    its checkpoints, saved at most every ``checkpoint_every`` s), ``coverage_runs`` of the
    profile's random runs (seeded from ``coverage_seed``) measured against each complete search.

    The tick rule, one for every caller: with ``tick`` among the faults the search takes up to
    ``bounds.max_ticks`` ticks, at least one (0 means 1); without it, ``max_ticks`` must be 0.
    """

    protocols: tuple[str, ...] = ("hw",)
    config: ClusterConfig = field(default_factory=lambda: ClusterConfig(replicas=Bounds().replica_ids))
    unclean_leader_election: bool | None = None
    bounds: Bounds = field(default_factory=Bounds)
    faults: tuple[str, ...] = DEFAULT_FAULTS
    kinds: tuple[str, ...] = DEFAULT_KINDS
    exhaustive: bool = False
    profile: FaultProfile | None = None
    coverage_runs: int | None = None
    coverage_seed: int = 0
    workers: int = 1
    memory: float | None = None
    out: str | None = None
    resume: bool = False
    checkpoint_every: float = 10.0

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "protocols", parse_protocols(self.protocols))
        faults = tuple(parse_faults(self.faults))
        if self.profile is not None:
            drawn = profile_faults(self.profile)[0]
            if faults not in (DEFAULT_FAULTS, drawn):
                raise CheckError("faults: give a fault profile or faults, not both")
            faults = drawn
        put(self, "faults", faults)
        put(self, "kinds", parse_kinds(self.kinds))
        bounds = self.bounds
        if "tick" in self.faults and not bounds.max_ticks:
            bounds = dataclasses.replace(bounds, max_ticks=1)
        elif "tick" not in self.faults and bounds.max_ticks:
            raise CheckError("max-ticks: give --faults ... ,tick as well (ticks are a fault here)")
        unused = [name for name, _ in bounds.fault_budget if name not in self.faults]
        if unused:
            raise CheckError(f"fault-budget: {', '.join(unused)} is not among the faults searched "
                             f"({', '.join(self.faults) or 'none'})")
        put(self, "bounds", bounds)
        put(self, "config", self.config.replace(replicas=list(bounds.replica_ids)))
        for name in ("workers", "coverage_runs"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise CheckError(f"{name.replace('_', '-')}: must be an integer >= 1, got {value!r}")
        if self.coverage_runs is not None and self.profile is None:
            raise CheckError("coverage-runs: give --profile as well (the runs are that profile's)")
        memory = self.memory
        if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int | float)
                                   or not 0 < memory < math.inf):
            raise CheckError(f"memory: must be a finite number of GiB > 0, got {memory!r}")
        if not (isinstance(self.checkpoint_every, int | float) and self.checkpoint_every >= 0):
            raise CheckError(f"checkpoint-every: must be a number of seconds >= 0, got {self.checkpoint_every}")
        if self.resume and not self.out:
            raise CheckError("resume: give the --out directory of the check to resume")
        must_end(list(self.protocols), self.bounds, self.faults, [self.config_for(p) for p in self.protocols])

    # -- what each search runs -------------------------------------------------------------------

    def config_for(self, protocol: str) -> ClusterConfig:
        """The cluster a search of ``protocol`` starts from: the spec's settings under its
        rules (a release brings its defaults; an unclean-election setting given is kept)."""
        config = self.config.with_rules(protocol)
        if self.unclean_leader_election is not None:
            config = config.replace(unclean_leader_election=self.unclean_leader_election)
        return config

    @classmethod
    def of_search(cls, config: ClusterConfig, bounds: Bounds, faults: tuple[str, ...],
                  kinds: tuple[str, ...] = KINDS, exhaustive: bool = False, workers: int = 1,
                  memory: float | None = None) -> CheckSpec:
        """The spec of one search of ``config``, whose rules are set (``runners.explore``)."""
        return cls(protocols=(config.rules_name,), config=config,
                   unclean_leader_election=config.unclean_leader_election, bounds=bounds, faults=faults,
                   kinds=kinds, exhaustive=exhaustive, workers=workers, memory=memory)

    def only(self, protocol: str) -> CheckSpec:
        """The spec of the search of one of its rule sets (what a worker of that search rebuilds)."""
        if protocol not in self.protocols:
            raise CheckError(f"protocol: {protocol!r} is not one of this check's: {', '.join(self.protocols)}")
        return self if self.protocols == (protocol,) else dataclasses.replace(self, protocols=(protocol,))

    def search(self, reduced: bool = True, hot_limit: int | None = None) -> Search:
        """A fresh search of the spec's first rule set (a spec of one search: ``only``, ``of_search``)."""
        return Search(self.config_for(self.protocols[0]), self.bounds, self.faults, self.kinds, self.exhaustive,
                      reduced, hot_limit)

    # -- the written form ------------------------------------------------------------------------

    def to_dict(self) -> dict:
        """Plain values (JSON), read back by ``from_dict``."""
        config = self.config.to_dict(written=True)     # a release's default is the release's on resume too
        config.pop("protocol", None)
        return {"protocols": list(self.protocols), "config": config,
                "unclean_leader_election": self.unclean_leader_election, "bounds": self.bounds.as_dict(),
                "faults": list(self.faults), "kinds": list(self.kinds), "exhaustive": self.exhaustive,
                "profile": self.profile.to_dict() if self.profile is not None else None,
                "coverage_runs": self.coverage_runs, "coverage_seed": self.coverage_seed, "workers": self.workers,
                "memory": self.memory, "out": self.out, "resume": self.resume,
                "checkpoint_every": self.checkpoint_every}

    @classmethod
    def from_dict(cls, data: dict) -> CheckSpec:
        profile = data.get("profile")
        return cls(protocols=tuple(data["protocols"]), config=ClusterConfig.from_dict(data["config"]),
                   unclean_leader_election=data.get("unclean_leader_election"),
                   bounds=Bounds.from_dict(data["bounds"]), faults=tuple(data["faults"]), kinds=tuple(data["kinds"]),
                   exhaustive=data["exhaustive"],
                   profile=FaultProfile.from_dict(profile) if profile is not None else None,
                   coverage_runs=data.get("coverage_runs"), coverage_seed=data.get("coverage_seed", 0),
                   workers=data.get("workers", 1), memory=data.get("memory"), out=data.get("out"),
                   resume=data.get("resume", False), checkpoint_every=data.get("checkpoint_every", 10.0))

    def identity(self) -> dict:
        """What makes two checks the same check (an ``--out`` directory's marker): the rules,
        settings, bounds, faults, kinds and exhaustiveness - not how it runs, nor coverage."""
        data = self.to_dict()
        return {"tool": "hwlib check", "format": FORMAT,
                **{k: data[k] for k in ("protocols", "kinds", "bounds", "faults", "exhaustive", "config",
                                        "unclean_leader_election")}}
