"""Fault profiles and seeded schedules: pure functions of (profile, seed, replicas)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import hwlib
from hwlib.faults import FAULT_KINDS, derive_seed, fired_faults, generate, schedule_hash
from hwlib.profiles import ACTIONS, FaultProfile, ProfileError, builtin_profiles, load_profile

REPLICAS = ("A", "B", "C")


def test_builtin_profiles_load_and_generate_valid_schedules():
    assert {"kip101-data-loss", "power-loss", "leader-moves", "zombies", "swarm"} <= set(builtin_profiles())
    for name in builtin_profiles():
        profile = load_profile(name)
        schedule = generate(profile, 5, REPLICAS)
        assert len(schedule.steps) == profile.steps
        for i, step in enumerate(schedule.steps):       # every step is a valid, round-tripping step
            assert hwlib.parse_step(step.to_obj(), i, REPLICAS) == step
        hwlib.run_steps(hwlib.ClusterConfig(replicas=REPLICAS), schedule.steps, record=False)


def test_a_schedule_is_a_pure_function_of_profile_and_seed():
    profile = load_profile("swarm")
    one, two = generate(profile, 42, REPLICAS), generate(profile, 42, REPLICAS)
    assert one == two and schedule_hash(one.steps) == schedule_hash(two.steps)
    assert schedule_hash(generate(profile, 43, REPLICAS).steps) != schedule_hash(one.steps)


def test_run_seeds_are_hashed_not_drawn_and_stable_across_processes():
    seeds = {derive_seed(7, "cellkey", run) for run in range(1000)}
    assert len(seeds) == 1000 and all(0 <= s < 2**63 for s in seeds)
    assert derive_seed(7, "cellkey", 3) != derive_seed(8, "cellkey", 3) != derive_seed(7, "other", 3)
    code = ("from hwlib.faults import *; from hwlib.profiles import load_profile; p = load_profile('swarm'); "
            "print(derive_seed(7, 'k', 3), schedule_hash(generate(p, derive_seed(7, 'k', 3), ('A','B','C')).steps))")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": str(h), "PATH": ""}).stdout for h in (1, 2)}
    here = load_profile("swarm")
    assert outputs == {f"{derive_seed(7, 'k', 3)} "
                       f"{schedule_hash(generate(here, derive_seed(7, 'k', 3), REPLICAS).steps)}\n"}


def test_swarm_switches_fault_actions_per_run_but_never_the_base_ones():
    profile = load_profile("swarm")
    enabled = {generate(profile, seed, REPLICAS).enabled for seed in range(60)}
    assert len(enabled) > 20                              # many different mixes
    for mix in enabled:
        assert {"produce", "replication_round"} <= set(mix)
    plain = generate(profile.replace(swarm=False), 1, REPLICAS)
    assert set(plain.enabled) == {a for a, w in profile.weights.items() if w > 0}


def test_weights_shape_the_mix():
    quiet = FaultProfile(weights={"produce": 1, "replication_round": 1}, steps=300)
    kinds = {s.kind for s in generate(quiet, 1, REPLICAS).steps}
    assert kinds == {"produce", "fetch"}
    crashy = quiet.replace(**{"weights.crash": 2})
    steps = generate(crashy, 1, REPLICAS).steps
    crashes = [i for i, s in enumerate(steps) if s.kind == "crash"]
    assert crashes and all(s.detected and not s.lose_unflushed for s in steps if s.kind == "crash")
    assert len([s for s in steps if s.kind == "restart"]) >= len(crashes) - 1   # the last may fall off the end


def test_fired_faults_are_what_acted_not_what_was_scheduled():
    steps = hwlib.parse_steps([{"produce": "x"}, {"crash": "C"}, {"crash": "C"}, {"elect": "C"},
                               {"crash": {"replica": "B", "lose_unflushed": True, "detected": False}},
                               {"tick": 1000}], REPLICAS)
    result = hwlib.run_steps(hwlib.ClusterConfig(replicas=REPLICAS), steps, record=False)
    fired = fired_faults(steps, result.events, result.marks)
    assert fired == ("crash", "power_loss")              # the elect of a dead C was skipped
    assert set(fired) <= set(FAULT_KINDS)


def test_the_zombies_profile_delivers_late_fails_over_and_misdirects_produces():
    """Issue 10: late LeaderAndIsr delivery, controller failovers and stale-metadata produces
    are profile actions; over a few runs each of them is drawn and each actually fires."""
    profile = load_profile("zombies")
    assert {"deliver", "controller_failover", "stale_produce"} <= set(profile.weights)
    fired: set[str] = set()
    kinds: set[str] = set()
    for seed in range(12):
        steps = generate(profile, seed, REPLICAS).steps
        kinds |= {s.kind + ("_to" if s.kind == "produce" and s.replica else "") for s in steps}
        result = hwlib.run_steps(hwlib.ClusterConfig(replicas=REPLICAS, protocol="kip320"), steps, record=False)
        fired |= set(fired_faults(steps, result.events, result.marks))
    assert {"deliver", "controller_failover", "produce_to", "isolate", "reconnect"} <= kinds
    assert {"deliver", "controller_failover", "stale_produce", "isolate"} <= fired


def test_a_deliver_with_nothing_queued_has_not_fired():
    steps = hwlib.parse_steps([{"isolate": {"replica": "B", "detected": False}}, {"deliver": "B"},
                               {"elect": "C"}, {"deliver": "B"}, {"produce": {"value": "x", "to": "C"}}], REPLICAS)
    result = hwlib.run_steps(hwlib.ClusterConfig(replicas=REPLICAS), steps, record=False)
    assert fired_faults(steps, result.events, result.marks) == ("deliver", "isolate", "leader_move", "stale_produce")
    skips = [e[1:] for e in result.events if e[0] == "skip"]
    assert skips == [("deliver", "B", "no LeaderAndIsr request waits for it")]


@pytest.mark.parametrize(("data", "message"), [
    ({"weights": {"explode": 1}}, "profile 'custom'.weights.explode: unknown action; allowed: " + ", ".join(ACTIONS)),
    ({"weights": {"crash": -1}}, "weights.crash: must be a finite number >= 0"),
    ({"weights": {"crash": 0}}, "weights: at least one action needs a weight > 0"),
    ({"steps": 0}, "steps: must be an integer in 1..100000"),
    ({"restart_delay": [5, 2]}, "restart_delay: expected [min, max] steps with 1 <= min <= max"),
    ({"tick_ms": []}, "tick_ms: expected a non-empty list"),
    ({"power_loss_detected": 2}, "power_loss_detected: must be a probability in 0..1"),
    ({"crash_rate": 1}, "profile.crash_rate: unknown key; allowed: name, description, steps"),
])
def test_bad_profiles_are_rejected_with_the_field(data, message):
    with pytest.raises(ProfileError) as info:
        FaultProfile.from_dict(data)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_malformed_profile_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("weights: {produce: 1\n")
    with pytest.raises(ProfileError, match=r"profile: .*bad\.yaml: line \d+: malformed YAML"):
        load_profile(bad)


def test_unknown_profile_name():
    with pytest.raises(ProfileError, match="profile: 'nope' is neither a built-in profile nor a file; built-ins: "):
        load_profile("nope")


def test_every_action_has_an_emitter():
    """``generate`` looks each drawn action up in the emitters' table: none may be missing."""
    from hwlib.faults import _EMITTERS

    assert set(_EMITTERS) == set(ACTIONS)
