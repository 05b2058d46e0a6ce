"""How a breadth-first search grows, level by level, and what its growth says about where it is going.

A search prints its levels as it finishes them (``hwlib check``'s progress); from the new
states of the last levels ``Growth`` tells the rate per level and the states per second, and -
where the growth has been steady for a few levels - how many states and how long the rest will
take: to the ``--depth`` bound where one is set, to completion where the new states per level
shrink. It is an estimate and says so; a search that keeps growing without a depth bound gets
no total, only - once its next few levels alone would take minutes - the advice to bound it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: levels whose growth an estimate reads (the last ones; the first levels are too small to tell)
WINDOW = 3
#: a level holding fewer new states says nothing about the growth yet
SMALL = 1000


@dataclass
class Growth:
    """The levels of one search as they finish: (depth, distinct states, seconds since start)."""

    depth_bound: int | None = None
    levels: list[tuple[int, int, float]] = field(default_factory=list)

    def add(self, depth: int, distinct: int, seconds: float) -> None:
        self.levels.append((depth, distinct, seconds))

    def new(self) -> list[int]:
        """The new states of each level."""
        counts = [d for _, d, _ in self.levels]
        return [b - a for a, b in zip([0, *counts], counts, strict=False)]

    def rate(self) -> float | None:
        """New states per level over the last levels' geometric mean (x1.4: each level adds 40%
        more than the one before), None until the levels are large enough to tell."""
        new = self.new()[-(WINDOW + 1):]
        if len(new) < WINDOW + 1 or min(new[:-1]) < SMALL:
            return None
        ratio = 1.0
        for a, b in zip(new, new[1:], strict=False):
            ratio *= b / a
        return ratio ** (1 / WINDOW)

    def per_second(self) -> float:
        if not self.levels or self.levels[-1][2] <= 0:
            return 0.0
        return self.levels[-1][1] / self.levels[-1][2]

    def ahead(self) -> tuple[int, float] | None:
        """(states still to come, seconds) at the current rate: to the depth bound, or - a
        shrinking search - to completion; None where the rate does not tell (too early, or
        growing without a bound)."""
        rate, speed = self.rate(), self.per_second()
        if rate is None or speed <= 0:
            return None
        last = self.new()[-1]
        depth = self.levels[-1][0]
        if self.depth_bound is not None:
            levels = max(0, self.depth_bound - depth)
            more = sum(last * rate ** k for k in range(1, levels + 1))
        elif rate < 0.95:
            more = last * rate / (1 - rate)
        else:
            return None
        return int(more), more / speed

    def words(self) -> str:
        """``x1.42 per level, 36,000 states/s``, and the estimate where there is one."""
        rate = self.rate()
        said = [f"{self.per_second():,.0f} states/s"]
        if rate is not None:
            said.insert(0, f"x{rate:.2f} per level")
        ahead = self.ahead()
        if ahead is not None:
            target = f"depth {self.depth_bound}" if self.depth_bound is not None else "completion"
            said.append(f"~{ahead[0]:,} more states to {target}, ~{_duration(ahead[1])}")
        return ", ".join(said)

    def warning(self, after: float = 180.0) -> str | None:
        """One line when the rest looks longer than ``after`` seconds - or, growing without a
        depth bound, when its next ``WINDOW`` levels alone would at this rate (a small search that
        grows for a while and then ends is not warned) -: the estimate and how to bound it. None
        otherwise."""
        rate = self.rate()
        if rate is None:
            return None
        ahead = self.ahead()
        if ahead is not None and ahead[1] < after:
            return None
        depth = self.levels[-1][0]
        if ahead is None:
            last, speed = self.new()[-1], self.per_second()
            soon = sum(last * rate ** k for k in range(1, WINDOW + 1)) / speed if speed > 0 else float("inf")
            if soon < after:
                return None
            return (f"the search still grows x{rate:.2f} per level at depth {depth} with no depth bound: its next "
                    f"{WINDOW} levels alone take ~{_duration(soon)} at this rate - bound it with --depth N or "
                    f"--max-states N (and fewer faults or smaller --max-records / --max-epoch)")
        return (f"at x{rate:.2f} per level the search needs ~{ahead[0]:,} more states, ~{_duration(ahead[1])} - "
                f"a smaller --depth or --max-states, or smaller bounds, answer sooner")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
