"""Where the project is: the root that relative paths in notebooks and their messages refer to.

A notebook's kernel runs in ``notebooks/``, a shell in the project root; a path a user types
into a notebook (or reads in one of its messages and passes to ``hwlib run``) means the same
file in both only if both resolve it against the root: ``$HWLIB_ROOT``, else the checkout that
holds this package (the folder with ``pyproject.toml`` above ``hwlib/``), else the current
directory.
"""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    env = os.environ.get("HWLIB_ROOT")
    if env:
        return Path(env).resolve()
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "data").is_dir():
        return checkout
    return Path.cwd().resolve()


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
