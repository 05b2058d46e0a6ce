"""Writing output files: the destination checked before any work, then written atomically (never a partial file)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import HwlibError


class OutputError(HwlibError, OSError):
    """An output path that cannot be written."""


#: what Linux file systems take: a name of 255 bytes, a path of 4,095
NAME_MAX, PATH_MAX = 255, 4095


def _check_names(path: Path, field: str) -> None:
    if any(len(part.encode()) > NAME_MAX for part in path.parts):
        raise OutputError(f"{field}: cannot write {_short(path)}: a name in it is longer than {NAME_MAX} bytes")
    if len(str(path).encode()) > PATH_MAX:
        raise OutputError(f"{field}: cannot write {_short(path)}: the path is longer than {PATH_MAX} bytes")


def _short(path: Path) -> str:
    """A path as an error line shows it: at most 120 characters."""
    text = str(path)
    return text if len(text) <= 120 else f"{text[:60]}...{text[-40:]} ({len(text)} characters)"


def is_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a readable file; False for a name the file system cannot even
    look up (too long, under a file)."""
    try:
        return Path(path).is_file()
    except OSError:
        return False


def check_directory(path: str | os.PathLike, field: str = "out") -> Path:
    """Raises OutputError (one line naming ``field``) unless ``path`` can be a directory hwlib
    writes into: names the file system takes, not a file, and it or its nearest existing
    folder a writable directory. Writes nothing."""
    path = Path(path)
    _check_names(path, field)
    try:
        if path.exists() and not path.is_dir():
            raise OutputError(f"{field}: {_short(path)} is a file; give a directory")
        folder = path
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    except OSError as exc:
        if isinstance(exc, OutputError):
            raise
        raise OutputError(f"{field}: cannot write {_short(path)}: {exc.strerror}") from None
    if not folder.is_dir():
        raise OutputError(f"{field}: cannot write {_short(path)}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{field}: cannot write {_short(path)}: {folder} is not writable")
    return path


def check_writable(path: str | os.PathLike, field: str = "out") -> Path:
    """Raises OutputError (one line naming ``field``) unless ``path`` can be written as a file:
    not a directory, a name the file system takes, and its nearest existing folder writable."""
    path = Path(path)
    _check_names(path, field)
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


def check_replaceable(path: str | os.PathLike, field: str, ours: str, head: int = 600,
                      owner: str = "hwlib") -> Path:
    """``check_writable``, and an existing file there must hold ``ours`` in its first ``head``
    characters (hwlib wrote it): anything else is never replaced (OutputError naming ``field``)."""
    target = check_writable(path, field)
    if target.exists():
        try:
            start = target.read_text(encoding="utf-8", errors="replace")[:head]
        except OSError as exc:
            raise OutputError(f"{field}: cannot read {target}: {exc.strerror}") from None
        if ours not in start:
            raise OutputError(f"{field}: {target} exists and {owner} did not write it; name another file")
    return target


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
