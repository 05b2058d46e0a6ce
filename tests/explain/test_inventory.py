"""The format table held to Kafka's code: each inventoried call has a disposition; formats and calls agree both ways.

``data/explain/kafka-log-calls.csv`` is every logging call and thrown message of the
replication path, read from Kafka's source at each release tag (tools/kafka_log_inventory.py).
hwlib's own formats must be texts Kafka prints - in each release they name, at the level log4j
prints and with the logger - and every call said to be read by a format must be read by it in
each of its releases; the log writer renders only such texts, so a round trip can no longer
confirm a text Kafka never wrote.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hwlib.engine.releases import KRAFT, RELEASES
from hwlib.explain.formats import KNOWN, OWN, Format, readable, version
from hwlib.explain.inventory import DISPOSITIONS, Call, calls, coverage
from hwlib.explain.writer import _tag, written_kinds

from .test_formats import SAMPLE

CALLS = calls()
#: the calls read by one of hwlib's own formats
READ = [call for call in CALLS if call.format_id is not None]


def _covered(call: Call, release: tuple[int, ...], level: str) -> bool:
    return any(printed == level and first <= release <= last for printed, first, last in call.printed())


def _releases(first: tuple[int, ...], last: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The releases hwlib knows within a range."""
    return [release for release in KNOWN if first <= release <= last]


def test_every_call_has_a_disposition_and_each_disposition_fits():
    ids = {fmt.id for fmt in OWN}
    for call in CALLS:
        where = (call.level, call.cls, call.template[:80])
        assert call.disposition, f"no disposition: {where}"
        if call.format_id is not None:
            assert call.format_id in ids, f"no format {call.format_id}: {where}"
            continue
        assert call.disposition in DISPOSITIONS, where
        assert call.note.strip(), f"a disposition without its reason: {where}"
        if call.level in ("WARN", "ERROR", "FATAL", "THROW"):
            assert call.disposition != "ignored", f"a {call.level} call is recognised, not ignored: {where}"


def test_a_call_s_disposition_is_the_same_in_every_range_of_releases():
    seen: dict[tuple[str, str, str, str], str] = {}
    for call in CALLS:
        key = (call.level, call.logger, call.cls, call.template)
        assert seen.setdefault(key, call.disposition) == call.disposition, key


@pytest.mark.parametrize("fmt", OWN, ids=lambda f: f"{f.id}@{f.first}")
def test_each_format_of_hwlib_s_is_a_text_kafka_prints_in_each_release_it_names(fmt: Format):
    message = fmt.render(**SAMPLE)
    for release in _releases(*fmt.releases):
        readers = [call for call in READ if call.format_id == fmt.id and call.logger == fmt.logger
                   and _covered(call, release, fmt.level) and call.prints(message)]
        assert readers, (f"{fmt.id} {fmt.first}-{fmt.last} {fmt.level} ({fmt.logger}): no call of Kafka "
                         f"{'.'.join(map(str, release))} prints {message!r}")


@pytest.mark.parametrize("call", READ, ids=lambda c: f"{c.format_id}@{c.first}-{c.level}")
def test_each_call_read_by_a_format_is_read_by_it_in_each_of_its_releases(call: Call):
    for printed, first, last in call.printed():
        for release in _releases(first, last):
            formats = [fmt for fmt in OWN if fmt.id == call.format_id and fmt.logger == call.logger
                       and fmt.level == printed and fmt.releases[0] <= release <= fmt.releases[1]
                       and call.prints(fmt.render(**SAMPLE))]
            assert formats, (f"Kafka {'.'.join(map(str, release))} prints {printed} {call.template!r} "
                             f"({call.logger}); hwlib's {call.format_id} does not read it there")


def test_the_log_writer_renders_only_texts_kafka_prints_in_that_release():
    """Every format the writer uses for a release is one an inventoried call of that release
    prints, at its level and with its logger (a text Kafka never wrote cannot be rendered)."""
    rendered = 0
    for row in RELEASES:
        release = version(_tag(row.key))
        for kind, fmt in written_kinds(release, "kraft" if row.mode == KRAFT else "zookeeper").items():
            message = fmt.render(**SAMPLE)
            assert any(call.logger == fmt.logger and _covered(call, release, fmt.level) and call.prints(message)
                       for call in CALLS), (row.key, kind, fmt.id, message)
            rendered += 1
    assert rendered > 300


def coverage_markdown() -> str:
    """The coverage table docs/explain.md prints: per release (each row of hwlib's release
    table, its first patch), the calls of the replication path its code has and what hwlib does
    with them."""
    releases: list[tuple[str, tuple[int, ...]]] = []
    for row in RELEASES:
        first = row.patches[0]
        label = first if first.count(".") > 1 or first.startswith("0") else first + ".0"
        if label not in [name for name, _ in releases]:
            releases.append((label, version(label)))
    lines = ["| release | calls | read by hwlib's formats | informational | outside the model | ignored | "
             "recognised |", "|---|---:|---:|---:|---:|---:|---:|"]
    for label, total, counts, readable_count in coverage(releases, readable):
        lines.append(f"| {label} | {total:,} | {counts.get('format', 0)} | {counts.get('informational', 0):,} | "
                     f"{counts.get('outside-model', 0)} | {counts.get('ignored', 0)} | "
                     f"{readable_count / total:.0%} |")
    return "\n".join(lines)


def test_the_docs_print_the_coverage_of_every_release():
    """docs/explain.md's table is the inventory's coverage as it is (run this test to see the table)."""
    table = coverage_markdown()
    docs = (Path(__file__).resolve().parents[2] / "docs" / "explain.md").read_text()
    assert table in docs, "docs/explain.md's coverage table is out of date; it is now:\n" + table
