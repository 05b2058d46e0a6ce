"""The compiled engine: identical to the interpreted one, chosen only when it matches the sources, optional.

CI builds the compiled engine (``make setup``) and sets HWLIB_REQUIRE_COMPILED=1, so there
the equality test must run compiled; on a machine without a C compiler it checks the
interpreted engine against the golden hashes only and says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hwlib
from hwlib.compiled import COMPILED, source_key

REPO = Path(__file__).resolve().parent.parent
SAMPLE = {"name": "equality", "seed": 11, "runs": 40, "profile": "swarm",
          "grid": {"protocol": ["hw", "kip101", "kip279", "kip320", "kip595", "kip966"], "replicas": [3],
                   "acks": ["1", "all"], "client_metadata": ["current", "stale"]}}

_ROWS = """
import json, sys
import hwlib
from hwlib.sweep import parse_spec
from hwlib.sweep.runs import run_batch
spec = parse_spec(json.loads(sys.argv[1]))
rows = run_batch(spec, 0, spec.total_runs).drop(columns=["engine"])
print(json.dumps({"engine": hwlib.ENGINE.kind, "rows": rows.to_dict("records"),
                  "scenarios": {f"{n}/{p}": hwlib.run_scenario(n, protocol=p, record=False).trace_hash
                                for n in hwlib.builtin_scenarios() for p in hwlib.PROTOCOLS}}))
"""


def run_in(engine: str, *, code: str = _ROWS, args: tuple[str, ...] | None = None) -> dict:
    args = (json.dumps(SAMPLE),) if args is None else args
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=dict(os.environ, HWLIB_ENGINE=engine), timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_compiled_and_interpreted_engines_give_identical_rows_and_hashes():
    """Every built-in scenario under every generation and 960 sweep rows (swarm profile, 24
    cells: every generation, acks 1 / all, current and stale client metadata): the compiled
    engine's trace hashes and rows equal the interpreted engine's."""
    if hwlib.ENGINE.kind != "compiled":
        if os.environ.get("HWLIB_REQUIRE_COMPILED") == "1":
            pytest.fail(f"HWLIB_REQUIRE_COMPILED=1 but this process runs the {hwlib.ENGINE}")
        pytest.skip(f"no compiled engine to compare here: {hwlib.ENGINE}")
    interpreted = run_in("interpreted")
    compiled = run_in("compiled")
    assert (interpreted["engine"], compiled["engine"]) == ("interpreted", "compiled")
    assert compiled["scenarios"] == interpreted["scenarios"]
    assert len(compiled["rows"]) == 960 and compiled["rows"] == interpreted["rows"]


def test_weights_stay_integers_and_seeds_stable_under_either_engine():
    """The probe's trap: a compiled profile turned integer weights into floats and moved every
    run seed. Seeds, schedule hashes and the profile's own values are the same in-process
    (whatever engine runs here) as in an interpreted subprocess."""
    code = """
import json
from hwlib.faults import derive_seed, generate, schedule_hash
from hwlib.profiles import load_profile
p = load_profile("zombies")
print(json.dumps({"weights": [[a, w, type(w).__name__] for a, w in p.weights.items()],
                  "hashes": [schedule_hash(generate(p, derive_seed(3, "cell", i), ("A", "B", "C")).steps)
                             for i in range(50)]}))
"""
    here = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    there = run_in("interpreted", code=code, args=())
    assert json.loads(here.stdout) == there
    assert ["produce", 5, "int"] in there["weights"]


def test_an_edited_source_is_never_shadowed_by_a_stale_build(tmp_path):
    """A copy of the package with one compiled module edited: its key differs from every
    build, so it runs interpreted and says why - even with the real build root in reach."""
    copy = tmp_path / "src"
    shutil.copytree(REPO / "hwlib", copy / "hwlib", ignore=shutil.ignore_patterns("__pycache__"))
    assert source_key(copy / "hwlib") == source_key()
    with (copy / "hwlib" / "engine" / "cluster.py").open("a") as handle:
        handle.write("\n# edited\n")
    assert source_key(copy / "hwlib") != source_key()
    root = REPO / "build" / "engine"
    code = "import hwlib; print(hwlib.ENGINE.kind + '|' + hwlib.ENGINE.detail + '|' + hwlib.engine.cluster.__file__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True,
                          env=dict(os.environ, PYTHONPATH=str(copy), HWLIB_ENGINE_DIR=str(root), HWLIB_ENGINE=""))
    kind, detail, origin = done.stdout.strip().split("|")
    assert kind == "interpreted" and origin == str(copy / "hwlib" / "engine" / "cluster.py")
    assert "no compiled build" in detail or "does not match these sources" in detail


def test_without_a_c_compiler_setup_says_so_once_and_the_interpreted_engine_runs(tmp_path):
    """The build with no compiler on PATH (and CC unset): one line, exit 0, nothing built;
    hwlib then runs interpreted and still gives the golden hashes."""
    bare_path = tmp_path / "bin"
    bare_path.mkdir()
    for tool in ("git",):          # what may be needed besides a compiler
        if shutil.which(tool):
            os.symlink(shutil.which(tool), bare_path / tool)
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "HWLIB_ENGINE")}
    env.update(PATH=str(bare_path), HWLIB_ENGINE_DIR=str(tmp_path / "engine"))
    done = subprocess.run([sys.executable, "-m", "hwlib.build_engine"], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines() == ["hwlib: no C compiler found (cc, gcc): the interpreted engine will run"]
    assert not (tmp_path / "engine").exists()
    code = ("import hwlib, json; print(json.dumps([str(hwlib.ENGINE), "
            "hwlib.run_scenario('data-loss', protocol='hw', record=False).trace_hash]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO,
                          check=True)
    engine, digest = json.loads(done.stdout)
    golden = json.loads((REPO / "tests" / "golden" / "trace_hashes.json").read_text())
    assert engine.startswith("interpreted engine (no compiled build") and digest == golden["data-loss/hw"]


def test_the_engine_modules_are_the_hot_ones_and_exist():
    for name in COMPILED:
        assert (REPO / "hwlib" / f"{name}.py").is_file(), name
    assert {"engine/cluster", "run", "anomalies/checker", "faults"} <= set(COMPILED)
    # validation, YAML and snapshots stay interpreted
    assert not {"engine/config", "profiles", "scenario", "trace"} & set(COMPILED)


def test_hwlib_version_names_the_engine():
    done = subprocess.run([sys.executable, "-m", "hwlib.cli", "--version"], capture_output=True, text=True,
                          check=True, cwd=REPO)
    assert done.stdout.strip() == f"hwlib {hwlib.__version__}, {hwlib.ENGINE}"


_PICKLES = """
import pickle, hwlib
from hwlib.check import Bounds
from hwlib.anomalies import Anomaly
from hwlib.faults import generate
from hwlib.profiles import load_profile
from hwlib.scenario import load_scenario
scenario = load_scenario("data-loss")
schedule = generate(load_profile("swarm"), 5, ("A", "B", "C"))
values = [scenario, scenario.steps[3], Anomaly("lost-write", 3, "gone", "B", 1, "m2"), schedule,
          Bounds(replicas=3, depth=4)]
again = pickle.loads(pickle.dumps(values))
print(hwlib.ENGINE.kind, again == values)
"""


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_frozen_engine_values_pickle_round_trip_under_either_engine(engine):
    """Spark returns shrunk scenarios (with their steps) from executors by pickle: a compiled
    frozen class without ``__dict__`` must rebuild through its constructor (it raised
    FrozenInstanceError, and a report whose sweep had two failing cells failed)."""
    if engine == "compiled" and hwlib.ENGINE.kind != "compiled" and not os.environ.get("HWLIB_REQUIRE_COMPILED"):
        pytest.skip("no compiled engine here (CI builds it: HWLIB_REQUIRE_COMPILED)")
    done = subprocess.run([sys.executable, "-c", _PICKLES], capture_output=True, text=True, timeout=120, cwd=REPO,
                          env=dict(os.environ, HWLIB_ENGINE=engine))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [engine, "True"]
