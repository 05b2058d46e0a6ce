"""Each engine part declares its whole state: any field it holds, perturbed, changes the whole key, or is UNKEYED.

``Cluster.key`` composes the parts' own ``key`` (``hwlib.engine.state_key``). The model
checker merges two states whose keys are equal, so a field a part holds and its key forgets
would merge states with different futures - silently. Here every field of every engine object
reachable from a cluster (what the clone test's ``dump`` sees), in states met along random
schedules of every generation, is perturbed in a fresh replay of the state, and the whole key
(``KeyContext``, no reduction) must change. A field a part names in ``UNKEYED`` is left alone
there, and held to its reason instead: a constant equals the fresh cluster's, and what only
observes (or is transient) can be scrambled without changing any later step's events or key.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator

import pytest

from hwlib import PROTOCOLS, Cluster, ClusterConfig, Step
from hwlib.engine.state_key import CODES, KeyContext

from ..helpers.fields import field_names, unkeyed
from ..helpers.random_states import states, states_after

VALUES = {f"m{i}": i for i in range(1, 60)}
Path = tuple


def engine_object(value: object) -> bool:
    """An object of the engine's own classes (the configuration and rule sets are shared
    constants, not parts)."""
    module = type(value).__module__
    return module.startswith("hwlib.engine.") and not module.startswith(("hwlib.engine.config",
                                                                          "hwlib.engine.protocols"))


def shared(value: object) -> bool:
    """The configuration or a rule set: constants every part of every state shares."""
    return type(value).__module__.startswith(("hwlib.engine.config", "hwlib.engine.protocols"))


def leaf(value: object) -> bool:
    """A field's value that is neither a part (walked into), a shared constant nor a method."""
    return not (engine_object(value) or shared(value) or callable(value))


def fields(cluster: Cluster) -> Iterator[tuple[Path, type, str, object, bool]]:
    """Every field of every engine object reachable from ``cluster``, each object once (by
    identity, at the first path met, breadth first), as (path from the cluster, its class, name,
    value, whether the value is a part first met here - the field that holds it); a path holds
    attribute names and, in 1-tuples, the index or key of a container's item."""
    reached: set[int] = {id(cluster)}
    queue: list[tuple[Path, object]] = [((), cluster)]
    while queue:
        path, obj = queue.pop(0)
        for name in field_names(obj):
            value = getattr(obj, name)
            here = path + (name,)
            items: list[tuple[Path, object]] = []
            if engine_object(value):
                items = [(here, value)]
            elif isinstance(value, (list, tuple)):
                items = [(here + ((i,),), item) for i, item in enumerate(value) if engine_object(item)]
            elif isinstance(value, dict):
                items = [(here + ((k,),), item) for k, item in value.items() if engine_object(item)]
            owns = engine_object(value) and id(value) not in reached
            for item_path, item in items:
                if id(item) not in reached:
                    reached.add(id(item))
                    queue.append((item_path, item))
            yield here, type(obj), name, value, owns


def resolve(cluster: Cluster, path: Path) -> object:
    obj: object = cluster
    for step in path:
        obj = getattr(obj, step) if isinstance(step, str) else obj[step[0]]     # type: ignore[index]
    return obj


def other(value: object, domain: list) -> list:
    """Values other than ``value`` for a leaf: each the same kind where it can be."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1]
    if value is None or isinstance(value, str):
        return [d for d in domain if d != value][:2] or ([0] if value is None else [])
    if isinstance(value, (tuple, list)):
        kind = type(value)
        out = []
        for i, item in enumerate(value):
            if engine_object(item):
                continue
            for changed in other(item, domain):
                out.append(kind(value[:i]) + kind([changed]) + kind(value[i + 1:]))
                break
        if value:
            out.append(kind(value[:-1]))
        extra = [d for d in domain if isinstance(d, str) and d not in value][:1]
        if extra and all(isinstance(v, str) for v in value):
            out.append(kind(value) + kind(extra))
        return out
    if isinstance(value, (set, frozenset)):
        out = [type(value)(set(value) - {x}) for x in sorted(value)[:1]]
        missing = [d for d in domain if isinstance(d, str) and d not in value][:1]
        return out + [type(value)(set(value) | set(missing))] if missing else out
    if isinstance(value, dict):
        out = []
        for k, item in value.items():
            if not engine_object(item):
                for changed in other(item, domain):
                    out.append({**value, k: changed})
                    break
        if value:
            out.append(dict(list(value.items())[:-1]))
        return out
    raise AssertionError(f"no perturbation for {type(value).__name__}")


def drop_notes(cluster: Cluster) -> None:
    """Drops every ``memo`` (a reader's note, kept until its container is written): a
    perturbation writes around the container's own methods."""
    for _, _, _, value, _ in fields(cluster):
        if hasattr(value, "memo"):
            value.memo = None


def whole_key(cluster: Cluster) -> tuple:
    return cluster.key(KeyContext(cluster.config.replicas, VALUES))


def replay(config: ClusterConfig, steps: list[Step]) -> Cluster:
    cluster = Cluster(config)
    for step in steps:
        cluster.apply(step)
    del cluster.events[:]
    return cluster


@functools.cache
def domains() -> tuple[dict[tuple[str, str], list], set[tuple[str, str]]]:
    """The values each field of a leaf kind holds in states of every generation (what a field
    that is None in one state is set to instead), and the fields that hold None in some state."""
    out: dict[tuple[str, str], list] = {}
    nullable: set[tuple[str, str]] = set()
    for protocol in PROTOCOLS:
        for config, steps in states(protocol, range(4)):
            for _, cls, name, value, _ in fields(replay(config, steps)):
                if value is None:
                    nullable.add((cls.__name__, name))
                elif leaf(value):
                    known = out.setdefault((cls.__name__, name), [])
                    if value not in known and len(known) < 4:
                        known.append(value)
    return out, nullable


def unkeyed_fields(key: Callable[[Cluster], tuple], met: list[tuple[ClusterConfig, list[Step]]]
                   ) -> tuple[dict[str, str], set[str]]:
    """Each field (``Class.field``) a perturbation of which left ``key`` unchanged in some state,
    with that state's description; and every field perturbed at all. A leaf is set to other
    values of its kind, a part first met at the field to None where the field holds None in other states."""
    known, nullable = domains()
    ids = ["A", "B", "C"]
    strings = [c for c in CODES if isinstance(c, str)]
    missed: dict[str, str] = {}
    perturbed: set[str] = set()
    for config, steps in met:
        cluster = replay(config, steps)
        before = key(cluster)
        for path, cls, name, value, owns in list(fields(cluster)):
            optional = owns and (cls.__name__, name) in nullable
            if name in unkeyed(cls) or not (leaf(value) or optional):
                continue
            label = f"{cls.__name__}.{name}"
            domain = known.get((cls.__name__, name), []) + ids + ["m1", "m2"] + strings
            for changed in ([None] if optional else other(value, domain)):
                fresh = replay(config, steps)
                owner = resolve(fresh, path[:-1])
                try:
                    setattr(owner, path[-1], changed)
                except TypeError:
                    continue                            # not a value of the field's type (a compiled class says so)
                drop_notes(fresh)
                perturbed.add(label)
                try:
                    after = key(fresh)
                except (KeyError, IndexError, TypeError, AttributeError, ValueError):
                    continue                            # the key read it, and found it out of its domain
                if after == before:
                    missed.setdefault(label, f"{config.protocol}, {len(steps)} steps, {path} = {changed!r}")
    return missed, perturbed


def every_field(met: list[tuple[ClusterConfig, list[Step]]]) -> set[str]:
    """Every field of a part but those it names UNKEYED and those that always hold a part
    (walked into): a leaf, or a part or None."""
    out = set()
    nullable = domains()[1]
    for config, steps in met:
        for _, cls, name, value, owns in fields(replay(config, steps)):
            if name not in unkeyed(cls) and (leaf(value) or owns and (cls.__name__, name) in nullable):
                out.add(f"{cls.__name__}.{name}")
    return out


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_field_a_part_holds_is_in_its_key_or_named_unkeyed(protocol):
    met = list(states(protocol, range(6)))
    missed, perturbed = unkeyed_fields(whole_key, met)
    assert missed == {}, "fields the whole key does not see (add them to the part's key, or to its UNKEYED " \
                         f"with the reason): {missed}"
    assert perturbed == every_field(met)
    # the parts every generation holds, and the fields met
    assert {"Replica.hw", "Replica.in_flight", "ReplicaLog.values", "InFlight.fetch_offset", "RemoteReplica.leo",
            "Controller.isr", "ProduceRequest.offset", "Consumer.position", "Clock.next_isr_check",
            "LeaderEpochCache._epochs", "Time.now"} <= perturbed


def test_a_field_forgotten_in_its_part_key_is_found():
    """The test above can fail: a key that forgets one field - the HW checkpoint of each
    replica, as if ``Replica.key`` left it out - is caught, by name."""
    def forgetful(cluster: Cluster) -> tuple:
        replicas, *rest = whole_key(cluster)
        return (tuple(r[:6] + (0,) + r[7:] if r[0] else r for r in replicas), *rest)

    met = list(states("kip320", range(3)))
    missed, _ = unkeyed_fields(forgetful, met)
    assert set(missed) == {"Replica.hw_checkpoint"}


def test_every_reason_given_is_one_of_four():
    """A field is left out of its part's key as a constant of the configuration, wiring to the
    parts it calls, what only observes the run, or a transient value (never set between steps)."""
    classes = set()
    for protocol in ("hw", "kip966"):
        for config, steps in states(protocol, range(3)):
            classes |= {cls for _, cls, _, _, _ in fields(replay(config, steps))}
    reasons = {why.split(":")[0] for cls in classes for why in unkeyed(cls).values()}
    assert reasons == {"constant", "wiring", "observes", "transient"}
    # every stateful part declares its key; the others (rules and wiring) hold nothing of their own
    stateless = {cls.__name__ for cls in classes if not hasattr(cls, "key")}
    assert stateless == {"Partition", "ReplicaManager", "ReplicaFetcher", "Time"}


@pytest.mark.parametrize("protocol", ["hw", "kip320", "kip595", "kip966"])
def test_a_constant_is_what_a_new_cluster_holds(protocol):
    """What a part calls a constant is still what the configuration gave it, in every state."""
    for config, steps in states(protocol, range(4)):
        fresh = Cluster(config)
        cluster = replay(config, steps)
        for path, cls, name, value, _ in fields(cluster):
            if unkeyed(cls).get(name, "").startswith("constant"):
                assert value == resolve(fresh, path), (protocol, path)


@pytest.mark.parametrize("protocol", ["hw", "kip101", "kip320", "kip595", "kip841", "kip966"])
def test_what_only_observes_never_acts(protocol):
    """A field named as what only observes the run is scrambled in a copy of a state: the copy
    and the original run on alike - the same events, the same whole key - at every later step.
    A transient one is never set between steps."""
    scrambled = 0
    for config, steps in states(protocol, range(8), n=50):
        rng = random.Random(len(steps))
        cluster = replay(config, steps)
        later = states_after(steps, rng)
        copy = replay(config, steps)
        for path, cls, name, value, _ in list(fields(copy)):
            why = unkeyed(cls).get(name, "")
            if why.startswith("transient"):
                assert value is None, (protocol, path)           # never set between steps
            if not why.startswith("observes") or name == "events" or value is None:
                continue
            setattr(resolve(copy, path[:-1]), name, scramble(value, rng))
            scrambled += 1
        for step in later:
            cluster.apply(step)
            copy.apply(step)
            assert whole_key(copy) == whole_key(cluster), (protocol, step)
            assert [e for e in copy.events] == [e for e in cluster.events], (protocol, step)
            del copy.events[:], cluster.events[:]
    assert scrambled > 50


def scramble(value: object, rng: random.Random) -> object:
    """Another value of the same type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.randrange(1, 9)
    if isinstance(value, str):
        return value + "?"
    if isinstance(value, dict):
        return {**value, "NETWORK_EXCEPTION": rng.randrange(1, 9)}
    if isinstance(value, list):
        return value + [(7, [])]
    raise AssertionError(f"no scramble for {type(value).__name__}")
