"""The model checker's reductions: what it leaves out of a state, each a named predicate with why that is sound.

The engine's parts declare the whole state (``Cluster.key`` with a plain
``hwlib.engine.state_key.KeyContext``). ``Reductions`` answers some of the questions the
parts ask of it with less, so that two states differing only there share one fingerprint;
each answer calls the predicate below that names it, and each predicate's docstring gives the
argument: what it leaves out is never read again - by any step, in this state or later, nor
by any check - or is read only in a form the reduction keeps. Reductions 7 and 8 besides
leave transitions untaken (``settles_at_once``, ``refused``), as does a flush with nothing to
make durable (``flushes_nothing``: no reduction, the step makes the state it leaves). Each
has its equivalence test in ``tests/check/test_reductions.py`` (what it leaves out, scrambled
in a copy, changes neither the events nor the reduced key of any later step), and
``tests/check/test_check.py`` holds the reduced search to the whole one (``Renamings``: every
field, up to an order-preserving renaming of the two counters that only grow, without which
the whole space never ends): the same verdicts, shortest depths and counterexamples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.produce_request import PENDING
from ..engine.replica import LEADER
from ..engine.state_key import KeyContext, text_code

if TYPE_CHECKING:
    from ..engine.cluster import Cluster
    from ..engine.protocols import Protocol
    from ..engine.replica import Replica
    from ..engine.steps import Step

#: the produce statuses in which the producer still acts on a request
LIVE_STATUSES = frozenset((PENDING, "retrying", "queued"))


# ------------------------------------------------------------------------------ the predicates
def finished_request(status: str) -> bool:
    """**1. A finished produce request keeps only its value.** Once a request is neither
    pending (waiting in a leader's purgatory), retrying nor queued, the producer never reads its
    offset, leader, epoch, status, deadline or attempts again (``Producer``: a retry takes
    ``retrying``, a send ``queued``, an answer one in ``DelayedOperations.produces``; its status
    says which, ``tests/check/test_reductions.py`` holds the two to each other); the checks read
    the values in send order (duplicates, order) and the acknowledged list (kept), and its offset
    only for the text of a lost-write's detail."""
    return status not in LIVE_STATUSES


def offline(online: bool) -> bool:
    """**2. An offline replica keeps only what survives a restart.** ``Cluster.restart``
    overwrites its role, leader, leader epoch, fetch state, cached ISR, isolation, "awaiting a
    leader" flag and partition epoch, drops its queued changes, and sets the HW from the
    checkpoint (the stop dropped its request in flight, its purgatory, its AlterIsr and its view
    of the followers); while it is down no step reads them (every step and delivery to an
    offline broker skips, and the checks compare only online replicas' roles and HWs). Kept: its
    log, flushed offset, HW checkpoint, epoch cache, the unnoticed-crash clock and the
    unclean-shutdown flag. (Its HW equals min(checkpoint, LEO) from the crash on.)"""
    return not online


def unclean_flag_read(elr: bool) -> bool:
    """**3a. The unclean-shutdown flag is read only by a controller with Eligible Leader
    Replicas** (kip966, KIP-966: a replica back from an unclean shutdown is not eligible until
    it rejoins the ISR); elsewhere it is cleared by the restart that would read it."""
    return elr


def join_floor(generation: Protocol, leader_epoch_start: int) -> int:
    """**3b. The start offset of the leader's epoch is read only through
    ``Protocol.isr_join_floor``** (a follower joins the ISR from there on, KAFKA-7128, 2.0.1+;
    0 before kip320): kept as that rule reads it."""
    return generation.isr_join_floor(leader_epoch_start)


def asked_epoch_unread() -> bool:
    """**4. The epoch a request in flight asked about** is written only into events: the
    leader's answer is computed when the request arrives (``ReplicaManager.fetch_messages``)."""
    return True


def member_epochs_read(generation: Protocol) -> bool:
    """**5. An AlterIsr's member broker epochs** are compared by the controller only from Kafka
    3.5 (KIP-903, kip903+: ``alter_isr_checks_broker_epochs``); before, whether they are current
    is not state. Where they are read, only whether each is still the member's current
    registration is (registrations only move forward), so the controller's broker epochs are
    kept as that comparison, and so is a KRaft AlterPartition's partition epoch (the
    controller compares it with its own); the request's reason is written only into events."""
    return generation.alter_isr_checks_broker_epochs


def last_fetch_unread(last_fetch_ms: int, last_caught_up_ms: int) -> bool:
    """**6. A follower's last fetch, once it caught up then.** The leader's view of a follower
    keeps, besides its LEO and caught-up time, the leader's LEO and the time of the follower's
    last fetch; Kafka's ``Replica.updateFetchState`` (2.x-3.x) reads the two only to move the
    caught-up time back to that fetch (``lastFetchTimeMs > lastCaughtUpTimeMs``), nothing else
    reads them, and every write of the caught-up time - the next fetch, a ``make_leader`` -
    writes both anew. So once the caught-up time is at or after the last fetch they can never
    act, and are left out."""
    return last_fetch_ms <= last_caught_up_ms


def isolation_settled(cluster: Cluster, r: Replica) -> bool:
    """**7. An unnoticed isolation, once the control plane is frozen** - whether running broker
    ``r``'s unnoticed isolation can no longer act, once the leader epoch is at
    ``space.settled_epoch``: the controller counts it live and its noticed failure would write a new
    leader or ISR (a new leader epoch: past the bound). Where a leader's ISR change is an
    AlterIsr the isolation holds (kip595 and KRaft), a leader has no AlterIsr in flight and can
    send none: it leads in the controller's leader epoch with every replica in its ISR -
    nothing to expand, and a shrink needs a tick (``Partition.maybe_shrink_isr``) - and nothing
    waits for it. Otherwise, in ZooKeeper mode nothing waits for it and (kip595) it has no
    AlterIsr in flight; under KRaft it follows the controller's leader in the controller's
    leader epoch (so what waits for it can only be ISR expansions of that epoch, which a
    follower applies by moving its partition epoch alone) and has no AlterPartition in flight.

    The argument. In ZooKeeper-era Kafka every leader or ISR the controller writes carries a
    new leader epoch (``LeaderAndIsr.newLeaderAndIsr``, 0.10.2 to 3.x), and that is all it
    sends a broker by LeaderAndIsr; a leader's own ISR change (a ZooKeeper write, from 2.7 an
    AlterIsr) is not sent to the replicas as a LeaderAndIsr. So at the epoch bound every
    further request would leave the bound (the search cuts that state), and a cut-off broker's
    flag is read only by the guards of its own ``isolate`` / ``reconnect`` / ``deliver`` - when
    this holds, ``reconnect`` leads to the same state without the flag, ``isolate_unseen``
    back, ``deliver`` has nothing to deliver, and a noticed ``isolate`` from the state without
    the flag leaves the bound (a new epoch) where the state with it cannot take it. Where a
    leader's ISR change is an AlterIsr (kip595 and KRaft) the leader's flag is read besides by
    that change, held while it is cut off (``Partition.update_isr``), so a leader settles only
    when it has none to send. Every other step acts alike on both, keeps the condition or
    leaves the bound (or takes the broker down or restarts it: then the flag is gone from
    both), and no check reads the flag. So the two states have the same futures, step for step,
    and share one fingerprint: the search keeps the first met, at the smaller depth. Under
    KRaft 3.3 to 3.5 (kip841, kip903) every partition change the controller writes carries a
    new leader epoch except an ISR expansion (an AlterPartition; 3.3's
    ``PartitionChangeBuilder`` bumps the epoch only when the new ISR lacks a member of the
    old), which every broker replays (``Channel.publish``) and a cut-off one finds waiting. A
    follower that already follows the controller's leader in its epoch applies such a change
    by moving its partition epoch alone (3.3's ``Partition.makeFollower`` returns false
    without a new leader epoch, and ``ReplicaManager.applyLocalFollowersDelta`` restarts no
    fetcher then; here ``ReplicaManager.become_leader_or_follower``), and only a later
    change's staleness reads that (3.3's fetch request carries no partition epoch); a fenced
    broker never joins the ISR (KIP-841). So, settled, the broker is written as reconnected:
    no flag, no queue, and the newest waiting change's partition epoch as its own (what
    ``reconnect`` and ``deliver`` make of it, one change at a time or in one delta) - the
    state of its twin that was never cut off and applied each change as it came."""
    ctl = cluster.controller
    if r.id in ctl.dead or not ctl.failure_writes(r.id) or r.alter_isr is not None:
        return False
    protocol, waiting = cluster.protocol, cluster.channel.queues[r.id]
    if r.role == LEADER and protocol.alter_isr_via_controller:
        return (r.id == ctl.leader and r.leader_epoch == ctl.leader_epoch and not waiting
                and len(r.isr) == len(cluster.replicas))
    if protocol.kraft:
        return r.leader_epoch == ctl.leader_epoch and r.leader_id == ctl.leader
    return not waiting


def settles_at_once(cluster: Cluster, step: Step, settled: int | None) -> bool:
    """Whether ``step``, which can act on ``cluster``, is an unnoticed isolation that reduction 7
    merges with the state it leaves (``settled``: the search's ``space.settled_epoch``): the leader
    epoch is at ``settled`` and the broker's isolation would be settled at once - ``isolate``
    without ``detected`` sets the flag and nothing else the condition reads (the controller's
    view; the broker's queue, role, leader, leader epoch, ISR and AlterIsr), so the state it
    makes has the fingerprint of the one it leaves, and its checks find nothing new there: every
    cluster value they read is the same, and each reports a violation only when it appears (see
    ``AnomalyChecker.observe``). The search takes no such step."""
    if settled is None or step.kind != "isolate" or step.detected or step.replica is None:
        return False
    return cluster.controller.leader_epoch >= settled and isolation_settled(cluster, cluster.by_id[step.replica])


def flushes_nothing(cluster: Cluster, step: Step) -> bool:
    """Whether ``step``, which can act on ``cluster``, is a ``flush`` with nothing to make
    durable: the replica's log is flushed to its LEO and its HW checkpoint is its HW. Taken,
    it writes the same two values again (``Cluster.flush``: ``ReplicaLog.flush``, the HW
    checkpoint) and logs a ``flush`` event, which no check reads (``AnomalyChecker``'s
    irrelevant events) - so the state it makes is the one it leaves, and its checks find
    nothing new there (every value they read is the same). The search takes no such step
    where it charges no budget (``Search.transition``): a budgeted flush spends one, which
    makes another state. In a search of 4.1 under power loss at 3 replicas, over half the
    flushes tried are such."""
    if step.kind != "flush" or step.replica is None:
        return False
    r = cluster.by_id[step.replica]
    return r.log.flushed == len(r.log.values) and r.hw_checkpoint == r.hw


def refused(cluster: Cluster, step: Step) -> bool:
    """**8. A refused fetch request** - whether ``step``, which can act on ``cluster``, is a
    follower's fetch that starts a request (``fetch_request``, or a whole ``fetch`` with
    nothing in flight) which the broker it believes leads refuses before reading anything
    (``ReplicaManager.request_error``: not the leader, or - kip320+ - a leader epoch that is not
    its own).

    In the engine such a request changes nothing but the follower's request in flight (as in
    Kafka from 2.4, where ``ReplicaManager`` skips the follower's fetch state when the read
    failed, KAFKA-8400; 0.11 to 2.3 wrote placeholder values, -1, into it until the next
    successful fetch, which could only hold back the HW and an ISR expansion - not modelled),
    and its answer changes nothing but that: the fetcher backs off and tries again
    (``handle_response``: a ``refused`` event, which no check reads; Kafka 2.1+ stops fetching
    after FENCED_LEADER_EPOCH until the next LeaderAndIsr, where every retry is refused alike).
    ``tests/check/test_refusals.py`` holds the engine to this.

    So a whole ``fetch`` refused makes the state it leaves, and a ``fetch_request`` refused
    makes one that the search need not keep (``Search.transition``): a state ``S`` whose
    follower waits for a refusal, against its twin ``S0`` without it. Every step acts alike on
    both but three: ``S0``'s follower can also start a new request; ``S``'s ``fetch`` delivers
    the refusal, which makes ``S0``; and a step that drops the request (a crash, a LeaderAndIsr
    that restarts the fetcher, the addressed leader stepping down) makes the two one. No guard
    but the follower's own fetch reads its request in flight, and no check reads it
    (``AnomalyChecker``). So whatever ``S`` reaches in ``n`` steps, ``S0`` reaches in at most
    ``n``, through transitions that report the same; and ``S0`` is met a level before ``S``:
    the schedule to ``S`` without the ``fetch_request`` that sent the refusal leads there, each
    of its later steps acting alike (the first point above). Breadth first, ``S0`` is therefore
    known when ``S`` is made, and every state and every report found through ``S`` is found
    sooner through ``S0``: the same verdicts, shortest depths and counterexamples, in fewer
    states (those with a refusal in flight are not kept)."""
    if step.replica is None or (step.kind != "fetch_request" and step.kind != "fetch"):
        return False
    follower = cluster.by_id[step.replica]
    if follower.in_flight is not None or follower.leader_id is None:
        return False
    return cluster.replica_manager.request_error(cluster.by_id[follower.leader_id], follower) is not None


def age_past_cap(age: int, cap: int) -> int:
    """**9. An age past what its rule compares it with.** Every time a rule reads is an age
    compared with one cap - a follower's caught-up time and last fetch with
    replica.lag.time.max.ms (``Partition.maybe_shrink_isr``), an unnoticed crash with the
    session timeout (``Clock``), the last commit with auto.commit.interval.ms (``Consumer``) -
    and ages only grow until the next write of the time, so an age past the cap behaves like
    any larger one: kept as cap + 1."""
    return age if age <= cap else cap + 1


def deadline_unwaited(waiting: bool) -> bool:
    """**10. A deadline no one waits on.** A fetch's deadline is read only while it is parked
    in its leader's purgatory (``DelayedOperations.expire``) and a produce request's only while
    it is pending there; each new wait writes it anew."""
    return not waiting


def crash_noticed(replica_id: str, dead: set[str]) -> bool:
    """**11. The crash clock of a crash the controller noticed.** The time of a crash is read
    only to end the session of a crash the controller has not noticed (``Clock``: a session
    that lapses); once the broker is counted dead, or running again (the restart clears it),
    it is never read."""
    return replica_id in dead


def partition_epoch_ranks(cluster: Cluster, merged: list[bool]) -> dict[int, int]:
    """**12. Partition epochs by their order.** ZooKeeper-era rules never read a partition
    epoch (the zkVersion the controller writes): {} - every one is 0. KRaft (kip841+) compares
    them - the controller's, each replica's, each queued change's - only with one another (a
    change is stale below the broker's; the controller's next value is above all of them), so
    an order-preserving renaming is the same state: each is kept as its rank among the values
    present. Left out of that: an offline replica's (reduction 2: a restart forgets its
    partition epoch and drops its queue), and the queue of a broker ``merged`` with its
    reconnected twin (reduction 7: its newest queued change's epoch is its own)."""
    if not cluster.protocol.kraft:
        return {}
    ctl, queues = cluster.controller, cluster.channel.queues
    current = ctl.partition_epoch
    others: list[int] = []          # the values present besides the controller's (most states: none)
    replicas = cluster.replicas
    for i in range(len(replicas)):      # (not ``zip(..., strict=True)``: a generic call when compiled)
        r, twin = replicas[i], merged[i]
        if not r.online:
            continue
        waiting = queues[r.id]
        if twin and waiting:
            if waiting[-1].partition_epoch != current:
                others.append(waiting[-1].partition_epoch)
            continue
        if r.partition_epoch != current:
            others.append(r.partition_epoch)
        if not twin:
            for q in waiting:
                if q.partition_epoch != current:
                    others.append(q.partition_epoch)
    if not others:
        return {current: 0}
    others.append(current)
    return counter_ranks(set(others))


def metadata_unread(stale: bool) -> bool:
    """**13. What the clients learned, where they always ask the controller.** With
    ``client_metadata: current`` every request takes the controller's current leader and epoch
    (``ClientMetadata.view``) and nothing updates what each client learned."""
    return not stale


# ------------------------------------------------------------------- the reduced key contexts
def counter_ranks(values: set[int]) -> dict[int, int]:
    """Each value by its rank among ``values`` (an order-preserving renaming)."""
    return {value: i for i, value in enumerate(sorted(values))}


class ModelKeys(KeyContext):
    """A search's key context: it reads the whole state of each state it keys (``prepare``), so a
    state is keyed through ``key_of``, never by ``Cluster.key`` alone (``at`` refuses that)."""

    def __init__(self, replicas: tuple[str, ...] | list[str], values: dict[str, int]) -> None:
        super().__init__(replicas, values)
        #: the state being keyed (``key_of``), None between states
        self.cluster: Cluster | None = None

    def key_of(self, cluster: Cluster) -> tuple:
        """``cluster``'s key as this context takes it."""
        self.prepare(cluster)
        self.cluster = cluster
        try:
            return cluster.key(self)
        finally:
            self.cluster = None

    def prepare(self, cluster: Cluster) -> None:
        """Before ``cluster``'s parts give their keys: what the answers read of the whole state."""

    def at(self, now: int, lag: int, session: int, auto_commit: int) -> None:
        if self.cluster is None:
            raise AssertionError("a search's key context keys a state through key_of(cluster)")
        KeyContext.at(self, now, lag, session, auto_commit)


class Renamings(ModelKeys):
    """The whole state up to an order-preserving renaming of the two counters that only grow -
    each broker's registration (broker epoch) and the partition epoch: the rules compare them
    only with one another (a registration with the one an AlterIsr carries, a partition epoch
    with another), so each is kept as its rank among the values of its kind present (reduction
    12's argument, without its other parts). Without it a search of the whole state never ends
    - a broker can re-register any number of times within every other bound -, with it the
    whole state is finite within the bounds, so the reduced search can be held to it
    (``reduced=False``)."""

    def __init__(self, replicas: tuple[str, ...] | list[str], values: dict[str, int]) -> None:
        super().__init__(replicas, values)
        #: per state (``prepare``): the ranks of the registrations and of the partition epochs present
        self.registrations: dict[int, int] = {}
        self.ranks: dict[int, int] = {}

    def prepare(self, cluster: Cluster) -> None:
        ctl = cluster.controller
        registrations = set(ctl.broker_epochs.values())
        epochs = {ctl.partition_epoch}
        for r in cluster.replicas:
            epochs.add(r.partition_epoch)
            epochs.update([q.partition_epoch for q in cluster.channel.queues[r.id]])
            if r.alter_isr is not None:
                registrations.update(r.alter_isr[3])
                epochs.add(r.alter_isr[2])
        self.registrations = counter_ranks(registrations)
        self.ranks = counter_ranks(epochs)

    def alter_isr(self, request: tuple) -> tuple:
        new_isr, epoch, partition_epoch, member_epochs, reason = request
        ranks = self.registrations
        return (self.ids(new_isr), epoch, self.ranks[partition_epoch], tuple([ranks[e] for e in member_epochs]),
                text_code(reason))

    def broker_epochs(self, epochs: dict[str, int], assignment: tuple[str, ...]) -> tuple[int, ...]:
        ranks = self.registrations
        return tuple([ranks[epochs[r]] for r in assignment])

    def partition_epoch(self, value: int) -> int:
        return self.ranks[value]

    def own_partition_epoch(self, partition_epoch: int, replica_id: str, index: int) -> int:
        return self.ranks[partition_epoch]


class Reductions(ModelKeys):
    """The state key with every reduction: each question a part asks (``KeyContext``)
    answered through the predicate that names its reduction. ``settled``: the search's
    ``space.settled_epoch`` (None: reduction 7 is off)."""
    def __init__(self, replicas: tuple[str, ...] | list[str], values: dict[str, int],
                 settled: int | None = None) -> None:
        super().__init__(replicas, values)
        self.settled = settled
        #: per state (``prepare``): the rules, the controller's ISR-change check, the brokers it
        #: counts dead, the brokers merged with their reconnected twins (reduction 7), partition
        #: epochs' ranks, the controller's registrations and partition epoch, the queues
        self.elr = False
        self.member_epochs = False
        self.kraft = False
        self.dead: set[str] = set()
        self.merged: list[bool] = []
        self.ranks: dict[int, int] = {}
        self.registered: dict[str, int] = {}
        self.controller_epoch = 0
        self.queues: dict[str, list] = {}
        self.protocol: Protocol | None = None

    def prepare(self, cluster: Cluster) -> None:
        protocol = cluster.protocol
        ctl = cluster.controller
        self.protocol = protocol
        self.elr = unclean_flag_read(ctl.elr_enabled)
        self.member_epochs = member_epochs_read(protocol)
        self.kraft = protocol.kraft
        self.dead = ctl.dead
        self.registered = ctl.broker_epochs
        self.controller_epoch = ctl.partition_epoch
        self.queues = cluster.channel.queues
        settled = self.settled
        frozen = settled is not None and ctl.leader_epoch >= settled
        self.merged = [frozen and r.online and r.isolated and isolation_settled(cluster, r) for r in cluster.replicas]
        self.ranks = partition_epoch_ranks(cluster, self.merged)

    def age(self, then: int, cap: int) -> int:
        return age_past_cap(self.now - then, cap)

    def deadline(self, deadline: int, waiting: bool) -> int:
        return 0 if deadline_unwaited(waiting) else deadline - self.now

    def crash_clock(self, crashed_at_ms: int | None, replica_id: str) -> int:
        if crashed_at_ms is None or crash_noticed(replica_id, self.dead):
            return -1
        return age_past_cap(self.now - crashed_at_ms, self.session)

    def forgets_offline(self, online: bool) -> bool:
        return offline(online)

    def unclean_flag(self, unclean_shutdown: bool) -> int:
        return int(unclean_shutdown and self.elr)

    def join_floor(self, leader_epoch_start: int) -> int:
        protocol = self.protocol
        assert protocol is not None
        return join_floor(protocol, leader_epoch_start)

    def cut_off(self, isolated: bool, index: int) -> int:
        return int(isolated and not self.merged[index])

    def last_fetch_read(self, last_fetch_ms: int, last_caught_up_ms: int) -> bool:
        return not last_fetch_unread(last_fetch_ms, last_caught_up_ms)

    def asked_epoch(self, asked_epoch: int) -> int:
        return 0 if asked_epoch_unread() else asked_epoch

    def alter_isr(self, request: tuple) -> tuple:
        """(new ISR, leader epoch, whether every member's broker epoch is current - where the
        controller compares them, else -1 -, whether its partition epoch is the controller's -
        KRaft, else -1): all the controller reads of it (reduction 5)."""
        new_isr, epoch, request_partition_epoch, member_epochs, _reason = request
        current = -1
        if self.member_epochs:
            epochs = self.registered
            current = int(all(epochs[r] == e for r, e in zip(new_isr, member_epochs, strict=True)))
        same = int(request_partition_epoch == self.controller_epoch) if self.kraft else -1
        return (self.ids(new_isr), epoch, current, same)

    def broker_epochs(self, epochs: dict[str, int], assignment: tuple[str, ...]) -> tuple[int, ...]:
        return ()

    def partition_epoch(self, value: int) -> int:
        return self.ranks[value] if self.kraft else 0

    def own_partition_epoch(self, partition_epoch: int, replica_id: str, index: int) -> int:
        if not self.kraft:
            return 0
        waiting = self.queues[replica_id]
        if self.merged[index] and waiting:
            return self.ranks[waiting[-1].partition_epoch]
        return self.ranks[partition_epoch]

    def queue_read(self, online: bool, index: int) -> bool:
        return not offline(online) and not self.merged[index]

    def finished(self, status: str) -> bool:
        return finished_request(status)

    def known_leaders_read(self, stale: bool) -> bool:
        return not metadata_unread(stale)
