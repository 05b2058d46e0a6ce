"""Hypothesis strategies: random valid schedules of steps for a partition.

A schedule is built from actions, most of them one step, one of them a replication round
(every replica fetches once, in a random order), so that acks=all records really get
acknowledged between faults instead of almost never.
"""

from __future__ import annotations

from hypothesis import strategies as st

from hwlib import PROTOCOLS, Step


def schedules(replicas: tuple[str, ...], *, power_loss: bool = True, undetected: bool = True,
              elect: bool = True, max_actions: int = 40, faults: int = 1, clients: bool = False,
              isolation: int = 0, failover: bool = False, misdirected: bool = False):
    """Lists of steps over ``replicas``; produce values are unique (v0, v1, ...).

    ``faults`` multiplies the weight of crashes, restarts, flushes and long ticks;
    ``isolation`` (a weight; 0: none) adds controller isolation (session expired or, more
    often, not), reconnects, late delivery of queued LeaderAndIsr requests (``deliver``) and
    more leader moves; ``failover`` adds controller
    failovers; ``misdirected`` adds produces and polls addressed to a random broker (as
    clients with stale metadata send them)."""
    replica = st.sampled_from(replicas)
    crash = st.builds(
        lambda r, lose, seen: [Step("crash", replica=r, lose_unflushed=lose, detected=seen)],
        replica,
        st.booleans() if power_loss else st.just(False),
        st.booleans() if undetected else st.just(True),
    )
    one = lambda kind: st.builds(lambda r: [Step(kind, replica=r)], replica)  # noqa: E731
    round_ = st.permutations(replicas).map(lambda order: [Step("fetch", replica=r) for r in order])
    actions = [
        (5, st.just(["produce"])),
        (8, round_),
        (2, one("fetch")),
        (1, one("fetch_request")),
        (1, one("fetch_response")),
        (faults, one("flush")),
        (2 * faults, crash),
        (3 * faults, one("restart")),
        (faults, st.builds(lambda ms: [Step("tick", ms=ms)],
                           st.sampled_from([100, 500, 5000, 16000, 31000]))),
        (1, st.just([Step("consume")])),
    ]
    if elect:
        actions.append((1 + isolation, one("elect")))
    if isolation:
        actions += [(isolation * faults, st.builds(lambda r, seen: [Step("isolate", replica=r, detected=seen)],
                                                   replica, st.sampled_from([False, False, True]))),
                    (isolation * faults, one("reconnect")),
                    (2 * isolation * faults, st.builds(lambda r, n: [Step("deliver", replica=r, count=n)],
                                                       replica, st.sampled_from([1, 1, 2])))]
    if failover:
        actions.append((faults, st.just([Step("controller_failover")])))
    if misdirected:
        actions += [(2, st.builds(lambda r: [("produce", r)], replica)),
                    (1, st.builds(lambda r: [Step("consume", replica=r)], replica))]
    if clients:  # lost acknowledgements and producer retries
        actions += [(2, st.just(["produce-lose-ack"])), (3, st.just([Step("retry")]))]
    weighted = [s for w, s in actions for _ in range(w)]
    raw = st.lists(st.one_of(weighted), min_size=min(15, max_actions), max_size=max_actions)

    def expand(groups):
        out, n = [], 0
        for group in groups:
            for item in group:
                if item in ("produce", "produce-lose-ack"):
                    out.append(Step("produce", value=f"v{n}", lose_ack=item == "produce-lose-ack"))
                    n += 1
                elif isinstance(item, tuple):       # ("produce", broker): addressed to a broker
                    out.append(Step("produce", value=f"v{n}", replica=item[1]))
                    n += 1
                else:
                    out.append(item)
        return out

    return raw.map(expand)


def mutated_scenarios(names: list[str], protocols=PROTOCOLS, unclean: bool | None = None,
                      **schedule_options):
    """(config, steps) from a built-in scenario with random steps deleted, inserted and
    appended: near variants of known failures. ``schedule_options`` go to ``schedules`` for
    the inserted steps (e.g. power_loss=False keeps power loss out of the variants)."""
    from hwlib import load_scenario

    def build(name, deletions, insertions, suffix, protocol, unclean):
        scenario = load_scenario(name)
        steps = list(scenario.steps)
        for index in deletions:
            if steps:
                del steps[index % len(steps)]
        for index, extra in insertions:
            at = index % (len(steps) + 1)
            steps[at:at] = extra
        steps += suffix
        config = scenario.config.replace(protocol=protocol, unclean_leader_election=unclean)
        return config, steps

    def steps_for(name):
        replicas = load_scenario(name).config.replicas
        options = {"faults": 2, **schedule_options}
        return schedules(replicas, max_actions=6, **options).map(
            lambda s: [x for x in s if x.kind != "produce"])

    return st.sampled_from(names).flatmap(lambda name: st.builds(
        build, st.just(name),
        st.lists(st.integers(0, 100), max_size=3),
        st.lists(st.tuples(st.integers(0, 100), steps_for(name)), max_size=2),
        steps_for(name),
        st.sampled_from(protocols),
        st.booleans() if unclean is None else st.just(unclean),
    ))
