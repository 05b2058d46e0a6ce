"""Bad input: each raises an HwlibError whose one-line message names the field and what is allowed."""

from __future__ import annotations

import pytest

import hwlib
from hwlib import ClusterConfig, ConfigError, ScenarioError, load_scenario, parse_step
from hwlib.engine.steps import STEP_KINDS


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"replicas": ("A", "B"), "min_insync_replicas": 0}, "config.min_insync_replicas: must be an integer >= 1"),
    ({"protocol": "kip999"}, "config.protocol: 'kip999' is not known; allowed: " + ", ".join(hwlib.PROTOCOLS)),
    ({"acks": "2"}, "config.acks: '2' is not allowed; allowed: 0, 1, all (or -1)"),
    ({"replicas": ()}, "config.replicas: at least one replica is required"),
    ({"replicas": ("A", "A")}, "config.replicas: names must be unique"),
    ({"replica_lag_time_max_ms": 0}, "config.replica_lag_time_max_ms: must be an integer >= 1"),
    ({"log_flush_interval_messages": 0}, "config.log_flush_interval_messages: must be null"),
    ({"unclean_leader_election": "yes"}, "config.unclean_leader_election: must be true or false"),
    ({"client_metadata": "old"}, "config.client_metadata: 'old' is not allowed; allowed: current, stale"),
])
def test_bad_config(kwargs, message):
    with pytest.raises(ConfigError) as info:
        ClusterConfig(**kwargs)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_unknown_config_key():
    with pytest.raises(ConfigError, match=r"config\.min_isr: unknown setting; allowed: acks, "):
        ClusterConfig.from_dict({"min_isr": 2})


@pytest.mark.parametrize(("obj", "message"), [
    ({"fech": "B"}, "steps[0]: unknown step kind 'fech'; allowed: " + ", ".join(STEP_KINDS)),
    ({"fetch": "C"}, "steps[0].fetch: 'C' is not a replica; allowed: A, B"),
    ({"crash": {"replica": "B", "power": True}}, "steps[0].crash.power: unknown key; allowed: replica"),
    ({"crash": {"detected": False}}, "steps[0].crash.replica: required"),
    ({"crash": {"replica": "B", "detected": "no"}}, "steps[0].crash.detected: must be true or false"),
    ({"isolate": {"replica": "B", "lose_unflushed": True}},
     "steps[0].isolate.lose_unflushed: unknown key; allowed: replica, detected"),
    ({"isolate": {"detected": False}}, "steps[0].isolate.replica: required"),
    ({"reconnect": "Z"}, "steps[0].reconnect: 'Z' is not a replica"),
    ({"tick": -5}, "steps[0].tick: expected milliseconds, an integer >= 0, got -5"),
    ({"produce": {"acks": 1}}, "steps[0].produce.value: required"),
    ({"produce": {"value": "x", "acks": 3}}, "steps[0].produce.acks: 3 is not allowed"),
    ({"produce": None}, "steps[0].produce: expected a record value"),
    ({"fetch": "B", "crash": "A"}, "steps[0]: a step is a mapping with one key"),
    ({"consume": 5}, "steps[0].consume: expected {} or {from: REPLICA}, got 5"),
    ({"consume": {"from": "Z"}}, "steps[0].consume.from: 'Z' is not a replica; allowed: A, B"),
    ({"consume": {"to": "A"}}, "steps[0].consume.to: unknown key; allowed: from"),
    ({"produce": {"value": "x", "to": "Z"}}, "steps[0].produce.to: 'Z' is not a replica; allowed: A, B"),
    ({"deliver": {"replica": "B", "count": 0}},
     "steps[0].deliver.count: must be an integer >= 1 (requests to apply), got 0"),
    ({"deliver": {"count": 2}}, "steps[0].deliver.replica: required"),
    ({"deliver": {"replica": "B", "n": 2}}, "steps[0].deliver.n: unknown key; allowed: replica, count"),
    ({"controller_failover": "A"}, "steps[0].controller_failover: takes no arguments"),
])
def test_bad_step(obj, message):
    with pytest.raises(ScenarioError) as info:
        parse_step(obj, 0, ("A", "B"))
    assert message in str(info.value)


def write(tmp_path, text: str):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


def test_malformed_yaml_names_the_line(tmp_path):
    path = write(tmp_path, "name: x\nsteps:\n  - fetch: [B\n")
    with pytest.raises(ScenarioError, match=r"s\.yaml: line \d+: malformed YAML"):
        load_scenario(path)


@pytest.mark.parametrize(("text", "message"), [
    ("- just a list\n", "expected a mapping with keys name, summary, description, config, steps, notes, expect"),
    ("name: x\n", "steps: required"),
    ("steps: []\n", "name: required"),
    ("name: x\nsteps: []\nextra: 1\n", "unknown key 'extra'; allowed: name"),
    ("name: x\nconfig: {replicas: [A]}\nsteps: [{fetch: Z}]\n", "steps[0].fetch: 'Z' is not a replica"),
    ("name: x\nconfig: {replicas: [A], min_insync_replicas: 0}\nsteps: []\n",
     "config.min_insync_replicas: must be an integer >= 1"),
    ("name: x\nsteps: []\nexpect: {kip3: []}\n", "expect.kip3: neither a generation"),
    ("name: x\nsteps: []\nexpect: {hw: [data-loss]}\n", "expect.hw: a list of anomaly kinds from"),
    ("name: x\nsummary: [a]\nsteps: []\n", "summary: one line of text, got ['a']"),
    ("name: x\nsteps: [{fetch: B}]\nnotes: {2: hi}\n", "notes.2: a step number in 1..1"),
    ("name: x\nsteps: [{fetch: B}]\nnotes: [hi]\n", "notes: a mapping step number -> caption"),
    ("name: x\nsteps: [{fetch: B}]\nnotes: {1: {kip9: hi}}\n", "notes.1.kip9: unknown generation; allowed: hw"),
    ("name: x\nsteps: [{fetch: B}]\nnotes: {1: [hi]}\n", "notes.1: a caption, or a mapping generation -> caption"),
])
def test_bad_scenario_files(tmp_path, text, message):
    with pytest.raises(hwlib.HwlibError) as info:
        load_scenario(write(tmp_path, text))
    assert message in str(info.value)
    assert str(info.value).startswith(str(tmp_path))


def test_unknown_scenario_name_lists_builtins():
    with pytest.raises(hwlib.UnknownScenarioError) as info:
        load_scenario("no-such-scenario")
    assert str(info.value).endswith("built-ins: " + ", ".join(hwlib.builtin_scenarios()))


def test_unknown_replica_in_a_direct_call():
    cluster = hwlib.Cluster(ClusterConfig())
    with pytest.raises(ScenarioError, match="replica: 'Z' is not a replica; allowed: A, B"):
        cluster.fetch("Z")


def test_scenario_round_trips_through_yaml(tmp_path):
    original = load_scenario("data-loss")
    saved = original.save(tmp_path / "copy.yaml")
    again = load_scenario(saved)
    assert again.steps == original.steps and again.config == original.config
    assert again.expect == original.expect
    assert [p.name for p in tmp_path.iterdir()] == ["copy.yaml"]     # no temp file left


# ------------------------------------------------------------------ hostile files, through the CLI
_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8))


@pytest.mark.parametrize(("content", "message"), [
    (_BOMB.encode(), "YAML refused: more than 200,000 values once its aliases are expanded"),
    (("steps: " + "[" * 3000 + "]" * 3000 + "\n").encode(), "YAML refused: nested deeper than 64 levels"),
    (b"name: caf\xe9\nsteps: []\n", "not UTF-8 text (byte 0xe9 at offset 9)"),
    (b"name: x\nsteps: []\nname: y\n", "line 3: YAML refused: duplicate key 'name' (YAML would keep only the last)"),
    (b"name: x\nconfig: {replicas: [yes, no]}\nsteps: [{produce: m1}]\n",
     "config.replicas: names must be text, got True (in YAML, quote names like 'yes'"),
    (b"name: x\nconfig: {replicas: [~, B]}\nsteps: [{produce: m1}]\n", "config.replicas: names must be text, got None"),
])
def test_hostile_scenario_files_are_one_line_errors(tmp_path, content, message):
    """A 400-byte alias bomb, 3,000 levels of nesting, Latin-1 bytes, a duplicate key, YAML
    booleans and nulls as replica names: each is refused at once, in one line, exit 2."""
    import subprocess
    import sys

    path = tmp_path / "s.yaml"
    path.write_bytes(content)
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "run", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("hwlib: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml"]


def test_non_finite_profile_weights_are_refused():
    from hwlib.profiles import FaultProfile, ProfileError

    for value in (float("nan"), float("inf")):
        with pytest.raises(ProfileError, match=r"weights\.crash: must be a finite number >= 0, got (nan|inf)"):
            FaultProfile(name="x", weights={"produce": 1, "crash": value})
