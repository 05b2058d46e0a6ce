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
from collections.abc import Callable, Sequence
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
    arguments (Python's Mersenne Twister seeded with an int is stable across platforms).
    Drawing (which action, when its follow-up comes) is here; what each action appends is its
    emitter's (``_EMITTERS``)."""
    draws = _Draws(seed)
    rand = draws.random
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
    emitter = _Emitter(profile, tuple(replicas), draws)
    out = emitter.out
    n: int = profile.steps
    later: list[tuple[int, int, Step]] = []     # (due index, tie-break, step), kept sorted
    counter = 0
    while len(out) < n:
        while later and later[0][0] <= len(out):
            out.append(later.pop(0)[2])
        if len(out) >= n:
            break
        action = enabled[min(bisect.bisect(cumulative, rand() * total), last)]
        follow = _EMITTERS[action](emitter)
        if follow is not None:
            step, delay = follow
            bisect.insort(later, (len(out) + delay, counter, step))
            counter += 1
    return Schedule(tuple(out[:n]), seed, tuple(enabled))


class _Emitter:
    """What each drawn action appends to a schedule: one method per action, the table
    ``_EMITTERS`` maps the action to it. A method returns the follow-up step it queues and its
    delay (drawn now), or None. Per-replica actions draw the replica first, then their own
    numbers: the draw order every schedule so far was generated with."""

    def __init__(self, profile: FaultProfile, replicas: tuple[str, ...], draws: _Draws) -> None:
        self.draws = draws
        self.replicas = replicas
        self.steps = _steps_for(replicas)
        self.ticks = _ticks(tuple(profile.tick_ms))
        self.restart_delay = profile.restart_delay
        self.response_delay = profile.fetch_response_delay
        self.isolate_detected = float(profile.isolate_detected)
        self.power_loss_detected = float(profile.power_loss_detected)
        self.out: list[Step] = []
        self.values = 0                 # produced values so far: the next is v<values>
        self.turn = 0                   # controlled shutdowns so far: the next takes replicas[turn % n]

    def _replica(self) -> int:
        return self.draws.below(len(self.replicas))

    def _after(self, step: Step, delay: tuple[int, int]) -> tuple[Step, int]:
        return step, self.draws.randint(delay[0], delay[1])

    def produce(self) -> tuple[Step, int] | None:
        self.out.append(_produce(self.values, False))
        self.values += 1
        return None

    def lost_ack(self) -> tuple[Step, int] | None:
        self.out.append(_produce(self.values, True))
        self.values += 1
        return self._after(_RETRY, self.response_delay)

    def replication_round(self) -> tuple[Step, int] | None:
        order = list(self.steps["fetch"])
        self.draws.shuffle(order)
        self.out.extend(order)
        return None

    def tick(self) -> tuple[Step, int] | None:
        self.out.append(self.ticks[self.draws.below(len(self.ticks))])
        return None

    def consume(self) -> tuple[Step, int] | None:
        self.out.append(_CONSUME)
        return None

    def consumer_crash(self) -> tuple[Step, int] | None:
        self.out.append(_CONSUMER_CRASH)
        return None

    def controller_failover(self) -> tuple[Step, int] | None:
        self.out.append(_FAILOVER)
        return None

    def fetch(self) -> tuple[Step, int] | None:
        self.out.append(self.steps["fetch"][self._replica()])
        return None

    def fetch_split(self) -> tuple[Step, int] | None:
        i = self._replica()
        self.out.append(self.steps["fetch_request"][i])
        return self._after(self.steps["fetch_response"][i], self.response_delay)

    def flush(self) -> tuple[Step, int] | None:
        self.out.append(self.steps["flush"][self._replica()])
        return None

    def leader_move(self) -> tuple[Step, int] | None:
        self.out.append(self.steps["elect"][self._replica()])
        return None

    def deliver(self) -> tuple[Step, int] | None:
        self.out.append(self.steps["deliver"][self._replica()])
        return None

    def stale_produce(self) -> tuple[Step, int] | None:
        i = self._replica()
        self.out.append(Step("produce", value=f"v{self.values}", replica=self.replicas[i]))
        self.values += 1
        return None

    def isolate(self) -> tuple[Step, int] | None:
        i = self._replica()
        kind = "isolate" if self.draws.random() < self.isolate_detected else "isolate_unseen"
        self.out.append(self.steps[kind][i])
        return self._after(self.steps["reconnect"][i], self.restart_delay)

    def _down(self, kind: str, i: int) -> tuple[Step, int] | None:
        self.out.append(self.steps[kind][i])
        return self._after(self.steps["restart"][i], self.restart_delay)

    def crash(self) -> tuple[Step, int] | None:
        return self._down("crash", self._replica())

    def controlled_shutdown(self) -> tuple[Step, int] | None:
        """The brokers in turn, as a rolling restart takes them (no draw for the replica)."""
        i = self.turn % len(self.replicas)
        self.turn += 1
        return self._down("shutdown", i)

    def quick_restart(self) -> tuple[Step, int] | None:
        return self._down("crash_unseen", self._replica())

    def replace_disk(self) -> tuple[Step, int] | None:
        i = self._replica()
        self.out.append(self.steps["crash"][i])
        return self._after(self.steps["replace_disk"][i], self.restart_delay)

    def retention(self) -> tuple[Step, int] | None:
        i = self.draws.below(len(self.replicas) + 1)
        self.out.append(_DELETE_RECORDS if i == len(self.replicas) else self.steps["retention"][i])
        return None

    def power_loss(self) -> tuple[Step, int] | None:
        i = self._replica()
        return self._down("power_loss" if self.draws.random() < self.power_loss_detected
                          else "power_loss_unseen", i)


#: action -> its emitter (every action of ``profiles.ACTIONS`` has one)
_EMITTERS: dict[str, Callable[[_Emitter], tuple[Step, int] | None]] = {
    "produce": _Emitter.produce, "replication_round": _Emitter.replication_round, "fetch": _Emitter.fetch,
    "fetch_split": _Emitter.fetch_split, "flush": _Emitter.flush, "crash": _Emitter.crash,
    "quick_restart": _Emitter.quick_restart, "power_loss": _Emitter.power_loss,
    "replace_disk": _Emitter.replace_disk, "controlled_shutdown": _Emitter.controlled_shutdown,
    "leader_move": _Emitter.leader_move,
    "tick": _Emitter.tick, "isolate": _Emitter.isolate, "lost_ack": _Emitter.lost_ack, "consume": _Emitter.consume,
    "consumer_crash": _Emitter.consumer_crash, "deliver": _Emitter.deliver,
    "controller_failover": _Emitter.controller_failover, "stale_produce": _Emitter.stale_produce,
    "retention": _Emitter.retention,
}


_RETRY, _CONSUME, _CONSUMER_CRASH = Step("retry"), Step("consume"), Step("consumer_crash")
_FAILOVER = Step("controller_failover")
_DELETE_RECORDS = Step("delete_records", offset=-1)
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
        "restart": each("restart"), "replace_disk": each("replace_disk"), "reconnect": each("reconnect"),
        "deliver": each("deliver"), "shutdown": each("shutdown"),
        "isolate": each("isolate"), "isolate_unseen": each("isolate", detected=False),
        "crash": each("crash"), "crash_unseen": each("crash", detected=False),
        "power_loss": each("crash", lose_unflushed=True),
        "power_loss_unseen": each("crash", lose_unflushed=True, detected=False),
        "retention": each("retention", offset=-1),
    }


def step_action(step: Step) -> str | None:
    """A schedule step's action as a fault profile names it (None: a base action - a produce, a
    fetch - or a fault's follow-up: restart, reconnect, retry, a split fetch's response)."""
    kind = step.kind
    if kind == "crash":
        return "power_loss" if step.lose_unflushed else "crash" if step.detected else "quick_restart"
    if kind == "produce":
        return "lost_ack" if step.lose_ack else "stale_produce" if step.replica is not None else None
    if kind == "elect":
        return "leader_move"
    if kind == "shutdown":
        return "controlled_shutdown"
    if kind == "fetch_request":
        return "fetch_split"
    if kind in ("tick", "flush", "isolate", "deliver", "controller_failover", "consume", "consumer_crash",
                "replace_disk"):
        return kind
    if kind in ("retention", "delete_records"):
        return "retention"
    return None


def fired_faults(steps: Sequence[Step], events: list[tuple], marks: list[int]) -> tuple[str, ...]:
    """The fault kinds that acted in a run: a step whose own events are not just a ``skip``.
    ``marks[i]`` is the number of events after step i (``marks[0]``: before the first step)."""
    fired: set[str] = set()
    for i, step in enumerate(steps, 1):
        kind = step_action(step)
        if kind is None or kind not in FAULT_KINDS:     # a base action, time passing, a poll, a follow-up
            continue
        own = events[marks[i - 1]:marks[i]]
        if not own or own[0][0] == "skip":
            continue
        if step.kind == "produce":
            if step.replica is not None:      # addressed to a broker: stale, whether its ack is lost or not
                kind = "stale_produce"
            elif not any(e[0] == "ack_lost" for e in own):
                continue
        elif step.kind == "elect" and not any(e[0] == "leader" for e in own):
            continue
        fired.add(kind)
    for event in events:                    # time passing that actually shrank the ISR
        if event[0] == "isr" and "lagged" in event[3]:
            fired.add("isr_expiry")
            break
    return tuple(sorted(fired))


#: every kind ``fired_faults`` can report
FAULT_KINDS = ("crash", "quick_restart", "power_loss", "replace_disk", "controlled_shutdown", "leader_move", "isolate",
               "isr_expiry",
               "lost_ack", "fetch_split", "flush", "consumer_crash", "deliver", "controller_failover",
               "stale_produce", "retention")
