"""The bounds' counters each state of a search carries - ticks, budgeted faults, AlterPartitions sent - in one int.

A TLA+ specification bounds its faults with counters in its state (Vanlightly's KIP-966
specification: ``UncleanShutdownLimit``, ``FenceBrokerLimit``, ``AlterPartitionLimit``); a
search here does the same with ``Bounds.max_ticks``, ``Bounds.fault_budget`` and
``Bounds.max_alter_partitions``. Each counter is one digit of a mixed-radix number (digit ``i``
in base ``limit_i + 1``), ticks first, so a search with no other budget carries exactly the
ticks it passed, as it always did (and its fingerprints are unchanged). The number is part of
every fingerprint: two states the engine cannot tell apart, one with a fault left to take and
one without, have different futures and are kept apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..engine.controller import BY_CONTROLLER
from .vocabulary import step_fault

if TYPE_CHECKING:
    from ..engine.steps import Step
    from .space import Bounds

#: the counter of the ISR changes leaders send (``Bounds.max_alter_partitions``)
ALTER_PARTITION = "alter_partition"


class Counters:
    """The counters of one search's bounds: for each counted name (``tick``, a budgeted fault,
    ``alter_partition``) its place in the packed number and its limit."""

    places: dict[str, int]
    limits: dict[str, int]
    #: whether a fault budget is set (else a step charges only if it is a tick)
    budgeted: bool

    def __init__(self, bounds: Bounds) -> None:
        # ticks are always counted (a limit of 0: none may pass), each other name where bounded
        self.places = {}
        self.limits = {}
        place = 1
        counted: list[tuple[str, int | None]] = [("tick", bounds.max_ticks), *bounds.fault_budget,
                                                 (ALTER_PARTITION, bounds.max_alter_partitions)]
        for name, limit in counted:
            if limit is None:
                continue
            self.places[name] = place
            self.limits[name] = limit
            place *= limit + 1
        self.budgeted = bool(bounds.fault_budget)

    def digit(self, spent: int, name: str) -> int:
        """How many of ``name`` the packed ``spent`` counts (0 for a name not counted)."""
        place = self.places.get(name)
        return 0 if place is None else spent // place % (self.limits[name] + 1)

    def charge(self, spent: int, name: str | None, times: int = 1) -> int | None:
        """``spent`` with ``times`` more of ``name`` (a fault's name, ``tick`` or
        ``alter_partition``), or None when that passes its limit; a name not counted costs
        nothing."""
        if name is None or not times:
            return spent
        place = self.places.get(name)
        if place is None:
            return spent
        if spent // place % (self.limits[name] + 1) + times > self.limits[name]:
            return None
        return spent + times * place

    def before(self, spent: int, step: Step) -> int | None:
        """``spent`` with ``step`` charged before it is taken - a tick as ``tick``, a budgeted
        fault by its name (``step_fault``; a produce whose ack is lost, or sent to a stale leader,
        is one) -, or None past a limit."""
        if step.kind == "tick":
            return self.charge(spent, "tick")
        return self.charge(spent, step_fault(step)) if self.budgeted else spent

    def sent(self, spent: int, step: Step, events: Sequence[tuple]) -> int | None:
        """``spent`` with the ISR changes ``step`` sent, read from the ``events`` it logged
        (``isr_requests``), or None past the AlterPartition bound."""
        if ALTER_PARTITION not in self.places:
            return spent
        return self.charge(spent, ALTER_PARTITION, isr_requests(step, events))

    def after(self, spent: int, step: Step, events: Sequence[tuple]) -> int | None:
        """``spent`` once ``step`` has been taken, which logged ``events``: ``before``, then
        ``sent`` - None past a limit (what a replay charges, as the search did)."""
        out = self.before(spent, step)
        return None if out is None else self.sent(out, step, events)

    def describe(self, spent: int) -> dict[str, int]:
        """Each counter's count in ``spent``, by name."""
        return {name: self.digit(spent, name) for name in self.places}


def isr_requests(step: Step, events: Sequence[tuple]) -> int:
    """How many ISR changes a leader sent in a step that logged ``events``: each request the
    controller answered at once (accepted: an ``isr`` event by the leader's route; refused:
    ``isr_refused``, ``isr_ineligible``) or that waits for a leader cut off from it
    (``alter_isr_sent``, kip595+). Kafka's ``Partition`` sends one for each ISR change it
    proposes (4.1's ``prepareIsrExpand`` / ``prepareIsrShrink`` through ``submitAlterPartition``;
    before 2.7 the ZooKeeper write). A ``reconnect`` sends none: the answer it brings is for the
    request the leader sent while cut off, counted then (``Cluster.reconnect``)."""
    if step.kind == "reconnect":
        return 0
    sent = 0
    for event in events:
        kind = event[0]
        if (kind == "alter_isr_sent" or kind == "isr_refused" or kind == "isr_ineligible"
                or (kind == "isr" and event[4] != BY_CONTROLLER)):
            sent += 1
    return sent
