"""The model checker on several cores: worker processes own parts of the frontier, this process the visited set.

Once the frontier is large enough to share (``SPLIT_AT`` states), it is dealt round robin to
the workers, each rebuilding its states by replaying their schedules (``Search.replay``,
fingerprint-verified). A worker reads a schedule from this process's parent table, in shared
memory (``shared_parents``), so it keeps a cold state as its number alone. Then, per level:

1. every worker expands its states with ``Search.expand`` (the loop one process runs),
   dropping what it has seen - the visited set as of the last level, this process's own table
   read in shared memory (``shared_visited``), plus its own new states of this level - and
   sends the rest as (rank, fingerprint) - the rank is parent state * 256 + step index -, in
   that order (``search.Candidates``: two arrays, which are all it keeps of a cold one, sent
   as raw memory: ``send_arrays``).
   Each may hold resident an equal share of what the search's memory limit leaves beside this
   process's own resident memory (``Search.resident_limit``);
2. this process merges the workers' lists with ``Search.merge_level`` (the merge one process
   runs): the first state of each new fingerprint kept, numbered as one process would, and
   the first violation per kind merged the same way;
3. each worker keeps its states that were numbered and drops the others (a duplicate that
   another worker met first). Where that leaves one worker more than its share of the next
   level (``balance``), its last states move to the workers short of theirs, as numbers
   whose schedules they read and replay (``Search.adopt``, as when the search is first shared).

So the state counts, the violations and their schedules equal a one-process search's, on
any number of workers (moving a state changes only which process expands it). Workers are
started with ``forkserver`` (safe from a notebook kernel with threads) and ignore Ctrl-C
(this process stops them); if this process dies, their pipe closes and they exit - at once,
even in the middle of a level (``watched``).
"""

from __future__ import annotations

import gc
import heapq
import multiprocessing
import signal
import traceback
from array import array
from collections.abc import Iterable, Iterator

import numpy as np

from ..model.vocabulary import CheckError
from .search import Node, Search, release_node
from .shared_parents import ParentsView, SharedParents
from .shared_visited import SharedView, handle, shared_copy
from .spec import CheckSpec

#: the frontier size from which a search is shared with workers (below it, one process is faster)
SPLIT_AT = 2000

#: how many frontier states a worker expands between two looks at its pipe (``watched``)
WATCH_EVERY = 256

#: a level's states move between workers (``balance``) only when one holds more than its
#: share by this fraction of the share: a moved state is replayed, a third of an expansion
BALANCE_ABOVE = 0.02


class WorkerError(RuntimeError):
    """A worker failed: its traceback, as it printed it."""


class Orphaned(Exception):
    """The coordinator went away (or stopped the search) while a worker was expanding."""


def watched(nodes: Iterable[Node], pipe) -> Iterator[Node]:
    """The worker's frontier, with a look at its pipe every ``WATCH_EVERY`` states: the
    coordinator sends nothing while a level is expanded, so anything to read - its "stop", or
    the end of file of a pipe whose other end closed because the coordinator was killed -
    raises ``Orphaned``. Without it a worker would expand the rest of a level of millions of
    states for no one."""
    for i, node in enumerate(nodes):
        if i % WATCH_EVERY == 0 and i and pipe.poll():
            raise Orphaned
        yield node


class Coordinator:
    """Runs the levels of ``search`` on as many processes as the spec's ``workers`` from its
    current frontier on (each rebuilds the search from the spec's written form)."""

    def __init__(self, search: Search, spec: CheckSpec) -> None:
        workers = spec.workers
        self.search = search
        context = multiprocessing.get_context("forkserver")
        setup = (spec.to_dict(), search.reduced, search.hot_limit, search.resumed)
        self.pipes = []
        self.processes = []
        search.seen, self.tables = shared_copy(search.seen)      # what the workers read in place
        self.parents: SharedParents | None = None
        try:
            search.parents = self.parents = SharedParents(search.parents)
            for _ in range(workers):
                mine, theirs = context.Pipe()
                process = context.Process(target=_work, args=(theirs, *setup), daemon=True)
                process.start()
                theirs.close()
                self.pipes.append(mine)
                self.processes.append(process)
            frontier = search.frontier_ids()
            seen, parents = handle(search.seen, self.tables), search.parents.handle()
            for w, pipe in enumerate(self.pipes):
                pipe.send(("adopt", frontier[w::workers], seen, parents))
            for pipe in self.pipes:
                self._answer(pipe)
        except BaseException:
            self.close()
            raise
        search.hand_over()

    def _answer(self, pipe):
        try:
            kind, payload = pipe.recv()
        except EOFError:
            raise WorkerError("a model-checking worker ended without answering") from None
        if kind == "error":
            raise WorkerError(payload)
        return payload

    def next_level(self) -> bool:
        search = self.search
        if not search.more():
            return False
        known = list(search.result.violations)
        share = self.share()
        seen = handle(search.seen, self.tables)
        for pipe in self.pipes:
            pipe.send(("expand", seen, search.depth, known, share))
        replies = []
        for pipe in self.pipes:
            count, level_found, generated = self._answer(pipe)
            rank, key = recv_arrays(pipe, count, 2)
            replies.append(((rank, key), level_found, generated))
        numbers, search.remote = search.merge_level(replies)
        given = balance(numbers, [key for (_, key), _, _ in replies])
        del replies                             # 16 bytes a candidate: freed before the next frontier is made
        parents = search.parents.handle()       # with this level's states
        for pipe, mine, theirs in zip(self.pipes, numbers, given, strict=True):
            pipe.send(("keep", len(mine), theirs, parents))
            send_arrays(pipe, [mine])
        del numbers
        for pipe in self.pipes:
            self._answer(pipe)
        return True

    def share(self) -> int | None:
        """The bytes each worker may hold resident this level: an equal share of what the
        search's limit leaves beside this process's resident memory (None: not watched)."""
        limit, mine = self.search.resident_limit, self.search.resident()
        if limit is None or mine is None:
            return None
        return max(limit - mine, 0) // len(self.pipes)

    def close(self) -> None:
        for pipe in self.pipes:
            try:
                pipe.send(("stop",))
            except OSError:
                pass
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join()
        for pipe in self.pipes:
            pipe.close()
        self.tables.close()         # the workers are gone: no one maps the segments by name again
        if self.parents is not None:
            self.parents.close()


def balance(numbers: list[array], keys: list[array]) -> list[list[tuple[int, int]]]:
    """Evens out the next level's states between the workers. ``numbers``: per worker, the
    number of each of its candidates (-1: not kept), ``keys`` their fingerprints; a worker's
    kept states are numbered in the order of its candidates. When one keeps more than
    ``BALANCE_ABOVE`` over its share, each worker's states past its share are marked given away
    (-2) in its ``numbers``; returns, per worker, the states it receives as (number, key) -
    those of the others, as many as it lacks."""
    held = [np.flatnonzero(np.frombuffer(mine, np.int64) >= 0) for mine in numbers]    # positions
    share = -(-sum(map(len, held)) // len(held))
    if all(len(mine) <= share * (1 + BALANCE_ABOVE) for mine in held):
        return [[] for _ in held]
    surplus = []
    for w, positions in enumerate(held):
        for position in positions[share:].tolist():
            surplus.append((numbers[w][position], keys[w][position]))
            numbers[w][position] = -2
    received = []
    for positions in held:      # the workers lack at least as many as the others hold past their share
        take = max(share - len(positions), 0)
        received.append(surplus[:take])
        surplus = surplus[take:]
    return received


def _work(pipe, spec: dict, reduced: bool, hot_limit: int | None, resumed: bool) -> None:
    """A worker: owns part of the frontier, answers the coordinator's commands until "stop"
    or until the coordinator's end of the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.disable()                    # as in one process: dropped states are released, not collected
    try:
        search = CheckSpec.from_dict(spec).search(reduced, hot_limit)
        search.resumed = resumed        # a state that does not replay is then the checkpoint's
    except (CheckError, ValueError) as exc:
        pipe.send(("error", str(exc)))
        return
    view, parents = SharedView(), ParentsView()
    try:
        _serve(pipe, search, view, parents)
    finally:
        view.close()
        search.parents = array("q")     # the view's memory is unmapped next
        parents.close()


def send_arrays(pipe, arrays: list[array]) -> None:
    """Sends ``arrays`` (of one length, told before) as raw memory: no copy on this side, where
    pickling an array copies it twice."""
    for each in arrays:
        pipe.send_bytes(each)


def recv_arrays(pipe, count: int, how_many: int) -> list[array]:
    """The ``how_many`` arrays of ``count`` items that ``send_arrays`` sent, each read straight
    into its own memory (the pipe's buffer holds one at a time)."""
    arrays = []
    for _ in range(how_many):
        each = array("q", [0]) * count
        try:
            whole = pipe.recv_bytes_into(each) == 8 * count
        except multiprocessing.BufferTooShort:
            whole = False
        if not whole:
            raise WorkerError(f"a model-checking process sent an array that is not {count} items long")
        arrays.append(each)
    return arrays


def kept(search: Search, live: list[Node], numbers: array, received: list[tuple[int, int]]) -> None:
    """The worker's next frontier: of its level's new states (``live`` the first, the others
    cold), those the coordinator numbered (``numbers``: -1, met first by another worker; -2,
    moved to another), with the states ``received`` from the others; live nodes and cold
    numbers, each in number order."""
    assert len(live) <= len(numbers), "kept: a number for each new state"
    mine = []
    for child, number in zip(live, numbers, strict=False):
        if number < 0:
            release_node(child)
        else:
            child.index = number
            mine.append(child)
    cold = array("q", [number for number in numbers[len(live):] if number >= 0])
    if received:                # expanded in number order, among the others
        theirs, theirs_cold = search.adopt(received)
        mine = list(heapq.merge(mine, theirs, key=lambda node: node.index))
        cold = array("q", heapq.merge(cold, theirs_cold))
    search.frontier, search.cold = mine, cold


def _serve(pipe, search: Search, view: SharedView, parents: ParentsView) -> None:
    """The worker's commands, until "stop" or until the coordinator's end of the pipe closes."""
    live: list[Node] = []
    while True:
        try:
            command, *args = pipe.recv()
        except (EOFError, OSError):
            return
        try:
            if command == "stop":
                search.drop_frontier()
                return
            if command == "adopt":
                items, seen, table = args
                search.seen, search.parents = view.follow(seen), parents.follow(table)
                search.frontier, search.cold = search.adopt(items)
                pipe.send(("ok", len(search.frontier) + len(search.cold)))
            elif command == "expand":
                seen, depth, known, search.resident_limit = args
                search.seen = view.follow(seen)
                search.depth = depth
                search.known = set(known)
                search.result.generated = 0
                nodes = search.frontier_nodes()
                search.frontier, search.cold = [], range(0)
                try:
                    live, candidates = search.candidates(watched(nodes, pipe), search.seen)
                except Orphaned:
                    return
                pipe.send(("ok", (len(candidates[0]), search.level_found, search.result.generated)))
                send_arrays(pipe, list(candidates))
                del candidates          # not held through the next level's expansion
                search.level_found = {}
            elif command == "keep":
                count, received, table = args
                numbers, = recv_arrays(pipe, count, 1)
                search.parents = parents.follow(table)
                kept(search, live, numbers, sorted(received))
                del numbers
                live = []
                pipe.send(("ok", len(search.frontier) + len(search.cold)))
        except BaseException:
            pipe.send(("error", traceback.format_exc()))
            return
