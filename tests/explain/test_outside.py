"""Lines outside hwlib's model: recognised at each release that writes them; the answer stops there (exit 4)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hwlib.explain import ExplainSpec, explain, recognise
from hwlib.explain.formats import OWN as FORMATS
from hwlib.explain.formats import version
from hwlib.explain.read import Record, parse_line
from hwlib.util.paths import builtin_files
from hwlib.views.explain_words import sentence

from .test_formats import SAMPLE

OUTSIDE = [f for f in FORMATS if f.outside]


def _line(text: str, file: str = "server.log", number: int = 1):
    parsed = parse_line(text)
    return recognise(Record(file, number, number, text, parsed.message, parsed.timestamp, parsed.level,
                            parsed.logger))


@pytest.mark.parametrize("fmt", OUTSIDE, ids=lambda f: f"{f.id}@{f.first}")
def test_each_outside_format_makes_its_line_outside_the_model_with_its_reason(fmt):
    message = fmt.render(**SAMPLE)
    line = recognise(Record("server.log", 1, 1, message, message, None, fmt.level, fmt.logger))
    assert line.status == "outside-model" and line.reason == fmt.outside and line.observation is None
    assert line.partition == "orders-7"


# Kafka's own lines (the named tag's format strings, filled in by hand)
KAFKA_LINES = [
    ("0.9.0.1", "[2016-03-01 10:00:00,000] INFO [Controller 1003]: Leader 1001 for partition [orders,7] being "
                "reassigned, is not in the new list of replicas 1002,1003. Re-electing leader "
                "(kafka.controller.KafkaController)", "reassignment", None),
    ("0.10.2.1", "[2017-05-01 10:00:00,000] INFO [PartitionsReassignedListener on 1003]: Handling reassignment of "
                 "partition [orders,7] to new replicas 1002,1003 (kafka.controller.PartitionsReassignedListener)",
     "reassignment", None),
    ("3.6.0", "[2023-11-01 10:00:00,000] INFO [ReplicaFetcher replicaId=1002, leaderId=1001, fetcherId=0] Reset "
              "fetch offset for partition orders-7 from 1200 to the current local replica's end offset 1200 "
              "(kafka.server.ReplicaFetcherThread)", "race inside one fetcher round", "1002"),
    ("3.7.0", "[2024-03-01 10:00:00,000] INFO [QuorumController id=3000] Replayed partition assignment change "
              "PartitionChangeRecord(partitionId=7, topicId=9pLt1cOYQoSz3c0Bq5dQbA, isr=null, leader=-2, "
              "replicas=[1001, 1002, 1003], removingReplicas=null, addingReplicas=[1003], leaderRecoveryState=-1, "
              "directories=null, eligibleLeaderReplicas=null, lastKnownElr=null) for topic orders "
              "(org.apache.kafka.controller.ReplicationControlManager)", "reassignment", None),
    ("3.3.1", "[2022-10-01 10:00:00,000] DEBUG [Controller 3000] partition change for orders-7 with topic ID "
              "9pLt1cOYQoSz3c0Bq5dQbA: replicas: [1001, 1002] -> [1001, 1002, 1003], addingReplicas: [] -> [1003], "
              "partitionEpoch: 4 -> 5 (org.apache.kafka.controller.ReplicationControlManager)",
     "addingReplicas: [1003]", None),
    ("2.6.0", "[2020-08-01 00:00:00,000] INFO [Broker id=1001] Leader orders-7 starts at leader epoch 5 from offset "
              "100 with high watermark 98 ISR [1001,1002,1003] addingReplicas [1004] removingReplicas [1003]. "
              "Previous leader epoch was 4. (state.change.logger)", "adding replicas [1004], removing replicas [1003]",
     "1001"),
    ("3.7.0", "[2024-03-01 00:00:00,000] INFO [Broker id=1001] Leader orders-7 with topic id Some(xyz) starts at "
              "leader epoch 5 from offset 100 with partition epoch 9, high watermark 98, ISR [1001,1002], adding "
              "replicas [1003] and removing replicas [] . Previous leader None and previous leader epoch was 4. "
              "(state.change.logger)", "adding replicas [1003], removing replicas []", "1001"),
]


@pytest.mark.parametrize(("release", "text", "said", "writer"), KAFKA_LINES, ids=[r[0] for r in KAFKA_LINES])
def test_kafka_s_own_outside_lines_are_recognised_at_their_release(release, text, said, writer):
    line = _line(text)
    assert line.status == "outside-model" and said in line.reason, line.reason
    assert line.partition == "orders-7" and line.writer == writer
    assert version(release) in line.releases         # a format of hwlib's, or a call of the inventory


#: Kafka's log-start lines (the named tag's format strings, filled in by hand): observations since
#: the model has a log start offset, each with its values
LOG_START_LINES = [
    ("2.1.0", "[2019-01-01 10:00:00,000] WARN [ReplicaFetcher replicaId=1002, leaderId=1001, fetcherId=0] Reset fetch "
              "offset for partition orders-7 from 1200 to current leader's start offset 5000 "
              "(kafka.server.ReplicaFetcherThread)", "reset_to_start", {"offset": 1200, "start": 5000}),
    ("3.6.0", "[2023-11-01 10:00:00,000] WARN [ReplicaFetcher replicaId=1002, leaderId=1001, fetcherId=0] Truncate "
              "fully and reset fetch offset for partition orders-7 from 1200 to the current leader's start offset "
              "5000 because the local replica's end offset is smaller than the current leader's start offsets. "
              "(kafka.server.ReplicaFetcherThread)", "reset_to_start", {"offset": 1200, "start": 5000}),
    ("2.6.0", "[2020-08-01 10:00:00,000] INFO [Log partition=orders-7, dir=/data/kafka] Incremented log start offset "
              "to 5000 due to leader offset increment (kafka.log.Log)", "log_start",
     {"start": 5000, "cause": "leader offset increment"}),
    ("1.1.0", "[2018-04-01 10:00:00,000] INFO [Log partition=orders-7, dir=/data/kafka] Incrementing log start offset "
              "to 5000 (kafka.log.Log)", "log_start", {"start": 5000}),
]


@pytest.mark.parametrize(("release", "text", "kind", "values"), LOG_START_LINES, ids=[r[0] for r in LOG_START_LINES])
def test_kafka_s_log_start_lines_are_observations(release, text, kind, values):
    line = _line(text)
    assert line.status == "recognised" and line.observation is not None, (line.status, line.reason)
    assert line.observation.kind == kind and dict(line.observation.values) == values
    assert version(release) in line.releases


def test_a_leader_line_without_a_reassignment_stays_an_observation():
    text = next(text for release, text, _, _ in KAFKA_LINES if release == "2.6.0")
    line = _line(text.replace("[1004]", "[]").replace("[1003]. ", "[]. "))
    assert line.status == "recognised" and line.observation.kind == "leader"


def test_a_kraft_partition_change_without_a_new_leader_epoch_is_no_election():
    line = _line("[2024-03-01 10:00:00,000] DEBUG [QuorumController id=3000] partition change for orders-7 with topic "
                 "ID 9pLt1cOYQoSz3c0Bq5dQbA: isr: [1001, 1002] -> [1001], partitionEpoch: 4 -> 5 "
                 "(org.apache.kafka.controller.ReplicationControlManager)")
    assert line.status == "informational" and line.observation is None


def _incident(tmp_path, extra: str | None) -> list[str]:
    """The built-in example incident's two broker logs, and a controller log holding ``extra``."""
    paths = []
    for source in sorted(builtin_files("incidents").values()):
        target = tmp_path / source.name
        target.write_text(source.read_text())
        paths.append(str(target))
    if extra is not None:
        controller = tmp_path / "controller.log"
        controller.write_text(extra + "\n")
        paths.append(str(controller))
    return paths


REASSIGNING = ("[{stamp}] INFO [Controller 1003]: Handling reassignment of partition [orders,3] to new replicas "
               "1001,1003 (kafka.controller.KafkaController)")


def test_an_incident_with_a_reassignment_is_explained_up_to_it_and_exits_4(tmp_path):
    """The reassignment falls between the HW line (08:50:06) and the follower's exit (08:50:10):
    the lines before it are explained, the answer stops at it (exit 4), later lines are unused
    with the reason, and --out writes the explanation of the lines before it, which replays."""
    paths = _incident(tmp_path, REASSIGNING.format(stamp="2018-06-12 08:50:08,000"))
    out = tmp_path / "answer"
    done = subprocess.run([sys.executable, "-m", "hwlib", "explain", *paths, "--json", "--quiet", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 4, done.stderr
    data = json.loads(done.stdout)
    assert data["verdict"] == "outside-model"
    failed = data["failed_at"]
    assert (failed["file"], failed["line"], failed["category"]) == ("controller.log", 1, "outside-model")
    assert "reassignment" in failed["needs"]
    matched = [line for line in data["lines"] if line["status"] == "matched"]
    assert matched and all(line["text"].startswith("[2018-06-12 08:50:0") and line["text"] < "[2018-06-12 08:50:08"
                           for line in matched)
    exit_line = next(line for line in data["lines"] if "Exiting because log truncation" in line["text"])
    assert exit_line["status"] != "matched" and "outside hwlib's model" in exit_line["reason"]
    assert data["sentence"].startswith("outside hwlib's model at line 1 of controller.log: a partition reassignment")
    assert (out / "explanation.yaml").exists() and not (out / "prefix.yaml").exists()
    replay = subprocess.run([sys.executable, "-m", "hwlib", "run", str(out / "explanation.yaml")],
                            capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stderr


def test_a_reassignment_before_every_line_leaves_nothing_explained(tmp_path):
    paths = _incident(tmp_path, REASSIGNING.format(stamp="2018-06-12 08:00:00,000"))
    run = explain(ExplainSpec(tuple(paths), time_limit=30))
    (answer,) = run.answers
    assert answer.verdict == "outside-model" and run.exit_code == 4 and not answer.steps
    assert sentence(answer, run.lines).endswith("no line before it states anything the model has")


def test_without_timestamps_only_the_same_file_s_earlier_lines_come_before_the_cut(tmp_path):
    """A line outside the model in a file without timestamps: the other files' lines cannot be
    placed before it, so none of them is explained; its own file's earlier lines are."""
    from hwlib.explain.driver import before, first_outside

    lines = [_line("INFO Truncating log orders-7 to offset 3. (kafka.log.Log)", "a.log", 1),
             _line(REASSIGNING.format(stamp="x")[4:].replace("[orders,3]", "[orders,7]"), "a.log", 2),
             _line("INFO Truncating log orders-7 to offset 2. (kafka.log.Log)", "b.log", 1)]
    cut = first_outside(lines, [0, 1, 2])
    assert cut == 1
    assert [before(line, lines[cut]) for line in lines] == [True, False, False]


def test_the_page_names_the_line_outside_the_model_and_steps_through_the_lines_before_it(tmp_path):
    from hwlib.views import incident_page

    paths = _incident(tmp_path, REASSIGNING.format(stamp="2018-06-12 08:50:08,000"))
    page = incident_page(explain(ExplainSpec(tuple(paths), time_limit=30)))
    assert '<span class="badge">outside the model</span>' in page
    assert "<th>stops at</th><td>line 1 of controller.log: outside the model: a partition reassignment" in page
    assert "<th>settings inferred</th>" in page and "the explanation of the lines before the first one outside" in page
