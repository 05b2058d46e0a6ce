"""The controller's view of the partition: leader, leader epoch, ISR, dead brokers, elections.

ZooKeeper-era rules (``KafkaController`` / ``PartitionStateMachine``, 0.10.2 to 3.x): on a
broker failure the broker leaves the ISR unless it is the last member; a failed leader is
replaced by the first live ISR member in assignment order (or, with unclean election, the
first live replica, ISR := {it}); every change the controller writes bumps the leader epoch.
KRaft (kip841+, ``ReplicationControlManager``) keeps these rules for a fenced broker
(``handleBrokerFenced``: the ISR never empties, ``PartitionChangeBuilder.build``) but bumps the
leader epoch only on a leader change or an ISR shrink - and from metadata.version 3.6-IV0
(KAFKA-15021) on a leader change only. Every change moves the partition epoch (ZooKeeper's
zkVersion), which AlterPartition and, under KRaft, the brokers compare.

kip966 (KIP-966, Eligible Leader Replicas): a failed broker always leaves the ISR; replicas
that leave while the ISR is below min.insync.replicas join the ELR (the HW cannot move then,
so they hold every committed record); the ELR empties once the ISR is back at min ISR. An
election takes a live ISR member, else a live eligible ELR member, else the last known
leader if eligible. A replica that restarted from an unclean shutdown (power loss) is not
eligible until it is back in the ISR.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from .state_key import KeyContext


class LeaderAndIsr:
    """One partition's state in a LeaderAndIsr request (under KRaft, a PartitionChangeRecord):
    leader epoch, leader (None: no leader, Kafka's -1), ISR and partition epoch. Never
    changed once made."""

    __slots__ = ("epoch", "leader", "isr", "partition_epoch")

    def __init__(self, epoch: int, leader: str | None, isr: tuple[str, ...], partition_epoch: int = 0) -> None:
        self.epoch = epoch
        self.leader = leader
        self.isr = isr
        self.partition_epoch = partition_epoch

    UNKEYED: ClassVar[dict[str, str]] = {}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): leader epoch, leader, ISR, partition epoch."""
        return (self.epoch, ctx.rid(self.leader), ctx.ids(self.isr), ctx.partition_epoch(self.partition_epoch))

    def __repr__(self) -> str:
        return (f"LeaderAndIsr(epoch={self.epoch}, leader={self.leader!r}, isr={self.isr!r}, "
                f"partition_epoch={self.partition_epoch})")


class Controller:
    __slots__ = ("assignment", "unclean", "leader", "leader_epoch", "isr", "dead", "elr_enabled",
                 "min_isr", "elr", "last_known_leader", "ineligible", "broker_epochs", "partition_epoch",
                 "shrink_bumps_epoch", "shutting_down", "election")

    leader: str | None
    leader_epoch: int
    isr: tuple[str, ...]
    dead: set[str]
    elr: tuple[str, ...]
    last_known_leader: str | None
    ineligible: set[str]
    #: each broker's registration (its broker epoch): a new one at every startup the
    #: controller handles (KIP-380's ZooKeeper czxid, KRaft's registration record)
    broker_epochs: dict[str, int]
    #: moves with every change written (ZooKeeper's zkVersion, KRaft's partition epoch)
    partition_epoch: int
    #: KRaft: the broker in controlled shutdown while its change is published (never set
    #: between steps: the broker stops in the same step, see ``Cluster.shutdown``)
    shutting_down: str | None
    #: how the last leader write chose its leader (``ELECTIONS``), None when the leader did
    #: not change; read and cleared by the channel as it sends the change
    election: str | None

    def __init__(self, assignment: tuple[str, ...], unclean_leader_election: bool,
                 elr: bool = False, min_insync_replicas: int = 1, shrink_bumps_epoch: bool = True,
                 source: Controller | None = None) -> None:
        """A controller for a new partition, or with ``source`` an independent copy of one."""
        self.assignment = assignment
        self.unclean = unclean_leader_election
        self.elr_enabled = elr
        self.min_isr = min_insync_replicas
        #: the controller's own ISR removal bumps the leader epoch (all but KAFKA-15021's rule)
        self.shrink_bumps_epoch = shrink_bumps_epoch
        self.shutting_down = None
        self.election = None
        if source is not None:
            self.leader = source.leader
            self.leader_epoch = source.leader_epoch
            self.isr = source.isr
            # ``dead``, ``ineligible`` and ``broker_epochs`` are never changed in place, only
            # replaced (by their only writers: ``on_broker_failure``, ``on_broker_startup``,
            # ``set_isr``), so a copy shares them with its source
            self.dead = source.dead
            self.elr = source.elr
            self.last_known_leader = source.last_known_leader
            self.ineligible = source.ineligible
            self.broker_epochs = source.broker_epochs
            self.partition_epoch = source.partition_epoch
            return
        self.leader = None
        self.leader_epoch = 0
        self.isr = tuple(assignment)
        self.dead = set()
        self.elr = ()
        self.last_known_leader = None
        self.ineligible = set()
        self.broker_epochs = {r: 0 for r in assignment}
        self.partition_epoch = 0

    def copy(self) -> Controller:
        return Controller(self.assignment, self.unclean, self.elr_enabled, self.min_isr, self.shrink_bumps_epoch,
                          self)

    UNKEYED: ClassVar[dict[str, str]] = {
        "assignment": "constant: the partition's replicas (config)",
        "unclean": "constant: unclean.leader.election.enable (config)",
        "elr_enabled": "constant: the rules' Eligible Leader Replicas (KIP-966)",
        "min_isr": "constant: min.insync.replicas (config)",
        "shrink_bumps_epoch": "constant: the rules' epoch bump on an ISR shrink (KAFKA-15021)",
        "shutting_down": "transient: set and cleared within one controlled shutdown step (Cluster.shutdown)",
        "election": "transient: set by a leader write and cleared as the channel sends it (one step)"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): leader, leader epoch, ISR, ELR, the brokers it counts
        dead, the last known leader, the brokers not eligible, the registrations (broker
        epochs) and the partition epoch."""
        dead, ineligible = self.dead, self.ineligible       # (mostly empty)
        return (ctx.rid(self.leader), self.leader_epoch, ctx.ids(self.isr), ctx.ids(self.elr),
                ctx.members(dead) if dead else (), ctx.rid(self.last_known_leader),
                ctx.members(ineligible) if ineligible else (),
                ctx.broker_epochs(self.broker_epochs, self.assignment), ctx.partition_epoch(self.partition_epoch))

    def leader_and_isr(self) -> LeaderAndIsr:
        """The current (leader epoch, leader, ISR) as a LeaderAndIsr request carries it."""
        return LeaderAndIsr(self.leader_epoch, self.leader, self.isr, self.partition_epoch)

    def _ordered(self, ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple([r for r in self.assignment if r in ids])

    def set_isr(self, new_isr: tuple[str, ...]) -> None:
        """Write a new ISR (leader's AlterIsr or the controller's own); keeps the ELR."""
        if self.elr_enabled:
            # below min.insync.replicas the ELR keeps its members and gains the eligible ones the
            # ISR loses; at or above it, it is empty - never a member of the new ISR (a tuple of
            # at most five names: no sets to build)
            old_isr, elr, ineligible = self.isr, self.elr, self.ineligible
            self.elr = (tuple([r for r in self.assignment if r not in new_isr and
                               (r in elr or (r in old_isr and r not in ineligible))])
                        if len(new_isr) < self.min_isr else ())
            if ineligible and not ineligible.isdisjoint(new_isr):
                self.ineligible = ineligible.difference(new_isr)
        self.isr = self._ordered(new_isr)

    def _live(self, rid: str, shutting_down: str | None) -> bool:
        return rid not in self.dead and rid != shutting_down

    def elect_leader(self, shutting_down: str | None = None) -> str | None:
        """offlinePartitionLeaderElection: the first live ISR member in assignment order; with
        kip966 then the first live eligible ELR member, then the last known leader (ISR and
        ELR empty); else, with unclean election, the first live replica; each non-ISR choice
        becomes the ISR on its own. None when nobody qualifies. "Live" is the controller's
        view: an unnoticed crash still looks live; ``shutting_down`` (KRaft: a broker in
        controlled shutdown, not ``isActive``) is not."""
        for rid in self.assignment:
            if rid in self.isr and self._live(rid, shutting_down):
                # Election.leaderForOffline (ZooKeeper mode, 0.10.2's OfflinePartitionLeaderSelector
                # to 3.9): the new ISR is the old one's live members
                live = tuple(r for r in self.isr if self._live(r, shutting_down))
                if live != self.isr:
                    self.set_isr(live)
                self.election = "isr"
                return rid
        if self.elr_enabled:
            for rid in self.assignment:
                if rid in self.elr and self._live(rid, shutting_down) and rid not in self.ineligible:
                    self.set_isr((rid,))
                    self.election = "elr"
                    return rid
            last = self.last_known_leader
            if (not self.isr and not self.elr and last is not None and self._live(last, shutting_down)
                    and last not in self.ineligible):
                self.set_isr((last,))
                self.election = "last-known-leader"
                return last
        if self.unclean:
            for rid in self.assignment:
                if self._live(rid, shutting_down):
                    self.set_isr((rid,))
                    self.elr = ()
                    self.election = "unclean"
                    return rid
        self.election = "none"
        return None

    def failure_writes(self, replica_id: str) -> bool:
        """Whether ``on_broker_failure(replica_id)`` would write a new leader or ISR: the broker
        leads, or it leaves the ISR (not as its last member, unless with ELR)."""
        if replica_id in self.dead:
            return False
        return self.leader == replica_id or self._failure_shrinks(replica_id)

    def failure_bumps_epoch(self, replica_id: str) -> bool:
        """Whether ``on_broker_failure(replica_id)`` would write a new leader epoch: the broker
        leads, or it leaves the ISR where a shrink bumps the epoch (not KAFKA-15021's kip966)."""
        return self.failure_writes(replica_id) and (self.leader == replica_id or self.shrink_bumps_epoch)

    def _failure_shrinks(self, replica_id: str) -> bool:
        return replica_id in self.isr and (len(self.isr) > 1 or self.elr_enabled)

    def on_broker_failure(self, replica_id: str) -> bool:
        """Returns whether the controller wrote a new leader/ISR (the partition epoch moves; the
        leader epoch too, unless KAFKA-15021 spares an ISR-only shrink). A broker it already
        handled as failed is no second failure: ``processBrokerChange`` sees only brokers whose
        registration changed (its znode is gone), KRaft fences a broker once."""
        if replica_id in self.dead:
            return False
        changed = self._remove_broker(replica_id)
        self.dead = self.dead | {replica_id}
        return changed

    def _remove_broker(self, replica_id: str) -> bool:
        """The broker leaves the ISR (not as its last member, unless with ELR) and, if it
        leads, a leader is elected without it (KRaft's ``generateLeaderAndIsrUpdates`` with
        ``brokerToRemove``, for a fenced broker or one in controlled shutdown alike)."""
        bumps = self.failure_bumps_epoch(replica_id)
        changed = False
        if self._failure_shrinks(replica_id):
            self.set_isr(tuple(r for r in self.isr if r != replica_id))
            changed = True
        if self.leader == replica_id:
            self._set_leader(self.elect_leader(shutting_down=replica_id))
            changed = True
        if changed:
            self.partition_epoch += 1
            if bumps:
                self.leader_epoch += 1
        return changed

    def controlled_shutdown(self, replica_id: str, kraft: bool) -> bool:
        """A live broker asks to shut down; returns whether the controller wrote a new leader or
        ISR. The broker stays live here (it still applies the change); it stops right after.

        KRaft (3.3 - 4.1, ``ReplicationControlManager.handleBrokerInControlledShutdown``): as for
        a fenced broker - it leaves every ISR (its last member stays, unless with ELR) and a
        partition it leads elects another acceptable leader, else none (-1, offline).
        ZooKeeper (``KafkaController.doControlledShutdown``, 0.9 - 3.9): a partition it leads
        moves to the first replica in assignment order that is live, in the ISR and not
        shutting down, the new ISR being the old one without it
        (``Election.leaderForControlledShutdown``, 0.10.2's ``ControlledShutdownLeaderSelector``);
        if there is none nothing is written (the broker retries, then stops anyway). A
        partition it follows: it leaves the ISR (``OfflineReplica``, never as the last
        member). Every write bumps the leader epoch."""
        if kraft:
            changed = self._remove_broker(replica_id)
            if self.election == "isr":
                self.election = "controlled-shutdown"
            return changed
        if self.leader == replica_id:
            for rid in self.assignment:
                if rid != replica_id and rid in self.isr and rid not in self.dead:
                    self.set_isr(tuple(r for r in self.isr if r != replica_id))
                    self.move_leadership(rid, "controlled-shutdown")
                    return True
            return False
        if replica_id in self.isr and len(self.isr) > 1:
            self.set_isr(tuple(r for r in self.isr if r != replica_id))
            self.leader_epoch += 1
            self.partition_epoch += 1
            return True
        return False

    def alter_partition(self, new_isr: tuple[str, ...], bump_on_shrink: bool) -> bool:
        """Write the leader's accepted ISR change (AlterIsr / AlterPartition); the partition
        epoch moves, and with ``bump_on_shrink`` (KRaft 3.3 to 3.5) a shrink bumps the leader
        epoch too. Returns whether it did."""
        shrink = not set(self.isr) <= set(new_isr)
        self.set_isr(new_isr)
        self.partition_epoch += 1
        if bump_on_shrink and shrink:
            self.leader_epoch += 1
            return True
        return False

    def _set_leader(self, leader: str | None) -> None:
        self.leader = leader
        if leader is not None:
            self.last_known_leader = leader

    def on_broker_startup(self, replica_id: str, unclean_shutdown: bool = False, registers: bool = True) -> bool:
        """A failed broker is back; elect if the partition has no leader. After an unclean
        shutdown (kip966) it is not eligible from the ELR until it rejoins the ISR.
        ``registers``: it registered again (a new broker epoch) - every return in ZooKeeper
        mode (a new session); under KRaft only a new process, not a fenced broker whose
        heartbeats get through again."""
        if replica_id in self.dead:
            self.dead = self.dead - {replica_id}
        if registers:
            epochs = dict(self.broker_epochs)
            epochs[replica_id] += 1
            self.broker_epochs = epochs
        if unclean_shutdown and self.elr_enabled:
            self.ineligible = self.ineligible | {replica_id}
            self.elr = tuple(r for r in self.elr if r != replica_id)
        if self.leader is None:
            new_leader = self.elect_leader()
            if new_leader is not None:
                self._set_leader(new_leader)
                self.leader_epoch += 1
                self.partition_epoch += 1
                return True
        return False

    def move_leadership(self, replica_id: str, election: str = "requested") -> None:
        """Leadership moves to a chosen live replica: a requested election (preferred leader
        election, ``kafka-leader-election``) or, ZooKeeper mode, a controlled shutdown."""
        self.election = election
        self._set_leader(replica_id)
        self.leader_epoch += 1
        self.partition_epoch += 1


#: how an election chose its leader, as the "leader" event and ``hwlib run --json`` name it
ELECTIONS = {
    "isr": "from the ISR",
    "elr": "from the ELR (KIP-966)",
    "last-known-leader": "the last known leader (KIP-966: ISR and ELR empty)",
    "unclean": "unclean: not in the ISR",
    "controlled-shutdown": "controlled shutdown of the old leader",
    "requested": "a requested election",
    "none": "no live replica is eligible: offline",
}


#: the route of an ISR change the controller makes itself (a failed or departing broker, an election)
BY_CONTROLLER = "controller"


def membership_events(controller: Controller, old_isr: tuple[str, ...], old_elr: tuple[str, ...],
                      reason: str, route: str = BY_CONTROLLER) -> list[tuple]:
    """The events for whatever changed in the controller's ISR and (kip966) ELR since
    ``old_isr`` / ``old_elr`` (Kafka 2.7's ISR change listener hears of the same). ``route``:
    how the change reached the controller - the leader's request (``releases.isr_route``) or
    the controller's own (``BY_CONTROLLER``)."""
    out: list[tuple] = []
    if controller.isr != old_isr:
        out.append(("isr", old_isr, controller.isr, reason, route))
    if controller.elr != old_elr:
        out.append(("elr", old_elr, controller.elr))
    return out
