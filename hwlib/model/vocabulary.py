"""The model checker's vocabulary: the faults it searches and their words, the defaults, a profile's faults, parsing.

Light on purpose: the command line reads its defaults from here without loading a search.
"""

from __future__ import annotations

from ..anomalies import KINDS
from ..engine.steps import Step
from ..errors import HwlibError
from ..util.names import parse_names


class CheckError(HwlibError, ValueError):
    """Bad bounds or fault names."""


#: fault names for ``--faults`` -> what they add to the alphabet (besides produce and fetches);
#: together they can fire every action of a fault profile (``profile_faults``)
FAULTS = {
    "elect": "the controller moves leadership to a replica (clean: ISR members only)",
    "isolate": "the controller loses a broker and its session expires; reconnect later",
    "isolate_unseen": "the controller loses a broker whose session holds; reconnect later",
    "deliver": "a cut-off broker applies its oldest queued LeaderAndIsr request",
    "controller_failover": "a new controller: queued requests dropped, current state only",
    "crash": "a process crash the controller notices; restart later",
    "quick_restart": "a crash the controller does not notice; restart later",
    "power_loss": "a crash that loses the unflushed log, noticed by the controller; restart later",
    "power_loss_unseen": "a power loss the controller does not notice (back within the session); restart later",
    "replace_disk": "a crash the controller notices; the broker comes back later on a new, empty disk",
    "controlled_shutdown": "a broker shuts down cleanly after the controller moved its leadership and ISR; "
                           "restart later",
    "flush": "a replica flushes its log and HW checkpoint",
    "tick": "time passes (tick_ms): ISR expiry, timeouts, checkpoints",
    "lost_ack": "a produce whose acknowledgement is lost; the producer may retry it",
    "stale_produce": "a produce sent to one broker, as a client with stale metadata sends it",
    "consume": "the consumer polls the leader",
    "consumer_crash": "the consumer dies; a new one resumes from the committed offset",
    "retention": ("a broker's retention or DeleteRecords moves a log start: as far as allowed, or to an offset "
                  "below --max-records"),
}
#: each fault in plain words, for the line that says what a verdict covers (a noticed and an
#: unnoticed variant share theirs: ``verdicts.coverage_text`` says which of them it covers)
FAULT_WORDS = {
    "elect": "leader moves", "isolate": "isolation", "isolate_unseen": "isolation",
    "deliver": "late LeaderAndIsr delivery", "controller_failover": "controller failovers",
    "crash": "crashes", "quick_restart": "quick restarts", "power_loss": "power loss",
    "power_loss_unseen": "power loss", "replace_disk": "replaced disks",
    "controlled_shutdown": "controlled shutdowns", "flush": "flushes", "tick": "time passing",
    "lost_ack": "lost acknowledgements", "stale_produce": "produces to a stale leader",
    "consume": "consumer polls", "consumer_crash": "consumer crashes", "retention": "retention and DeleteRecords",
}
#: one step of each fault, as a count names it: ``crash twice``, ``each at most once: crash, power
#: loss (noticed)`` (a fault budget, or what a run spends against one)
ONE_FAULT = {
    "elect": "leader move", "isolate": "isolation (session expired)", "isolate_unseen": "isolation (session held)",
    "deliver": "late LeaderAndIsr delivery", "controller_failover": "controller failover", "crash": "crash",
    "quick_restart": "quick restart", "power_loss": "power loss (noticed)",
    "power_loss_unseen": "power loss (unnoticed)",
    "replace_disk": "replaced disk", "controlled_shutdown": "controlled shutdown", "flush": "flush", "tick": "tick",
    "lost_ack": "lost acknowledgement", "stale_produce": "produce to a stale leader", "consume": "consumer poll",
    "consumer_crash": "consumer crash", "retention": "retention or DeleteRecords",
}


def times(count: int) -> str:
    """``once``, ``twice``, ``3 times``."""
    return "once" if count == 1 else "twice" if count == 2 else f"{count} times"


#: the faults of the TLA+ specification of Kafka replication (hachikuji/kafka-specification):
#: leader moves, isolation and late LeaderAndIsr delivery, no crashes - for comparisons with TLC
TLA_FAULTS = ("elect", "isolate", "isolate_unseen", "deliver")
#: what ``--faults`` means when not given: the TLA+ set plus process crashes and quick restarts
#: (KIP-101's lost write needs a quick restart)
DEFAULT_FAULTS = TLA_FAULTS + ("crash", "quick_restart")
#: the anomaly kinds ``--kinds`` means when not given: the broker-side safety properties
DEFAULT_KINDS = ("lost-write", "log-divergence", "committed-truncated", "strong-isr")
#: the bounds when not given (``Bounds``' defaults): the TLA+ specification's at two replicas
DEFAULT_REPLICAS, DEFAULT_MAX_RECORDS, DEFAULT_MAX_EPOCH = 2, 2, 2
#: min.insync.replicas when not given: with 2 replicas, writes go on with one replica out of
#: the ISR, as with 3 replicas and min.insync.replicas=2
DEFAULT_MIN_INSYNC_REPLICAS = 1


def profile_faults(profile) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The faults that can fire every step a fault profile (``profiles.FaultProfile``) can
    draw, and the profile's actions none of them covers (none today). Produces, replication
    rounds, fetches and split fetches are the alphabet's produce and fetch halves."""
    faults: list[str] = []
    for action, weight in profile.weights.items():
        if weight <= 0 or action in ("produce", "replication_round", "fetch", "fetch_split"):
            continue
        if action == "leader_move":
            faults.append("elect")
        elif action == "power_loss":
            if profile.power_loss_detected > 0:
                faults.append("power_loss")
            if profile.power_loss_detected < 1:
                faults.append("power_loss_unseen")
        elif action == "isolate":
            if profile.isolate_detected > 0:
                faults.append("isolate")
            if profile.isolate_detected < 1:
                faults.append("isolate_unseen")
        else:
            faults.append(action)
    uncovered = tuple(f for f in faults if f not in FAULTS)
    return tuple(f for f in FAULTS if f in faults), uncovered


def parse_faults(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``elect,deliver`` (or a list) -> the faults, each once; none at all leaves only
    produces and fetches."""
    return tuple(parse_names(text, "faults", FAULTS, "a fault", CheckError, empty=True))


def parse_budget(value: str | dict | tuple | list) -> tuple[tuple[str, int], ...]:
    """A fault budget - ``power_loss=1,isolate=1``, a dict or (fault, limit) pairs - as (fault,
    limit) pairs in ``FAULTS`` order; each a fault of ``FAULTS`` but ``tick`` (``--max-ticks``
    bounds it), each limit an integer >= 0, each fault once."""
    if isinstance(value, str):
        pairs: list[tuple[object, object]] = []
        for part in (p.strip() for p in value.split(",")):
            if not part:
                continue
            fault, sep, count = part.partition("=")
            if not sep or not count.strip().isdigit():
                raise CheckError(f"fault-budget: {part!r} is not FAULT=COUNT (e.g. power_loss=1,isolate=1)")
            pairs.append((fault.strip(), int(count)))
    elif isinstance(value, dict):
        pairs = list(value.items())
    else:
        pairs = [(pair[0], pair[1]) for pair in value]
    out: dict[str, int] = {}
    for name, limit in pairs:
        if name == "tick":
            raise CheckError("fault-budget: tick is bounded by --max-ticks")
        if name not in FAULTS:
            raise CheckError(f"fault-budget: {name!r} is not a fault; any of: "
                             f"{', '.join(f for f in FAULTS if f != 'tick')}")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise CheckError(f"fault-budget: {name}'s limit must be an integer >= 0, got {limit!r}")
        if name in out:
            raise CheckError(f"fault-budget: {name} is given twice")
        out[name] = limit
    return tuple((name, out[name]) for name in FAULTS if name in out)


def parse_kinds(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``lost-write,strong-isr`` (or a list) -> the anomaly kinds, each once."""
    return tuple(parse_names(text, "kinds", KINDS, "an anomaly kind", CheckError))


def step_fault(step: Step) -> str | None:
    """The fault under whose name ``alphabet`` holds ``step``; None for what every alphabet
    has (produce, the fetch halves) and for a fault's follow-up (restart, reconnect, retry)."""
    kind = step.kind
    if kind == "crash":
        name = "power_loss" if step.lose_unflushed else "crash" if step.detected else "quick_restart"
        return name + "_unseen" if step.lose_unflushed and not step.detected else name
    if kind == "isolate":
        return "isolate" if step.detected else "isolate_unseen"
    if kind == "shutdown":
        return "controlled_shutdown"
    if kind == "produce":
        return "lost_ack" if step.lose_ack else "stale_produce" if step.replica is not None else None
    if kind in ("elect", "deliver", "controller_failover", "flush", "tick", "consume", "consumer_crash",
                "replace_disk"):
        return kind
    if kind in ("retention", "delete_records"):
        return "retention"
    return None


def untried(faults: tuple[str, ...], swept: dict) -> dict[str, list[str]]:
    """The fault classes (``FAULT_WORDS``) that the profiles ``swept`` (name -> fault profile:
    the default report's) fire and a search with ``faults`` leaves out, each with the profiles
    that fire it, in the profiles' order."""
    tried = {FAULT_WORDS[f] for f in faults}
    out: dict[str, list[str]] = {}
    for name, profile in swept.items():
        for fault in profile_faults(profile)[0]:
            word = FAULT_WORDS[fault]
            if word not in tried and name not in out.setdefault(word, []):
                out[word].append(name)
    return {word: names for word, names in out.items() if names}


def untried_note(faults: tuple[str, ...], swept: dict) -> str:
    """What a "holds" leaves out, in words, and the fewest profiles that would try it:
    ``power loss and flushes not tried: check with --profile power-loss --max-ticks 1``; empty
    when ``faults`` try every class ``swept`` fires."""
    missing = untried(faults, swept)
    if not missing:
        return ""
    left, chosen = set(missing), []
    while left:           # greedy: the profile that fires most of what is left, first in order on ties
        best = max(swept, key=lambda n: (sum(n in missing[w] for w in left), -list(swept).index(n)))
        chosen.append(best)
        left -= {w for w in left if best in missing[w]}
    words = list(missing)
    said = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    ways = "; ".join(f"--profile {name}" + (" --max-ticks 1" if "tick" in profile_faults(swept[name])[0] else "")
                     for name in chosen)
    return f"{said} not tried: check with {ways}"
