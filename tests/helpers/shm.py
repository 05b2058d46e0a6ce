"""POSIX shared memory in tests: whether /dev/shm is here, and the segments it holds by name."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

SHM = Path("/dev/shm")
needs_shm = pytest.mark.skipif(not SHM.is_dir(), reason="POSIX shared memory is not a /dev/shm directory here")


def segments(pid: int | None = None) -> set[str]:
    """The names of the segments hwlib made in process ``pid`` (by default this one) that are in
    /dev/shm now - not another's: tests run beside one another (pytest-xdist)."""
    made_by = f"hwlib_{os.getpid() if pid is None else pid}_"
    return {p.name for p in SHM.iterdir() if p.name.startswith(made_by)}


def shm_free(monkeypatch, free_bytes: int) -> None:
    """Makes /dev/shm say it has ``free_bytes`` free, as a small container's would (Docker's
    default is 64 MB), to the room check the shared tables make (``shared_visited.room``)."""
    from hwlib.check import shared_visited

    real = shared_visited.os.statvfs
    monkeypatch.setattr(shared_visited.os, "statvfs", lambda path: SimpleNamespace(f_bavail=free_bytes // 512,
                                                                                     f_frsize=512)
                        if path == shared_visited.SHM_DIR else real(path))
