"""Fault profiles: the step mix of random schedules (weights of actions) and its timing, validated; built-ins, files.

A profile gives the step mix as relative weights of *actions* (a produce, a replication round,
a crash with its later restart ...), plus the timing knobs; ``hwlib.faults`` turns a profile
and a seed into a schedule.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from .errors import HwlibError
from .util.files import is_file
from .util.paths import builtin_files
from .util.yamlfile import read_yaml


class ProfileError(HwlibError, ValueError):
    """A fault profile is malformed (unknown action or key, negative weight ...)."""


#: actions that are not faults: swarm mode never switches them off
BASE_ACTIONS = ("produce", "replication_round")
#: fault actions (and client-side events), in the order they are documented
FAULT_ACTIONS = ("fetch", "fetch_split", "flush", "crash", "quick_restart", "power_loss", "replace_disk",
                 "controlled_shutdown", "leader_move", "tick", "isolate", "lost_ack", "consume", "consumer_crash",
                 "deliver",
                 "controller_failover", "stale_produce", "retention")
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
    "replace_disk": "a crash the controller notices; the broker comes back after restart_delay steps on a "
                    "new, empty disk (no log, no HW checkpoint, no leader-epoch cache)",
    "controlled_shutdown": "the next broker in turn (assignment order) shuts down cleanly - the controller first "
                           "moves its leadership and takes it out of the ISR - and restarts after restart_delay "
                           "steps: a rolling restart",
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
    "retention": "a random broker's retention deletes every segment it may, or (one time in replicas + 1) the "
                 "admin client's DeleteRecords up to the leader's HW: log start offsets move",
}


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
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight < math.inf:
                raise ProfileError(f"{where}.weights.{action}: must be a finite number >= 0, got {weight!r}")
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


#: built-in profiles that were renamed: old name -> new name (the same fault mix)
RENAMED = {"seeds-data-loss": "kip101-data-loss"}


def builtin_profiles() -> dict[str, Path]:
    """The built-in fault profiles by name (the checkout's ``data/profiles``, or the installed package's copy)."""
    return builtin_files("profiles")


def load_profile(name_or_path) -> FaultProfile:
    """A built-in profile by name, a YAML file, or a mapping."""
    if isinstance(name_or_path, FaultProfile):
        return name_or_path
    if isinstance(name_or_path, dict):
        return FaultProfile.from_dict(name_or_path)
    text = str(name_or_path)
    path = builtin_profiles().get(text) or Path(text)
    if not is_file(path) and text in RENAMED:
        raise ProfileError(f"profile: {text!r} was renamed {RENAMED[text]!r} (the same fault mix); use the new "
                           "name (a sweep made with the old one must be run again)")
    if not is_file(path):
        raise ProfileError(f"profile: {text!r} is neither a built-in profile nor a file; built-ins: "
                           f"{', '.join(builtin_profiles())}")
    data = read_yaml(path, ProfileError, "profile: ")
    if isinstance(data, dict):
        data.setdefault("name", path.stem)
    return FaultProfile.from_dict(data, f"profile {path.stem!r}")
