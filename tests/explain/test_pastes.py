"""Pastes as people make them, one shape each (the shapes of tests/explain/real, with values of our own)."""

from __future__ import annotations

import pytest

from hwlib.explain import ExplainError, ExplainSpec, explain
from hwlib.explain.project import read_lines
from hwlib.views.explain_out import run_dict
from hwlib.views.explain_words import sentence

#: a 0.10.x follower's exit, wrapped by a page after the partition (no timestamp, level or prefix)
WRAPPED_FATAL = ("Exiting because log truncation is not allowed for partition orders.events-3, \n"
                 "Current leader 1's latest offset 41172 is less than replica 2's latest offset 41175 "
                 "(kafka.server.ReplicaFetcherThread)\n")


def _paste(tmp_path, text: str, name: str = "paste.log") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _lines(tmp_path, text: str):
    lines, _, _ = read_lines(ExplainSpec((_paste(tmp_path, text),)))
    return lines


def test_one_wrapped_fatal_exit_alone_is_explained_not_nothing(tmp_path):
    run = explain(ExplainSpec((_paste(tmp_path, WRAPPED_FATAL),), time_limit=30))
    (answer,) = run.answers
    assert answer.verdict == "explained", sentence(answer, run.lines)
    assert answer.partition == "orders.events-3" and answer.release_range.words() == "0.10.1.0 to 0.10.2.2"
    assert [o.kind for o, _ in answer.observed] == ["halt"]
    data = run_dict(run)
    assert [(line["line"], line["status"]) for line in data["lines"]] == [(1, "matched"), (2, "joined")]


@pytest.mark.parametrize(("text", "kind"), [
    ("Shrinking ISR for partition [orders,1] from 30,10,20 to 30,20", "isr_shrink"),      # the prefix dropped
    ("[2017-05-04 10:00:00,000]~[2017-05-04 10:20:00,000] INFO Partition [orders,1] on broker 30: Shrinking ISR "
     "for partition [orders,1] from 30,10,20 to 30,20 (kafka.cluster.Partition)", "isr_shrink"),   # a time range
    ("\u00c42019-03-05 10:15:32,123\u00c5 INFO \u00c4Log partition=orders-1, dir=/data\u00c5 Truncating to offset "
     "77 (kafka.log.Log)", "truncate"),                                                     # a code page's brackets
    ("2021-06-01 10:00:00,000 INFO [Partition orders-1 broker=30] Shrinking ISR from 30,10,20 to 30,20. Leader: "
     "(highWatermark: 5, endOffset: 9). Out of sync replicas: (brokerId: 10, endOffset: 4). "
     "(kafka.cluster.Partition) [data-plane-kafka-request-handler-3]", "isr_shrink"),       # Strimzi's layout
    ("kafka-0 kafka 2021-06-01 10:00:00,000 INFO [Partition orders-1 broker=30] Expanding ISR from 30 to 30,10 "
     "(kafka.cluster.Partition)", "isr_expand"),                                            # stern
    ("2021-06-01T10:00:00.000+0000 [kafka.log.Log] INFO [Log partition=orders-1, dir=/data] Truncating to "
     "offset 77", "truncate"),                                                              # ISO, [logger] first
    ("Jun  1 10:00:00 host1 kafka[512]: [2021-06-01 10:00:00,000] INFO [Log partition=orders-1, dir=/data] "
     "Truncating to offset 77 (kafka.log.Log)", "truncate"),                                # syslog's prefix
])
def test_a_message_in_any_shape_is_recognised(tmp_path, text, kind):
    (line,) = _lines(tmp_path, text + "\n")
    assert line.status == "recognised" and line.observation.kind == kind, (line.status, line.reason)
    assert line.partition == "orders-1"


def test_a_message_cut_short_matches_the_message_it_begins_and_says_so(tmp_path):
    (line,) = _lines(tmp_path, "[2019-03-05 10:15:32,123] INFO [ReplicaFetcher replicaId=2, leaderId=1, "
                               "fetcherId=0] Truncating partition orders-1 to local high wat...\n")
    assert line.status == "recognised" and line.cut and "cut short" in line.reason
    assert line.observation.kind == "truncate_to" and line.observation.value("offset") is None


def test_a_line_naming_no_partition_belongs_to_the_only_partition_named(tmp_path):
    """A 1.0+ ISR change pasted without the [Partition t-p broker=N] ident that named it."""
    text = ("[2021-06-01 10:00:00,000] INFO [Partition orders-1 broker=30] Expanding ISR from 30 to 30,10 "
            "(kafka.cluster.Partition)\n"
            "Shrinking ISR from 30,10 to 30\n")
    run = explain(ExplainSpec((_paste(tmp_path, text),), time_limit=30))
    (answer,) = run.answers
    assert answer.verdict == "explained", sentence(answer, run.lines)
    assert [o.kind for o, _ in answer.observed] == ["isr_expand", "isr_shrink"]


def test_a_redacted_partition_is_explained_and_given_as_written(tmp_path):
    text = ("[2017-05-04 10:00:00,000] INFO Partition [XXXXXXX,1] on broker 30: Shrinking ISR for partition "
            "[XXXXXXX,1] from 30,10 to 30 (kafka.cluster.Partition)\n"
            "[2018-06-12 08:50:06,000] INFO [Log partition=X-N, dir=/data] Truncating to offset 7 (kafka.log.Log)\n")
    path = _paste(tmp_path, text)
    for partition in ("[XXXXXXX,1]", "XXXXXXX-1", "X-N"):
        run = explain(ExplainSpec((path,), partition=partition, time_limit=30))
        assert run.answers[0].verdict == "explained", (partition, sentence(run.answers[0], run.lines))
    with pytest.raises(ExplainError) as info:
        explain(ExplainSpec((path,), partition="orders-9"))
    assert str(info.value) == ("partition: no line names orders-9; the logs name XXXXXXX-1 (1 line), X-N (1 line)")


def test_a_dump_log_segments_listing_pasted_under_the_log_is_said_to_be_one(tmp_path):
    text = ("[2019-03-05 10:15:32,123] INFO [Log partition=orders-1, dir=/data] Truncating to offset 77 "
            "(kafka.log.Log)\n"
            "Dumping /data/orders-1/00000000000000000000.log\n"
            "Starting offset: 0\n"
            "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 position: 0\n")
    lines = _lines(tmp_path, text)
    assert [line.status for line in lines] == ["recognised", "informational", "informational", "informational"]
    assert all("DumpLogSegments" in line.reason for line in lines[1:])


def test_an_unrecognised_line_like_a_known_message_says_which_and_what_did_not_fit(tmp_path):
    (line,) = _lines(tmp_path, "[2019-03-05 10:15:32,123] INFO Partition [orders,1] on broker 30: Shrinking ISR for "
                               "partition [orders,1] from thirty,ten to thirty (kafka.cluster.Partition)\n")
    assert line.status == "unrecognised"
    assert line.reason.startswith("like the ") and "Shrinking ISR for partition" in line.reason
    assert "{old} does not parse" in line.reason or "the text after" in line.reason
