"""Scenario files: YAML (name, summary, description, config, steps, notes, expect), built-ins by name, checked, run."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .anomalies.checker import KINDS
from .anomalies.kinds import KIND_TABLE
from .engine.config import PROTOCOLS, ClusterConfig
from .engine.releases import release
from .engine.steps import Step, parse_steps
from .errors import ConfigError, HwlibError, ScenarioError, UnknownScenarioError
from .run import RunResult, run_steps
from .util.files import is_file, write_text_atomically
from .util.paths import builtin_dir, builtin_files
from .util.yamlfile import read_yaml

TOP_LEVEL_KEYS = ("name", "summary", "description", "config", "steps", "notes", "expect")


@dataclass(frozen=True)
class Scenario:
    name: str
    config: ClusterConfig
    steps: tuple[Step, ...]
    description: str = ""
    #: expected anomaly kinds per generation, e.g. {"hw": ["lost-write"], "kip101": []}, and per
    #: release where its rules give another answer than its generation's ({"2.0.1": []})
    expect: dict[str, tuple[str, ...]] = field(default_factory=dict)
    path: str | None = None
    #: what it shows, in one short line (the scenario table of docs/scenarios.md)
    summary: str = ""
    #: captions at key steps, shown under the steppers' frames: step number (1 = the first
    #: step) -> one text for every generation, or generation -> text
    notes: dict[int, str | dict[str, str]] = field(default_factory=dict)

    def captions(self, protocol: str | None = None) -> dict[int, str]:
        """The captions under ``protocol`` (default: the scenario's own), by step number."""
        protocol = protocol or self.config.protocol
        out = {}
        for step, note in self.notes.items():
            text = note if isinstance(note, str) else note.get(protocol)
            if text:
                out[step] = text
        return out

    def with_protocol(self, protocol: str) -> Scenario:
        return dataclasses.replace(self, config=self.config.replace(protocol=protocol))

    def with_release(self, release: str) -> Scenario:
        """The same steps under a release's rules (``VERSION[-zk|-kraft]``)."""
        return dataclasses.replace(self, config=self.config.replace(release=release))

    def with_rules(self, name: str) -> Scenario:
        """The same steps under a generation (``kip320``) or a release (``3.7-kraft``)."""
        return dataclasses.replace(self, config=self.config.with_rules(name))

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"name": self.name}
        if self.summary:
            out["summary"] = self.summary
        out.update({"description": self.description, "config": self.config.to_dict(),
                    "steps": [s.to_obj() for s in self.steps]})
        if self.notes:
            out["notes"] = dict(self.notes)
        if self.expect:
            out["expect"] = {p: list(k) for p, k in self.expect.items()}
        return out

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=None,
                              allow_unicode=True)

    def save(self, path: str | os.PathLike) -> Path:
        """Write atomically, so no half-written scenario is left behind."""
        return write_text_atomically(path, self.to_yaml())


def scenario_from_dict(data, source: str = "scenario") -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: expected a mapping with keys {', '.join(TOP_LEVEL_KEYS)}")
    unknown = sorted(set(data) - set(TOP_LEVEL_KEYS))
    if unknown:
        raise ScenarioError(f"{source}: unknown key {unknown[0]!r}; allowed: "
                            f"{', '.join(TOP_LEVEL_KEYS)}")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ScenarioError(f"{source}: name: required, a non-empty string")
    if "steps" not in data:
        raise ScenarioError(f"{source}: steps: required, a list of steps")
    try:
        config = ClusterConfig.from_dict(data.get("config") or {})
        steps = tuple(parse_steps(data["steps"], config.replicas))
    except HwlibError as exc:
        raise type(exc)(f"{source}: {exc}") from None
    expect_raw = data.get("expect") or {}
    if not isinstance(expect_raw, dict):
        raise ScenarioError(f"{source}: expect: a mapping protocol -> list of anomaly kinds")
    expect = {}
    for protocol, kinds in expect_raw.items():
        protocol = str(protocol)
        if protocol not in PROTOCOLS:
            try:        # a release whose rules differ from its generation's here (``hwlib releases``)
                protocol = release(protocol, f"expect.{protocol}").key
            except HwlibError:
                raise ScenarioError(f"{source}: expect.{protocol}: neither a generation ({', '.join(PROTOCOLS)}) "
                                    "nor a release (VERSION[-zk|-kraft], see hwlib releases)") from None
        if not isinstance(kinds, list) or any(k not in KINDS for k in kinds):
            raise ScenarioError(f"{source}: expect.{protocol}: a list of anomaly kinds from "
                                f"{', '.join(KINDS)}; got {kinds!r}")
        expect[protocol] = tuple(kinds)
    description = data.get("description") or ""
    summary = data.get("summary") or ""
    if not isinstance(summary, str) or "\n" in summary.strip():
        raise ScenarioError(f"{source}: summary: one line of text, got {summary!r}")
    return Scenario(name, config, steps, str(description), expect, summary=summary.strip(),
                    notes=_notes(data.get("notes") or {}, len(steps), source))


def _notes(raw, steps: int, source: str) -> dict[int, str | dict[str, str]]:
    """``notes:`` - step number -> a caption, or generation -> caption."""
    if not isinstance(raw, dict):
        raise ScenarioError(f"{source}: notes: a mapping step number -> caption (or generation -> caption)")
    out: dict[int, str | dict[str, str]] = {}
    for step, note in raw.items():
        if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= steps:
            raise ScenarioError(f"{source}: notes.{step}: a step number in 1..{steps}")
        if isinstance(note, str):
            out[step] = " ".join(note.split())
            continue
        if not isinstance(note, dict) or not all(isinstance(t, str) for t in note.values()):
            raise ScenarioError(f"{source}: notes.{step}: a caption, or a mapping generation -> caption")
        unknown = sorted(set(note) - set(PROTOCOLS))
        if unknown:
            raise ScenarioError(f"{source}: notes.{step}.{unknown[0]}: unknown generation; allowed: "
                                f"{', '.join(PROTOCOLS)}")
        out[step] = {p: " ".join(t.split()) for p, t in note.items()}
    return out


def builtin_scenarios() -> dict[str, Path]:
    """The built-in scenarios by name (the checkout's ``data/scenarios``, or the installed package's copy)."""
    return builtin_files("scenarios")


def load_scenario(path_or_name: str | os.PathLike) -> Scenario:
    """Load a scenario by file path or by the name of a built-in (``data/scenarios/NAME.yaml``)."""
    candidate = Path(path_or_name)
    if not is_file(candidate):
        builtins = builtin_scenarios()
        if str(path_or_name) in builtins:
            candidate = builtins[str(path_or_name)]
        else:
            raise UnknownScenarioError(
                f"scenario: {str(path_or_name)!r} is neither a file nor a built-in; built-ins: "
                f"{', '.join(builtins) or '(none found in ' + str(builtin_dir('scenarios')) + ')'}"
            )
    data = read_yaml(candidate, ScenarioError)
    return dataclasses.replace(scenario_from_dict(data, str(candidate)), path=str(candidate))


#: how the scenario table abbreviates each anomaly kind (bold: what a client can see)
SHORT_KINDS = {k.name: k.short for k in KIND_TABLE}


def scenario_table() -> str:
    """Markdown table of the built-in scenarios: summary and expected anomalies per generation
    (``hwlib scenarios --markdown``; docs/scenarios.md holds it, a test keeps them equal)."""
    rows = ["| scenario | what it shows | " + " | ".join(PROTOCOLS) + " |",
            "|---|---|" + "---|" * len(PROTOCOLS)]
    for name, path in builtin_scenarios().items():
        scenario = load_scenario(path)
        cells = [", ".join(SHORT_KINDS[k] for k in scenario.expect.get(p, ())) or "—" for p in PROTOCOLS]
        rows.append(f"| `{name}` | {scenario.summary} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def run_scenario(scenario: Scenario | str, protocol: str | None = None, record: bool = True,
                 release: str | None = None, settings: Mapping[str, object] | None = None) -> RunResult:
    """Run a scenario (object, built-in name or path), optionally under another protocol
    (a generation's own rules) or release (``3.7.1-kraft``), with ``settings`` changed (given:
    kept whatever the rules' defaults)."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    if protocol is not None and release is not None:
        raise ConfigError("release: give a protocol or a release, not both")
    if protocol is not None:
        scenario = scenario.with_protocol(protocol)
    if release is not None:
        scenario = scenario.with_release(release)
    if settings:
        scenario = dataclasses.replace(scenario, config=scenario.config.replace(**settings))
    return run_steps(scenario.config, scenario.steps, scenario.name, record)
