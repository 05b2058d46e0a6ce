"""The visited set's flat table answers as a Python set does: membership, adding, size, iteration, growth."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hwlib.check.fingerprints import Fingerprints

KEYS = st.integers(min_value=-(2 ** 63), max_value=2 ** 63 - 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(KEYS, st.sampled_from([0, 1, -1, 1024, 2048, -1024])), max_size=3000),
       st.lists(KEYS, max_size=200))
def test_it_holds_exactly_what_a_set_holds(added, probes):
    table, reference = Fingerprints(), set()
    for i, key in enumerate(added):
        assert (key in table) == (key in reference)
        if i % 2:
            assert table.added(key) == (key not in reference)      # whether it was new
        else:
            table.add(key)
        reference.add(key)
    assert len(table) == len(reference)
    assert sorted(table) == sorted(reference)
    for key in probes + added:
        assert (key in table) == (key in reference)


def test_keys_that_share_their_low_bits_grow_the_table_and_stay_found():
    """Fingerprints equal modulo the table's size (the worst case of linear probing), past
    several doublings."""
    keys = [i << 40 for i in range(1, 5000)] + [-(i << 40) for i in range(1, 5000)] + [0]
    table = Fingerprints(keys)
    assert len(table) == len(keys) and all(key in table for key in keys)
    assert not any((key + 1) in table for key in keys)
    table.update(keys)
    assert len(table) == len(keys) and set(table) == set(keys)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(KEYS, st.sampled_from([0, 1, -1, 1024, 2048])), max_size=4000))
def test_a_filter_of_at_most_so_many_slots_forgets_and_starts_over_but_never_invents(added):
    """With ``most`` slots (a worker's filter of a level's states), the table grows as any
    until it would pass them, then empties instead: it holds exactly the keys added since it
    last emptied - so a key it says is in was added, and a key added since is in -, never more
    slots than ``most``, and it counts how often it forgot."""
    table = Fingerprints(most=1024)
    since: set[int] = set()
    for key in added:
        forgotten = table.forgotten
        new = table.added(key)
        if table.forgotten > forgotten:         # emptied, then this key added
            assert table.forgotten == forgotten + 1 and len(since) >= 3 * 1024 // 4 - 1
            since = set()
        assert new == (key not in since)
        since.add(key)
        assert len(table) == len(since) and table.shape()[0] <= 1024
    assert sorted(table) == sorted(since)
    assert all(key in table for key in since)
    assert table.forgotten == 0 or len(set(added)) > 767


def test_a_filter_empties_each_time_it_fills_its_slots():
    """3,000 keys through a filter of 1,024 slots (768 keys at most): emptied three times,
    the last 3,000 - 3 x 768 = 696 keys in it, none of the others; the same keys through a
    set without ``most`` stay."""
    keys = [i * 7_919 + 1 for i in range(3000)]
    table, whole = Fingerprints(keys, most=1024), Fingerprints(keys)
    assert table.forgotten == 3 and len(table) == 696 and table.shape()[0] == 1024
    assert all(key in table for key in keys[-696:]) and not any(key in table for key in keys[:-696])
    assert whole.forgotten == 0 and len(whole) == 3000
