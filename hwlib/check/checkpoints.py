"""A ``hwlib check --out`` directory: marker, per-generation checkpoints and results; what ``--resume`` reads.

Layout, every file written atomically:

- ``check.json``: the marker - the check's identity (``CheckSpec.identity``: rules, cluster
  settings, bounds, faults, kinds) and whether it finished. A directory with a marker is one hwlib made;
  any other non-empty directory is refused.
- ``checkpoint-<protocol>.npz``: the search of a generation that is running, as of the end
  of a level (``Search.snapshot``: fingerprints seen, each state's parent and step, the
  fingerprints of the frontier's live states as int64 arrays; the rest - depth, the frontier's
  size, counts, violations found, the engine's source key - as one JSON text). Read with ``allow_pickle=False``: a
  checkpoint is data, and a file that would need code to load (a pickle, an object array)
  is refused in one line without running anything. ``checkpoint-<protocol>.pickle``, the
  form of hwlib before 0.2, is refused too.
- ``result-<protocol>.json``: a finished generation (its checkpoint is then removed).

``--resume`` takes the finished generations as they are and goes on from each checkpoint; a
run without it starts over (removing only the checkpoints and results it would rewrite).
Settings other than the marker's are refused either way: one directory, one check.
"""

from __future__ import annotations

import json
import time
import zipfile
from array import array
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..compiled import source_key
from ..engine.config import ClusterConfig
from ..model.space import Bounds
from ..model.vocabulary import CheckError
from ..util.files import OutputError, atomic_path, check_directory, write_text_atomically
from .coverage import Coverage
from .search import CheckResult, Search, Violation

MARKER = "check.json"
#: the checkpoint's format (4: numpy arrays and JSON, the frontier as the last states numbered and
#: the fingerprints of its live ones; 3 had every frontier state's number and fingerprint; 2 had two
#: parents entries a state; 1 was a pickle, no longer read)
CHECKPOINT_FORMAT = 4
#: the snapshot's int64 arrays (``Search.snapshot``)
ARRAYS = ("seen", "parents", "frontier_keys")


class CheckDir:
    """The directory of one check: opened (validated, marked), checkpointed, resumed, finished."""

    def __init__(self, out: str | Path, check: dict) -> None:
        """``check``: the marker's content (``CheckSpec.identity``)."""
        self.out = Path(out)
        self.check = check
        self.key = source_key()

    # -- opening -------------------------------------------------------------------------------

    def open(self, resume: bool) -> None:
        """Validates the directory for this check and writes its marker; nothing is written
        when it is refused (CheckError, one line)."""
        out = self.out
        try:
            check_directory(out, "out")
        except OutputError as exc:
            raise CheckError(str(exc)) from None
        marker = out / MARKER
        if out.is_dir() and any(out.iterdir()) and not marker.is_file():
            raise CheckError(f"out: {out} holds other files and no {MARKER}; give a new or empty directory")
        if marker.is_file():
            earlier = self._read_marker()
            if earlier != self.check:
                field = next(k for k in self.check if earlier.get(k) != self.check[k])
                raise CheckError(f"out: {out} holds a check with other settings ({field}: "
                                 f"{json.dumps(earlier.get(field))}); give another directory")
        elif resume:
            raise CheckError(f"resume: {out} holds no check to resume (no {MARKER}); run without --resume")
        if not resume:
            for protocol in self.check["protocols"]:
                self._checkpoint(protocol).unlink(missing_ok=True)
                self._legacy_checkpoint(protocol).unlink(missing_ok=True)
                self._result(protocol).unlink(missing_ok=True)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CheckError(f"out: cannot create {out}: {exc.strerror}") from None
        self._write_marker(finished=False)

    def _read_marker(self) -> dict:
        try:
            earlier = json.loads((self.out / MARKER).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise CheckError(f"out: {self.out / MARKER} is not a check's marker ({exc})") from None
        if not isinstance(earlier, dict) or earlier.get("tool") != "hwlib check":
            raise CheckError(f"out: {self.out / MARKER} is not a check's marker")
        earlier.pop("finished", None)
        return earlier

    def _write_marker(self, finished: bool) -> None:
        write_text_atomically(self.out / MARKER, json.dumps({**self.check, "finished": finished}, indent=2) + "\n")

    def finish(self) -> None:
        self._write_marker(finished=True)

    # -- per generation ------------------------------------------------------------------------

    def _checkpoint(self, protocol: str) -> Path:
        return self.out / f"checkpoint-{protocol}.npz"

    def _legacy_checkpoint(self, protocol: str) -> Path:
        return self.out / f"checkpoint-{protocol}.pickle"

    def _result(self, protocol: str) -> Path:
        return self.out / f"result-{protocol}.json"

    def finished(self, protocol: str, config: ClusterConfig, bounds: Bounds,
                 faults: tuple[str, ...]) -> CheckResult | None:
        """The generation's result if a resumed check already finished it."""
        path = self._result(protocol)
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            self._same_engine(data.get("engine"), path)
            result = CheckResult(protocol, config, bounds, faults, complete=data["complete"],
                                 distinct=data["distinct"], generated=data["generated"], depth=data["depth"],
                                 seconds=data["seconds"])
            result.violations = {k: Violation.from_dict(k, v) for k, v in data["violations"].items()}
            if "coverage" in data:
                result.coverage = Coverage(**data["coverage"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CheckError(f"resume: {path} is damaged ({exc}); run without --resume to start over") from None
        return result

    def saved_search(self, protocol: str) -> dict | None:
        """The generation's last checkpoint (``Search.snapshot``), if it has one."""
        path = self._checkpoint(protocol)
        legacy = self._legacy_checkpoint(protocol)
        if not path.is_file() and legacy.is_file():
            raise CheckError(f"resume: {legacy} is a pickled checkpoint (hwlib before 0.2), which hwlib no longer "
                             "reads: loading a pickle can run code; run without --resume to start over")
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as saved:
                header = json.loads(str(saved["header"]))
                if not isinstance(header, dict):
                    raise ValueError("no header")
                if header.get("format") != CHECKPOINT_FORMAT:
                    raise CheckError(f"resume: {path} was written by another version of hwlib (checkpoint format "
                                     f"{header.get('format')}, this one reads {CHECKPOINT_FORMAT}); run without "
                                     "--resume to start over")
                search = dict(header["search"])
                for name in ARRAYS:
                    column = saved[name]
                    if column.dtype != np.int64 or column.ndim != 1:
                        raise ValueError(f"{name}: expected a 1-d int64 array, found {column.dtype} {column.shape}")
                    search[name] = array("q", column.astype("=i8", copy=False).tobytes())
        except CheckError:
            raise
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as exc:
            # allow_pickle=False: an object array (a pickle inside) raises ValueError, unread
            raise CheckError(f"resume: {path} is damaged or not a checkpoint ({' '.join(str(exc).split())}); "
                             "run without --resume to start over") from None
        self._same_engine(header.get("engine"), path)
        return search

    def _same_engine(self, key: str | None, path: Path) -> None:
        if key != self.key:
            raise CheckError(f"resume: {path} was written by another version of hwlib's engine; "
                             f"run without --resume to start over")

    def checkpointer(self, protocol: str, every: float) -> Callable[[Search], None]:
        """A ``level_done`` hook: saves the search after a level, at most once per ``every`` s."""
        last = [time.monotonic()]

        def save(search: Search) -> None:
            if time.monotonic() - last[0] < every:
                return
            snapshot = search.snapshot()
            header = {"format": CHECKPOINT_FORMAT, "engine": self.key,
                      "search": {k: v for k, v in snapshot.items() if k not in ARRAYS}}
            seen, parents, keys = (np.frombuffer(snapshot[name], dtype=np.int64) for name in ARRAYS)
            with atomic_path(self._checkpoint(protocol)) as tmp:
                with tmp.open("wb") as handle:      # a file object: savez adds no suffix of its own
                    np.savez(handle, header=np.array(json.dumps(header)), seen=seen, parents=parents,
                             frontier_keys=keys)
            last[0] = time.monotonic()

        return save

    def done(self, result: CheckResult) -> None:
        """Records a finished generation and drops its checkpoint."""
        write_text_atomically(self._result(result.protocol),
                              json.dumps({**result.as_dict(), "engine": self.key}) + "\n")
        self._checkpoint(result.protocol).unlink(missing_ok=True)
        self._legacy_checkpoint(result.protocol).unlink(missing_ok=True)
