"""The anomaly checks' memory: every field they hold is in the verdict key, or UNKEYED for a reason that holds.

The model checker merges two states whose cluster keys and checkers' verdict keys
(``AnomalyChecker.verdict_key``) are equal, and continues one of them. A field the checks
remember that the verdict key forgets would merge a state that will report with one that will
not - silently. Here every field of the checker and of its two families of checks
(``ReplicationChecks``, ``ClientChecks``), in states met along random schedules with the checker
watching every step, is perturbed in a fresh replay and the verdict key must change; a field a
class names in ``UNKEYED`` is held to its reason instead (``hwlib.anomalies.memory``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from hwlib import Cluster, ClusterConfig, Step
from hwlib.anomalies import AnomalyChecker
from hwlib.scenario import builtin_scenarios, load_scenario

from ..helpers.fields import field_names, unkeyed
from ..helpers.random_states import states, states_after


class Numbering(dict):
    """Each record value by a number, given the first time it is asked for (the scenarios name
    their records freely)."""

    def __missing__(self, value: str) -> int:
        number = self[value] = len(self) + 1
        return number


VALUES = Numbering()
PROTOCOLS = ("hw", "kip101", "kip320", "kip595", "kip966")
REASONS = ("wiring", "constant", "cache", "annotates", "synced", "observes")
#: a value of each standing violation's field, which random states seldom hold (a reported
#: divergence, a strong-ISR violation, a leader's HW below its log start, two reads at an offset)
SELDOM: dict[str, object] = {"ReplicationChecks.diverged": {1: 0}, "ReplicationChecks.weak_isr": {1},
                             "ReplicationChecks.low_hw": frozenset({0}), "ClientChecks._inconsistent": {0}}
#: what each synced field equals after every observation
SYNCED: dict[str, Callable[[Cluster], object]] = {
    "AnomalyChecker._events_seen": lambda c: len(c.events),
    "ClientChecks.polls_seen": lambda c: len(c.consumer.polls),
    "ReplicationChecks.cache_versions": lambda c: [r.log.cache.version for r in c.replicas],
}


def watched(config: ClusterConfig, steps: list[Step]) -> tuple[Cluster, AnomalyChecker]:
    """The state after ``steps``, its checker having observed each."""
    cluster = Cluster(config)
    checker = AnomalyChecker(cluster)
    for i, step in enumerate(steps, 1):
        cluster.apply(step)
        checker.observe(i)
    return cluster, checker


def parts(checker: AnomalyChecker) -> dict[str, object]:
    return {"AnomalyChecker": checker, "ReplicationChecks": checker.replication, "ClientChecks": checker.clients}


def fields(checker: AnomalyChecker) -> Iterator[tuple[str, str, object]]:
    """(class name, field name, value) of every field the checker and its checks hold."""
    for cls, obj in parts(checker).items():
        for name in field_names(obj):
            if name not in ("replication", "clients"):      # the families, walked as parts of their own
                yield cls, name, getattr(obj, name)


def why(checker: AnomalyChecker, cls: str, name: str) -> str:
    return unkeyed(type(parts(checker)[cls])).get(name, "")


def others(value: object, known: object, replicas: tuple[str, ...] = ("A", "B", "C")) -> list[object]:
    """Values other than ``value`` of its kind: an item changed, one taken away, one added (a
    None or an empty container becomes ``known``, a value of the field met in another state)."""
    if empty(value):
        return [] if known is None else [known]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1]
    if isinstance(value, str):
        return [v for v in replicas if v != value][:1] if value in replicas else \
            [v for v in ("m1", "m2") if v != value][:1]
    if isinstance(value, list):
        first = others(value[0], None)
        return [value[:-1], first[:1] + value[1:], value + value[-1:]]
    if isinstance(value, (set, frozenset)):
        items = sorted(value)
        bigger = items[-1] + 1 if isinstance(items[-1], int) else next(
            v for v in (f"m{i}" for i in range(1, len(items) + 2)) if v not in value)
        return [type(value)(items[1:]), type(value)(items + [bigger])]
    if isinstance(value, dict):
        k = next(iter(value))
        out: list[object] = [dict(list(value.items())[1:])]
        out += [{**value, k: changed} for changed in others(value[k], None)[:1]]
        return out
    raise AssertionError(f"no perturbation for {type(value).__name__}")


def met(protocols=PROTOCOLS, seeds: range = range(8)) -> list[tuple[ClusterConfig, list[Step]]]:
    """States along random schedules, and along every built-in scenario (where the standing
    violations - a divergence, a strong-ISR violation - are), each cut in three places."""
    out = [state for protocol in protocols for state in states(protocol, seeds, n=40)]
    for protocol in protocols:
        for name in sorted(builtin_scenarios()):
            scenario = load_scenario(name).with_protocol(protocol)
            steps = list(scenario.steps)
            out += [(scenario.config, steps[:cut]) for cut in sorted({len(steps) // 2, len(steps) - 2, len(steps)})]
    return out


def known_values(schedules: list[tuple[ClusterConfig, list[Step]]]) -> dict[tuple[str, int], object]:
    """A value each field holds in some state, by the number of replicas: nonempty and not None
    where one was met."""
    out: dict[tuple[str, int], object] = {}
    for config, steps in schedules:
        _, checker = watched(config, steps)
        n = len(config.replicas)
        for label, value in SELDOM.items():
            out.setdefault((label, n), value)
        for cls, name, value in fields(checker):
            if not empty(value):
                out[(f"{cls}.{name}", n)] = value
    return out


def empty(value: object) -> bool:
    return value is None or (isinstance(value, (list, dict, set, frozenset)) and not value)


def verdict(checker: AnomalyChecker) -> tuple:
    return checker.verdict_key(VALUES)


def unkeyed_fields(key: Callable[[AnomalyChecker], tuple], schedules: list[tuple[ClusterConfig, list[Step]]]
                   ) -> tuple[dict[str, str], set[str]]:
    """Each field (``Class.field``) a perturbation of which left ``key`` unchanged in some state,
    with that state's description; and every field perturbed at all."""
    known = known_values(schedules)
    missed: dict[str, str] = {}
    perturbed: set[str] = set()
    for config, steps in schedules:
        _, checker = watched(config, steps)
        before = key(checker)
        for cls, name, value in list(fields(checker)):
            if why(checker, cls, name):
                continue
            label = f"{cls}.{name}"
            for changed in others(value, known.get((label, len(config.replicas))), tuple(config.replicas)):
                _, fresh = watched(config, steps)
                owner = parts(fresh)[cls]
                setattr(owner, name, changed)
                if hasattr(owner, "memo"):
                    owner.memo = None           # a perturbation writes around ``_write``, which drops it
                perturbed.add(label)
                if key(fresh) == before:
                    missed.setdefault(label, f"{config.protocol}, {len(steps)} steps, {name} = {changed!r}")
    return missed, perturbed


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_field_the_checks_hold_is_in_the_verdict_key_or_named_unkeyed(protocol):
    schedules = met((protocol,))
    missed, perturbed = unkeyed_fields(verdict, schedules)
    assert missed == {}, "fields the verdict key does not see (add them to the checks' verdict key, or to the " \
                         f"class's UNKEYED with the reason): {missed}"
    _, checker = watched(*schedules[-1])
    every = {f"{cls}.{name}" for cls, name, _ in fields(checker) if not why(checker, cls, name)}
    assert perturbed == every


def test_a_field_forgotten_in_the_verdict_key_is_found():
    """The test above can fail: a verdict key that forgets the highest partition HW seen - as
    if ``ReplicationChecks`` left ``last_hw`` out - is caught, by name."""
    def forgetful(checker: AnomalyChecker) -> tuple:
        last, acked, replication, clients = verdict(checker)
        return (last, acked, replication[:2] + replication[3:], clients)

    missed, _ = unkeyed_fields(forgetful, met(("hw",), range(3)))
    assert set(missed) == {"ReplicationChecks.last_hw"}


def test_every_reason_given_is_one_of_six():
    _, checker = watched(*met(("kip320",), range(1))[-1])
    given = {reason.split(":")[0] for obj in parts(checker).values() for reason in unkeyed(type(obj)).values()}
    assert given == set(REASONS)
    synced = {f"{cls}.{name}" for cls, name, _ in fields(checker) if why(checker, cls, name).startswith("synced")}
    assert synced == set(SYNCED)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_wiring_constants_and_synced_fields_are_what_they_say(protocol):
    """Wiring is the cluster, the checker's report callback or a list of the cluster's, by
    identity; a constant is what a new checker of the configuration holds; a synced field
    equals its count of the cluster after every observation."""
    checked = 0
    for config, steps in met((protocol,), range(4)):
        cluster, checker = watched(config, steps)
        fresh = AnomalyChecker(Cluster(config))
        lists = (cluster.producer.acked, cluster.consumer.polls)
        for cls, name, value in fields(checker):
            reason = why(checker, cls, name)
            if reason.startswith("wiring"):
                assert value is cluster or value == checker._report or any(value is x for x in lists), (cls, name)
            elif reason.startswith("constant"):
                assert value == getattr(parts(fresh)[cls], name), (cls, name)
            elif reason.startswith("synced"):
                assert value == SYNCED[f"{cls}.{name}"](cluster), (cls, name, len(steps))
            else:
                continue
            checked += 1
    assert checked > 100


def later_reports(config: ClusterConfig, steps: list[Step], change: Callable[[AnomalyChecker], None],
                  seed: int) -> Iterator[tuple[tuple, tuple, list, list]]:
    """The state after ``steps`` twice, ``change`` made to the second's checks; then the same
    random steps taken by both: at each, and at the end, both verdict keys and the reports each
    made since."""
    _, original = watched(config, steps)
    _, copy = watched(config, steps)
    change(copy)
    for obj in parts(copy).values():
        if hasattr(obj, "memo"):
            obj.memo = None           # the change wrote around ``_write``, which drops it
    made = (len(original.anomalies), len(copy.anomalies))
    later = states_after(steps, random.Random(seed), replicas=tuple(config.replicas))
    for i, step in enumerate(later, len(steps) + 1):
        for checker in (original, copy):
            checker.cluster.apply(step)
            checker.observe(i)
        yield verdict(original), verdict(copy), original.anomalies[made[0]:], copy.anomalies[made[1]:]
    for checker in (original, copy):
        checker.finish(len(steps) + len(later))
    yield verdict(original), verdict(copy), original.anomalies[made[0]:], copy.anomalies[made[1]:]


def with_reason(checker: AnomalyChecker, kind: str) -> list[tuple[str, str]]:
    return [(cls, name) for cls, name, _ in fields(checker) if why(checker, cls, name).startswith(kind)]


def reset(config: ClusterConfig, cls: str, name: str, value: object) -> object:
    """What a new checker of ``config`` holds there."""
    new = getattr(parts(AnomalyChecker(Cluster(config)))[cls], name)
    return list(new) if isinstance(new, list) else new


def scramble(config: ClusterConfig, cls: str, name: str, value: object) -> object:
    """Each step named moved on, and one more value named."""
    assert isinstance(value, dict)
    return {k: step + 3 for k, step in value.items()} | {"m1": 0}


def drop(config: ClusterConfig, cls: str, name: str, value: object) -> object:
    return []


def without_step(reports: list) -> list[dict]:
    return [a.as_dict() | {"step": 0} for a in reports]


#: each reason, what is done to its fields, and what of the later reports must stay equal
HELD = {"cache": (reset, list), "annotates": (scramble, without_step), "observes": (drop, list)}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("kind", sorted(HELD))
def test_each_unkeyed_field_changes_no_later_verdict(kind, protocol):
    """A cache (set back to what a new checker holds), what annotates (scrambled: the steps it
    names moved) and what only observes (the reports made so far, dropped): the checks go on
    with the same verdict keys at every later step, making the same reports - but for the step
    a report names, where the field annotates it - to the end."""
    change, seen = HELD[kind]
    compared = 0
    for n, (config, steps) in enumerate(met((protocol,), range(6))):
        _, probe = watched(config, steps)
        named = with_reason(probe, kind)
        assert named, f"no field {kind}"

        def apply(checker: AnomalyChecker, named=named, config=config) -> None:
            for cls, name in named:
                owner = parts(checker)[cls]
                setattr(owner, name, change(config, cls, name, getattr(owner, name)))

        for key, changed_key, reports, changed_reports in later_reports(config, steps, apply, n):
            assert changed_key == key, (kind, protocol, len(steps))
            assert seen(changed_reports) == seen(reports), (kind, protocol, len(steps))
            compared += 1
    assert compared > 200
