"""Where the project is (the root that relative paths in notebooks refer to) and where hwlib's built-in files are.

A notebook's kernel runs in ``notebooks/``, a shell in the project root; a path a user types
into a notebook (or reads in one of its messages and passes to ``hwlib run``) means the same
file in both only if both resolve it against the root: ``$HWLIB_ROOT``, else the checkout that
holds this package (the folder with ``pyproject.toml`` above ``hwlib/``), else the current
directory.

The built-in scenarios, fault profiles, sweep and check specs, example incident logs, the inventory of
Kafka's log messages and notebooks have one source, the checkout's ``data/`` and ``notebooks/``;
a wheel carries copies of them under ``hwlib/builtin/`` (the build makes them: ``setup.py``),
read from there when installed.
"""

from __future__ import annotations

import os
from pathlib import Path

#: the built-in files: folder under ``hwlib/builtin/`` in a wheel -> files in the checkout
BUILTIN = {"scenarios": "data/scenarios/*.yaml", "profiles": "data/profiles/*.yaml", "specs": "data/specs/*.yaml",
           "notebooks": "notebooks/*.ipynb", "incidents": "data/incidents/*.log", "explain": "data/explain/*.csv",
           "check-specs": "data/check-specs/*.yaml"}

PACKAGE = Path(__file__).resolve().parents[1]


def checkout() -> Path | None:
    """The source checkout holding this package, or None when it is installed."""
    root = PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "data").is_dir() else None


def builtin_dir(kind: str) -> Path:
    """Where the built-in ``kind`` (a key of ``BUILTIN``) lives: the installed package's copy,
    else the checkout's own folder."""
    packaged = PACKAGE / "builtin" / kind
    if packaged.is_dir():
        return packaged
    root = checkout()
    folder = BUILTIN[kind].rsplit("/", 1)[0]
    return (root / folder) if root is not None else packaged


def builtin_files(kind: str) -> dict[str, Path]:
    """The built-in ``kind`` files by name (the file name without its suffix)."""
    folder = builtin_dir(kind)
    pattern = BUILTIN[kind].rsplit("/", 1)[1]
    return {p.stem: p for p in sorted(folder.glob(pattern))} if folder.is_dir() else {}


def project_root() -> Path:
    env = os.environ.get("HWLIB_ROOT")
    if env:
        return Path(env).resolve()
    return checkout() or Path.cwd().resolve()


def resolve(path: str | os.PathLike) -> Path:
    """``path`` as the project means it: absolute as given, relative against the root."""
    path = Path(path).expanduser()
    return path if path.is_absolute() else project_root() / path


def shown(path: str | os.PathLike) -> str:
    """``path`` as a user passes it to ``hwlib`` from the root: relative when inside it."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(project_root()))
    except ValueError:
        return str(path)
