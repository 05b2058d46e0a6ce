"""The most a partial-order reduction could save ``hwlib check``: sleep sets with an exact oracle vs the plain search.

``hwlib check`` tries every enabled step at every new state; most transitions lead to states it
has met (at 3 replicas 8.5 tried per distinct state, TLC 2.7 on the TLA+
specification). Sleep sets (Godefroid, "Partial-Order Methods for the Verification of
Concurrent Systems", 1996) skip a step at a state when the state it leads to is reached anyway
on a path of the same length, through a step it commutes with: every state is still found at
its shortest depth; only transitions are saved. How many depends on which steps are known to
commute, and a search must know it *before* taking them - from the code of each generation.

This script gives the ceiling: two steps commute at a state when both are enabled, each stays
enabled after the other and both orders reach one fingerprint (cluster and checks' memory) -
known only by taking both orders, so no search can use it, and no sound relation a search
could use commutes more pairs. (A search would also have to keep the first transition that
shows each anomaly kind, which saves less again.) Each level's new states carry the
intersection of their arrivals' sleep sets; per depth the script prints the distinct states
of both searches - equal, or it says the sleep sets lost states - and the transitions each
tried.

    python benchmarks/commuting.py [--protocol kip320] [--replicas 3] [--depth 6]
                                   [--faults elect,isolate,isolate_unseen,deliver]
                                   [--min-insync-replicas 2]

Measured (kip320, TLA+'s faults, min.insync.replicas=2): at 2 replicas, to completion (depth
17, 9,870 states), 0.70 of the plain search's transitions; at 3 replicas to depth 7 (59,682
states), 0.63 - a reduction could make the search at most ~1.6x faster. (Before the search left
a refused fetch request unsent: 0.61 of 15,553 and 0.62 of 81,103 states; before the state key
merged a settled isolation: 0.55 of 23,521 and of 115,295 states.) Printed, not asserted.
"""

from __future__ import annotations

import argparse
import sys
import time

from hwlib import PROTOCOLS, ClusterConfig
from hwlib.check import Bounds, Search
from hwlib.check.search import Node as State  # the search's own state record, to step it as the search does
from hwlib.errors import HwlibError
from hwlib.model.vocabulary import TLA_FAULTS, parse_faults


class Searches:
    """The plain breadth-first search and the one with sleep sets, over one alphabet."""

    def __init__(self, config: ClusterConfig, bounds: Bounds, faults: tuple[str, ...]) -> None:
        self.search = Search(config, bounds, faults, (), exhaustive=True)

    def step(self, state: State, index: int) -> State | None:
        """Step ``index`` of the alphabet from ``state``, by ``Search.transition`` (None: it
        cannot act, or it leaves the bounds)."""
        made = self.search.transition(state, index, 0)
        if made is None:
            return None
        cluster, checker, records, spent = made
        return State(cluster, checker, records, spent, -1, 0)

    def key(self, state: State) -> int:
        assert state.cluster is not None and state.checker is not None     # made by step: live
        return self.search.key(state.cluster, state.checker, state.spent)

    def successors(self, state: State) -> dict[int, State]:
        """Every enabled step's successor, by the step's index."""
        out = {}
        for index in range(len(self.search.steps)):
            made = self.step(state, index)
            if made is not None:
                out[index] = made
        return out

    def run(self, depth: int) -> None:
        cluster, checker = self.search.initial()
        root = State(cluster, checker, 0, 0, 0, 0)
        plain_seen = {self.key(root)}
        plain: list[State] = [root]
        sleep_seen = set(plain_seen)
        sleeping: list[tuple[State, frozenset[int]]] = [(root, frozenset())]
        tried_plain = tried_sleep = 0
        print(f"{'depth':>5} {'distinct':>10} {'tried, plain':>14} {'with sleep sets':>16} {'ratio':>6}")
        began = time.perf_counter()
        for d in range(1, depth + 1):
            following = []
            for state in plain:
                for child in self.successors(state).values():
                    tried_plain += 1
                    key = self.key(child)
                    if key not in plain_seen:
                        plain_seen.add(key)
                        following.append(child)
            plain = following
            level: dict[int, tuple[State, frozenset[int]]] = {}
            for state, asleep in sleeping:
                children = self.successors(state)
                commute: dict[tuple[int, int], bool] = {}

                def commutes(a: int, b: int, children=children, commute=commute) -> bool:
                    if (a, b) not in commute:
                        ab, ba = self.step(children[a], b), self.step(children[b], a)
                        commute[(a, b)] = commute[(b, a)] = (
                            ab is not None and ba is not None and self.key(ab) == self.key(ba))
                    return commute[(a, b)]

                enabled = sorted(children)
                for j in enabled:
                    if j in asleep:
                        continue
                    tried_sleep += 1
                    key = self.key(children[j])
                    if key in sleep_seen:
                        continue
                    # steps taken before j here, or asleep here, that commute with j: asleep after it
                    after = frozenset([i for i in enabled if i < j and commutes(i, j)]
                                      + [i for i in asleep if i in children and commutes(i, j)])
                    known = level.get(key)
                    level[key] = (children[j], after) if known is None else (known[0], known[1] & after)
            sleep_seen.update(level)
            sleeping = list(level.values())
            lost = "" if len(sleep_seen) == len(plain_seen) else (
                f"  sleep sets LOST states: {len(sleep_seen):,} of {len(plain_seen):,}")
            print(f"{d:>5} {len(plain_seen):>10,} {tried_plain:>14,} {tried_sleep:>16,} "
                  f"{tried_sleep / tried_plain:>6.2f}{lost}", flush=True)
            if not plain and not sleeping:
                depth = d
                print(f"complete at depth {d}")
                break
        print(f"to depth {depth}: sleep sets with an exact oracle try {tried_sleep / tried_plain:.2f} of the "
              f"transitions - a search at most {tried_plain / tried_sleep:.2f}x faster "
              f"({time.perf_counter() - began:.0f} s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", default="kip320", choices=PROTOCOLS)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--faults", default=",".join(TLA_FAULTS))
    parser.add_argument("--min-insync-replicas", type=int, default=2)
    args = parser.parse_args()
    if args.depth < 1:
        parser.error("--depth: at least 1")
    try:
        faults = parse_faults(args.faults)
        bounds = Bounds(replicas=args.replicas)
        config = ClusterConfig(replicas=tuple(bounds.replica_ids), acks="all", protocol=args.protocol,
                               min_insync_replicas=args.min_insync_replicas)
    except HwlibError as error:
        print(f"commuting.py: {error}", file=sys.stderr)
        return 2
    print(f"{args.protocol}, {args.replicas} replicas, min.insync.replicas={args.min_insync_replicas}, "
          f"faults {','.join(faults)}, <= {bounds.max_records} records, leader epoch <= {bounds.max_epoch}")
    Searches(config, bounds, faults).run(args.depth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
