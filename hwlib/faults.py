"""Fault profiles and seeded fault schedules: a schedule is a pure function of (profile, seed, replicas).

A profile gives the step mix as relative weights of *actions* (a produce, a replication round,
a crash with its later restart ...), plus the timing knobs. Generation draws one action at a
time with ``random.Random(seed)`` - never a global RNG - and emits its steps; follow-up steps
(the restart after a crash, the response of a split fetch, the reconnect after an isolation)
are queued a random number of steps later. Swarm mode (Groce et al., "Swarm testing", ISSTA
2012) first switches each fault action on or off with probability 1/2, per run.

Per-run seeds come from hashing (sweep seed, schedule cell, run index), see ``derive_seed``.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import marshal
import os
import random
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from .errors import HwlibError
from .steps import Step
from .yamlfile import read_yaml


class ProfileError(HwlibError, ValueError):
    """A fault profile is malformed (unknown action or key, negative weight ...)."""


#: actions that are not faults: swarm mode never switches them off
BASE_ACTIONS = ("produce", "replication_round")
#: fault actions (and client-side events), in the order they are documented
FAULT_ACTIONS = ("fetch", "fetch_split", "flush", "crash", "quick_restart", "power_loss",
                 "leader_move", "tick", "isolate", "lost_ack", "consume", "consumer_crash", "deliver",
                 "controller_failover", "stale_produce")
ACTIONS = BASE_ACTIONS + FAULT_ACTIONS

#: what each action does, for ``hwlib profiles`` and the docs
ACTION_HELP = {
    "produce": "the producer sends one record (values v0, v1, ... in order)",
    "replication_round": "every replica fetches once, in a random order",
    "fetch": "one replica fetches once (request and response)",
    "fetch_split": "one replica's fetch request now, its response after fetch_response_delay steps",
    "flush": "one replica flushes its log and HW checkpoint",
    "crash": "a process crash the controller notices; restart after restart_delay steps",
    "quick_restart": "a crash the controller does not notice (restart within the session timeout)",
    "power_loss": "a crash that loses the unflushed log; noticed with probability power_loss_detected",
    "leader_move": "the controller moves leadership to a random replica (clean: ISR members only)",
    "tick": "logical time passes by one of tick_ms (ISR expiry, timeouts, checkpoints)",
    "isolate": "the controller loses a broker (session expires with probability isolate_detected); "
               "reconnect after restart_delay steps",
    "lost_ack": "a produce whose first acknowledgement is lost, followed by a producer retry",
    "consume": "the consumer polls the leader",
    "consumer_crash": "the consumer dies and a new one resumes from the committed offset",
    "deliver": "a broker cut off from the controller applies its oldest queued LeaderAndIsr request, late",
    "controller_failover": "a new controller takes over: queued LeaderAndIsr requests are dropped, "
                           "unreachable brokers later get the current state only",
    "stale_produce": "the producer sends one record to a random broker, as a client with stale metadata "
                     "would (a stale leader accepts it)",
}


def _profile_dir() -> Path:
    env = os.environ.get("HWLIB_PROFILE_DIR")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "data" / "profiles"


@dataclass(frozen=True)
class FaultProfile:
    """The step mix and timing of random schedules. ``weights`` are relative rates per action."""

    name: str = "custom"
    description: str = ""
    steps: int = 200
    weights: dict[str, float] = field(default_factory=lambda: {"produce": 5, "replication_round": 6})
    swarm: bool = False
    restart_delay: tuple[int, int] = (1, 10)
    fetch_response_delay: tuple[int, int] = (1, 4)
    tick_ms: tuple[int, ...] = (100, 1000, 5000, 16000, 31000)
    power_loss_detected: float = 0.5
    isolate_detected: float = 0.5

    def __post_init__(self) -> None:
        where = f"profile {self.name!r}"
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or not 1 <= self.steps <= 100_000:
            raise ProfileError(f"{where}.steps: must be an integer in 1..100000, got {self.steps!r}")
        if not isinstance(self.weights, dict) or not self.weights:
            raise ProfileError(f"{where}.weights: expected a mapping of action -> weight; allowed actions: "
                               f"{', '.join(ACTIONS)}")
        for action, weight in self.weights.items():
            if action not in ACTIONS:
                raise ProfileError(f"{where}.weights.{action}: unknown action; allowed: {', '.join(ACTIONS)}")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
                raise ProfileError(f"{where}.weights.{action}: must be a number >= 0, got {weight!r}")
        if not any(w > 0 for w in self.weights.values()):
            raise ProfileError(f"{where}.weights: at least one action needs a weight > 0")
        if not isinstance(self.swarm, bool):
            raise ProfileError(f"{where}.swarm: must be true or false, got {self.swarm!r}")
        for name in ("restart_delay", "fetch_response_delay"):
            value = getattr(self, name)
            if (not isinstance(value, (list, tuple)) or len(value) != 2
                    or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
                    or not 1 <= value[0] <= value[1]):
                raise ProfileError(f"{where}.{name}: expected [min, max] steps with 1 <= min <= max, got {value!r}")
            object.__setattr__(self, name, tuple(value))
        ticks = self.tick_ms
        if (not isinstance(ticks, (list, tuple)) or not ticks
                or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in ticks)):
            raise ProfileError(f"{where}.tick_ms: expected a non-empty list of milliseconds >= 0, got {ticks!r}")
        object.__setattr__(self, "tick_ms", tuple(ticks))
        for name in ("power_loss_detected", "isolate_detected"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ProfileError(f"{where}.{name}: must be a probability in 0..1, got {value!r}")
        object.__setattr__(self, "weights", {a: self.weights[a] for a in ACTIONS if a in self.weights})

    @classmethod
    def from_dict(cls, data, where: str = "profile") -> FaultProfile:
        if not isinstance(data, dict):
            raise ProfileError(f"{where}: expected a mapping, got {type(data).__name__}")
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ProfileError(f"{where}.{unknown[0]}: unknown key; allowed: {', '.join(known)}")
        return cls(**data)

    def to_dict(self) -> dict:
        out = asdict(self)
        for name in ("restart_delay", "fetch_response_delay", "tick_ms"):
            out[name] = list(out[name])
        return out

    def replace(self, **changes) -> FaultProfile:
        """A copy with top-level keys or, as ``weights.ACTION``, single weights changed."""
        data = self.to_dict()
        weights = dict(data["weights"])
        for key, value in changes.items():
            if key.startswith("weights."):
                weights[key.split(".", 1)[1]] = value
            else:
                data[key] = value
        data["weights"] = weights
        return FaultProfile.from_dict(data, f"profile {self.name!r}")


def builtin_profiles() -> dict[str, Path]:
    return {p.stem: p for p in sorted(_profile_dir().glob("*.yaml"))}


def load_profile(name_or_path) -> FaultProfile:
    """A built-in profile by name, a YAML file, or a mapping."""
    if isinstance(name_or_path, FaultProfile):
        return name_or_path
    if isinstance(name_or_path, dict):
        return FaultProfile.from_dict(name_or_path)
    text = str(name_or_path)
    path = builtin_profiles().get(text) or Path(text)
    if not path.is_file():
        raise ProfileError(f"profile: {text!r} is neither a built-in profile nor a file; built-ins: "
                           f"{', '.join(builtin_profiles())}")
    data = read_yaml(path, ProfileError, "profile: ")
    if isinstance(data, dict):
        data.setdefault("name", path.stem)
    return FaultProfile.from_dict(data, f"profile {path.stem!r}")


def derive_seed(sweep_seed: int, schedule_cell: str, run: int) -> int:
    """A run's seed: 63 bits of BLAKE2b over (sweep seed, schedule cell, run index)."""
    digest = hashlib.blake2b(f"{sweep_seed}/{schedule_cell}/{run}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def schedule_hash(steps) -> str:
    """16 hex digits of BLAKE2b over ``marshal`` (format 2) of every step's fields: equal
    schedules, equal hashes, in any process (version 2; version 1 hashed each step's YAML form
    as JSON)."""
    fields = [(s.kind, s.replica, s.value, s.acks, s.ms, s.lose_unflushed, s.detected, s.lose_ack, s.count)
              for s in steps]
    return hashlib.blake2b(marshal.dumps(fields, 2), digest_size=8).hexdigest()


@dataclass(frozen=True)
class Schedule:
    steps: tuple[Step, ...]
    seed: int
    #: the actions this run could draw (swarm mode switches fault actions off per run)
    enabled: tuple[str, ...]


def generate(profile: FaultProfile, seed: int, replicas: tuple[str, ...]) -> Schedule:
    """The schedule of one run: ``profile.steps`` steps over ``replicas``, a pure function of the
    arguments (Python's Mersenne Twister seeded with an int is stable across platforms)."""
    rng = random.Random(seed)
    rand, randint = rng.random, rng.randint
    weights = profile.weights
    enabled = [a for a in ACTIONS if weights.get(a, 0) > 0]
    if profile.swarm:
        enabled = [a for a in enabled if a in BASE_ACTIONS or rand() < 0.5]
    if not enabled:   # swarm switched every fault off and the profile has no base action
        enabled = [max(weights, key=lambda a: weights[a])]
    cumulative, total = [], 0.0
    for action in enabled:
        total += weights[action]
        cumulative.append(total)
    last = len(enabled) - 1
    steps = _steps_for(tuple(replicas))
    ticks = _ticks(profile.tick_ms)
    n = profile.steps
    out: list[Step] = []
    later: list[tuple[int, int, Step]] = []     # (due index, tie-break, step), kept sorted
    counter = values = 0
    restart_lo, restart_hi = profile.restart_delay
    response_lo, response_hi = profile.fetch_response_delay
    nrep = len(replicas)

    def queue(delay: int, step: Step) -> None:
        nonlocal counter
        bisect.insort(later, (len(out) + delay, counter, step))
        counter += 1

    while len(out) < n:
        while later and later[0][0] <= len(out):
            out.append(later.pop(0)[2])
        if len(out) >= n:
            break
        action = enabled[min(bisect.bisect(cumulative, rand() * total), last)]
        if action == "produce":
            out.append(_produce(values, False))
            values += 1
        elif action == "replication_round":
            order = list(steps["fetch"])
            rng.shuffle(order)
            out.extend(order)
        elif action == "lost_ack":
            out.append(_produce(values, True))
            values += 1
            queue(randint(response_lo, response_hi), _RETRY)
        elif action == "tick":
            out.append(ticks[rng.randrange(len(ticks))])
        elif action == "consume":
            out.append(_CONSUME)
        elif action == "consumer_crash":
            out.append(_CONSUMER_CRASH)
        elif action == "controller_failover":
            out.append(_FAILOVER)
        else:
            i = rng.randrange(nrep)
            if action == "fetch":
                out.append(steps["fetch"][i])
            elif action == "fetch_split":
                out.append(steps["fetch_request"][i])
                queue(randint(response_lo, response_hi), steps["fetch_response"][i])
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
                out.append(steps["isolate" if rand() < profile.isolate_detected else "isolate_unseen"][i])
                queue(randint(restart_lo, restart_hi), steps["reconnect"][i])
            else:   # crash, quick_restart, power_loss
                if action == "crash":
                    kind = "crash"
                elif action == "quick_restart":
                    kind = "crash_unseen"
                else:
                    kind = "power_loss" if rand() < profile.power_loss_detected else "power_loss_unseen"
                out.append(steps[kind][i])
                queue(randint(restart_lo, restart_hi), steps["restart"][i])
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


def fired_faults(steps, events, marks) -> tuple[str, ...]:
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
