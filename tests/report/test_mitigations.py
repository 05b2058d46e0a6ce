"""What helps before an upgrade: lossy power-loss cells swept again, same schedules, every message flushed."""

from __future__ import annotations

from hwlib.faults import derive_seed, generate
from hwlib.report.answer import Cell
from hwlib.report.mitigations import FLUSH_EVERY, Flushed, flush_spec, words
from hwlib.run import run_steps
from hwlib.sweep import parse_spec

SPEC = {"name": "pl", "seed": 11, "runs": 40, "profile": "power-loss",
        "grid": {"profile": ["power-loss", "kip101-data-loss"], "release": ["0.10.2", "3.6-zk"], "replicas": [3],
                 "acks": ["1", "all"], "min_insync_replicas": [2], "unclean_leader_election": [False]}}


def _cell(spec, profile: str, release: str, lost: int, runs: int = 40) -> Cell:
    found = next(c for c in spec.cells if c.profile.name == profile and c.params["release"] == release
                 and c.config.acks == "all")
    return Cell(profile, release, found.id, runs, lost, lost / runs, 1.0, 0.0)


def _lost(config, profile, seed: int, key: str, run: int) -> bool:
    steps = generate(profile, derive_seed(seed, key, run), config.replicas).steps
    return "lost-write" in run_steps(config, steps, record=False).anomaly_kinds()


def test_the_flush_sweep_runs_the_same_schedules_with_every_message_flushed():
    """Only the lossy cells' profiles and releases, at their durable settings, flushed; each cell
    keeps its twin's schedules (same seed, profile and replicas: the same schedule key), so the
    comparison is run for run. On those schedules 3.6's power-loss losses all go, 0.10.2's
    truncation to the HW still loses."""
    spec = parse_spec(SPEC)
    cells = [_cell(spec, "power-loss", "3.6-zk", 1), _cell(spec, "power-loss", "0.10.2", 1)]
    flushed = flush_spec(SPEC, spec, cells)
    assert flushed is not None and flushed.name == "pl-flush" and len(flushed.cells) == 2
    twins = {c.id: c for c in spec.cells}
    for before, after in zip(cells, flushed.cells, strict=True):
        original = twins[before.cell]
        assert after.config.log_flush_interval_messages == FLUSH_EVERY and after.config.acks == "all"
        assert after.config.release == original.config.release and after.schedule_key == original.schedule_key
    by_release = {c.config.release: c for c in flushed.cells}
    lost = {name: [_lost(twins[c.cell].config, twins[c.cell].profile, SPEC["seed"], twins[c.cell].schedule_key, i)
                   for i in range(40)] for name, c in (("3.6-zk", cells[0]), ("0.10.2", cells[1]))}
    flushed_lost = {name: [_lost(c.config, c.profile, SPEC["seed"], c.schedule_key, i) for i in range(40)]
                    for name, c in by_release.items()}
    assert any(lost["3.6-zk"]) and not any(flushed_lost["3.6-zk"])
    assert any(flushed_lost["0.10.2"])
    assert flush_spec(SPEC, spec, []) is None


def test_the_words_name_what_flushing_closed_and_what_it_did_not():
    spec = parse_spec(SPEC)
    closed = Flushed(_cell(spec, "power-loss", "3.6-zk", 20), 40, 0)
    still = Flushed(_cell(spec, "power-loss", "0.10.2", 24), 40, 5)
    text = words([closed, still], "power-loss")
    assert "<code>log.flush.interval.messages=1</code>" in text
    assert "kept every acknowledged write on the same 40 schedules under Kafka 3.6 ZooKeeper (50.0% of runs" in text
    assert "but not under Kafka 0.10.2: 12.5% of runs still lost, against 60.0%." in text
    assert words([closed, still], "leader-moves") == ""
