"""The search's growth estimate: the rate per level, the states still to come, the warning."""

from __future__ import annotations

from hwlib.check.growth import Growth


def _levels(growth: Growth, new: list[int], per_second: float = 10_000.0) -> Growth:
    distinct = 0
    for depth, count in enumerate(new, 1):
        distinct += count
        growth.add(depth, distinct, distinct / per_second)
    return growth


def test_a_steady_doubling_to_a_depth_bound_is_estimated_and_warned():
    growth = _levels(Growth(depth_bound=12), [1, 10, 100, 2000, 4000, 8000, 16000])
    assert abs(growth.rate() - 2.0) < 1e-9
    more, seconds = growth.ahead()
    assert more == sum(16000 * 2 ** k for k in range(1, 6))            # depths 8 .. 12
    assert abs(seconds - more / 10_000) < 1e-6
    assert "x2.00 per level" in growth.words() and "to depth 12" in growth.words()
    assert growth.warning(after=60) is not None and growth.warning(after=10_000) is None


def test_a_shrinking_search_is_estimated_to_completion_and_a_growing_unbounded_one_is_told_to_bound():
    shrinking = _levels(Growth(), [1, 100, 8000, 4000, 2000, 1000])
    more, _ = shrinking.ahead()
    assert abs(shrinking.rate() - 0.5) < 1e-9 and more == 1000
    assert shrinking.warning() is None
    growing = _levels(Growth(), [1, 100, 2000, 3000, 4500, 6750], per_second=100.0)
    assert growing.ahead() is None and "--depth N or --max-states N" in growing.warning()
    assert "its next 3 levels alone take ~" in growing.warning()


def test_a_small_search_that_grows_for_a_while_is_not_warned():
    """``hwlib check --release 0.11.0 --profile kip101-data-loss`` grows x1.42 a level at depth 9
    and is done in a second: its next levels would take a second, not minutes - no warning."""
    growing = _levels(Growth(), [1, 100, 1200, 1700, 2400, 3400], per_second=23_000.0)
    assert growing.ahead() is None and growing.rate() > 1.3
    assert growing.warning() is None


def test_small_levels_say_nothing_yet():
    growth = _levels(Growth(depth_bound=20), [1, 5, 30, 200])
    assert growth.rate() is None and growth.ahead() is None and growth.warning() is None
    assert growth.words().endswith("states/s")
