"""Golden trace hashes: every built-in scenario under every generation, and 2,100 random runs.

An engine change that moves any trace - events, final state or verdicts - fails here, so a
refactor proves it changes nothing and a fidelity change says what it changed. After a
deliberate change (explained in the commit and the issue note), regenerate with
``HWLIB_UPDATE_GOLDEN=1 pytest tests/test_trace_hashes.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import hwlib
from hwlib.faults import derive_seed, generate
from hwlib.profiles import load_profile

GOLDEN = Path(__file__).parent / "golden" / "trace_hashes.json"
REPLICAS = ("A", "B", "C")
PROFILES = ("kip101-data-loss", "leader-moves", "power-loss", "swarm", "zombies")
RUNS = 420                                  # per profile: 2,100 runs


def scenario_hashes() -> dict[str, str]:
    return {f"{name}/{protocol}": hwlib.run_scenario(name, protocol=protocol, record=False).trace_hash
            for name in hwlib.builtin_scenarios() for protocol in hwlib.PROTOCOLS}


def random_run_hashes() -> dict[str, str]:
    """One digest per profile over its runs; settings vary with the run index."""
    out = {}
    for name in PROFILES:
        profile = load_profile(name)
        digest = hashlib.sha256()
        for i in range(RUNS):
            # every generation, each with both acks settings (i // n, not i: with an even number
            # of generations i % 2 would pin each generation to one setting)
            n = len(hwlib.PROTOCOLS)
            config = hwlib.ClusterConfig(replicas=REPLICAS, protocol=hwlib.PROTOCOLS[i % n],
                                         acks=("1", "all")[i // n % 2], min_insync_replicas=1 + i % 3 // 2,
                                         client_metadata=("current", "stale")[i % 5 == 0])
            steps = generate(profile, derive_seed(7, name, i), REPLICAS).steps
            digest.update(hwlib.run_steps(config, steps, record=False).trace_hash.encode())
        out[f"random/{name}"] = digest.hexdigest()
    return out


def test_trace_hashes_match_the_golden_ones():
    now = {**scenario_hashes(), **random_run_hashes()}
    if os.environ.get("HWLIB_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    golden = json.loads(GOLDEN.read_text())
    changed = sorted(k for k in now.keys() | golden.keys() if now.get(k) != golden.get(k))
    assert not changed, f"trace hashes changed for {changed}; if deliberate, regenerate (see the module docstring)"
