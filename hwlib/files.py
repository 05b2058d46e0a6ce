"""Writing output files: the destination checked before any work, then written atomically (never a partial file)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import HwlibError


class OutputError(HwlibError, OSError):
    """An output path that cannot be written."""


def check_writable(path: str | os.PathLike, field: str = "out") -> Path:
    """Raises OutputError (one line naming ``field``) unless ``path`` can be written as a file:
    not a directory, a name the file system takes, and its nearest existing folder writable."""
    path = Path(path)
    if any(len(part.encode()) > 255 for part in path.parts):
        raise OutputError(f"{field}: cannot write {path}: a name in it is longer than 255 bytes")
    try:
        if path.is_dir():
            raise OutputError(f"{field}: cannot write {path}: it is a directory")
    except OSError as exc:
        if isinstance(exc, OutputError):
            raise
        raise OutputError(f"{field}: cannot write {path}: {exc.strerror}") from None
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise OutputError(f"{field}: cannot write {path}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{field}: cannot write {path}: {folder} is not writable")
    return path


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yields a temporary path beside ``path`` (same suffix) to write; on success it replaces
    ``path``, on failure it is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomically(path: str | os.PathLike, text: str) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)
