"""The format table: each message reads back what it writes, names real releases, recognises Kafka's own lines."""

from __future__ import annotations

import pytest

from hwlib.explain import formats_for, recognise
from hwlib.explain.formats import OWN as FORMATS
from hwlib.explain.formats import version
from hwlib.explain.read import Record, parse_line
from hwlib.explain.recognise import to_observation
from hwlib.explain.template import VALUES

SAMPLE = {"tp": "orders-7", "tpb": "[orders,7]", "log": "orders-7", "topic": "orders", "dir": "/data/kafka-logs",
          "writer": "1002", "leader": "1001", "fetcher": "0", "offset": 6656337, "leo": 6656340, "largest": 6656339,
          "hw": 6656330, "leader_leo": 6656331, "leader_hw": 6656333, "epoch": 17, "prev_epoch": 16,
          "prev_offset": 6000000, "entries": 3, "count": 7, "old": "1001,1002,1003", "new": "1001,1002",
          "isr": "1001,1002", "isr_list": "1001, 1002", "adding": "", "removing": "", "state": "OfflinePartition",
          "to_state": "OnlinePartition", "topic_id": "None", "under": "", "prev_leader": "None",
          "partition_epoch": 42, "controller": 1003, "controller_epoch": 9, "rest": "(brokerId: 1003, endOffset: 5)",
          "rest2": "RECOVERED", "cause": "segment deletion", "segment": "0 : 4321", "old_hw": 6656329, "start": 6000001,
          "ctl": "[Controller id=1003] ", "ids": "1001,1003", "pid": 7,
          "ctl_epoch": 3, "replica": 1003, "strategy": "OfflinePartitionLeaderElectionStrategy(false)",
          "file_kind": "offset index", "seg_path": "/data/kafka/orders-7/00000000000000002976.index.deleted",
          "isr_states": "BrokerState(brokerId=1001, brokerEpoch=-1), BrokerState(brokerId=1002, brokerEpoch=7)",
          "hw_meta": "(offset=6656330 segment=[0:4321])", "old_hw_meta": "(offset=6656329, segment=[0:4000])",
          "diff": "isr: [1001, 1002] -> [1002], leader: 1001 -> 1002, leaderEpoch: 16 -> 17, partitionEpoch: 41 -> 42"}


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f"{f.id}@{f.first}")
def test_each_format_reads_back_what_it_writes(fmt):
    message = fmt.render(**SAMPLE)
    fields = fmt.parse(message)
    assert fields is not None, message
    for name, value in fields.items():
        expected = VALUES[name](SAMPLE[name]) if name in VALUES else str(SAMPLE[name])
        assert value == expected, (name, message)
    assert version("0.9.0.0") <= fmt.releases[0] <= fmt.releases[1]


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f.kind is not None], ids=lambda f: f"{f.id}@{f.first}")
def test_each_observing_format_carries_its_kind_s_values(fmt):
    fields = fmt.parse(fmt.render(**SAMPLE))
    seen = to_observation(fmt, fields, fields.get("writer"))
    assert seen.kind == fmt.kind
    if "largest" in fields:
        assert seen.value("leo") == SAMPLE["largest"] + 1         # the largest offset is the log end minus one


# Lines as Kafka writes them (the format strings of the named tag, filled in by hand)
KAFKA_LINES = [
    ("0.10.2.1", "[2018-01-02 03:04:05,678] FATAL [ReplicaFetcherThread-0-1], Exiting because log truncation is not "
                 "allowed for partition orders-0, Current leader 1's latest offset 2051 is less than replica 2's "
                 "latest offset 2391 (kafka.server.ReplicaFetcherThread)", "halt",
     {"leader": "1", "leader_leo": 2051, "leo": 2391}, "2"),
    ("1.1.0", "[2018-06-01 00:00:00,001] ERROR [ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Exiting because "
              "log truncation is not allowed for partition orders-0, current leader's latest offset 5 is less than "
              "replica's latest offset 9 (kafka.server.ReplicaFetcherThread)", "halt", {"leader_leo": 5, "leo": 9},
     "2"),
    ("2.2.0", "[2019-05-01 12:00:00,000] INFO [ReplicaFetcher replicaId=3, leaderId=1, fetcherId=0] Partition orders-0 "
              "has an older epoch (12) than the current leader. Will await the new LeaderAndIsr state before resuming "
              "fetching. (kafka.server.ReplicaFetcherThread)", "fenced", {"epoch": 12}, "3"),
    ("2.0.0", "[2018-08-01 00:00:00,000] INFO [Log partition=orders-0, dir=/var/kafka] Truncating to 0 has no effect "
              "as the largest offset in the log is -1 (kafka.log.Log)", "truncate_noop", {"offset": 0, "leo": 0}, None),
    ("0.11.0.2", "[2017-11-01 00:00:00,000] INFO Updated PartitionLeaderEpoch. New: {epoch:4, offset:120}, Current: "
                 "{epoch:3, offset100} for Partition: orders-0. Cache now contains 2 entries. "
                 "(kafka.server.epoch.LeaderEpochFileCache)", "epoch_entry", {"epoch": 4, "offset": 120}, None),
    ("2.6.0", "[2020-08-01 00:00:00,000] INFO [Broker id=1] Leader orders-0 starts at leader epoch 5 from offset 100 "
              "with high watermark 98 ISR [1,2,3] addingReplicas [] removingReplicas []. Previous leader epoch was 4. "
              "(state.change.logger)", "leader", {"epoch": 5, "leo": 100, "hw": 98, "isr": ("1", "2", "3")}, "1"),
    ("0.9.0.1", "[2016-01-01 00:00:00,000] INFO Partition [orders,0] on broker 1: Shrinking ISR for partition "
                "[orders,0] from 1,2,3 to 1,2 (kafka.cluster.Partition)", "isr_shrink",
     {"old": ("1", "2", "3"), "new": ("1", "2")}, "1"),
    ("2.7.0", "[2020-12-01 00:00:00,000] INFO [Controller id=0 epoch=3] Changed partition orders-0 from "
              "OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=6, isr=List(2, 3), "
              "zkVersion=10) (state.change.logger)", "elected", {"leader": "2", "epoch": 6, "isr": ("2", "3")}, None),
    ("3.7.0", "[2024-03-01 00:00:00,000] INFO [QuorumController id=3000] UNCLEAN partition change for orders-0 with "
              "topic ID 9pLt1cOYQoSz3c0Bq5dQbA: isr: [1] -> [2], leader: 1 -> 2, leaderEpoch: 4 -> 5, partitionEpoch: "
              "9 -> 10 (org.apache.kafka.controller.ReplicationControlManager)", "elected",
     {"leader": "2", "epoch": 5, "isr": ("2",)}, None),
    ("3.1.0", "[2022-01-01 00:00:00,000] INFO [Controller 3000] UNCLEAN partition change for orders-0 with "
              "topic ID 9pLt1cOYQoSz3c0Bq5dQbA: leader: 1 -> 2, leaderEpoch: 4 -> 5, partitionEpoch: "
              "9 -> 10 (org.apache.kafka.controller.ReplicationControlManager)", "elected",
     {"leader": "2", "epoch": 5}, None),
    ("2.5.0", "[2020-05-01 00:00:00,000] INFO [Partition orders-0 broker=1] ISR updated to [1,2] and zkVersion "
              "updated to [7] (kafka.cluster.Partition)", "isr_updated", {"isr": ("1", "2")}, "1"),
    ("3.1.0", "[2022-01-01 00:00:00,000] INFO [ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Truncating "
              "partition orders-0 with TruncationState(offset=77, completed=true) due to local high watermark 77 "
              "(kafka.server.ReplicaFetcherThread)", "truncate_to", {"offset": 77}, "2"),
]


@pytest.mark.parametrize(("release", "text", "kind", "values", "writer"), KAFKA_LINES,
                         ids=[f"{r[2]}@{r[0]}" for r in KAFKA_LINES])
def test_kafka_s_own_lines_are_recognised_with_their_values_and_release(release, text, kind, values, writer):
    parsed = parse_line(text)
    line = recognise(Record("server.log", 1, 1, text, parsed.message, parsed.timestamp, parsed.level, parsed.logger))
    assert line.observation is not None and line.observation.kind == kind
    for name, value in values.items():
        assert line.observation.value(name) == value
    assert line.writer == writer
    first, last = line.format.releases
    assert first <= version(release) <= last
    assert line.format in formats_for(version(release))


def test_a_release_writes_each_kind_it_has_in_one_text_at_most_per_level_and_logger():
    """Within one release no other format reads a format's line as well as it does - as many
    literal characters or more (the table's ranges do not overlap by mistake; a shorter text
    found inside a longer one, "partition change" inside "UNCLEAN partition change", loses)."""
    for tag in ("0.9.0.0", "0.10.2.2", "0.11.0.3", "1.0.2", "2.0.0", "2.0.1", "2.6.0", "3.3.2", "3.7.0", "3.9.0"):
        formats = formats_for(version(tag))
        for fmt in formats:
            message = fmt.render(**SAMPLE)
            own = fmt.find(message)
            assert own is not None and own.literal == fmt.body.literal + (fmt.prefix.literal if fmt.prefix else 0)
            readers = [f for f in formats if f is not fmt and (hit := f.find(message)) is not None
                       and hit.literal >= own.literal]
            assert readers == [], (tag, fmt.id, [f.id for f in readers])
