"""The parent table in shared memory: workers read schedules from it - every entry through every growth, none left."""

from __future__ import annotations

import random
from array import array

import pytest

from hwlib.check.shared_parents import MIN_SLOTS, ParentsView, SharedParents
from hwlib.model.vocabulary import CheckError

from ..helpers.shm import needs_shm, segments, shm_free


@needs_shm
def test_a_worker_reads_every_entry_the_coordinator_appended_through_every_growth():
    """The coordinator's table starts from its search's ``array('q')`` and doubles as it fills
    (a new segment each time, the old one unlinked at once); a worker that follows the handle
    each command gives reads every entry appended so far, as the array holds it; iteration and
    ``len`` are the array's; an entry not yet numbered is refused; once closed no segment is
    left by name, and the coordinator can still read its table (the result's schedules)."""
    rng = random.Random(3)
    plain = array("q", [-1] + [rng.randrange(2 ** 40) for _ in range(1000)])
    before = segments()
    table = SharedParents(plain)
    view = ParentsView()
    names = [table.handle()[0]]
    try:
        for _ in range(5 * MIN_SLOTS // 1000):
            for _ in range(1000):
                entry = rng.randrange(2 ** 40) * 256 + rng.randrange(256)
                plain.append(entry)
                table.append(entry)
            names.append(table.handle()[0])
            reader = view.follow(table.handle())
            assert all(reader[i] == plain[i] for i in rng.sample(range(len(plain)), 500))
            assert reader[len(plain) - 1] == plain[-1] and reader[0] == -1
        assert len(set(names)) == 4         # 65,536 slots -> 131,072 -> 262,144 -> 524,288 for 328,001
        assert segments() - before == {table.handle()[0].lstrip("/")}       # the replaced ones are unlinked
        assert len(table) == len(plain) and array("q", table) == plain
        with pytest.raises(IndexError, match=rf"^state {len(plain)} is not numbered yet \({len(plain)} are\)$"):
            table[len(plain)]
    finally:
        view.close()
        table.close()
    assert segments() == before
    assert table[len(plain) - 1] == plain[-1]


@needs_shm
def test_a_parent_table_that_shared_memory_has_no_room_for_is_refused_in_one_line(monkeypatch):
    """As for the visited set: the segment that would not fit is refused before it is made,
    in one line naming the table, what it needs and what is free, and the table is still whole."""
    shm_free(monkeypatch, 1100 * 1024)      # room for the first segment (1 MiB), not for the next (2 MiB)
    before = segments()
    table = SharedParents(array("q", range(MIN_SLOTS)))
    try:
        assert table.handle()[1] == 2 * MIN_SLOTS           # twice what it was given, at least MIN_SLOTS
        for entry in range(MIN_SLOTS):
            table.append(entry)
        with pytest.raises(CheckError) as refused:
            table.append(-7)
        assert str(refused.value) == ("workers: the parent table needs 2 MiB of shared memory and "
                                      "/dev/shm has 1 MiB free; give it more (docker run --shm-size) or run with "
                                      "--workers 1")
        assert len(table) == 2 * MIN_SLOTS and table[2 * MIN_SLOTS - 1] == MIN_SLOTS - 1
    finally:
        table.close()
    assert segments() == before


@needs_shm
def test_a_search_whose_parent_table_has_no_room_stops_in_one_line_and_leaves_no_segment(monkeypatch):
    """Handing the frontier to two workers makes the visited set's segment (8 KiB here) and
    then the parent table's (512 KiB): where /dev/shm has room for the first only, the search
    stops with the one line, no worker is left running and no segment is left by name - the
    visited set's included."""
    from hwlib import ClusterConfig
    from hwlib.check import Bounds, workers

    from ..helpers.check import explored

    monkeypatch.setattr(workers, "SPLIT_AT", 50)
    shm_free(monkeypatch, 300 * 1024)
    before = segments()
    with pytest.raises(CheckError) as refused:
        explored(ClusterConfig(protocol="kip101", acks="all"), Bounds(replicas=2), ("elect", "isolate", "deliver"),
                 exhaustive=True, workers=2)
    assert str(refused.value) == ("workers: the parent table needs 512 KiB of shared memory and /dev/shm has "
                                  "300 KiB free; give it more (docker run --shm-size) or run with --workers 1")
    assert segments() == before
