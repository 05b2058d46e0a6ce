"""Sweep specs, plans and rows, without Spark."""

from __future__ import annotations

import pytest

from hwlib.sweep import SweepSpecError, load_spec, parse_spec, plan
from hwlib.sweep.runs import ddl, run_batch, run_one, schema

from ..helpers.releases import DEFAULT_RELEASES

SMALL = {"name": "t", "seed": 3, "runs": 7, "profile": "kip101-data-loss",
         "grid": {"protocol": ["hw", "kip101"], "replicas": [2, 3], "min_insync_replicas": [1, 3]}}


def test_grid_expands_to_cells_and_leaves_out_invalid_combinations():
    spec = parse_spec(SMALL)
    labels = [(c.params["protocol"], c.params["replicas"], c.params["min_insync_replicas"]) for c in spec.cells]
    assert labels == [("hw", 2, 1), ("hw", 3, 1), ("hw", 3, 3), ("kip101", 2, 1), ("kip101", 3, 1),
                      ("kip101", 3, 3)]
    assert [c.id for c in spec.cells] == [f"c{i:03d}" for i in range(6)]
    assert len(spec.skipped) == 2 and "exceeds the 2 replicas" in spec.skipped[0][1]
    assert spec.total_runs == 42


def test_cells_that_differ_only_in_cluster_settings_share_schedules():
    spec = parse_spec({**SMALL, "grid": {**SMALL["grid"], "profile.weights.power_loss": [0, 1]}})
    keys = {}
    for cell in spec.cells:
        keys.setdefault((cell.params["replicas"], cell.params["profile_weights_power_loss"]), set()).add(
            cell.schedule_key)
    assert all(len(k) == 1 for k in keys.values()) and len({next(iter(k)) for k in keys.values()}) == 4
    a, b = spec.cells[0], next(c for c in spec.cells if c.params["protocol"] == "kip101"
                                and c.schedule_key == spec.cells[0].schedule_key)
    assert run_one(spec, a, 4)["schedule_hash"] == run_one(spec, b, 4)["schedule_hash"]


@pytest.mark.parametrize(("change", "message"), [
    ({"grid": {}}, "spec.grid: must be a non-empty mapping"),
    ({"grid": {"protocol": []}}, "spec.grid.protocol: an empty list gives no cell"),
    ({"grid": {"protocl": ["hw"]}}, "spec.grid.protocl: unknown setting; allowed: replicas, protocol"),
    ({"grid": {"protocol": ["hw"], "replicas": [2], "min_insync_replicas": [3]}},
     "spec.grid: no valid cell; every combination is invalid, e.g. config.min_insync_replicas: 3 exceeds"),
    ({"grid": {"protocol": ["nope"]}}, "config.protocol: 'nope' is not known; allowed: hw, kip101"),
    ({"grid": {"profile.weights.meteor": [1]}}, "spec.grid.profile.weights.meteor: unknown action"),
    ({"grid": {"profile.colour": [1]}}, "spec.grid.profile.colour: unknown profile key"),
    ({"grid": {"profile": ["nope"]}}, "spec.grid.profile: profile: 'nope' is neither a built-in"),
    ({"runs": 0}, "spec.runs: must be an integer in 1..100000000, got 0"),
    ({"seed": -1}, "spec.seed: must be an integer in 0.."),
    ({"colour": "red"}, "spec.colour: unknown key; allowed: name, description, seed, runs"),
    ({"name": "a b"}, "spec.name: 'a b' is not a valid name"),
    ({"profile": {"weights": {"crash": -1}}},
     "spec.profile: profile 'custom'.weights.crash: must be a finite number >= 0"),
    ({"grid": {"session_timeout_ms": list(range(1, 1001)), "profile.tick_ms": [[i] for i in range(1000)],
               "replica_lag_time_max_ms": list(range(1, 1001))}},
     "spec.grid: 1,000,000,000 combinations (1000 x 1000 x 1000) exceed the limit of 10,000 cells; split the sweep"),
])
def test_bad_specs_are_rejected_with_the_field(change, message):
    with pytest.raises(SweepSpecError) as info:
        parse_spec({**SMALL, **change})
    assert message in str(info.value) and "\n" not in str(info.value)


def test_builtin_specs_load(tmp_path):
    # 3 profiles x 2 acks x 2 min.insync.replicas x the nine releases people run
    assert len(load_spec("default").cells) == 3 * 2 * 2 * len(DEFAULT_RELEASES) == 108
    with pytest.raises(SweepSpecError, match="spec: 'nope.yaml' is neither a file nor a built-in spec"):
        load_spec("nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("grid: [unclosed")
    with pytest.raises(SweepSpecError, match=r"spec: .*bad\.yaml: line \d+: malformed YAML"):
        load_spec(bad)


def test_plan_covers_every_run_once_and_depends_only_on_the_spec():
    spec = parse_spec({**SMALL, "runs": 1001, "batch_size": 100})
    chunks = plan(spec)
    covered = [g for chunk in chunks for first, count in chunk for g in range(first, first + count)]
    assert sorted(covered) == list(range(spec.total_runs))
    assert len(chunks) <= 20 and chunks == plan(parse_spec({**SMALL, "runs": 1001, "batch_size": 100}))


def test_rows_have_the_schema_and_are_deterministic():
    spec = parse_spec(SMALL)
    frame = run_batch(spec, 5, 3)                       # spans cells: runs 5, 6 of c000, run 0 of c001
    assert list(frame.columns) == [name for name, _ in schema(spec)]
    assert list(zip(frame["cell"], frame["run"], strict=True)) == [("c000", 5), ("c000", 6), ("c001", 0)]
    assert frame.equals(run_batch(spec, 5, 3))
    assert "`cell` string, `run` int, `protocol` string, `replicas` bigint" in ddl(spec)
    types = dict(schema(spec))
    for name, kind in types.items():
        expected = {"string": "object", "int": "int32", "bigint": "int64", "double": "float64", "boolean": "bool"}[kind]
        assert str(frame[name].dtype) == expected, name
    row = frame.iloc[0]
    assert row["steps"] == 200 and row["acked"] >= row["lost"] >= 0
    assert row["lost"] == row["n_lost_write"]


def test_a_grid_can_name_releases():
    """``release: [...]`` as a grid key: each cell runs that release's rules; the run rows carry
    the release beside the generation it maps to."""
    from hwlib.sweep.spec import parse_spec

    spec = parse_spec({"name": "by-release", "runs": 2, "grid": {"release": ["1.0.0", "2.0.1", "3.7-kraft"]}})
    assert [(c.config.release, c.config.protocol) for c in spec.cells] == [
        ("1.0.0", "kip101"), ("2.0.1", "kip279"), ("3.7-kraft", "kip903")]
    assert [c.params["release"] for c in spec.cells] == ["1.0.0", "2.0.1", "3.7-kraft"]
    assert spec.cells[0].config.unclean_leader_election is False
    old = parse_spec({"name": "old", "runs": 2, "grid": {"release": ["0.10.2"]}})
    assert old.cells[0].config.unclean_leader_election is True         # KIP-106: true before 0.11
