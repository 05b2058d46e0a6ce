"""Docstrings and comments name modules that exist: a name of hwlib's (``hwlib.report.findings``,
``runners.explore``, ``hwlib/views/static/stepper.js``) resolves or imports, so a move that leaves a
stale reference behind fails here."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "hwlib"
DOTTED = re.compile(r"\bhwlib(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"\bhwlib/[\w/]+\.(?:py|css|js|ipynb|properties)\b")
#: ``module.attr`` in double backquotes, where module is the last part of a module's name;
#: not a longer dotted name (Kafka's settings: ``replica.lag.time.max.ms``) nor a file name
RELATIVE = re.compile(r"``([a-z_]\w*)\.([A-Za-z_]\w*)``")
FILE_SUFFIXES = {"py", "json", "yaml", "md", "parquet", "npz", "pickle", "js", "css", "ipynb"}
#: phrases of that shape that name no hwlib module: Kafka's and Spark's own names
NOT_OURS = {"config.replicas", "metadata.requestUpdate", "spark.archives", "metadata.version"}


def _texts() -> dict[Path, str]:
    """Each module's docstrings (module, classes, functions) and comment lines."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text()
        tree = ast.parse(source)
        docs = [ast.get_docstring(node) for node in ast.walk(tree)
                if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)]
        comments = [line for line in source.splitlines() if line.strip().startswith("#")]
        out[path] = "\n".join([d for d in docs if d] + comments)
    return out


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(found, attr):
                return False
            found = getattr(found, attr)
        return True
    return False


def _modules_by_last_name() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out.setdefault(name.rsplit(".", 1)[-1], []).append(name)
    return out


def test_every_module_path_named_in_a_docstring_exists():
    stale = []
    modules = _modules_by_last_name()
    for path, text in _texts().items():
        where = path.relative_to(PACKAGE.parent)
        stale += [(where, name) for name in DOTTED.findall(text) if not _resolves(name)]
        stale += [(where, name) for name in PATH.findall(text) if not (PACKAGE.parent / name).exists()]
        for module, attr in RELATIVE.findall(text):
            if module not in modules or attr in FILE_SUFFIXES or f"{module}.{attr}" in NOT_OURS:
                continue
            if not any(_resolves(f"{full}.{attr}") for full in modules[module]):
                stale.append((where, f"{module}.{attr}"))
    assert stale == []


def test_the_check_finds_a_stale_name():
    """The test above can fail: a moved function named the old way is found."""
    assert not _resolves("hwlib.check.verdicts.check_all")          # moved to check.driver.run
    assert _resolves("hwlib.check.driver.run") and _resolves("hwlib.views.frames.frames")
    assert RELATIVE.findall("see ``runners.explore`` and ``replica.lag.time.max.ms``") == [("runners", "explore")]
