"""The visited set in shared memory: the coordinator's table, read in place by its worker processes.

A search shared with workers used to hold the visited set three times on two cores - the
coordinator's and a copy in each worker, updated with every level's new fingerprints -, 16 - 32
bytes a state each. Now the coordinator's ``Fingerprints`` keeps its table in POSIX shared
memory (``SharedTables``, one segment per table: a growing table gets a new segment and the old
one is unlinked) and each worker maps the current one and looks fingerprints up in it
(``SharedView``). The coordinator adds a level's fingerprints while the workers expand it
(``workers``: it numbers their states as they come), so a worker may read a slot as it is
written: a slot is one aligned 8-byte word, read whole or not yet, so a lookup finds a key
added or misses one being added - either is right, as every key added was numbered at a
smaller rank than any the worker has still to make (a miss costs a duplicate the merge
drops). Each command to expand names the table as it is then (``handle``), and when the table
grows in the middle of a level the coordinator names the new one ("follow").

A segment is unlinked as soon as a bigger table replaces it and when the search ends
(``SharedTables.close``), so none outlives the search; were the coordinator killed, the
resource tracker that ``multiprocessing`` starts beside it (its workers share it) unlinks what
is left. Linux keeps the segments in ``/dev/shm``, which a container may make small (Docker's
default is 64 MB): a table that would not fit is refused in one line before it is made
(``room``), where writing to it would kill the process with a bus error.
"""

from __future__ import annotations

import os
import secrets
from multiprocessing.shared_memory import SharedMemory
from typing import Any

from ..model.vocabulary import CheckError
from .fingerprints import Fingerprints

#: where Linux keeps POSIX shared memory
SHM_DIR = "/dev/shm"


def room(size: int, what: str = "the visited set's next table") -> None:
    """Refuses (CheckError) a segment of ``size`` bytes for ``what`` that ``SHM_DIR`` has no
    room for; where there is no such directory (macOS), the system is left to say."""
    try:
        stats = os.statvfs(SHM_DIR)
    except OSError:
        return
    free = stats.f_bavail * stats.f_frsize
    if free < size:
        raise CheckError(f"workers: {what} needs {_size(size)} of shared memory and {SHM_DIR} "
                         f"has {_size(free)} free; give it more (docker run --shm-size) or run with --workers 1")


def created(size: int) -> SharedMemory:
    """A new segment of ``size`` bytes (zeroed), named ``hwlib_<pid>_<random>`` after the process
    that made it - so a segment found in /dev/shm says it is hwlib's and whose."""
    while True:
        try:
            return SharedMemory(name=f"hwlib_{os.getpid()}_{secrets.token_hex(4)}", create=True, size=size)
        except FileExistsError:         # a name already taken: draw another, as SharedMemory does
            continue


def _size(size: int) -> str:
    return f"{size / 2 ** 20:,.0f} MiB" if size >= 2 ** 20 else f"{size / 2 ** 10:,.0f} KiB"


class Mapped:
    """One segment, mapped, and the int64 view of its first ``slots`` * 8 bytes (a segment may
    be rounded up to a page): the views are released before the segment is closed, as
    ``SharedMemory.close`` requires."""

    def __init__(self, segment: SharedMemory, slots: int) -> None:
        self.segment = segment
        mapped = segment.buf
        assert mapped is not None, "a segment just opened is mapped"
        self._bytes = mapped[:8 * slots]
        self.table = self._bytes.cast("q")

    def close(self) -> None:
        self.table.release()
        self._bytes.release()
        self.segment.close()

    def unlink(self) -> None:
        """Removes the segment's name (it stays mapped until ``close``); once is enough."""
        try:
            self.segment.unlink()
        except FileNotFoundError:
            pass


class SharedTables:
    """The coordinator's ``Fingerprints`` tables (``fingerprints.Tables``), each in a segment
    of its own; the current one's name is ``handle``'s."""

    def __init__(self) -> None:
        self._mapped: dict[int, Mapped] = {}        # by id() of the table given out
        self._current: Mapped | None = None

    def new(self, slots: int) -> Any:
        room(8 * slots)
        mapped = Mapped(created(8 * slots), slots)      # zeroed: every slot free
        self._mapped[id(mapped.table)] = mapped
        self._current = mapped
        return mapped.table

    def drop(self, table: Any) -> None:
        mapped = self._mapped.pop(id(table))
        mapped.close()
        mapped.segment.unlink()

    def name(self) -> str:
        assert self._current is not None, "SharedTables: no table yet"
        return self._current.segment.name

    def close(self) -> None:
        """The search is over: the current segment is unlinked (its memory stays mapped here
        for what still reads the set, and is freed with it)."""
        if self._current is not None:
            self._current.unlink()

    def __del__(self) -> None:
        for mapped in self._mapped.values():
            mapped.close()
        self._mapped.clear()


def shared_copy(seen: Fingerprints) -> tuple[Fingerprints, SharedTables]:
    """``seen``'s fingerprints in a new set whose table is in shared memory."""
    tables = SharedTables()
    return Fingerprints(seen, tables), tables


def handle(seen: Fingerprints, tables: SharedTables) -> tuple[str, int, int, bool]:
    """What a worker needs to read ``seen`` as it is now: its segment's name, its slots, size
    and whether it holds 0."""
    return (tables.name(), *seen.shape())


class Followed:
    """A worker's mapping of the segment its coordinator's last command named: ``mapping``
    maps it again only when the name changed (a grown table is a new segment)."""

    def __init__(self) -> None:
        self._mapped: Mapped | None = None
        self._name = ""

    def mapping(self, name: str, slots: int) -> Any:
        """The int64 view of segment ``name``'s first ``slots`` entries (FileNotFoundError if
        it is gone - replaced and unlinked since it was named -, the segment mapped before
        still mapped)."""
        if name != self._name:
            mapped = Mapped(SharedMemory(name=name), slots)    # first: a segment gone leaves the old one read
            self._unmap()
            self._mapped, self._name = mapped, name
        assert self._mapped is not None
        return self._mapped.table

    def _unmap(self) -> None:
        if self._mapped is not None:
            self._mapped.close()
            self._mapped, self._name = None, ""

    def close(self) -> None:
        """Unmaps the segment (what ``mapping`` gave can no longer be read)."""
        self._unmap()


class SharedView(Followed):
    """A worker's reading of the coordinator's visited set: ``follow`` maps the table a command
    names and points ``seen`` at it - the same set object from one segment to the next, so a
    search that holds it reads the new table (a worker follows a grown table in the middle of
    an expansion)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = Fingerprints()

    def follow(self, shared: tuple[str, int, int, bool]) -> Fingerprints:
        name, slots, size, zero = shared
        table = self.mapping(name, slots)       # first: a new segment comes with a new set
        self.seen.viewing(table, size, zero)
        return self.seen

    def close(self) -> None:
        """Unmaps the table (the set ``follow`` gave can no longer be read)."""
        super().close()
        self.seen = Fingerprints()
