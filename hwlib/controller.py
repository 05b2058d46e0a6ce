"""The controller's view of the partition: leader, leader epoch, ISR, dead brokers, elections.

ZooKeeper-era rules (SPEC sections 7-8): on a broker failure the broker leaves the ISR
unless it is the last member; a failed leader is replaced by the first live ISR member in
assignment order (or, with unclean election, the first live replica, ISR := {it}); every
change the controller writes bumps the leader epoch.
"""

from __future__ import annotations


class Controller:
    __slots__ = ("assignment", "unclean", "leader", "leader_epoch", "isr", "dead")

    def __init__(self, assignment: tuple[str, ...], unclean_leader_election: bool) -> None:
        self.assignment = assignment
        self.unclean = unclean_leader_election
        self.leader: str | None = None
        self.leader_epoch = 0
        self.isr: tuple[str, ...] = tuple(assignment)
        self.dead: set[str] = set()

    def is_live(self, replica_id: str) -> bool:
        """Live as far as the controller knows (an unnoticed crash still looks live)."""
        return replica_id not in self.dead

    def elect_leader(self) -> str | None:
        """offlinePartitionLeaderElection: first live ISR member, else (unclean) first live
        replica with ISR := {it}, else none."""
        for rid in self.assignment:
            if rid in self.isr and rid not in self.dead:
                return rid
        if self.unclean:
            for rid in self.assignment:
                if rid not in self.dead:
                    self.isr = (rid,)
                    return rid
        return None

    def on_broker_failure(self, replica_id: str) -> bool:
        """Returns whether the controller wrote a new leader/ISR (and bumped the epoch)."""
        self.dead.add(replica_id)
        changed = False
        if replica_id in self.isr and len(self.isr) > 1:
            self.isr = tuple(r for r in self.isr if r != replica_id)
            changed = True
        if self.leader == replica_id:
            self.leader = self.elect_leader()
            changed = True
        if changed:
            self.leader_epoch += 1
        return changed

    def on_broker_startup(self, replica_id: str) -> bool:
        """A failed broker is back; elect if the partition has no leader."""
        self.dead.discard(replica_id)
        if self.leader is None:
            new_leader = self.elect_leader()
            if new_leader is not None:
                self.leader = new_leader
                self.leader_epoch += 1
                return True
        return False

    def move_leadership(self, replica_id: str) -> None:
        self.leader = replica_id
        self.leader_epoch += 1
