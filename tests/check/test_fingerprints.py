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
