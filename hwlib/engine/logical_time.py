"""Logical time: the one object that owns ``now`` (Kafka's ``Time``), read by every part that stamps a deadline."""

from __future__ import annotations


class Time:
    """The partition's logical time in milliseconds: it starts at 0 and moves only when
    ``Clock.tick`` runs what falls due."""

    __slots__ = ("now",)

    def __init__(self, now: int = 0) -> None:
        self.now = now
