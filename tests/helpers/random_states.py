"""The states random schedules meet: every fault and client setting at 3 replicas, cut at random points."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hwlib import ClusterConfig, Step

from .steps import every_step, numbered_produces

FAULTS = ("elect", "isolate", "isolate_unseen", "deliver", "crash", "quick_restart", "power_loss", "flush", "tick",
          "controller_failover", "consume", "consumer_crash", "lost_ack", "stale_produce", "controlled_shutdown",
          "replace_disk")

#: the configurations the states are met in: every client setting that gives a field a value
SETTINGS = ({"acks": "all", "retries": 1, "client_metadata": "stale"},
            {"acks": "all", "retries": 2, "enable_idempotence": True, "max_in_flight_requests_per_connection": 1},
            {"acks": "1", "unclean_leader_election": True, "min_insync_replicas": 2})

#: where a random schedule's produces go: mostly where the producer's metadata says, sometimes B
BROKERS = (None, None, "B")

#: a state random schedules seldom meet: a leader cut off from the controller with its AlterIsr
#: waiting (kip595+), a follower's fetch parked in its purgatory
DIRECTED = (Step("fetch_request", replica="C"), Step("isolate", replica="A", detected=False),
            Step("produce", value="m1"), Step("tick", ms=45001), Step("fetch_request", replica="B"))


def alphabet(replicas: tuple[str, ...] = ("A", "B", "C")) -> list[Step]:
    """Every step of every fault (at 3 replicas unless told), and a tick past every timeout."""
    return every_step(replicas, FAULTS, 7000) + [Step("tick", ms=45001)]


def states(protocol: str, seeds: range, n: int = 36) -> Iterator[tuple[ClusterConfig, list[Step]]]:
    """(configuration, schedule) of states met along random schedules at 3 replicas, with every
    fault and client setting, cut at random points - and ``DIRECTED``'s."""
    yield ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, acks="all"), list(DIRECTED)
    steps_drawn = alphabet()
    for seed in seeds:
        rng = random.Random(seed)
        config = ClusterConfig(replicas=("A", "B", "C"), protocol=protocol, **SETTINGS[seed % len(SETTINGS)])
        steps = numbered_produces((rng.choice(steps_drawn) for _ in range(n)), lambda r=rng: r.choice(BROKERS))
        for cut in sorted(rng.sample(range(4, n + 1), 3)):
            yield config, steps[:cut]


def states_after(steps: list[Step], rng: random.Random, n: int = 25,
                 replicas: tuple[str, ...] = ("A", "B", "C")) -> list[Step]:
    """``n`` random steps to take after ``steps``, each produce the next record."""
    drawn = alphabet(replicas)
    records = sum(1 for s in steps if s.kind == "produce")
    out = []
    for _ in range(n):
        step = rng.choice(drawn)
        if step.kind == "produce":
            records += 1
            step = Step("produce", value=f"m{records}", replica=step.replica, lose_ack=step.lose_ack)
        out.append(step)
    return out
