"""Every row of two blog posts' worked HW/LEO tables (copied in tests/golden/hw-tables), asserted from a run.

The posts ("kafka14-LEO和HW正常更新案例" and "kafka一致性保证") walk one record, then two, through
a leader and a follower, with the leader's remote LEO and both HWs after each request; their
tables are the golden data this engine was first built against.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hwlib

ATTRS = ("Leader LEO", "Remote LEO", "Leader HW", "Follower LEO", "Follower HW")
ROW = re.compile(r"^(?P<phase_no>\d)?(?P<attr>" + "|".join(ATTRS) + r")(?P<phase>\D+?)(?P<old>\d)(?P<new>\d)")

# Each table phase, by its text in the posts, is the state after this many steps of a scenario.
ONE_RECORD = {"PRODUCE处理完成": 1, "PRODUCE和Follower FETCH处理完成": 2,
              "PRODUCE和Follower FETCH 处理完成": 2, "第二次Follower FETCH处理完成": 3}
TWO_RECORDS = {"1": 2, "2": 5, "3": 6}  # hw-update-two-records: after fetch B, fetch_response B, fetch B


def parse_rows(text: str) -> list[dict]:
    """Rows of both layouts: markdown ``| attr | phase | old | new | note |`` (003) and the
    flattened HTML table ``[phase_no]attrPHASEoldnewnote`` (004)."""
    rows = []
    for line in text.splitlines():
        line = line.replace("\xa0", " ").strip()
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) >= 4 and cells[0] in ATTRS:
                rows.append({"phase_no": None, "attr": cells[0], "phase": cells[1],
                             "old": int(cells[2]), "new": int(cells[3])})
            continue
        m = ROW.match(line)
        if m:
            rows.append({"phase_no": m["phase_no"], "attr": m["attr"], "phase": m["phase"],
                         "old": int(m["old"]), "new": int(m["new"])})
    return rows


def observed(snapshot: dict) -> dict:
    leader = snapshot["replicas"]["A"]
    follower = snapshot["replicas"]["B"]
    return {"Leader LEO": leader["leo"], "Remote LEO": snapshot["remote_leo"]["B"],
            "Leader HW": leader["hw"], "Follower LEO": follower["leo"],
            "Follower HW": follower["hw"]}


TABLES = Path(__file__).resolve().parent / "golden" / "hw-tables"


def seed_rows(prefix: str) -> list[dict]:
    (path,) = TABLES.glob(f"{prefix}-*.txt")
    return parse_rows(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_seed_003_every_row(protocol):
    rows = seed_rows("003")
    assert len(rows) == 15, "003 has three tables of five rows"
    trace = hwlib.run_scenario("hw-update-one-record", protocol=protocol).trace
    for row in rows:
        state = observed(trace.snapshots[ONE_RECORD[row["phase"]]])
        assert state[row["attr"]] == row["new"], row


@pytest.mark.parametrize("protocol", hwlib.PROTOCOLS)
def test_seed_004_every_row(protocol):
    rows = seed_rows("004")
    single = [r for r in rows if r["phase_no"] is None]
    numbered = [r for r in rows if r["phase_no"] is not None]
    assert len(single) == 15 and len(numbered) == 15
    one = hwlib.run_scenario("hw-update-one-record", protocol=protocol).trace
    for row in single:
        assert observed(one.snapshots[ONE_RECORD[row["phase"]]])[row["attr"]] == row["new"], row
    two = hwlib.run_scenario("hw-update-two-records", protocol=protocol).trace
    for row in numbered:
        after = TWO_RECORDS[row["phase_no"]]
        before = 0 if row["phase_no"] == "1" else TWO_RECORDS[str(int(row["phase_no"]) - 1)]
        assert observed(two.snapshots[after])[row["attr"]] == row["new"], row
        assert observed(two.snapshots[before])[row["attr"]] == row["old"], row


def test_second_round_parks_and_completes_with_hw_1():
    """In the one-record table the second fetch round finds no data, parks in the fetch
    purgatory (replica.fetch.wait.max.ms) and completes with HW 1."""
    trace = hwlib.run_scenario("hw-update-one-record").trace
    kinds = [e[0] for e in trace.events[3]]
    assert kinds.index("hw") < kinds.index("park") < kinds.index("expire")
    fetch = [e for e in trace.events[3] if e[0] == "fetch"]
    assert fetch == [("fetch", "B", 1, 0, 1)]


def test_004_second_record_rides_the_woken_fetch():
    """The second record arrives while round 2's fetch is parked; the woken response
    carries it with HW 1 (remote LEO already 1)."""
    trace = hwlib.run_scenario("hw-update-two-records").trace
    produce_m2 = trace.events[4]
    assert [e[0] for e in produce_m2] == ["append", "wake", "fetch"]
    assert produce_m2[2] == ("fetch", "B", 1, 1, 1)
