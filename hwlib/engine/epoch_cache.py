"""Leader-epoch cache: Kafka's LeaderEpochFileCache (assign / end_offset_for / truncation), current semantics."""

from __future__ import annotations

from typing import ClassVar

from ..util.shared import CopyOnWrite

UNDEFINED_EPOCH = -1
UNDEFINED_OFFSET = -1


class LeaderEpochCache(CopyOnWrite):
    """Ordered ``(epoch, start_offset)`` entries: the first offset each leader epoch wrote.

    Both columns are strictly increasing. ``version`` counts writes so observers can tell
    cheaply whether the cache changed. A copy shares them with its source until either
    side writes (``util.shared``): the model checker copies every cache for every transition
    and most transitions write none. ``memo`` holds ``key()`` until the next write.
    """

    __slots__ = ("_epochs", "_starts", "version")

    def __init__(self, entries: list[tuple[int, int]] | tuple = (), source: LeaderEpochCache | None = None) -> None:
        if source is None:
            self._epochs: list[int] = []
            self._starts: list[int] = []
            self._fresh()
            self.version = 0
            for epoch, start in entries:
                self.assign(epoch, start)
        else:
            self._epochs = source._epochs
            self._starts = source._starts
            self._share(source)
            self.version = source.version

    def copy(self) -> LeaderEpochCache:
        """An independent copy (it shares the lists until one of the two writes)."""
        return LeaderEpochCache(source=self)

    def _own(self) -> None:
        self._epochs = list(self._epochs)
        self._starts = list(self._starts)

    def _write(self) -> None:
        """Before any write: the lists become this cache's own, ``memo`` is dropped and the
        version moves on."""
        CopyOnWrite._write(self)
        self.version += 1

    # -- reading ---------------------------------------------------------------------------
    @property
    def entries(self) -> list[tuple[int, int]]:
        return list(zip(self._epochs, self._starts, strict=True))

    UNKEYED: ClassVar[dict[str, str]] = {
        "version": "observes: counts the writes, so observers can tell cheaply whether the cache changed"}

    def key(self) -> tuple[tuple[int, int], ...]:
        """Its state: ``entries`` as a tuple (see ``state_key``), computed once per write."""
        key = self.memo
        if key is None:
            # by place, not ``zip``: the compiled engine calls ``zip(..., strict=True)`` as a
            # generic Python call, and the key is made anew after every write of the cache
            epochs, starts = self._epochs, self._starts
            if len(starts) != len(epochs):
                raise ValueError(f"epoch cache: {len(epochs)} epochs but {len(starts)} start offsets")
            key = self.memo = tuple([(epochs[i], starts[i]) for i in range(len(epochs))])
        return key

    @property
    def latest_epoch(self) -> int | None:
        return self._epochs[-1] if self._epochs else None

    @property
    def earliest_epoch(self) -> int | None:
        return self._epochs[0] if self._epochs else None

    def __len__(self) -> int:
        return len(self._epochs)

    def __repr__(self) -> str:
        return f"LeaderEpochCache({self.entries!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LeaderEpochCache):
            return NotImplemented
        return self._epochs == other._epochs and self._starts == other._starts

    __hash__ = None  # type: ignore[assignment]  # mutable

    # -- writing ---------------------------------------------------------------------------
    def assign(self, epoch: int, start_offset: int) -> bool:
        """Record that ``epoch`` started at ``start_offset``; returns whether the cache changed.

        No-op when the latest entry already has ``epoch`` and starts at or before
        ``start_offset`` (an epoch never moves forward). Otherwise every tail entry with
        ``epoch >=`` or ``start_offset >=`` the new one is dropped, then the entry appended.
        """
        if epoch < 0 or start_offset < 0:
            raise ValueError(
                f"assign: epoch and start_offset must be >= 0, got ({epoch}, {start_offset})"
            )
        epochs, starts = self._epochs, self._starts
        if epochs and epochs[-1] == epoch and start_offset >= starts[-1]:
            return False
        self._write()
        epochs, starts = self._epochs, self._starts
        while epochs and (epochs[-1] >= epoch or starts[-1] >= start_offset):
            epochs.pop()
            starts.pop()
        epochs.append(epoch)
        starts.append(start_offset)
        return True

    def end_offset_for(self, epoch: int, log_end_offset: int) -> tuple[int, int]:
        """OffsetsForLeaderEpoch answer: ``(largest epoch <= epoch, end offset of that epoch)``.

        ``(-1, -1)`` when ``epoch`` is undefined or no entry lies above it; ``(epoch, leo)``
        for the latest epoch; ``(epoch, first start offset)`` when asked below the first epoch.
        """
        epochs = self._epochs
        if epoch == UNDEFINED_EPOCH:
            return UNDEFINED_EPOCH, UNDEFINED_OFFSET
        if epochs and epochs[-1] == epoch:
            return epoch, log_end_offset
        higher = next((i for i, e in enumerate(epochs) if e > epoch), None)
        if higher is None:
            return UNDEFINED_EPOCH, UNDEFINED_OFFSET
        if higher == 0:
            return epoch, self._starts[0]
        return epochs[higher - 1], self._starts[higher]

    def epoch_for_offset(self, offset: int) -> int | None:
        """Epoch of the leader that wrote ``offset``; None if it lies before the first entry."""
        previous = None
        for epoch, start in zip(self._epochs, self._starts, strict=True):
            if start == offset:
                return epoch
            if start > offset:
                return previous
            previous = epoch
        return previous

    def truncate_from_end(self, end_offset: int) -> bool:
        """Drop tail entries starting at or after ``end_offset`` (log truncated to it)."""
        if end_offset < 0 or not self._starts or self._starts[-1] < end_offset:
            return False
        self._write()
        epochs, starts = self._epochs, self._starts
        while starts and starts[-1] >= end_offset:
            epochs.pop()
            starts.pop()
        return True

    def truncate_from_start(self, start_offset: int) -> bool:
        """Drop head entries starting at or before ``start_offset``; keep the last one at it."""
        if start_offset < 0:
            return False
        dropped = 0
        while dropped < len(self._starts) and self._starts[dropped] <= start_offset:
            dropped += 1
        if not dropped:
            return False
        self._write()
        epochs, starts = self._epochs, self._starts
        last_epoch = epochs[dropped - 1]
        del epochs[:dropped]
        del starts[:dropped]
        epochs.insert(0, last_epoch)
        starts.insert(0, start_offset)
        return True

    def clear(self) -> bool:
        """Drop every entry (``LeaderEpochFileCache.clearAndFlush``: a full truncation)."""
        if not self._epochs:
            return False
        self._write()
        self._epochs.clear()
        self._starts.clear()
        return True

    def is_strictly_increasing(self) -> bool:
        epochs, starts = self._epochs, self._starts
        return all(epochs[i] < epochs[i + 1] and starts[i] < starts[i + 1]
                   for i in range(len(epochs) - 1))
