"""Leader-epoch cache: Kafka's LeaderEpochFileCache (assign / end_offset_for / truncation), current semantics."""

from __future__ import annotations

UNDEFINED_EPOCH = -1
UNDEFINED_OFFSET = -1


class LeaderEpochCache:
    """Ordered ``(epoch, start_offset)`` entries: the first offset each leader epoch wrote.

    Both columns are strictly increasing. ``version`` counts mutations so observers can
    tell cheaply whether the cache changed.
    """

    __slots__ = ("_epochs", "_starts", "version")

    def __init__(self, entries: list[tuple[int, int]] | tuple = ()) -> None:
        self._epochs: list[int] = []
        self._starts: list[int] = []
        self.version = 0
        for epoch, start in entries:
            self.assign(epoch, start)

    def copy(self) -> LeaderEpochCache:
        new = LeaderEpochCache()
        new._epochs = list(self._epochs)
        new._starts = list(self._starts)
        new.version = self.version
        return new

    # -- reading ---------------------------------------------------------------------------
    @property
    def entries(self) -> list[tuple[int, int]]:
        return list(zip(self._epochs, self._starts, strict=True))

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
        while epochs and (epochs[-1] >= epoch or starts[-1] >= start_offset):
            epochs.pop()
            starts.pop()
        epochs.append(epoch)
        starts.append(start_offset)
        self.version += 1
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
        if end_offset < 0:
            return False
        epochs, starts = self._epochs, self._starts
        changed = False
        while starts and starts[-1] >= end_offset:
            epochs.pop()
            starts.pop()
            changed = True
        if changed:
            self.version += 1
        return changed

    def truncate_from_start(self, start_offset: int) -> bool:
        """Drop head entries starting at or before ``start_offset``; keep the last one at it."""
        if start_offset < 0:
            return False
        epochs, starts = self._epochs, self._starts
        dropped = 0
        while dropped < len(starts) and starts[dropped] <= start_offset:
            dropped += 1
        if not dropped:
            return False
        last_epoch = epochs[dropped - 1]
        del epochs[:dropped]
        del starts[:dropped]
        epochs.insert(0, last_epoch)
        starts.insert(0, start_offset)
        self.version += 1
        return True

    def is_strictly_increasing(self) -> bool:
        epochs, starts = self._epochs, self._starts
        return all(epochs[i] < epochs[i + 1] and starts[i] < starts[i + 1]
                   for i in range(len(epochs) - 1))
