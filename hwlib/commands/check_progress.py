"""``hwlib check``'s progress on stderr: levels, states and growth per rule set; once, a long search's estimate."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from ..util.progress import progress


class CheckProgress:
    """Per rule set, the levels searched, the states they hold and how the search grows
    (``check.growth``) - a tqdm bar on a terminal, a line every few seconds elsewhere (CI logs)
    - and once, where the rest looks long, the estimate and how to bound it. Called with a rule
    set's name, it gives that search's level callback (``check.driver.Progress``)."""

    def __init__(self, depth_bound: int | None, mode: bool | str = True) -> None:
        self.mode, self.bar, self.depth_bound = mode, None, depth_bound

    def __call__(self, protocol: str) -> Callable[[int, int, int], None]:
        from ..check.growth import Growth

        self.close()
        bar = self.bar = progress(None, protocol, "level", self.mode)
        growth, started = Growth(self.depth_bound), time.perf_counter()
        warned: list[str] = []

        def show(depth: int, distinct: int, generated: int) -> None:
            growth.add(depth, distinct, time.perf_counter() - started)
            bar.update(1)
            bar.note(f"depth {depth}, {distinct:,} distinct states, {generated:,} generated; {growth.words()}")
            warning = None if warned else growth.warning()
            if warning is not None:
                warned.append(warning)
                print(f"hwlib check: {protocol}: {warning}", file=sys.stderr, flush=True)

        return show

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
