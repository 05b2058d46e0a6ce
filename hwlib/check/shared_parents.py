"""The parent table in shared memory: the coordinator appends each level's states, its workers read schedules in place.

Every state a search keeps has an entry in its parent table (``Search.parents``: the parent's
number * 256 + the step index, 8 bytes), enough to give any state's schedule
(``Search.indices``) and so to rebuild it by replaying that schedule. On worker processes the
coordinator numbers the states (``Search.merge_level``) and so holds the table; before, a
worker kept each of its frontier states with its schedule (a node of ~130 bytes, and the
coordinator shipped a schedule with every state it handed over). Now the coordinator's table
lives in a POSIX shared-memory segment (``SharedParents``) that each worker maps
(``ParentsView``): a worker keeps a cold state as its number alone and reads its schedule
in place.

The discipline is the visited set's (``shared_visited``): the coordinator appends a level's
states while the workers expand it, and a worker reads only the entries of earlier levels'
states, which no longer change; each command names the table as it is then (``handle``), and
one grown in the middle of a level is named to the workers then ("follow"); a full table is
copied into a segment twice its size and the old one is unlinked at once (a worker still
reading it keeps it mapped until it follows); the last one is unlinked when the search ends
(``close``), and a segment ``/dev/shm`` has no room for is refused in one line before it is
made.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

from .shared_visited import Followed, Mapped, created, room

#: the slots of a new table, at least (a search is shared from 2,000 frontier states on)
MIN_SLOTS = 1 << 16

#: entries copied at a time where the table is read whole (a checkpoint's snapshot)
CHUNK = 1 << 16


class SharedParents:
    """The coordinator's parent table, in shared memory: ``append``, ``len``, an entry by
    number, iteration in number order - what ``Search`` does with its ``array('q')``."""

    def __init__(self, entries: array) -> None:
        self._size = 0
        self._mapped: Mapped | None = None
        self._grow(max(2 * len(entries), MIN_SLOTS))
        self._table[:len(entries)] = memoryview(entries)
        self._size = len(entries)

    @property
    def _table(self) -> Any:
        assert self._mapped is not None, "SharedParents: no table"
        return self._mapped.table

    def _grow(self, slots: int) -> None:
        room(8 * slots, "the parent table")
        mapped = Mapped(created(8 * slots), slots)
        old, self._mapped = self._mapped, mapped
        self._slots = slots
        if old is not None:
            mapped.table[:self._size] = old.table[:self._size]
            old.close()
            old.segment.unlink()

    def append(self, entry: int) -> None:
        if self._size == self._slots:
            self._grow(2 * self._slots)
        self._table[self._size] = entry
        self._size += 1

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, number: int) -> int:
        if not 0 <= number < self._size:
            raise IndexError(f"state {number} is not numbered yet ({self._size} are)")
        return self._table[number]

    def __iter__(self) -> Iterator[int]:
        for start in range(0, self._size, CHUNK):
            yield from self._table[start:min(start + CHUNK, self._size)].tolist()

    def handle(self) -> tuple[str, int]:
        """What a worker needs to read the table as it is now: its segment's name and slots."""
        assert self._mapped is not None, "SharedParents: no table"
        return self._mapped.segment.name, self._slots

    def close(self) -> None:
        """The search is over: the segment is unlinked (it stays mapped here for what still
        reads the table - the result's schedules - and is unmapped with it)."""
        if self._mapped is not None:
            self._mapped.unlink()

    def __del__(self) -> None:
        if self._mapped is not None:
            self._mapped.close()
            self._mapped = None


class ParentsView(Followed):
    """A worker's reading of the coordinator's parent table: ``follow`` maps the segment a
    command names and gives its entries by number."""

    def follow(self, shared: tuple[str, int]) -> Any:
        return self.mapping(*shared)
