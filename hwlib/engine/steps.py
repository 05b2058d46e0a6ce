"""Scenario steps: the ``Step`` record, parsing from the YAML forms, validation and round-tripping."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ScenarioError
from .config import parse_acks

REPLICA_STEPS = ("fetch", "fetch_request", "fetch_response", "flush", "crash", "shutdown", "restart",
                 "replace_disk", "elect", "isolate", "reconnect", "deliver")
#: steps without arguments
BARE_STEPS = ("retry", "commit", "consumer_crash", "controller_failover")
#: steps that move log start offsets: DeleteRecords to the leader (KIP-107), retention on every
#: broker or one
LOG_START_STEPS = ("delete_records", "retention")
#: a log-start step's offset -1: as far as it may go - DeleteRecords up to the leader's HW (Kafka's
#: own ``DeleteRecordsRequest.HIGH_WATERMARK``), retention every segment it may delete
STEP_KINDS = tuple(sorted(REPLICA_STEPS + BARE_STEPS + LOG_START_STEPS + ("produce", "tick", "consume")))


@dataclass(frozen=True, slots=True)
class Step:
    kind: str
    #: the replica a replica step acts on; for produce / consume, the broker the request is
    #: addressed to (``to`` / ``from``) instead of the one the client's metadata names
    replica: str | None = None
    value: str | None = None
    acks: str | None = None
    ms: int = 0
    lose_unflushed: bool = False
    detected: bool = True
    lose_ack: bool = False
    #: deliver: how many queued LeaderAndIsr requests the broker applies
    count: int = 1
    #: delete_records / retention: the offset the log start moves to (the records below it go);
    #: -1: as far as it may (``LOG_START_STEPS``)
    offset: int = 0

    def __reduce__(self):
        """Pickled by its fields and rebuilt by the constructor: the compiled class has no
        ``__dict__``, so pickle's default would set fields one by one on a frozen instance
        (FrozenInstanceError when Spark returns shrunk scenarios from its executors)."""
        return (Step, (self.kind, self.replica, self.value, self.acks, self.ms, self.lose_unflushed, self.detected,
                       self.lose_ack, self.count, self.offset))

    def to_obj(self):
        """The shortest YAML form of this step (``parse_step`` reads it back)."""
        kind = self.kind
        if kind == "produce":
            if self.acks is None and not self.lose_ack and self.replica is None:
                return {kind: self.value}
            out = {"value": self.value}
            if self.acks is not None:
                out["acks"] = self.acks
            if self.lose_ack:
                out["lose_ack"] = True
            if self.replica is not None:
                out["to"] = self.replica
            return {kind: out}
        if kind == "tick":
            return {kind: self.ms}
        if kind in LOG_START_STEPS:
            return {kind: self.offset} if self.replica is None else {kind: {"offset": self.offset,
                                                                             "replica": self.replica}}
        if kind == "consume" and self.replica is not None:
            return {kind: {"from": self.replica}}
        if kind in BARE_STEPS or kind == "consume":
            return {kind: {}}
        if kind == "crash" and (self.lose_unflushed or not self.detected):
            return {kind: {"replica": self.replica, "lose_unflushed": self.lose_unflushed,
                           "detected": self.detected}}
        if kind == "isolate" and not self.detected:
            return {kind: {"replica": self.replica, "detected": False}}
        if kind == "deliver" and self.count != 1:
            return {kind: {"replica": self.replica, "count": self.count}}
        return {kind: self.replica}

    def describe(self) -> str:
        kind = self.kind
        if kind == "produce":
            notes = [f"acks={self.acks}"] if self.acks else []
            if self.lose_ack:
                notes.append("its acknowledgement is lost")
            to = f" to {self.replica}" if self.replica is not None else ""
            return f"produce {self.value}{to}" + (f" ({', '.join(notes)})" if notes else "")
        if kind == "tick":
            return f"tick {self.ms} ms"
        if kind == "delete_records":
            return "DeleteRecords up to the HW" if self.offset < 0 else f"DeleteRecords before offset {self.offset}"
        if kind == "retention":
            what = "every segment it may" if self.offset < 0 else f"below offset {self.offset}"
            return f"retention deletes {what} on {self.replica or 'every broker'}"
        if kind == "consume" and self.replica is not None:
            return f"consume from {self.replica}"
        if kind in BARE_STEPS or kind == "consume":
            return kind.replace("_", " ")
        if kind == "crash":
            what = "power loss" if self.lose_unflushed else "crash"
            return f"{what} {self.replica}" + ("" if self.detected else " (quick restart, unnoticed)")
        if kind == "isolate":
            return f"isolate {self.replica} from the controller" + ("" if self.detected else " (session holds)")
        if kind == "deliver":
            what = "request" if self.count == 1 else f"{self.count} requests"
            return f"deliver {self.replica} its oldest queued LeaderAndIsr {what}"
        if kind == "replace_disk":
            return f"{self.replica} restarts on a new, empty disk"
        if kind == "shutdown":
            return f"controlled shutdown of {self.replica}"
        return f"{kind} {self.replica}"


def _bool(value, where: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioError(f"{where}: must be true or false, got {value!r}")
    return value


def _replica(value, where: str, replicas: tuple[str, ...] | None) -> str:
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise ScenarioError(f"{where}: expected a replica name, got {value!r}")
    name = str(value)
    if replicas is not None and name not in replicas:
        raise ScenarioError(
            f"{where}: {name!r} is not a replica; allowed: {', '.join(replicas)}"
        )
    return name


def _only_keys(arg: dict, allowed: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(arg) - set(allowed))
    if unknown:
        raise ScenarioError(f"{where}.{unknown[0]}: unknown key; allowed: {', '.join(allowed)}")


def parse_step(obj, index: int, replicas: tuple[str, ...] | None = None) -> Step:
    """Parse one step in any of the scenario forms (docs/scenarios.md, "Scenario files")."""
    where = f"steps[{index}]"
    if isinstance(obj, Step):
        obj = obj.to_obj()
    if isinstance(obj, str) and obj == "consume":
        return Step("consume")
    if not isinstance(obj, dict) or len(obj) != 1:
        raise ScenarioError(
            f"{where}: a step is a mapping with one key, the step kind; allowed kinds: "
            f"{', '.join(STEP_KINDS)}"
        )
    (kind, arg), = obj.items()
    if kind not in STEP_KINDS:
        raise ScenarioError(f"{where}: unknown step kind {kind!r}; allowed: {', '.join(STEP_KINDS)}")
    where = f"{where}.{kind}"
    if kind == "produce":
        lose_ack, to = False, None
        if isinstance(arg, dict):
            _only_keys(arg, ("value", "acks", "lose_ack", "to"), where)
            if "value" not in arg:
                raise ScenarioError(f"{where}.value: required (the record's value)")
            value, acks = arg["value"], arg.get("acks")
            acks = None if acks is None else parse_acks(acks, f"{where}.acks", ScenarioError)
            lose_ack = _bool(arg.get("lose_ack", False), f"{where}.lose_ack")
            if "to" in arg:
                to = _replica(arg["to"], f"{where}.to", replicas)
        else:
            value, acks = arg, None
        if value is None or isinstance(value, (dict, list, bool)):
            raise ScenarioError(f"{where}: expected a record value (text), got {value!r}")
        return Step("produce", value=str(value), acks=acks, lose_ack=lose_ack, replica=to)
    if kind == "consume":
        if arg in (None, {}):
            return Step("consume")
        if not isinstance(arg, dict):
            raise ScenarioError(f"{where}: expected {{}} or {{from: REPLICA}}, got {arg!r}")
        _only_keys(arg, ("from",), where)
        return Step("consume", replica=_replica(arg["from"], f"{where}.from", replicas))
    if kind == "tick":
        if isinstance(arg, bool) or not isinstance(arg, int) or arg < 0:
            raise ScenarioError(f"{where}: expected milliseconds, an integer >= 0, got {arg!r}")
        return Step("tick", ms=arg)
    if kind in LOG_START_STEPS:
        replica = None
        if isinstance(arg, dict):
            _only_keys(arg, ("offset", "replica") if kind == "retention" else ("offset",), where)
            if "offset" not in arg:
                raise ScenarioError(f"{where}.offset: required (the log start offset to move to)")
            if "replica" in arg:
                replica = _replica(arg["replica"], f"{where}.replica", replicas)
            arg = arg["offset"]
        if isinstance(arg, bool) or not isinstance(arg, int) or arg < -1:
            raise ScenarioError(f"{where}: expected an offset, an integer >= 0 or -1 (as far as it may), or "
                                f"{{offset: N{', replica: R' if kind == 'retention' else ''}}}, got {arg!r}")
        return Step(kind, replica=replica, offset=arg)
    if kind in BARE_STEPS:
        if arg not in (None, {}):
            raise ScenarioError(f"{where}: takes no arguments; write `{kind}: {{}}`")
        return Step(kind)
    if kind in ("crash", "isolate") and isinstance(arg, dict):
        allowed = ("replica", "lose_unflushed", "detected") if kind == "crash" else ("replica", "detected")
        _only_keys(arg, allowed, where)
        if "replica" not in arg:
            raise ScenarioError(f"{where}.replica: required")
        return Step(kind, replica=_replica(arg["replica"], f"{where}.replica", replicas),
                    lose_unflushed=_bool(arg.get("lose_unflushed", False),
                                         f"{where}.lose_unflushed"),
                    detected=_bool(arg.get("detected", True), f"{where}.detected"))
    if kind == "deliver" and isinstance(arg, dict):
        _only_keys(arg, ("replica", "count"), where)
        if "replica" not in arg:
            raise ScenarioError(f"{where}.replica: required")
        count = arg.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ScenarioError(f"{where}.count: must be an integer >= 1 (requests to apply), got {count!r}")
        return Step(kind, replica=_replica(arg["replica"], f"{where}.replica", replicas), count=count)
    return Step(kind, replica=_replica(arg, where, replicas))


def parse_steps(objs, replicas: tuple[str, ...] | None = None) -> list[Step]:
    if not isinstance(objs, list):
        raise ScenarioError(f"steps: expected a list of steps, got {type(objs).__name__}")
    return [parse_step(obj, i, replicas) for i, obj in enumerate(objs)]
