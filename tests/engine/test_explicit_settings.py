"""A setting written always wins: a release brings the defaults of the settings not given, never replaces one given."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwlib import ClusterConfig
from hwlib.cli import main
from hwlib.engine.config import GENERATION_DEFAULTS, RELEASE_DEFAULTS
from hwlib.engine.releases import RELEASES

LABELS = [row.key for row in RELEASES]
#: values a setting may be written with (None: not given - the release's default)
VALUES = {"unclean_leader_election": (None, True, False), "acks": (None, "0", "1", "all"),
          "replica_lag_time_max_ms": (None, 10000, 30000), "session_timeout_ms": (None, 6000, 18000),
          "retries": (None, 0, 3)}
WRITTEN = st.fixed_dictionaries({name: st.sampled_from(VALUES[name]) for name in RELEASE_DEFAULTS})
#: the ways a config reaches its rules: the release set or changed, a generation, another setting changed
MOVES = st.lists(st.one_of(st.tuples(st.just("release"), st.sampled_from(LABELS)),
                           st.tuples(st.just("rules"), st.sampled_from(LABELS + ["hw", "kip101", "kip320"])),
                           st.tuples(st.just("min_insync_replicas"), st.sampled_from((1, 2)))),
                 min_size=1, max_size=4)


def _default(config: ClusterConfig, name: str) -> object:
    row = config.release_row
    return GENERATION_DEFAULTS[name] if row is None else row.default(name)


def test_every_release_default_is_a_setting_of_the_config():
    assert set(RELEASE_DEFAULTS) == set(VALUES) == set(GENERATION_DEFAULTS)


@settings(max_examples=300, deadline=None)
@given(written=WRITTEN, start=st.sampled_from([None] + LABELS), moves=MOVES)
def test_a_setting_given_is_kept_through_every_release_change_and_one_not_given_follows_the_release(
        written, start, moves):
    config = ClusterConfig(replicas=("A", "B"), release=start, **written)
    for move, value in moves:
        if move == "release":
            config = config.replace(release=value)
        elif move == "rules":
            config = config.with_rules(value)
        else:
            config = config.replace(min_insync_replicas=value)
    again = ClusterConfig.from_dict({k: v for k, v in config.to_dict().items() if k not in RELEASE_DEFAULTS
                                     or k in config.given})
    for name, value in written.items():
        expected = value if value is not None else _default(config, name)
        assert getattr(config, name) == expected, (name, written, start, moves)
        assert (name in config.given) is (value is not None)
        assert getattr(again, name) == expected


def test_a_scenario_file_that_writes_unclean_election_off_keeps_it_under_a_release_whose_default_is_on(
        tmp_path, capsys):
    """0.10.2 enables unclean election by default (KIP-106 turned it off in 0.11.0); a file that
    writes it off must run it off: the follower whose leader came back with a shorter log exits,
    as 0.10.2's ReplicaFetcherThread.handleOffsetOutOfRange does ("Exiting because log truncation
    is not allowed"), instead of truncating."""
    path = tmp_path / "shorter-leader.yaml"
    path.write_text("name: shorter-leader\n"
                    "config: {replicas: [A, B], acks: '1', unclean_leader_election: false}\n"
                    "steps:\n  - produce: x\n  - produce: y\n  - fetch: B\n  - fetch: B\n"
                    "  - crash: {replica: A, lose_unflushed: true, detected: false}\n"
                    "  - restart: A\n  - fetch: B\n")
    assert main(["run", str(path), "--release", "0.10.2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["release"] == "0.10.2" and out["replicas"]["B"]["online"] is False      # B exited
    assert out["replicas"]["B"]["log"] == [[0, 0, "x"], [1, 0, "y"]]                  # with its log
    written = tmp_path / "default.yaml"
    written.write_text(path.read_text().replace(", unclean_leader_election: false", ""))
    assert main(["run", str(written), "--release", "0.10.2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["replicas"]["B"]["online"] is True and out["replicas"]["B"]["log"] == []   # truncated


@pytest.mark.parametrize("label", ["0.10.2", "1.0", "3.7-kraft"])
def test_a_config_not_given_the_setting_takes_each_release_s_default(label):
    config = ClusterConfig(replicas=("A", "B")).with_rules(label)
    assert config.unclean_leader_election == config.release_row.unclean_default
    assert config.acks == ("all" if label == "3.7-kraft" else "1")        # KIP-679: "all" from 3.0
    assert config.given == frozenset()


def test_an_idempotent_producer_not_given_acks_sends_acks_all_in_every_release():
    """2.8.0 ProducerConfig.maybeOverrideAcksAndRetries: idempotence without acks configured sets acks=-1."""
    assert ClusterConfig(replicas=("A", "B"), release="2.8-zk", enable_idempotence=True).acks == "all"


def test_check_without_acks_answers_for_the_release_s_default_and_says_so(capsys):
    """2.8's producer defaults to acks=1 (ProducerConfig, KIP-679 moved it to all in 3.0): without
    --acks, hwlib check answers for acks=1 - a leader isolated after acknowledging loses it - and
    the header says the setting is the release's default; --acks all is kept and loses nothing."""
    bounds = ["--max-records", "1", "--max-epoch", "1"]
    assert main(["check", "--release", "2.8-zk", *bounds]) == 0
    out = capsys.readouterr().out
    assert "acks=1 (2.8.1's default)" in out
    assert "lost-write           violated at depth 2" in out
    assert main(["check", "--release", "2.8-zk", "--acks", "all", *bounds]) == 0
    out = capsys.readouterr().out
    assert "(acks=all, min.insync.replicas=1)" in out and "lost-write           holds (complete)" in out
