"""Reading logs as pasted: every layout, prefix and export gives the same records; hostile input is said per line."""

from __future__ import annotations

import json

import pytest

from hwlib.explain import LogInputError, read_records, recognise
from hwlib.explain.read import MAX_LINE
from hwlib.explain.recognise import assemble

KAFKA_LINE = ("[2019-03-05 10:15:32,123] INFO [Log partition=orders-0, dir=/var/lib/kafka] Truncating to offset "
              "6656337 (kafka.log.Log)")
MESSAGE = "[Log partition=orders-0, dir=/var/lib/kafka] Truncating to offset 6656337"
STAMP = 1551780932123.0


def _records(tmp_path, text: str, name: str = "server.log"):
    path = tmp_path / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return list(read_records(path))


@pytest.mark.parametrize("layout", [
    KAFKA_LINE,
    "[2019-03-05 10:15:32.123] INFO " + MESSAGE + " (kafka.log.Log)",
    "kafka-2  | " + KAFKA_LINE,
    "2019-03-05T10:15:32.123456789Z " + KAFKA_LINE,
    "kafka-2  | 2019-03-05T10:15:32.123Z " + KAFKA_LINE,
    "2019-03-05T10:15:32.123Z INFO " + MESSAGE + " (kafka.log.Log)",
    "2019-03-05 10:15:32,123 [ReplicaFetcherThread-0-1] INFO " + MESSAGE + " (kafka.log.Log)",
])
def test_every_line_layout_gives_the_same_message_time_and_level(tmp_path, layout):
    (record,) = _records(tmp_path, layout + "\n")
    assert record.message == MESSAGE
    assert record.timestamp == STAMP and record.level == "INFO"
    line = recognise(record)
    assert line.status == "recognised" and line.format is not None and line.format.id == "log_truncating"
    assert line.observation is not None and line.observation.value("offset") == 6656337


def test_a_line_without_timestamp_level_or_logger_is_still_recognised(tmp_path):
    (record,) = _records(tmp_path, MESSAGE + "\n")
    assert record.timestamp is None and record.level is None
    assert recognise(record).observation.value("offset") == 6656337


def test_json_lines_docker_json_file_and_a_json_array_are_read(tmp_path):
    lines = [json.dumps({"@timestamp": "2019-03-05T10:15:32.123Z", "message": MESSAGE, "level": "INFO",
                         "logger_name": "kafka.log.Log", "host": "kafka-2"}),
             json.dumps({"log": KAFKA_LINE + "\n", "stream": "stdout", "time": "2019-03-05T10:15:32.5Z"})]
    records = _records(tmp_path, "\n".join(lines) + "\n", "export.json")
    assert [r.message for r in records] == [MESSAGE, MESSAGE]
    assert records[0].source == "kafka-2" and records[0].logger == "kafka.log.Log"
    assert records[1].timestamp == STAMP                   # the Kafka line's own time wins
    array = "[\n" + ",\n".join(lines) + "\n]\n"
    assert [r.message for r in _records(tmp_path, array, "array.json")] == [MESSAGE, MESSAGE]


def test_a_csv_export_with_quoted_multiline_fields_is_read(tmp_path):
    text = ('_time,host,_raw\n'
            f'"2019-03-05T10:15:32.123Z",kafka-2,"{KAFKA_LINE}"\n'
            '"2019-03-05T10:15:33.000Z",kafka-2,"[2019-03-05 10:15:33,000] ERROR boom (kafka.Foo)\n'
            '\tat kafka.Foo.bar(Foo.scala:1)"\n')
    records = _records(tmp_path, text, "export.csv")
    assert records[0].message == MESSAGE and records[0].source == "kafka-2"
    assert records[1].line == 3 and records[1].end_line == 4 and records[1].level == "ERROR"


def test_stack_traces_and_wrapped_messages_join_the_record_before_them(tmp_path):
    text = ("[2019-03-05 10:15:32,123] ERROR [ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Error for partition "
            "orders-0 at offset 5 (kafka.server.ReplicaFetcherThread)\n"
            "org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader\n"
            "\tat org.apache.kafka.Foo.bar(Foo.java:12)\n"
            "\t... 3 more\n"
            "[2019-03-05 10:15:33,000] INFO [Log partition=orders-0, dir=/var/lib/kafka] Truncating to\n"
            "offset 7 (kafka.log.Log)\n")
    first, second = assemble(_records(tmp_path, text))
    assert first.record.line == 1 and first.record.end_line == 4 and len(first.record.continuation) == 3
    assert second.record.message.endswith("Truncating to offset 7") and second.record.logger == "kafka.log.Log"
    assert second.observation.value("offset") == 7 and second.record.end_line == 6


def test_an_elision_is_a_record_of_its_own_and_said_so(tmp_path):
    records = _records(tmp_path, KAFKA_LINE + "\n...\n" + KAFKA_LINE + "\n")
    assert [r.elision for r in records] == [False, True, False]
    assert recognise(records[1]).status == "informational"


def test_invalid_utf8_binary_a_cut_last_line_and_a_huge_line_are_said_per_line(tmp_path):
    huge = b"x" * (10 * 1024 * 1024)
    data = (KAFKA_LINE.encode() + b"\n" + b"\xff\xfe bad \xc3\x28 bytes\n" + b"\x00\x01\x02\x03\x04\x05garbage\n"
            + huge + b"\n" + KAFKA_LINE.encode()[:40])
    records = _records(tmp_path, data)
    assert records[0].problem is None
    problems = [r.problem for r in records[1:]]
    assert problems[0] == "invalid UTF-8"
    assert problems[1] == "binary data" and recognise(records[2]).status == "unrecognised"
    assert problems[2].startswith("line too long (10,485,760 bytes") and len(records[3].text) <= MAX_LINE
    assert problems[3] == "cut: the last line has no end"


@pytest.mark.parametrize("make", ["directory", "missing", "name too long", "under a file"])
def test_a_log_that_cannot_be_read_is_one_line(tmp_path, make):
    path = tmp_path / "server.log"
    if make == "directory":
        path.mkdir()
    elif make == "name too long":
        path = tmp_path / ("x" * 300)
    elif make == "under a file":
        path.write_text(KAFKA_LINE)
        path = path / "server.log"
    with pytest.raises(LogInputError) as info:
        list(read_records(path))
    assert "\n" not in str(info.value) and str(info.value).startswith("LOG: ")


def test_near_matching_lines_built_to_backtrack_cost_no_more_than_their_size(tmp_path):
    """Lines that almost match a format at every position - long runs of what a field takes,
    never the literal that ends it - are read and refused line by line (each pattern is
    anchored, its fields bounded classes with no nested repetition)."""
    bait = ("[Log partition=" + "a-" * 3000 + ", dir=" + "[" * 2000 + "] Truncating to offset " + "9" * 4000 + "x")
    text = "\n".join([bait] * 2000) + "\n"
    records = _records(tmp_path, text)
    assert len(records) == 2000
    assert {recognise(r).status for r in records} == {"unrecognised"}
