"""Sweep specs: a YAML grid over cluster settings and fault-profile parameters, x runs per cell.

```yaml
name: durability
seed: 1                      # sweep seed: run seeds are hashed from it
runs: 200                    # runs per cell (hwlib sweep --runs overrides)
profile: kip101-data-loss     # the base fault profile: built-in name, YAML file, or a mapping
grid:                        # every combination is a cell
  protocol: [hw, kip101]
  replicas: [3]              # replica count: A, B, C, ...
  acks: ["1", all]
  min_insync_replicas: [1, 2]
  profile.weights.power_loss: [0, 1]   # a profile parameter (profile.<key> or profile.weights.<action>)
```

Any ``ClusterConfig`` setting may be a grid key; ``profile`` may list several profiles. A cell
whose combination is invalid (min.insync.replicas above the replica count, say) is left out
and reported; a grid with no valid cell is an error.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, fields
from pathlib import Path

from ..engine.config import REPLICA_NAMES, ClusterConfig, replica_names
from ..errors import ConfigError, HwlibError
from ..profiles import ACTIONS, FaultProfile, ProfileError, load_profile
from ..util.files import is_file
from ..util.paths import builtin_files
from ..util.yamlfile import read_yaml


class SweepSpecError(HwlibError, ValueError):
    """A sweep spec is malformed: unknown key, empty grid, no valid cell ..."""


#: cells a sweep may have (each is a Spark-side group and a row of the report)
MAX_CELLS = 10_000
TOP_LEVEL_KEYS = ("name", "description", "seed", "runs", "profile", "grid", "batch_size")
#: grid keys that are cluster settings (``replicas`` is a count here)
CONFIG_KEYS = tuple(f.name for f in fields(ClusterConfig))
PROFILE_KEYS = tuple(f.name for f in fields(FaultProfile) if f.name not in ("name", "description"))


def column_name(key: str) -> str:
    """Grid key -> run-table column (``profile.weights.crash`` -> ``profile_weights_crash``)."""
    return key.replace(".", "_")


@dataclass(frozen=True)
class Cell:
    index: int
    id: str                      # c000, c001, ... in grid order
    config: ClusterConfig
    profile: FaultProfile
    #: grid key -> value, as the run table's columns show them
    params: dict
    #: cells with equal profile and replica count share this, hence their schedules
    schedule_key: str


@dataclass(frozen=True)
class SweepSpec:
    name: str
    seed: int
    runs: int
    cells: tuple[Cell, ...]
    grid_keys: tuple[str, ...]
    #: (description of a left-out combination, why)
    skipped: tuple[tuple[str, str], ...]
    raw: dict
    #: runs per Spark task: with the compiled engine ~3 s of work, so the ~0.1 s a task costs
    #: Spark (scheduling, Arrow, parquet) stays a few percent
    batch_size: int = 4000
    description: str = ""

    @property
    def total_runs(self) -> int:
        return self.runs * len(self.cells)

    def profiles(self) -> dict[str, FaultProfile]:
        """The fault profiles the cells run, by name, in grid order."""
        out: dict[str, FaultProfile] = {}
        for cell in self.cells:
            out.setdefault(cell.profile.name, cell.profile)
        return out

    def spec_hash(self) -> str:
        """Identifies the sweep's content (not its run count): resuming needs the same hash.
        It covers the *resolved* cells - each one's cluster settings and fault profile as
        loaded - so editing a profile file the spec names changes it."""
        data = {k: v for k, v in self.raw.items() if k not in ("runs", "batch_size")}
        cells = [[c.id, c.config.to_dict(), c.profile.to_dict()] for c in self.cells]
        text = json.dumps([data, cells], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def with_runs(self, runs: int) -> SweepSpec:
        _check_int(runs, "runs", 1, 100_000_000)
        raw = dict(self.raw, runs=runs)
        return parse_spec(raw)


def _check_int(value, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise SweepSpecError(f"{where}: must be an integer in {lo}..{hi}, got {value!r}")
    return value


def builtin_specs() -> dict[str, Path]:
    """The built-in sweep specs by name (the checkout's ``data/specs``, or the installed package's copy)."""
    return builtin_files("specs")


def load_spec(path) -> SweepSpec:
    """A sweep spec from a YAML file or a built-in name (``data/specs/NAME.yaml``)."""
    path = builtin_specs().get(str(path)) or Path(path)
    if not is_file(path):
        raise SweepSpecError(f"spec: {str(path)!r} is neither a file nor a built-in spec; built-ins: "
                             f"{', '.join(builtin_specs()) or 'none'}")
    data = read_yaml(path, SweepSpecError, "spec: ")
    if isinstance(data, dict):
        data.setdefault("name", path.stem)
    return parse_spec(data)


def parse_spec(data) -> SweepSpec:
    if not isinstance(data, dict):
        raise SweepSpecError(f"spec: expected a mapping with keys {', '.join(TOP_LEVEL_KEYS)}")
    unknown = sorted(set(data) - set(TOP_LEVEL_KEYS))
    if unknown:
        raise SweepSpecError(f"spec.{unknown[0]}: unknown key; allowed: {', '.join(TOP_LEVEL_KEYS)}")
    name = data.get("name", "sweep")
    if (not isinstance(name, str) or not name or len(name) > 100
            or not name.replace("-", "").replace("_", "").isascii()
            or not name.replace("-", "").replace("_", "").isalnum()):
        shown = name if not isinstance(name, str) or len(name) <= 40 else f"{name[:40]}... ({len(name)} characters)"
        raise SweepSpecError(f"spec.name: {shown!r} is not a valid name; use at most 100 letters, digits, - or _")
    seed = _check_int(data.get("seed", 0), "spec.seed", 0, 2**63 - 1)
    runs = _check_int(data.get("runs", 100), "spec.runs", 1, 100_000_000)
    batch_size = _check_int(data.get("batch_size", 4000), "spec.batch_size", 1, 1_000_000)
    grid = data.get("grid")
    if not isinstance(grid, dict) or not grid:
        raise SweepSpecError("spec.grid: must be a non-empty mapping of setting -> list of values; "
                             f"settings: {', '.join(('replicas (a count)',) + CONFIG_KEYS[1:])}, profile, "
                             "profile.<key>, profile.weights.<action>")
    axes = []
    for key, values in grid.items():
        _check_grid_key(key)
        if not isinstance(values, list):
            values = [values]
        if not values:
            raise SweepSpecError(f"spec.grid.{key}: an empty list gives no cell; give at least one value")
        axes.append((key, values))
    combinations = math.prod(len(values) for _, values in axes)
    if combinations > MAX_CELLS:
        sizes = " x ".join(str(len(values)) for _, values in axes)
        raise SweepSpecError(f"spec.grid: {combinations:,} combinations ({sizes}) exceed the limit of "
                             f"{MAX_CELLS:,} cells; split the sweep")
    base_profile = data.get("profile", "kip101-data-loss")
    try:
        base = load_profile(base_profile)
    except ProfileError as exc:
        raise SweepSpecError(f"spec.profile: {exc}") from None

    cells: list[Cell] = []
    skipped: list[tuple[str, str]] = []
    keys = tuple(k for k, _ in axes)
    for combo in itertools.product(*(v for _, v in axes)):
        params = dict(zip(keys, combo, strict=True))
        label = ", ".join(f"{k}={v}" for k, v in params.items())
        try:
            cell = _make_cell(len(cells), params, base)
        except (ConfigError, ProfileError) as exc:
            message = str(exc)
            if _is_cell_conflict(message):
                skipped.append((label, message))
                continue
            raise SweepSpecError(f"spec.grid ({label}): {message}") from None
        cells.append(cell)
    if not cells:
        reason = skipped[0][1] if skipped else "no combination"
        raise SweepSpecError(f"spec.grid: no valid cell; every combination is invalid, e.g. {reason}")
    return SweepSpec(name, seed, runs, tuple(cells), keys, tuple(skipped), dict(data), batch_size,
                     str(data.get("description", "")))


def _check_grid_key(key) -> None:
    if not isinstance(key, str):
        raise SweepSpecError(f"spec.grid: keys must be setting names, got {key!r}")
    if key in CONFIG_KEYS or key == "profile":
        return
    if key.startswith("profile.weights."):
        action = key.split(".", 2)[2]
        if action not in ACTIONS:
            raise SweepSpecError(f"spec.grid.{key}: unknown action; allowed: {', '.join(ACTIONS)}")
        return
    if key.startswith("profile."):
        if key.split(".", 1)[1] not in PROFILE_KEYS:
            raise SweepSpecError(f"spec.grid.{key}: unknown profile key; allowed: "
                                 f"{', '.join('profile.' + k for k in PROFILE_KEYS)}")
        return
    raise SweepSpecError(f"spec.grid.{key}: unknown setting; allowed: replicas, "
                         f"{', '.join(CONFIG_KEYS[1:])}, profile, profile.<key>, profile.weights.<action>")


def _is_cell_conflict(message: str) -> bool:
    """Errors that come from combining valid values (left out), not from a bad value."""
    return ("exceeds the" in message and "replicas" in message) or "requires acks: all" in message


def _make_cell(index: int, params: dict, base: FaultProfile) -> Cell:
    config = {}
    profile = base
    overrides = {}
    for key, value in params.items():
        if key == "replicas":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= len(REPLICA_NAMES):
                raise SweepSpecError(f"spec.grid.replicas: a replica count in 1..{len(REPLICA_NAMES)}, got {value!r}")
            config["replicas"] = replica_names(value)
        elif key == "profile":
            try:
                profile = load_profile(value)
            except ProfileError as exc:
                raise SweepSpecError(f"spec.grid.profile: {exc}") from None
        elif key.startswith("profile."):
            overrides[key.split(".", 1)[1]] = value
        else:
            config[key] = value
    config.setdefault("replicas", replica_names(3))
    if overrides:
        profile = profile.replace(**overrides)
    cluster = ClusterConfig.from_dict(config, "spec.grid")
    if cluster.min_insync_replicas > len(cluster.replicas):
        # Kafka takes it (every acks=all write fails up to 3.6; 3.7 checks min(it, the replicas)),
        # but a grid's cross product makes it by accident: the cell is left out, and said
        raise ConfigError(f"config.min_insync_replicas: {cluster.min_insync_replicas} exceeds the "
                          f"{len(cluster.replicas)} replicas: up to 3.6 every acks=all write fails "
                          "(left out of a grid)")
    schedule_key = hashlib.sha256(json.dumps([profile.to_dict(), len(cluster.replicas)],
                                             sort_keys=True).encode()).hexdigest()[:12]
    shown = {column_name(k): _column_value(k, v) for k, v in params.items()}
    shown.setdefault("protocol", cluster.protocol)
    shown.setdefault("replicas", len(cluster.replicas))
    shown.setdefault("acks", cluster.acks)
    shown.setdefault("min_insync_replicas", cluster.min_insync_replicas)
    shown.setdefault("unclean_leader_election", cluster.unclean_leader_election)
    shown.setdefault("profile", profile.name)
    if "acks" in params:
        shown["acks"] = cluster.acks
    return Cell(index, f"c{index:03d}", cluster, profile, shown, schedule_key)


def _column_value(key: str, value):
    if key == "profile":
        return value if isinstance(value, str) else load_profile(value).name
    if key == "acks":
        return str(value)
    return value
