"""Error types: every bad input raises an HwlibError whose one-line message names the field and what is allowed."""

from __future__ import annotations


class HwlibError(Exception):
    """Base class of every error hwlib raises on bad input."""


class ConfigError(HwlibError, ValueError):
    """A cluster configuration value is out of range or of the wrong type."""


class ScenarioError(HwlibError, ValueError):
    """A scenario file or step list is malformed (unknown step kind, unknown replica, bad YAML ...)."""


class UnknownScenarioError(ScenarioError, LookupError):
    """A scenario was asked for by a name that is neither a built-in nor a file."""
