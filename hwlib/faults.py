"""Seeded fault schedules - a pure function of (profile, seed, replicas) - and the faults a run fired.

Generation draws one action at a time from ``random.Random(seed)`` - never a global RNG -
and emits its steps; follow-up steps
(the restart after a crash, the response of a split fetch, the reconnect after an isolation)
are queued a random number of steps later. Swarm mode (Groce et al., "Swarm testing", ISSTA
2012) first switches each fault action on or off with probability 1/2, per run.

Per-run seeds come from hashing (sweep seed, schedule cell, run index), see ``derive_seed``.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from .engine.steps import Step
from .profiles import ACTIONS, BASE_ACTIONS, FaultProfile
from .util.canonical import canonical_bytes


def derive_seed(sweep_seed: int, schedule_cell: str, run: int) -> int:
    """A run's seed: 63 bits of BLAKE2b over (sweep seed, schedule cell, run index)."""
    digest = hashlib.blake2b(f"{sweep_seed}/{schedule_cell}/{run}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def schedule_hash(steps: Sequence[Step]) -> str:
    """16 hex digits of SHA-256 over the memo-free pickle of every step's fields: equal
    schedules, equal hashes, in any process (version 2; version 1 hashed each step's YAML form
    as JSON)."""
    fields = [(s.kind, s.replica, s.value, s.acks, s.ms, s.lose_unflushed, s.detected, s.lose_ack, s.count)
              for s in steps]
    return hashlib.sha256(canonical_bytes(fields)).hexdigest()[:16]


@dataclass(frozen=True)
class Schedule:
    steps: tuple[Step, ...]
    seed: int
    #: the actions this run could draw (swarm mode switches fault actions off per run)
    enabled: tuple[str, ...]

    def __reduce__(self):
        """By the constructor (see ``Step.__reduce__``)."""
        return (Schedule, (self.steps, self.seed, self.enabled))


class _Draws:
    """The numbers ``random.Random(seed)`` gives for ``random()``, ``randrange(n)``,
    ``randint(a, b)`` and ``shuffle(x)``, drawn from its C primitives (``random`` and
    ``getrandbits``) exactly as ``Lib/random.py`` (3.11 to 3.13) does - the same schedules,
    without its Python-level wrappers."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.random = rng.random
        self.getrandbits = rng.getrandbits

    def below(self, n: int) -> int:
        """randrange(n) for n > 0 (``_randbelow_with_getrandbits``)."""
        k = n.bit_length()
        r = self.getrandbits(k)
        while r >= n:
            r = self.getrandbits(k)
        return r

    def randint(self, a: int, b: int) -> int:
        return a + self.below(b - a + 1)

    def shuffle(self, x: list[Step]) -> None:
        for i in range(len(x) - 1, 0, -1):
            j = self.below(i + 1)
            x[i], x[j] = x[j], x[i]


def generate(profile: FaultProfile, seed: int, replicas: tuple[str, ...]) -> Schedule:
    """The schedule of one run: ``profile.steps`` steps over ``replicas``, a pure function of the
    arguments (Python's Mersenne Twister seeded with an int is stable across platforms)."""
    draws = _Draws(seed)
    rand, randint, below = draws.random, draws.randint, draws.below
    weights = profile.weights
    enabled = [a for a in ACTIONS if weights.get(a, 0) > 0]
    if profile.swarm:
        enabled = [a for a in enabled if a in BASE_ACTIONS or rand() < 0.5]
    if not enabled:   # swarm switched every fault off and the profile has no base action
        enabled = [max(weights, key=lambda a: weights[a])]
    cumulative: list[float] = []
    total = 0.0
    for action in enabled:
        total += float(weights[action])
        cumulative.append(total)
    last = len(enabled) - 1
    steps = _steps_for(tuple(replicas))
    ticks = _ticks(tuple(profile.tick_ms))
    n: int = profile.steps
    out: list[Step] = []
    later: list[tuple[int, int, Step]] = []     # (due index, tie-break, step), kept sorted
    counter = values = 0
    restart_lo, restart_hi = profile.restart_delay
    response_lo, response_hi = profile.fetch_response_delay
    isolate_detected = float(profile.isolate_detected)
    power_loss_detected = float(profile.power_loss_detected)
    nrep = len(replicas)
    while len(out) < n:
        while later and later[0][0] <= len(out):
            out.append(later.pop(0)[2])
        if len(out) >= n:
            break
        action = enabled[min(bisect.bisect(cumulative, rand() * total), last)]
        follow: Step | None = None     # a step queued for later, after a delay drawn now
        delay = 0
        if action == "produce":
            out.append(_produce(values, False))
            values += 1
        elif action == "replication_round":
            order = list(steps["fetch"])
            draws.shuffle(order)
            out.extend(order)
        elif action == "lost_ack":
            out.append(_produce(values, True))
            values += 1
            follow, delay = _RETRY, randint(response_lo, response_hi)
        elif action == "tick":
            out.append(ticks[below(len(ticks))])
        elif action == "consume":
            out.append(_CONSUME)
        elif action == "consumer_crash":
            out.append(_CONSUMER_CRASH)
        elif action == "controller_failover":
            out.append(_FAILOVER)
        else:
            i = below(nrep)
            if action == "fetch":
                out.append(steps["fetch"][i])
            elif action == "fetch_split":
                out.append(steps["fetch_request"][i])
                follow, delay = steps["fetch_response"][i], randint(response_lo, response_hi)
            elif action == "flush":
                out.append(steps["flush"][i])
            elif action == "leader_move":
                out.append(steps["elect"][i])
            elif action == "deliver":
                out.append(steps["deliver"][i])
            elif action == "stale_produce":
                out.append(Step("produce", value=f"v{values}", replica=replicas[i]))
                values += 1
            elif action == "isolate":
                out.append(steps["isolate" if rand() < isolate_detected else "isolate_unseen"][i])
                follow, delay = steps["reconnect"][i], randint(restart_lo, restart_hi)
            else:   # crash, quick_restart, power_loss
                if action == "crash":
                    kind = "crash"
                elif action == "quick_restart":
                    kind = "crash_unseen"
                else:
                    kind = "power_loss" if rand() < power_loss_detected else "power_loss_unseen"
                out.append(steps[kind][i])
                follow, delay = steps["restart"][i], randint(restart_lo, restart_hi)
        if follow is not None:
            bisect.insort(later, (len(out) + delay, counter, follow))
            counter += 1
    return Schedule(tuple(out[:n]), seed, tuple(enabled))


_RETRY, _CONSUME, _CONSUMER_CRASH = Step("retry"), Step("consume"), Step("consumer_crash")
_FAILOVER = Step("controller_failover")
_PRODUCES: dict[tuple[int, bool], Step] = {}


def _produce(index: int, lose_ack: bool) -> Step:
    step = _PRODUCES.get((index, lose_ack))
    if step is None:
        step = _PRODUCES[index, lose_ack] = Step("produce", value=f"v{index}", lose_ack=lose_ack)
    return step


@functools.lru_cache(maxsize=64)
def _ticks(tick_ms: tuple[int, ...]) -> tuple[Step, ...]:
    return tuple(Step("tick", ms=ms) for ms in tick_ms)


@functools.lru_cache(maxsize=64)
def _steps_for(replicas: tuple[str, ...]) -> dict[str, tuple[Step, ...]]:
    """Steps are immutable: one instance per (kind, replica) serves every schedule."""
    def each(kind: str, **options) -> tuple[Step, ...]:
        return tuple(Step(kind, replica=r, **options) for r in replicas)
    return {
        "fetch": each("fetch"), "fetch_request": each("fetch_request"),
        "fetch_response": each("fetch_response"), "flush": each("flush"), "elect": each("elect"),
        "restart": each("restart"), "reconnect": each("reconnect"), "deliver": each("deliver"),
        "isolate": each("isolate"), "isolate_unseen": each("isolate", detected=False),
        "crash": each("crash"), "crash_unseen": each("crash", detected=False),
        "power_loss": each("crash", lose_unflushed=True),
        "power_loss_unseen": each("crash", lose_unflushed=True, detected=False),
    }


def fired_faults(steps: Sequence[Step], events: list[tuple], marks: list[int]) -> tuple[str, ...]:
    """The fault kinds that acted in a run: a step whose own events are not just a ``skip``.
    ``marks[i]`` is the number of events after step i (``marks[0]``: before the first step)."""
    fired: set[str] = set()
    for i, step in enumerate(steps, 1):
        kind = _FAULT_OF_STEP.get(step.kind)
        if kind is None and not (step.kind == "produce" and (step.lose_ack or step.replica is not None)):
            continue
        own = events[marks[i - 1]:marks[i]]
        if not own or own[0][0] == "skip":
            continue
        if step.kind == "crash":
            kind = "power_loss" if step.lose_unflushed else ("crash" if step.detected else "quick_restart")
        elif step.kind == "produce":
            if step.replica is not None:
                kind = "stale_produce"
            elif any(e[0] == "ack_lost" for e in own):
                kind = "lost_ack"
            else:
                continue
        elif step.kind == "elect" and not any(e[0] == "leader" for e in own):
            continue
        if kind is not None:
            fired.add(kind)
    for event in events:                    # time passing that actually shrank the ISR
        if event[0] == "isr" and "lagged" in event[3]:
            fired.add("isr_expiry")
            break
    return tuple(sorted(fired))


_FAULT_OF_STEP = {"crash": "crash", "elect": "leader_move", "isolate": "isolate",
                  "consumer_crash": "consumer_crash", "fetch_request": "fetch_split", "flush": "flush",
                  "deliver": "deliver", "controller_failover": "controller_failover"}
#: every kind ``fired_faults`` can report
FAULT_KINDS = ("crash", "quick_restart", "power_loss", "leader_move", "isolate", "isr_expiry",
               "lost_ack", "fetch_split", "flush", "consumer_crash", "deliver", "controller_failover",
               "stale_produce")
