"""The visited set in shared memory: read in place by the workers, refused where it has no room, never left behind."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from hwlib.check.fingerprints import Fingerprints
from hwlib.check.shared_visited import SharedView, handle, shared_copy

from ..helpers.shm import needs_shm, segments, shm_free


@needs_shm
def test_a_reader_sees_every_fingerprint_the_writer_added_through_every_growth():
    """The writer's table doubles as it fills (each time a new segment, the old one unlinked);
    a reader that follows the handle it is given before each lookup answers exactly as the
    writer's own set and a private ``Fingerprints`` do - 0 included, which lives beside the
    table -, through one set object (a worker's expansion holds it while it follows a grown
    table), and once the search is over no segment is left by name, while the writer's set
    can still be read."""
    rng = random.Random(7)
    keys = [rng.getrandbits(64) - 2 ** 63 for _ in range(6000)] + [0, 1, -1]
    absent = [rng.getrandbits(64) - 2 ** 63 for _ in range(2000)]
    before = segments()
    seen, tables = shared_copy(Fingerprints(keys[:10]))
    private = Fingerprints(keys[:10])
    view = SharedView()
    names = [tables.name()]
    readers: list[Fingerprints] = []
    try:
        for start in range(10, len(keys), 500):
            for key in keys[start:start + 500]:
                assert seen.added(key) == private.added(key)
            names.append(tables.name())
            reader = view.follow(handle(seen, tables))
            assert reader is view.seen and (start == 10 or reader is readers[-1])
            readers.append(reader)
            assert len(reader) == len(seen) == len(private)
            assert all(key in reader for key in keys[:start + 500])
            assert not any(key in reader for key in absent + keys[start + 500:] if key not in private)
        assert len(set(names)) >= 4                 # 1,024 slots grew at least three times
        live = segments() - before
        assert live == {tables.name().lstrip("/")}, live      # each replaced table's segment is unlinked
    finally:
        view.close()
        tables.close()
    assert segments() == before
    assert len(seen) == len(set(keys)) and all(key in seen for key in keys) and sorted(seen) == sorted(set(keys))


@needs_shm
def test_a_search_on_two_workers_leaves_no_segment_and_no_warning(tmp_path):
    """``hwlib check --workers 2`` past the frontier size it shares at: the same verdicts and
    counts as one process, nothing on stderr about leaked shared memory or ignored exceptions
    (a worker closes its view before the segment), and /dev/shm as it was."""
    args = [sys.executable, "-m", "hwlib.cli", "check", "--protocol", "kip320", "--replicas", "3", "--depth", "5",
            "--exhaustive", "--json", "--quiet"]
    shared = subprocess.Popen([*args, "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = shared.communicate(timeout=600)
    alone = subprocess.run([*args, "--workers", "1"], capture_output=True, text=True, timeout=600)
    assert shared.returncode == alone.returncode == 0, err + alone.stderr
    assert err == "", err
    one, two = (json.loads(stdout.splitlines()[0]) for stdout in (alone.stdout, out))
    for result in (one, two):
        del result["seconds"]
    assert one == two and one["distinct"] > 20_000        # shared from 2,000 frontier states, the table grew since
    assert segments(shared.pid) == set()                   # each is named after the process that made it


@needs_shm
def test_a_table_that_shared_memory_has_no_room_for_is_refused_in_one_line(monkeypatch):
    """A container's /dev/shm may be small (Docker's default: 64 MB), and a segment written past
    it kills the process with a bus error. The table that would not fit is refused before it
    is made - one line naming what it needs, what is free and the two ways out -, and the set
    it would have replaced is still whole."""
    from hwlib.check import shared_visited
    from hwlib.model.vocabulary import CheckError

    shm_free(monkeypatch, 12 * 1024)        # room for the first table (8 KiB), not for the next (16 KiB)
    before = segments()
    seen, tables = shared_copy(Fingerprints(range(1, 700)))
    try:
        with pytest.raises(CheckError) as refused:
            seen.update(range(700, 900))
        assert str(refused.value) == ("workers: the visited set's next table needs 16 KiB of shared memory and "
                                      "/dev/shm has 12 KiB free; give it more (docker run --shm-size) or run with "
                                      "--workers 1")
        assert len(seen) == 768 and all(key in seen for key in range(1, 769)) and 769 not in seen
    finally:
        tables.close()
    assert segments() == before
    assert shared_visited._size(64 * 2 ** 20) == "64 MiB"
