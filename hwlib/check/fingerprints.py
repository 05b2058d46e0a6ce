"""The visited set: 64-bit state fingerprints in one flat open-addressing table, 11 - 21 bytes a state.

A Python ``set`` of the search's fingerprints costs about 70 bytes a state (a 16-byte slot at
most 60% full, plus a 32-byte int object per fingerprint): at 3 replicas, tens of millions of
states, that alone outgrows a laptop. ``Fingerprints`` keeps the integers themselves in an
``array('q')`` with linear probing, at most three quarters full: 11 - 21 bytes a state (a search
looks a fingerprint up once per transition, so the longer probes of a fuller table cost nothing
the engine's step would notice), the same answers. Its table can live in shared memory
(``shared_visited``), where worker processes read it in place. Given at most so many slots
(``most``), it is a filter of bounded memory instead: full, it forgets what it holds and starts
over - a key added before may then be said not in, never the reverse.
(No library in this project's stack offers a compact int64 set: pandas' hash tables are private
API, and the one PyPI package for it, cykhash, comes as a Cython source distribution only.)
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from typing import Any, Final, Protocol

from mypy_extensions import i64

#: a free slot; the fingerprint 0 itself is kept apart (``_zero``)
_FREE: Final = 0


class Tables(Protocol):
    """Where a ``Fingerprints`` keeps its table, when not in its own ``array('q')``: ``new``
    gives a zeroed table of ``slots`` int64 (indexable, ``len``), ``drop`` is told once one is
    replaced (``shared_visited.SharedTables``: in shared memory)."""

    def new(self, slots: int) -> Any: ...

    def drop(self, table: Any) -> None: ...


class Fingerprints:
    """A set of signed 64-bit integers (Python's ``hash`` values): ``add`` (``added``: and
    whether it was new), ``in``, ``len``, iteration (in no particular order), ``update``.
    With ``tables``, its table is made there (shared memory, which other processes read in
    place: ``shape`` and ``viewing``). With ``most`` (a power of two), its table never has more
    slots: where it would grow past them it is emptied instead (``forgotten`` counts how often)."""

    def __init__(self, keys: Iterable[int] = (), tables: Tables | None = None, most: int | None = None) -> None:
        assert most is None or (most >= 1024 and most & (most - 1) == 0), "Fingerprints: most is a power of two"
        self._tables = tables
        self._most: i64 = most if most is not None else 0
        #: how many times the table was emptied for want of slots (``most``)
        self.forgotten = 0
        self._table: Any = self._new(1024)
        self._mask: i64 = 1023
        self._size = 0
        self._zero = False
        self.update(keys)

    def _new(self, slots: int) -> Any:
        tables = self._tables
        return array("q", bytes(8 * slots)) if tables is None else tables.new(slots)

    def shape(self) -> tuple[int, int, bool]:
        """What a reader of the same table needs beside it: its slots, the size, and whether 0
        is in."""
        return len(self._table), self._size, self._zero

    def viewing(self, table: Any, size: int, zero: bool) -> None:
        """Reads ``table`` from now on, a table another ``Fingerprints`` fills (its ``shape``
        given): for lookups only - this one adds nothing to it."""
        self._table = table
        self._mask = len(table) - 1
        self._size = size
        self._zero = zero

    def __len__(self) -> int:
        return self._size

    def _slot(self, key: i64) -> i64:
        """Where ``key`` (not 0) is, or the free slot where it would go: linear probing from
        its hash's low bits (mixed with higher ones)."""
        table, mask = self._table, self._mask
        slot: i64 = (key ^ (key >> 29)) & mask
        while True:
            found: i64 = table[slot]
            if found == key or found == _FREE:
                return slot
            slot = (slot + 1) & mask

    def __contains__(self, key: int) -> bool:
        if key == _FREE:
            return self._zero
        return self._table[self._slot(key)] == key

    def add(self, key: int) -> None:
        self.added(key)

    def added(self, key: int) -> bool:
        """Adds ``key``; whether it was not there before (one probe sequence for both)."""
        if key == _FREE:
            if self._zero:
                return False
            self._zero = True
            self._size += 1
            return True
        if 4 * (self._size + 1) > 3 * len(self._table):      # at most three quarters full
            self._grow()
        slot = self._slot(key)
        if self._table[slot] != _FREE:
            return False
        self._table[slot] = key
        self._size += 1
        return True

    def update(self, keys: Iterable[int]) -> None:
        for key in keys:
            self.add(key)

    def __iter__(self) -> Iterator[int]:
        if self._zero:
            yield _FREE
        for key in self._table:
            if key != _FREE:
                yield key

    def _grow(self) -> None:
        """Twice the slots, every fingerprint placed anew - or, at ``most`` slots, none."""
        old = self._table
        if self._most and len(old) >= self._most:
            self._table = self._new(len(old))
            self._size = int(self._zero)
            self.forgotten += 1
            if self._tables is not None:
                self._tables.drop(old)
            return
        self._table = self._new(2 * len(old))
        self._mask = 2 * len(old) - 1
        self._size = int(self._zero)
        for key in old:
            if key != _FREE:
                self.add(key)
        if self._tables is not None:
            self._tables.drop(old)
