"""Reading YAML input files (scenarios, fault profiles, sweep specs) with one-line errors."""

from __future__ import annotations

from pathlib import Path

import yaml


def read_yaml(path: Path, error: type[Exception], field: str = ""):
    """The parsed content of ``path``; malformed YAML raises ``error`` naming the file and line
    (``field`` prefixes the message, e.g. ``"spec: "``)."""
    try:
        return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"{field}{path}:{where}: malformed YAML: {problem}") from None
