"""The anomaly kinds, each one record: its name, safety or effect, severity, the scenario table's short form and why.

Every table of kinds - the checker's list, the safety properties most serious first, the
effects, the notes a view shows beside an effect, the scenario table's abbreviations - is
read from ``KIND_TABLE``, so a kind is added or reworded in one place.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """One anomaly kind. ``severity``: its place in the one order, safety kinds first (most
    serious first); ``short``: the scenario table's abbreviation (bold: a client can see it);
    ``note``: for an effect, why it is not data loss; ``bug``: an effect that is a Kafka bug
    rather than the protocol working as designed."""

    name: str
    safety: bool
    severity: int
    short: str
    note: str = ""
    bug: bool = False

    @property
    def tag(self) -> str:
        """How a listing tags it: nothing for a safety kind."""
        if self.safety:
            return ""
        return "a Kafka bug, not a safety violation" if self.bug else "expected, not a safety violation"

    @property
    def effect_words(self) -> str:
        """What a view calls an effect of this kind before its note."""
        return "a Kafka bug that loses nothing by itself" if self.bug else "an expected effect"


#: every kind, in the checker's order
KIND_TABLE = (
    Kind("lost-write", True, 0, "**lost**"),
    Kind("log-divergence", True, 1, "**diverge**"),
    Kind("committed-truncated", True, 6, "trunc"),
    Kind("strong-isr", True, 7, "isr"),
    Kind("hw-regression", False, 11, "hw↓",
         "a new leader's HW may start below the old leader's: each follower learns the HW one fetch round late, "
         "and a new leader keeps the HW it had. Consumers may briefly see a lower HW; no record is lost by it."),
    Kind("epoch-cache-order", True, 10, "cache"),
    Kind("duplicate", True, 2, "**dup**"),
    Kind("reordered", True, 3, "**reorder**"),
    Kind("inconsistent-offsets", True, 4, "**inconsistent**"),
    Kind("nonmonotonic-poll", True, 9, "**nonmonotonic**"),
    Kind("unseen", True, 5, "**unseen**"),
    Kind("hw-below-log-start", True, 8, "**hw<start**"),
    Kind("consumer-skipped", False, 12, "skipped",
         "retention or DeleteRecords moved the log start past records the consumer had not read yet: its next "
         "fetch is out of range and auto.offset.reset moves it on. Kafka deletes them as configured; replication "
         "lost nothing."),
    Kind("fetcher-stopped", False, 13, "stopped",
         "a follower's fetcher stopped replicating the partition on an error its release does not handle (2.8.0: "
         "the leader's log start above its HW, KAFKA-12996) until a new leader epoch or a restart: it loses no "
         "record by itself, but leaves the partition one copy short and, once the follower leaves the ISR, fewer "
         "replicas to fail over to.", bug=True),
)
BY_NAME = {k.name: k for k in KIND_TABLE}

KINDS = tuple(k.name for k in KIND_TABLE)
#: every kind in one order: safety first (most serious first), then the effects
SEVERITY = tuple(k.name for k in sorted(KIND_TABLE, key=lambda k: k.severity))
#: safety properties, most serious first: a violation is acknowledged data lost, replicas that
#: disagree, a committed record removed, or a client seeing what Kafka promises it never will
SAFETY = tuple(name for name in SEVERITY if BY_NAME[name].safety)
#: effects hwlib explains - never data loss by themselves
EFFECTS = tuple(name for name in SEVERITY if not BY_NAME[name].safety)
#: why each effect is not data loss (shown wherever an effect is listed)
EFFECT_NOTES = {name: BY_NAME[name].note for name in EFFECTS}
#: the same for unavailability (steps without an online leader), which is measured, not a kind
UNAVAILABILITY_NOTE = ("a partition without an online leader refuses writes and reads until one is elected: "
                       "time lost, not data.")


def is_safety(kind: str) -> bool:
    """Whether ``kind`` is a safety property (else an effect)."""
    return BY_NAME[kind].safety


def effect_tag(kind: str) -> str:
    """How a listing tags an effect (see ``Kind.tag``)."""
    return BY_NAME[kind].tag
