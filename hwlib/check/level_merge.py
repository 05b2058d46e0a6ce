"""One level's merge: the parts' candidates numbered in (parent, step) order as they come, as one process numbers them.

A level of a search shared with workers (``workers``) or Spark tasks (``spark_levels``) is
expanded in parts - each frontier state in one part, each part expanded in number order - and
each part yields its candidates: the states it made that were not in the visited set, as ranks
(parent number * 256 + step index: what the parent table keeps) and fingerprints, in rank
order. One process numbers a level's new states in that order (``Search.next_level``), so the
merge takes the parts' candidates as sorted runs, smallest rank first, and numbers each whose
fingerprint is new - into the visited set and the parent table -, the others (met at an earlier
level, or earlier in this one) not.

The candidates may come in chunks, as a part makes them: ``run`` numbers while every part that
has not ended has a chunk waiting, and says which part it waits for. What it keeps of the
level is per part the number of each of its first candidates that are live (the worker holds
them as states: -1 where not kept) - as many as the parts could hold in memory as states - and,
where asked, the kept states' fingerprints in number order. The kept states are the numbers
it gave, one range; a candidate itself is not kept once numbered, so the process that merges
holds a chunk per part, not the level.
"""

from __future__ import annotations

from array import array
from typing import Any

from .fingerprints import Fingerprints

#: a kind's first transition of a level: (parent state, step index, position among the
#: transition's anomalies, detail)
First = tuple[int, int, int, str]


class LevelMerge:
    """The merge of one level's ``parts`` parts into ``seen`` and ``parents`` (see the
    module's docstring): ``feed`` each part's chunks, ``end`` each part, ``run`` between."""

    def __init__(self, seen: Fingerprints, parents: Any, parts: int, keys: bool = False) -> None:
        self.seen = seen
        self.parents = parents
        #: the level's first number and the next one
        self.first: int = len(parents)
        self.number: int = self.first
        self.parts = parts
        self._ranks: list[array] = [array("q") for _ in range(parts)]
        self._keys: list[array] = [array("q") for _ in range(parts)]
        self._heads: list[int] = [0] * parts
        self._last: list[int] = [-1] * parts        # the last rank numbered, per part
        self._ended: list[bool] = [False] * parts
        self._fed: list[int] = [0] * parts          # candidates given, per part
        self._taken: list[int] = [0] * parts        # candidates numbered (or not), per part
        self._live: list[int] = [0] * parts         # how many of the part's first candidates are live
        #: per part, for each of its live candidates in turn, its number (-1: not kept)
        self.live_numbers: list[array] = [array("q") for _ in range(parts)]
        #: the kept states' fingerprints in number order, where asked (``keys``)
        self.keys: array | None = array("q") if keys else None
        #: the level's first transition per kind, over the parts that ended
        self.found: dict[str, First] = {}
        #: the transitions the parts made beyond those the merging search counted
        self.generated: int = 0

    def feed(self, part: int, ranks: array, keys: array, live: int = 0) -> None:
        """The part's next chunk of candidates (its rank and fingerprint arrays, in rank order),
        the first ``live`` of them live; given once the last chunk is numbered."""
        assert self._heads[part] == len(self._ranks[part]), "LevelMerge.feed: the part's last chunk is not numbered"
        assert not self._ended[part], "LevelMerge.feed: the part ended"
        assert len(ranks) == len(keys) and 0 <= live <= len(ranks), "LevelMerge.feed: a chunk's arrays"
        assert live == 0 or self._live[part] == self._fed[part], "LevelMerge.feed: a live candidate after a cold one"
        self._ranks[part], self._keys[part], self._heads[part] = ranks, keys, 0
        self._live[part] += live
        self._fed[part] += len(ranks)

    def end(self, part: int, found: dict[str, First], generated: int) -> None:
        """The part has given every candidate: its first transition per kind not found before,
        and the transitions it made."""
        self._ended[part] = True
        self.generated += generated
        for kind, first in found.items():
            if kind not in self.found or first[:3] < self.found[kind][:3]:
                self.found[kind] = first

    def run(self) -> int:
        """Numbers the candidates, smallest rank first, while every part that has not ended
        has one waiting; returns the part whose next chunk (or end) it waits for, or -1 once
        every part ended and every candidate is numbered."""
        seen, table, count = self.seen, self.parents, self.parts
        heads, last, ranks_of, keys_of = self._heads, self._last, self._ranks, self._keys
        number: int = self.number
        while True:
            best: int = -1
            best_rank: int = 0
            for p in range(count):
                at = heads[p]
                if at < len(ranks_of[p]):
                    rank: int = ranks_of[p][at]
                    if best < 0 or rank < best_rank:
                        best, best_rank = p, rank
                elif not self._ended[p]:
                    self.number = number
                    return p
            if best < 0:
                self.number = number
                return -1
            assert best_rank > last[best], "LevelMerge: a part's candidates are not in (parent, step) order"
            last[best] = best_rank
            key: int = keys_of[best][heads[best]]
            heads[best] += 1
            given: int = -1
            if seen.added(key):
                table.append(best_rank)
                given = number
                number += 1
                if self.keys is not None:
                    self.keys.append(key)
            taken = self._taken[best]
            self._taken[best] = taken + 1
            if taken < self._live[best]:
                self.live_numbers[best].append(given)

    def numbered(self) -> range:
        """The numbers of the level's kept states."""
        return range(self.first, self.number)
