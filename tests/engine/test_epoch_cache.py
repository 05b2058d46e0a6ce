"""LeaderEpochCache against Kafka's LeaderEpochFileCache semantics (kafka.server.epoch.LeaderEpochFileCache, 2.x)."""

from __future__ import annotations

import pytest

from hwlib import LeaderEpochCache
from hwlib.engine.log import ReplicaLog
from hwlib.engine.protocols import get_protocol


def test_assign_appends_and_ignores_same_epoch_later_offset():
    cache = LeaderEpochCache()
    assert cache.assign(0, 0)
    assert not cache.assign(0, 5)          # an epoch never moves forward
    assert cache.assign(1, 120)
    assert cache.entries == [(0, 0), (1, 120)]
    assert cache.latest_epoch == 1 and cache.earliest_epoch == 0


def test_assign_same_epoch_earlier_offset_replaces_entry():
    cache = LeaderEpochCache([(0, 0), (2, 10)])
    assert cache.assign(2, 6)
    assert cache.entries == [(0, 0), (2, 6)]


def test_assign_drops_tail_entries_with_larger_epoch_or_offset():
    cache = LeaderEpochCache([(0, 0), (1, 5), (3, 9)])
    cache.assign(2, 7)                     # drops (3, 9): epoch 3 >= 2
    assert cache.entries == [(0, 0), (1, 5), (2, 7)]
    cache.assign(4, 5)                     # drops (1, 5) and (2, 7): start >= 5
    assert cache.entries == [(0, 0), (4, 5)]


def test_assign_rejects_negative_values():
    with pytest.raises(ValueError, match="epoch and start_offset"):
        LeaderEpochCache().assign(-1, 0)


@pytest.mark.parametrize(("asked", "leo", "expected"), [
    (-1, 20, (-1, -1)),        # 1. undefined epoch
    (4, 20, (4, 20)),          # 2. latest epoch -> LEO
    (5, 20, (-1, -1)),         # 3. nothing above the asked epoch
    (0, 20, (0, 3)),           # 4. below the first epoch -> (asked, first start)
    (1, 20, (1, 6)),           # 5. exact epoch: its end is the next start
    (2, 20, (1, 6)),           # 5. gap: largest epoch <= asked
    (3, 20, (3, 10)),
])
def test_end_offset_for(asked, leo, expected):
    cache = LeaderEpochCache([(1, 3), (3, 6), (4, 10)])
    assert cache.end_offset_for(asked, leo) == expected


def test_end_offset_for_empty_cache():
    assert LeaderEpochCache().end_offset_for(0, 7) == (-1, -1)


def test_kip101_one_offset_answer_is_derived():
    log = ReplicaLog()
    for epoch, value in [(1, "a"), (1, "b"), (3, "c"), (4, "d")]:
        log.append(epoch, value)
    kip101 = get_protocol("kip101")
    assert log.cache.entries == [(1, 0), (3, 2), (4, 3)]
    assert kip101.answer_epoch_request(log, 4) == 4          # latest epoch -> LEO
    assert kip101.answer_epoch_request(log, 1) == 2          # start of the first later epoch
    assert kip101.answer_epoch_request(log, 2) == 2
    assert kip101.answer_epoch_request(log, 0) == -1         # below the first epoch
    assert kip101.answer_epoch_request(log, 5) == -1         # nothing above
    assert kip101.answer_epoch_request(log, -1) == -1


def test_truncate_from_end():
    cache = LeaderEpochCache([(0, 0), (1, 5), (2, 9)])
    assert not cache.truncate_from_end(-1)
    assert not cache.truncate_from_end(10)
    assert cache.truncate_from_end(5)
    assert cache.entries == [(0, 0)]
    assert not LeaderEpochCache().truncate_from_end(0)


def test_truncate_from_start():
    cache = LeaderEpochCache([(0, 0), (1, 5), (2, 9)])
    assert not cache.truncate_from_start(-3)
    assert cache.truncate_from_start(6)      # drops (0,0),(1,5); re-inserts (1, 6)
    assert cache.entries == [(1, 6), (2, 9)]
    assert cache.truncate_from_start(9)
    assert cache.entries == [(2, 9)]
    assert not LeaderEpochCache().truncate_from_start(3)


def test_epoch_for_offset():
    cache = LeaderEpochCache([(1, 3), (3, 6), (4, 10)])
    assert cache.epoch_for_offset(2) is None
    assert cache.epoch_for_offset(3) == 1
    assert cache.epoch_for_offset(5) == 1
    assert cache.epoch_for_offset(6) == 3
    assert cache.epoch_for_offset(100) == 4
    assert LeaderEpochCache().epoch_for_offset(0) is None


def test_log_truncation_keeps_cache_in_step():
    log = ReplicaLog()
    for epoch in (0, 0, 1, 1, 2):
        log.append(epoch, f"v{len(log.values)}")
    assert log.truncate_to(3) == 2
    assert log.cache.entries == [(0, 0), (1, 2)]
    assert log.rewritten_from == 3
    with pytest.raises(ValueError, match="offset must be >= 0"):
        log.truncate_to(-1)


def _log_writes(log: ReplicaLog, rng) -> None:
    """One write of a log or its cache, drawn at random."""
    action = rng.randrange(6)
    if action == 0:
        log.append(rng.randrange(4), f"v{rng.randrange(9)}", rng.randrange(-1, 3))
    elif action == 1:
        log.append_as_follower([rng.randrange(4)], [f"w{rng.randrange(9)}"], [-1])
    elif action == 2:
        log.truncate_to(rng.randrange(0, log.log_end_offset + 1))
    elif action == 3:
        log.cache.assign(rng.randrange(6), rng.randrange(0, log.log_end_offset + 1))
    elif action == 4:
        log.cache.truncate_from_end(rng.randrange(0, log.log_end_offset + 1))
    else:
        log.cache.truncate_from_start(rng.randrange(0, 4))


def _contents(log: ReplicaLog) -> tuple:
    return (list(log.epochs), list(log.values), list(log.seqs), log.flushed, log.cache.entries, log.cache.key(),
            log.cache.version)


@pytest.mark.parametrize("seed", range(40))
def test_a_copied_log_and_cache_share_nothing_a_write_can_reach(seed):
    """Copies share their lists until one side writes (copy on write): writes to a copy never
    show in its source, nor a source's in its copies, at any depth of copies; ``cache.key()``
    and ``version`` follow every write."""
    import random

    rng = random.Random(seed)
    logs = [ReplicaLog()]
    for _ in range(60):
        log = rng.choice(logs)
        if rng.random() < 0.3:
            logs.append(log.copy())
            assert _contents(logs[-1]) == _contents(log)
            continue
        others = [(other, _contents(other)) for other in logs if other is not log]
        version = log.cache.version
        entries = log.cache.entries
        _log_writes(log, rng)
        assert all(_contents(other) == before for other, before in others)
        assert log.cache.key() == tuple(log.cache.entries)
        if log.cache.entries != entries:
            assert log.cache.version > version
    assert len(logs) > 5
