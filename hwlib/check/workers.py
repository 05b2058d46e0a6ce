"""The model checker on several cores: worker processes own parts of the frontier, this process the visited set.

Once the frontier is large enough to share (``SPLIT_AT`` states), it is dealt round robin to
the workers, each rebuilding its states by replaying their schedules (``Search.replay``,
fingerprint-verified). A worker reads a schedule from this process's parent table, in shared
memory (``shared_parents``), so it keeps a cold state as its number alone. Then, per level:

1. every worker expands its states with ``Search.expand`` (the loop one process runs),
   dropping what it has seen - the visited set, this process's own table read in shared
   memory (``shared_visited``), plus the level's states it met itself lately (a filter of
   ``FILTER_SLOTS``, emptied when full) - and sends the rest as (rank, fingerprint) - the rank
   is parent state * 256 + step index - in that order, in chunks of ``CHUNK`` as it makes them
   (``Search.candidate_chunks``: two arrays, sent as raw memory: ``send_arrays``), each chunk
   saying how many of its first states it keeps live.
   Each may hold resident an equal share of what the search's memory limit leaves beside this
   process's own resident memory (``Search.resident_limit``);
2. meanwhile this process merges the workers' chunks as they come (``LevelMerge``, the merge
   Spark's driver runs): smallest rank first, the first state of each new fingerprint numbered
   as one process would number it - into the visited set the workers read, which so drops
   more of their duplicates as the level goes on: a fingerprint added there was numbered at a
   smaller rank than any a worker has still to send - and the first violation per kind merged
   the same way. A chunk is not kept once numbered, and a worker keeps none of its candidates
   once sent. The merge reads from the one worker whose chunk it waits for; the others wait to
   send (the pipe full), so none runs ahead by more than a chunk and a pipe's buffer. When
   the visited set or the parent table grows into a new segment, it names it to the workers
   ("follow"), which map it at their next look at the pipe (``follow_grown``);
3. each worker keeps its live states that were numbered and drops the others (a duplicate
   another worker met first, or that its filter had forgotten). The rest of the next level -
   its cold states, which any worker rebuilds alike from the parent table - is dealt out in
   blocks of numbers (``deal``), less the numbers of the states kept live in them, so that
   each holds an equal share of the level, spread over its numbers; a worker keeping more live
   states than its share by ``BALANCE_ABOVE`` gives its last ones away, to be rebuilt where
   they are dealt. So what this process keeps of a level is the numbers of the states kept
   live (as many as the workers could hold as states), and a worker holds its cold states as
   blocks (``Dealt``): neither holds a number per state of the level.

So the state counts, the violations and their schedules equal a one-process search's, on
any number of workers (moving a state changes only which process expands it). Workers are
started with ``forkserver`` (safe from a notebook kernel with threads) and ignore Ctrl-C
(this process stops them); if this process dies, their pipe closes and they exit - at once,
even in the middle of a level (``watched``).
"""

from __future__ import annotations

import gc
import multiprocessing
import signal
import traceback
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ..model.vocabulary import CheckError
from .fingerprints import Fingerprints
from .search import Node, Search, release_node
from .shared_parents import ParentsView, SharedParents
from .shared_visited import SharedView, handle, shared_copy
from .spec import CheckSpec

#: the frontier size from which a search is shared with workers (below it, one process is faster)
SPLIT_AT = 2000

#: how many frontier states a worker expands between two looks at its pipe (``watched``)
WATCH_EVERY = 256

#: a worker gives live states away (``deal``) only when it keeps more than its share of a level
#: by this fraction of the share: a state given away is replayed, a third of an expansion
BALANCE_ABOVE = 0.02

#: how many candidates a worker sends at a time: 256 KiB, its two arrays
CHUNK = 1 << 14

#: a level's cold states are dealt to the workers in blocks of so many states at most (``deal``;
#: at least 16 blocks a worker)
DEAL_BLOCK = 1024

#: the slots of a worker's filter of the level's states it met (512 KiB): where it fills, it is
#: emptied, and a duplicate it forgot is dropped by the merge instead. The visited set the
#: workers read drops most duplicates as the merge numbers states: on the memory row (4.1
#: under power loss at 3 replicas, to 1,252,852 states) the workers sent 1.16 candidates a
#: state with 2^20 slots, 1.17 with these 2^16 and 1.41 with 2^10
FILTER_SLOTS = 1 << 16


class WorkerError(RuntimeError):
    """A worker failed: its traceback, as it printed it."""


class Orphaned(Exception):
    """The coordinator went away (or stopped the search) while a worker was expanding."""


def watched(nodes: Iterable[Node], pipe, follow: Callable[[tuple], None] | None = None) -> Iterator[Node]:
    """The worker's frontier, with a look at its pipe every ``WATCH_EVERY`` states: while a
    level is expanded the coordinator sends nothing but "follow" - its visited set or parent
    table moved to a bigger segment, which ``follow`` is given -, so anything else to read -
    its "stop", or the end of file of a pipe whose other end closed because the coordinator was
    killed - raises ``Orphaned``. Without it a worker would expand the rest of a level of
    millions of states for no one."""
    for i, node in enumerate(nodes):
        while i % WATCH_EVERY == 0 and i and pipe.poll():
            try:
                command, *args = pipe.recv()
            except (EOFError, OSError):
                raise Orphaned from None
            if command != "follow" or follow is None:
                raise Orphaned
            follow(tuple(args))
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

    def _message(self, pipe) -> tuple[str, Any]:
        """A worker's next message, (kind, payload); its error as ``WorkerError``."""
        try:
            kind, payload = pipe.recv()
        except EOFError:
            raise WorkerError("a model-checking worker ended without answering") from None
        if kind == "error":
            raise WorkerError(payload)
        return kind, payload

    def _answer(self, pipe):
        return self._message(pipe)[1]

    def next_level(self) -> bool:
        search = self.search
        if not search.more():
            return False
        known = list(search.result.violations)
        share = self.share()
        seen = handle(search.seen, self.tables)
        for pipe in self.pipes:
            pipe.send(("expand", seen, search.depth, known, share))
        merge = search.level_merge(len(self.pipes))
        tables = self.tables_now()
        waiting = merge.run()
        while waiting >= 0:                     # the worker whose chunk (or end) the merge needs next
            if self.tables_now() != tables:     # a table grew: the workers read the new one from now on
                tables = self.tables_now()
                for pipe in self.pipes:
                    pipe.send(("follow", handle(search.seen, self.tables), search.parents.handle()))
            pipe = self.pipes[waiting]
            kind, payload = self._message(pipe)
            if kind == "chunk":
                count, live = payload
                ranks, keys = recv_arrays(pipe, count, 2)
                merge.feed(waiting, ranks, keys, live)
            elif kind == "done":
                found, generated = payload
                merge.end(waiting, found, generated)
            else:
                raise WorkerError(f"a model-checking worker answered {kind!r} in the middle of a level")
            waiting = merge.run()
        search.remote = search.close_level(merge)
        live_numbers = merge.live_numbers
        del merge
        dealt = deal(live_numbers, search.remote[0])
        parents, seen = search.parents.handle(), handle(search.seen, self.tables)    # with this level's states
        for pipe, mine, (starts, stops, skipped) in zip(self.pipes, live_numbers, dealt, strict=True):
            pipe.send(("keep", len(mine), len(starts), len(skipped), parents, seen))
            send_arrays(pipe, [mine])
            send_arrays(pipe, [starts, stops])
            send_arrays(pipe, [skipped])
        del live_numbers, dealt
        for pipe in self.pipes:
            self._answer(pipe)
        return True

    def tables_now(self) -> tuple[str, str]:
        """The segments of the visited set and the parent table as they are now (a table that
        grows moves to a new one)."""
        return self.tables.name(), self.search.parents.handle()[0]

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


def deal(live: list[array], numbered: range) -> list[tuple[array, array, array]]:
    """Deals out the next level, the states ``numbered``. Per worker, ``live`` gives the number
    of each state it made live (-1: not kept), which it keeps - but for its last ones past its
    share of the level by more than ``BALANCE_ABOVE`` of the share, marked given away (-2)
    there. Every other state of the level is cold, rebuilt from the parent table wherever it
    is expanded: in number order, they are cut into blocks (``DEAL_BLOCK``), and each block
    goes to the worker furthest behind its due - as many as its share lacks - (a smooth
    weighted round robin), so each worker's cold states are spread over the level's numbers:
    the workers then make candidates of like ranks at once, which the merge, taking the
    smallest first, needs (one worker holding the low numbers would make the other wait).
    Returns, per worker, its blocks as ranges of numbers (starts, stops) and the numbers of the
    states kept live within them (sorted) - what ``Dealt`` reads."""
    kept = [np.frombuffer(numbers, np.int64) for numbers in live]
    share = -(-len(numbered) // len(live))
    for mine in kept:
        positions = np.flatnonzero(mine >= 0)
        if len(positions) > share * (1 + BALANCE_ABOVE):
            mine[positions[share:]] = -2
    counts = [int(np.count_nonzero(mine >= 0)) for mine in kept]
    held = np.sort(np.concatenate([mine[mine >= 0] for mine in kept] + [np.empty(0, np.int64)]))
    cold = len(numbered) - len(held)
    # the p-th cold number (from 0) is numbered.start + p + the live numbers below it: those
    # held[i] with held[i] - numbered.start - i <= p
    below = held - numbered.start - np.arange(len(held))
    size = max(1, min(DEAL_BLOCK, cold // (16 * len(live))))       # 16 blocks a worker at least
    firsts = np.arange(0, cold, size, dtype=np.int64)
    starts = numbered.start + firsts + np.searchsorted(below, firsts, side="right")
    stops = np.append(starts[1:], numbered.stop) if len(starts) else starts      # no cold state: no block
    due = [max(share - count, 0) for count in counts]
    if not sum(due):
        due = [1] * len(due)
    owner = np.empty(len(starts), np.int64)
    behind, total = [0] * len(due), sum(due)
    for block in range(len(starts)):
        for w, weight in enumerate(due):
            behind[w] += weight
        w = max(range(len(due)), key=behind.__getitem__)
        behind[w] -= total
        owner[block] = w
    dealt = []
    for w in range(len(live)):
        mine_starts, mine_stops = starts[owner == w], stops[owner == w]
        within = np.zeros(len(held), bool)          # the live numbers inside a block of this worker's
        if len(mine_starts):
            inside = np.searchsorted(mine_starts, held, side="right") - 1      # the block each may be in
            within = (inside >= 0) & (held < mine_stops[np.maximum(inside, 0)])
        dealt.append((array("q", mine_starts.tobytes()), array("q", mine_stops.tobytes()),
                      array("q", held[within].tobytes())))
    return dealt


class Dealt(Sequence[int]):
    """A worker's cold states of a level: blocks of numbers (``starts``, ``stops``, in number
    order) less some (``skipped``, sorted: the states kept live there), in number order - a few
    numbers a block, none a state."""

    def __init__(self, starts: array, stops: array, skipped: array) -> None:
        self.starts, self.stops, self.skipped = starts, stops, skipped

    def __len__(self) -> int:
        return sum(stop - start for start, stop in zip(self.starts, self.stops, strict=True)) - len(self.skipped)

    def __getitem__(self, position):
        """By position (or slice), walking the blocks: the search only iterates and counts."""
        return list(self)[position]

    def __iter__(self) -> Iterator[int]:
        skipped = iter(self.skipped)
        next_skipped = next(skipped, None)
        for start, stop in zip(self.starts, self.stops, strict=True):
            for number in range(start, stop):
                if number == next_skipped:
                    next_skipped = next(skipped, None)
                    continue
                yield number


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


def kept(search: Search, live: list[Node], numbers: array, cold: Dealt) -> None:
    """The worker's next frontier: of its level's live new states (``live``), those the
    coordinator numbered (``numbers``, one for each: -1, met first by another worker or
    forgotten by the filter; -2, given away), and the ``cold`` ones dealt to it; live nodes and
    cold numbers, each in number order."""
    assert len(live) == len(numbers), "kept: a number for each live new state"
    mine = []
    for child, number in zip(live, numbers, strict=True):
        if number < 0:
            release_node(child)
        else:
            child.index = number
            mine.append(child)
    search.frontier, search.cold = mine, cold


def follow_grown(search: Search, view: SharedView, parents: ParentsView, seen: tuple, table: tuple) -> None:
    """The worker reads the visited set and the parent table a "follow" names (a table grew in
    the middle of a level). A segment gone since - the table grew again and the coordinator
    unlinked it before this worker looked at its pipe - is passed over: the one the worker
    reads stays mapped and holds every entry it needs (a smaller visited set misses only keys
    added since, and the parent entries it reads are of earlier levels), and the "follow"
    after it names the newer one."""
    try:
        search.seen = view.follow(seen)
    except FileNotFoundError:
        pass
    try:
        search.parents = parents.follow(table)
    except FileNotFoundError:
        pass


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
            if command == "follow":             # a table grew after this worker's part of the level was sent
                follow_grown(search, view, parents, *args)
            elif command == "adopt":
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
                level = Fingerprints(most=FILTER_SLOTS)

                def follow(tables: tuple) -> None:     # read in place: ``expand`` holds the same set
                    follow_grown(search, view, parents, *tables)

                try:
                    for ranks, keys, hot in search.candidate_chunks(watched(nodes, pipe, follow), search.seen, live,
                                                                    level, CHUNK):
                        pipe.send(("chunk", (len(ranks), hot)))
                        send_arrays(pipe, [ranks, keys])
                except Orphaned:
                    return
                del level
                pipe.send(("done", (search.level_found, search.result.generated)))
                search.level_found = {}
            elif command == "keep":
                count, blocks, skipped, table, seen = args
                numbers, = recv_arrays(pipe, count, 1)
                starts, stops = recv_arrays(pipe, blocks, 2)
                left_out, = recv_arrays(pipe, skipped, 1)
                search.parents, search.seen = parents.follow(table), view.follow(seen)
                kept(search, live, numbers, Dealt(starts, stops, left_out))
                del numbers
                live = []
                pipe.send(("ok", len(search.frontier) + len(search.cold)))
        except BaseException:
            pipe.send(("error", traceback.format_exc()))
            return
