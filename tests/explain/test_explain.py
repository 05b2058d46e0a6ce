"""hwlib explain on the log writer's logs: four situations, round trips, contradictions, invariance, the command line.

There is no real broker here: every log is a run of the model rendered as one release's
lines by ``write_logs``, from the same format table the reader uses.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import hwlib
from hwlib import ClusterConfig, run_steps
from hwlib.engine.steps import parse_steps
from hwlib.explain import ExplainError, ExplainSpec, Renaming, explain, write_logs
from hwlib.explain.observations import StepView, observe_step
from hwlib.explain.read import read_records
from hwlib.explain.recognise import recognise
from hwlib.views.explain_out import failed_at, run_dict, scenario_of
from hwlib.views.explain_words import sentence

#: the four situations (issue 44's must-show list): (release, replicas, settings, schedule, the line kind it shows)
SITUATIONS = {
    # before 2.0.1 a follower whose fetch is past a (power-lost) leader's log end exits (KAFKA-7414)
    "follower-exit-on-shorter-leader": (
        "0.10.2", ("A", "B"), {"unclean_leader_election": False, "acks": "1"},
        [{"produce": "m1"}, {"flush": "A"}, {"produce": "m2"}, {"fetch": "B"}, {"fetch": "B"},
         {"crash": {"replica": "A", "lose_unflushed": True, "detected": False}}, {"restart": "A"}, {"fetch": "B"}],
        "halt"),
    # KIP-320 (2.1+): a follower that missed a leader change fetches in an old epoch and is fenced
    "fetch-fenced-by-leader-epoch": (
        "2.1.0", ("A", "B", "C"), {"acks": "all"},
        [{"produce": "m1"}, {"fetch": "B"}, {"fetch": "C"}, {"isolate": {"replica": "B", "detected": True}},
         {"elect": "C"}, {"fetch": "B"}],
        "fenced"),
    # a follower takes the new leader's lower HW (the response with HW 1 never reached C)
    "follower-hw-backwards": (
        "2.0.1", ("A", "B", "C"), {"acks": "1"},
        [{"produce": "m1"}, {"fetch": "B"}, {"fetch": "C"}, {"fetch": "B"}, {"fetch_request": "C"}, {"fetch": "B"},
         {"elect": "C"}, {"fetch": "B"}, {"fetch": "B"}],
        "hw"),
    # a restarted follower with an empty log truncates to its HW, 0: "has no effect"
    "noop-truncation-on-empty-log": (
        "1.0.2", ("A", "B"), {"acks": "1"}, [{"crash": "B"}, {"restart": "B"}, {"fetch": "B"}], "truncate_noop"),
}


def _write(tmp_path, config: ClusterConfig, steps, release: str, naming: Renaming | None = None) -> list[str]:
    paths = []
    for name, text in write_logs(config, steps, release, naming).items():
        path = tmp_path / name
        path.write_text(text)
        paths.append(str(path))
    return sorted(paths)


def _situation(name: str):
    release, replicas, settings, schedule, kind = SITUATIONS[name]
    return ClusterConfig(replicas=replicas, release=release, **settings), parse_steps(schedule), release, kind


def _lines_of(config: ClusterConfig, steps) -> list[tuple]:
    """Every observation the model makes along ``steps`` (kind, broker, values)."""
    from hwlib import Cluster

    cluster = Cluster(config)
    del cluster.events[:]
    out = []
    for step in steps:
        view = StepView.of(cluster)
        cluster.apply(step)
        out += observe_step(view, cluster, cluster.events)
        del cluster.events[:]
    return out


@pytest.mark.parametrize("name", sorted(SITUATIONS))
def test_each_situation_is_explained_and_its_explanation_replays_to_the_same_lines(tmp_path, name):
    config, steps, release, kind = _situation(name)
    paths = _write(tmp_path, config, steps, release)
    text = "".join(open(p).read() for p in paths)
    lines = [recognise(r) for p in paths for r in read_records(p)]
    assert any(line.observation is not None and line.observation.kind == kind for line in lines), text
    run = explain(ExplainSpec(tuple(paths), time_limit=25))
    (answer,) = run.answers
    assert answer.verdict == "explained", sentence(answer, run.lines)
    assert len(answer.steps) <= len(steps)
    assert all(verdict.status in ("matched", "informational") for _, verdict in run.verdicts(answer))
    # the scenario hwlib run replays makes every observation the lines state, under the maps
    scenario = scenario_of(answer, run)
    made = _lines_of(scenario.config, scenario.steps)
    kinds = {m.kind for m in made}
    assert {o.kind for o, _ in answer.observed} <= kinds
    assert run.exit_code == 0


def test_a_fenced_fetch_needs_kip320_and_is_not_explained_by_older_rules(tmp_path):
    """The same lines under 2.0.1's rules (kip279: no leader epoch in a fetch): the fenced line
    cannot be made, and the answer names it and what it needs."""
    config, steps, release, _ = _situation("fetch-fenced-by-leader-epoch")
    paths = _write(tmp_path, config, steps, release)
    run = explain(ExplainSpec(tuple(paths), release="2.0.1", time_limit=60))
    (answer,) = run.answers
    assert answer.verdict == "not-explainable", sentence(answer, run.lines)
    assert answer.failure.category == "fenced"
    assert "FENCED_LEADER_EPOCH" in answer.failure.needs and "2.1" in answer.failure.needs
    assert run.exit_code == 3


def test_a_line_edited_to_contradict_the_model_is_where_the_answer_stops(tmp_path):
    """The exit names the leader's log end as 1 and the follower's as 2; edited to say the
    follower's log ends below the leader's (which no out-of-range fetch can do), the line is
    not explainable - or, if explained, by a schedule that really makes it."""
    config, steps, release, _ = _situation("follower-exit-on-shorter-leader")
    paths = _write(tmp_path, config, steps, release)
    follower = next(p for p in paths if p.endswith("broker-2.log"))
    text = open(follower).read()
    assert "latest offset 1 is less than replica 2's latest offset 2" in text
    open(follower, "w").write(text.replace("replica 2's latest offset 2", "replica 2's latest offset 0"))
    faults = ("elect", "crash", "power_loss_unseen", "flush")
    run = explain(ExplainSpec(tuple(paths), release="0.10.2", max_records=2, max_epoch=1, time_limit=120,
                              config=(("unclean_leader_election", False), ("acks", "1"), ("min_insync_replicas", 1)),
                              fault_tiers=(faults,)))
    (answer,) = run.answers
    assert answer.verdict == "not-explainable", sentence(answer, run.lines)
    assert answer.search.complete
    failed = failed_at(answer, run)
    assert failed is not None and failed["file"] == "broker-2.log"
    assert "latest offset 0" in failed["text"]


@pytest.mark.parametrize("variant", ["renamed", "shifted", "compose-prefix", "json-export", "other-partitions"])
def test_renaming_shifting_relayout_and_interleaving_change_no_answer(tmp_path, variant):
    config, steps, release, _ = _situation("noop-truncation-on-empty-log")
    (tmp_path / "base").mkdir()
    base = explain(ExplainSpec(tuple(_write(tmp_path / "base", config, steps, release)), time_limit=60)).answers[0]
    folder = tmp_path / variant
    folder.mkdir()
    naming = Renaming()
    if variant == "renamed":
        naming = Renaming(brokers={"A": "1001", "B": "1002"}, topic="payments.v2_events", partition=11)
    elif variant == "shifted":
        naming = Renaming(offset_base=6_656_337, offset_step=1000, epoch_base=40, epoch_step=3,
                          start_ms=1_500_000_000_000, step_ms=37)
    paths = _write(folder, config, steps, release, naming)
    if variant == "compose-prefix":
        for p in paths:
            text = open(p).read()
            open(p, "w").write("".join(f"kafka-{p[-5]}  | {line}\n" for line in text.splitlines()))
    elif variant == "json-export":
        for p in paths:
            text = open(p).read()
            open(p, "w").write("".join(json.dumps({"message": line, "host": "k"}) + "\n" for line in text.splitlines()))
    elif variant == "other-partitions":
        noise = write_logs(config, steps, release, Renaming(topic="other", partition=3))
        for p in paths:
            text = open(p).read().splitlines()
            extra = noise.get(p.rsplit("/", 1)[1], "").splitlines()
            mixed = [x for pair in zip(text, extra + [""] * len(text), strict=False) for x in pair if x]
            open(p, "w").write("\n".join(mixed) + "\n")
    partition = f"{naming.topic}-{naming.partition}"
    answer = explain(ExplainSpec(tuple(paths), partition=partition, time_limit=60)).answers[0]
    assert answer.verdict == base.verdict == "explained"
    assert [s for s, _ in answer.steps] == [s for s, _ in base.steps]
    assert answer.rules_label == base.rules_label


#: the round trip in CI: scenarios and releases whose logs are explained within seconds
ROUND_TRIP = [("hw-update-two-records", "0.10.2"), ("hw-update-one-record", "3.7-kraft"),
              ("consumer-reprocess-after-crash", "2.8-zk"), ("consumer-unseen-after-unclean-election", "0.10.2"),
              ("data-loss", "2.1"), ("isr-join-below-committed", "3.7-kraft"), ("in-order-leader-and-isr", "1.0"),
              ("kafka-14139-replaced-disk", "0.10.2")]
#: every built-in scenario under one release of each era (slow: make test-all)
EVERY_SCENARIO = [pytest.param(name, release, marks=pytest.mark.slow)
                  for name in sorted(hwlib.scenario.builtin_scenarios()) for release in ("0.10.2", "2.1", "3.7-kraft")
                  if (name, release) not in ROUND_TRIP]


def _round_trip(tmp_path, name: str, release: str, time_limit: float):
    """A built-in scenario under ``release`` -> its logs -> explain, searching the scenario's own
    faults: the answer, the scenario, its config and the anomalies its replay shows."""
    from .roundtrip import faults_of

    scenario = hwlib.load_scenario(name)
    config = scenario.config.replace(release=release, protocol="")
    paths = _write(tmp_path, config, scenario.steps, release)
    result = run_steps(config, scenario.steps)
    # bounds that hold the scenario itself: its records and the highest leader epoch it reaches
    records = sum(1 for step in scenario.steps if step.kind == "produce")
    cluster, epoch = hwlib.Cluster(config), 0
    for step in scenario.steps:
        cluster.apply(step)
        epoch = max([epoch] + [r.leader_epoch for r in cluster.replicas])
    said: list[str] = []
    run = explain(ExplainSpec(tuple(paths), release=release, replicas=len(config.replicas), time_limit=time_limit,
                              max_records=max(3, records), max_epoch=max(4, epoch + 1),
                              fault_tiers=(faults_of(scenario.steps),)), progress=said.append)
    original = {a.kind for a in result.anomalies}
    answer = run.answers[0]
    for anomaly in answer.anomalies:        # each necessity search is announced, then answered
        asked = next(i for i, text in enumerate(said) if f"is {anomaly.kind} necessary? " in text)
        if "not searched: the time limit" in said[asked]:      # the time ran out first: said, undecided
            assert anomaly.necessary is None, said
            continue
        assert f"is {anomaly.kind} necessary? searching" in said[asked], said
        assert "states," in said[asked + 1] and f"is {anomaly.kind} necessary? " in said[asked + 1], said
    return run, answer, scenario, original


def _sound(answer, scenario, original) -> None:
    """What an explanation of logs the model wrote must be: its replay makes every kind of line
    the logs hold, whatever the lines force (necessary) the scenario shows, and - when it is
    proven shortest - it is no longer than the scenario that wrote them."""
    made = _lines_of(answer.config, [step for step, _ in answer.steps])
    assert {o.kind for o, _ in answer.observed} <= {m.kind for m in made}
    forced = {a.kind for a in answer.anomalies + answer.expected_effects if a.necessary}
    assert forced <= original, (forced, original)
    if answer.search.shortest == "proven":
        assert len(answer.steps) <= len(scenario.steps)


@pytest.mark.parametrize(("name", "release"), ROUND_TRIP)
def test_a_built_in_scenario_s_logs_come_back_as_an_explanation_no_longer_than_it(tmp_path, name, release):
    """Round trip: a built-in scenario under a release -> its logs -> explained, proven shortest
    and so no longer than the scenario; whatever the explanation shows that the lines force
    (necessary) the scenario shows."""
    run, answer, scenario, original = _round_trip(tmp_path, name, release, 120)
    assert answer.verdict == "explained", sentence(answer, run.lines)
    assert answer.search.shortest == "proven"
    _sound(answer, scenario, original)


@pytest.mark.parametrize(("name", "release"), EVERY_SCENARIO)
def test_every_built_in_scenario_s_logs_are_never_refused_and_each_explanation_is_sound(tmp_path, name, release):
    """The round trip over every built-in scenario: logs the model wrote are never called not
    explainable (the scenario itself explains them, within the bounds the lines give), and an
    explanation found is sound (``_sound``). Some three-replica schedules with several faults are
    not found within 60 s: those answers are inconclusive, which says so - the search's reach,
    measured in docs/explain.md."""
    run, answer, scenario, original = _round_trip(tmp_path, name, release, 60)
    assert answer.verdict in ("explained", "inconclusive"), sentence(answer, run.lines)
    if answer.verdict == "explained":
        _sound(answer, scenario, original)


def test_json_has_every_key_and_out_writes_a_replayable_scenario(tmp_path):
    config, steps, release, _ = _situation("noop-truncation-on-empty-log")
    paths = _write(tmp_path, config, steps, release)
    out = tmp_path / "answer"
    result = subprocess.run([sys.executable, "-m", "hwlib", "explain", *paths, "--json", "--quiet", "--out", str(out)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in ("verdict", "partition", "release", "protocol", "config", "offset_map", "epoch_map", "lines", "steps",
                "scenario", "anomalies", "expected_effects", "failed_at", "search"):
        assert key in data
    assert data["verdict"] == "explained" and data["partition"] == "orders-0"
    assert {line["status"] for line in data["lines"]} <= {"matched", "informational"}
    replay = subprocess.run([sys.executable, "-m", "hwlib", "run", str(out / "explanation.yaml")],
                            capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stderr
    # a second run replaces what hwlib wrote; a file of someone else's stops it, untouched
    assert subprocess.run([sys.executable, "-m", "hwlib", "explain", *paths, "--quiet", "--out", str(out)],
                          capture_output=True, text=True, timeout=300).returncode == 0
    (out / "answer.json").write_text("mine\n")
    again = subprocess.run([sys.executable, "-m", "hwlib", "explain", *paths, "--quiet", "--out", str(out)],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "did not write it" in again.stderr
    assert (out / "answer.json").read_text() == "mine\n"


@pytest.mark.parametrize(("args", "field"), [
    (["{dir}"], "LOG"), (["{missing}"], "LOG"), (["{log}", "--partition", "orders"], "partition"),
    (["{log}", "--config", "acks=2"], "config.acks"), (["{log}", "--config", "colour=red"], "config"),
    (["{log}", "--broker", "x"], "broker"), (["{log}", "--release", "1.9"], "release"),
    (["{log}", "--max-silent", "-1"], "max-silent"), (["{log}", "--out", "{log}"], "out")])
def test_bad_input_is_one_line_naming_the_field_and_exit_2(tmp_path, args, field):
    log = tmp_path / "server.log"
    log.write_text("[2019-03-05 10:15:32,123] INFO [KafkaServer id=1] started (kafka.server.KafkaServer)\n")
    values = {"dir": str(tmp_path), "missing": str(tmp_path / "nope.log"), "log": str(log)}
    argv = [a.format(**values) for a in args]
    result = subprocess.run([sys.executable, "-m", "hwlib", "explain", *argv, "--quiet"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert field in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["server.log"]


def test_the_spec_refuses_what_it_cannot_search():
    with pytest.raises(ExplainError):
        ExplainSpec(())
    with pytest.raises(ExplainError):
        ExplainSpec(("x.log",), release="2.0.0", protocol="kip101")
    with pytest.raises(ExplainError):
        ExplainSpec(("x.log",), replicas=9)


def test_lines_that_state_nothing_are_listed_with_their_reason_never_dropped(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("[2019-03-05 10:15:32,123] INFO Kafka version: 2.0.0 (org.apache.kafka.common.utils.AppInfoParser)\n"
                   "...\n"
                   "\x00\x01\x02\x03\x04\x05\x06 garbage\n")
    run = explain(ExplainSpec((str(log),), time_limit=10))
    data = run_dict(run)
    assert data["verdict"] == "nothing" and run.exit_code == 0
    # Kafka's AppInfoParser is outside the replication path: Kafka's line, about something else
    assert [line["status"] for line in data["lines"]] == ["informational", "informational", "unrecognised"]
    assert "AppInfoParser, a class outside the replication path" in data["lines"][0]["reason"]
    assert all(line.get("reason") for line in data["lines"])


def test_a_controller_s_election_in_its_own_state_change_log_is_no_broker_s(tmp_path):
    """Broker 1 is the controller: its state-change.log holds the controller's election and its
    own [Broker id=1] lines. The file is broker 1's, but the election is the controller's (the
    model makes it with no broker): it is never attributed to broker 1."""
    from hwlib.explain.project import read_lines

    log = tmp_path / "state-change.log"
    log.write_text(
        "[2020-12-01 00:00:00,000] INFO [Controller id=1 epoch=3] Changed partition orders-0 from OfflinePartition "
        "to OnlinePartition with state LeaderAndIsr(leader=1, leaderEpoch=6, isr=List(1, 2), zkVersion=10) "
        "(state.change.logger)\n"
        "[2020-12-01 00:00:00,100] INFO [Broker id=1] Leader orders-0 starts at leader epoch 6 from offset 100 with "
        "high watermark 98 ISR [1,2] addingReplicas [] removingReplicas []. Previous leader epoch was 5. "
        "(state.change.logger)\n")
    lines, _, _ = read_lines(ExplainSpec((str(log),)))
    elected, leader = (line.observation for line in lines)
    assert (elected.kind, elected.broker) == ("elected", None)
    assert (leader.kind, leader.broker) == ("leader", "1")


def test_the_bounds_grow_with_the_offsets_and_epochs_the_lines_name():
    """Five distinct offsets cannot be made by three records: the default bound is the lines'
    distinct offsets + 2 (epochs + 2, at least 4); a bound given is kept."""
    from hwlib.explain.candidates import bound_caps, widening
    from hwlib.explain.observations import observation

    observed = [(observation("hw", "1", hw=value), []) for value in (10, 20, 30, 40, 50)]
    observed.append((observation("leader", "1", epoch=7), []))
    spec = ExplainSpec(("x.log",))
    assert bound_caps(spec, observed) == (7, 4)
    assert widening(spec, observed) == [(5, 1), (6, 2), (7, 3), (7, 4)]
    assert bound_caps(ExplainSpec(("x.log",), max_records=3, max_epoch=2), observed) == (3, 2)


def test_every_built_in_scenario_writes_every_release_s_logs_and_each_line_reads_back():
    """The log writer over every built-in scenario and every release row: each line it writes
    is recognised as the observation it rendered, of the release it names (a format needing a
    value the model did not give would stop here: the shrinking ISR's line from 2.2.0 did)."""
    from hwlib.engine.releases import RELEASES
    from hwlib.explain.formats import version
    from hwlib.explain.read import Record, parse_line
    from hwlib.explain.writer import _tag, write_lines
    from hwlib.scenario import builtin_scenarios

    written = 0
    for name in builtin_scenarios():
        scenario = hwlib.load_scenario(name)
        for row in RELEASES:
            config = scenario.config.replace(release=row.key, protocol="")
            for made in write_lines(config, scenario.steps, row.key):
                text = f"[2024-01-01 00:00:00,000] {made.format.level} {made.text} ({made.format.logger})"
                parsed = parse_line(text)
                line = recognise(Record("x.log", 1, 1, text, parsed.message, parsed.timestamp, parsed.level,
                                        parsed.logger))
                # the same text is "truncate" from 0.11 and "truncate_to" before: read as the weaker
                kinds = {made.observation.kind} | ({"truncate_to"} if made.observation.kind == "truncate" else set())
                assert line.observation is not None and line.observation.kind in kinds, (name, row.key, text)
                assert version(_tag(row.key)) in line.releases, (name, row.key, text)
                written += 1
    assert written > 1000


def test_a_release_part_way_through_an_upgrade_is_tried_under_its_older_protocol_versions():
    """A 2.8 broker under inter.broker.protocol.version 2.7-IV1 keeps truncation on fetch but
    writes ISR changes to ZooKeeper; under 2.7-IV0 it truncates by OffsetsForLeaderEpoch too
    (releases.FLAGS): each is a candidate after the release's own; a 3.7 KRaft broker's
    metadata.version likewise; a release no flag's threshold reaches has none."""
    from hwlib.engine.releases import release
    from hwlib.explain.candidates import configs, feature_options
    from hwlib.views.explain_words import rules_words

    assert feature_options(release("2.8", "r")) == [(None, None), ("2.7-IV1", None), ("2.7-IV0", None)]
    assert feature_options(release("3.7-kraft", "r")) == [(None, None), (None, "3.5"), (None, "3.5-IV0")]
    assert feature_options(release("2.6", "r")) == [(None, None)]
    tried = configs(ExplainSpec(("x.log",)), release("2.8", "r"), None, 2)
    assert tried[0].inter_broker_protocol_version is None
    rules = {c.inter_broker_protocol_version: c.rules().name for c in tried}
    assert rules == {None: "kip595", "2.7-IV1": "kip595", "2.7-IV0": "kip320"}
    older = next(c for c in tried if c.inter_broker_protocol_version == "2.7-IV1")
    assert not older.rules().alter_isr_via_controller and tried[0].rules().alter_isr_via_controller
    assert rules_words(older) == "2.8.1, inter.broker.protocol.version=2.7-IV1"


@pytest.mark.slow
def test_kafka_9491_logs_are_explained_under_2_4_0_with_its_hw_below_the_log_start(tmp_path):
    """The KAFKA-9491 scenario's logs as 2.4.0 writes them: explained under 2.4.0 with
    hw-below-log-start (the follower truncated fully to the leader's start, elected before its HW
    caught up); under 2.4.1, whose full truncation raises the HW, no explanation reaches the line
    only 2.4.0 writes - the follower's fetch failing on the new leader's unreadable HW."""
    scenario = hwlib.load_scenario("kafka-9491-hw-below-log-start")
    paths = _write(tmp_path, scenario.config, scenario.steps, "2.4.0")
    run = explain(ExplainSpec(tuple(paths), release="2.4.0", replicas=3, time_limit=120))
    answer = run.answers[0]
    assert answer.verdict == "explained", answer.verdict
    assert "hw-below-log-start" in [a.kind for a in answer.anomalies]
    run = explain(ExplainSpec(tuple(paths), release="2.4.1", replicas=3, time_limit=60))
    answer = run.answers[0]
    assert answer.verdict in ("not-explainable", "inconclusive"), answer.verdict
    stop = failed_at(answer, run)
    assert stop is not None and stop["file"] == "broker-2.log" and "current leader's start offset" in stop["text"], stop
