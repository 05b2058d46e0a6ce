"""A sweep's output directory as hwlib owns it: marker, writer's lock, sealed chunks, removal of only its own files.

- **Marker**: ``spec.json`` with ``"tool": "hwlib sweep"`` and the directory format. Only a
  directory whose ``spec.json`` says so is a sweep: ``--overwrite`` and ``--resume`` refuse
  anything else, whatever its file names.
- **Lock**: ``.hwlib-lock`` holds an exclusive ``flock`` for as long as a sweep writes, with the
  holder's pid and host inside for the message a second writer gets. The kernel drops the lock
  when its holder dies, so a stale lock cannot block anyone.
- **Sealed chunks**: a chunk's Spark output gets ``_hwlib_chunk.json`` (its row count, and each
  part file's size and SHA-256) before it is renamed into place; ``--resume`` keeps a chunk
  only if its seal matches and re-runs it otherwise. Readers read the planned chunks only, so a
  stray ``chunk=...`` directory is ignored (and left alone).
- **Removal**: ``--overwrite`` removes the files hwlib writes (by name: ``spec.json``,
  ``manifest.json``, ``summary.parquet``, ``runs/chunk=NNNNN`` and ``runs/_tmp-...``,
  ``shrunk/cNNN-<kind>.yaml``) and never anything else; a folder is removed only when empty.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
from pathlib import Path

from ..util.files import OutputError, check_directory, write_text_atomically
from .spec import SweepSpecError

TOOL = "hwlib sweep"
FORMAT = 2
LOCK = ".hwlib-lock"
SEAL = "_hwlib_chunk.json"
_SHRUNK = re.compile(r"c\d+-[a-z-]+\.yaml")
_CHUNK = re.compile(r"chunk=\d{5}")


class SweepDirError(SweepSpecError):
    """The output directory holds something else (another sweep, a finished one, a writer ...)."""


def chunk_name(index: int) -> str:
    return f"chunk={index:05d}"


class SweepDir:
    def __init__(self, out: str | os.PathLike) -> None:
        self.out = Path(out)
        self._lock_fd: int | None = None
        #: what this process made: the directory, its lock file, a new sweep's marker
        self.created = False
        self.lock_created = False
        self.fresh = False

    # -- what the directory is ---------------------------------------------------------------------

    def marker(self) -> dict | None:
        """``spec.json``'s content when it marks an hwlib sweep of this format, else None."""
        path = self.out / "spec.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        return data if isinstance(data, dict) and data.get("tool") == TOOL and data.get("format") == FORMAT else None

    def is_empty(self) -> bool:
        return not self.out.exists() or (self.out.is_dir() and not any(self.out.iterdir()))

    # -- the writer's lock -------------------------------------------------------------------------

    def lock(self) -> None:
        """Creates the directory if needed (remembering that it did) and takes the lock, or
        SweepDirError naming the holder."""
        try:
            check_directory(self.out, "out")
        except OutputError as exc:
            raise SweepDirError(str(exc)) from None
        try:
            if not self.out.exists():
                self.out.mkdir(parents=True)
                self.created = True
            self.lock_created = not (self.out / LOCK).exists()
            fd = os.open(self.out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise SweepDirError(f"out: cannot write {self.out}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            self.lock_created = False
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise SweepDirError(f"out: {self.out} is being written by another hwlib sweep ({holder}); "
                                    "wait for it to finish or choose another directory") from None
            raise SweepDirError(f"out: cannot lock {self.out}: {exc.strerror}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)            # releases the flock; the file stays (hwlib's own)
            self._lock_fd = None

    def abandon(self) -> None:
        """Undo a start that failed before any run: remove what this process wrote (a new
        sweep's files, a lock file it created) and the directory if it created it; a sweep
        being resumed keeps everything."""
        if self.fresh:
            self.remove_own()
        if self.lock_created:
            (self.out / LOCK).unlink(missing_ok=True)
        self.unlock()
        if self.created:
            try:
                self.out.rmdir()
            except OSError:
                pass

    # -- removal of hwlib's files only -------------------------------------------------------------

    def remove_own(self) -> None:
        out = self.out
        for name in ("spec.json", "manifest.json", "summary.parquet"):
            (out / name).unlink(missing_ok=True)
        runs = out / "runs"
        if runs.is_dir():
            for path in runs.iterdir():
                if path.is_dir() and (_CHUNK.fullmatch(path.name) or path.name.startswith("_tmp-chunk=")):
                    shutil.rmtree(path)
            _rmdir_if_empty(runs)
        shrunk = out / "shrunk"
        if shrunk.is_dir():
            for path in shrunk.iterdir():
                if path.is_file() and _SHRUNK.fullmatch(path.name):
                    path.unlink()
            _rmdir_if_empty(shrunk)

    # -- chunks ------------------------------------------------------------------------------------

    def chunk_path(self, index: int) -> Path:
        return self.out / "runs" / chunk_name(index)

    def chunk_paths(self, count: int) -> list[str]:
        return [str(self.chunk_path(i)) for i in range(count)]

    def seal(self, path: Path, rows: int) -> None:
        """Records a freshly written chunk's row count and part files (before its rename)."""
        import pyarrow.parquet as pq

        parts = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(("_", ".")))
        found = sum(pq.ParquetFile(p).metadata.num_rows for p in parts)
        if found != rows:
            raise SweepDirError(f"out: chunk {path.name} has {found} rows, expected {rows}")
        files = {p.name: [p.stat().st_size, _sha256(p)] for p in parts}
        write_text_atomically(path / SEAL, json.dumps({"rows": rows, "files": files}, indent=1) + "\n")

    def sealed(self, index: int, rows: int) -> bool:
        """Whether chunk ``index`` is on disk exactly as it was sealed, with ``rows`` rows."""
        path = self.chunk_path(index)
        try:
            seal = json.loads((path / SEAL).read_text(encoding="utf-8"))
            if seal.get("rows") != rows:
                return False
            parts = {p.name for p in path.iterdir() if p.is_file() and not p.name.startswith(("_", "."))}
            if parts != set(seal["files"]):
                return False
            return all((path / name).stat().st_size == size and _sha256(path / name) == digest
                       for name, (size, digest) in seal["files"].items())
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def finished_chunks(self, chunks: list[list[tuple[int, int]]]) -> tuple[set[int], list[int]]:
        """The planned chunks that are sealed intact, and those that are present but damaged
        (removed here: hwlib wrote them, and they will be run again)."""
        done, damaged = set(), []
        for index, batches in enumerate(chunks):
            path = self.chunk_path(index)
            if not path.exists():
                continue
            if self.sealed(index, sum(count for _, count in batches)):
                done.add(index)
            else:
                damaged.append(index)
                shutil.rmtree(path)
        return done, damaged


def _rmdir_if_empty(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
