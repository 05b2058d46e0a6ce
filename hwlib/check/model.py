"""The model the checker searches: bounds, the alphabet of steps, which can act, the canonical state and fingerprint.

``state_key`` covers everything that decides the cluster's future - every replica (log,
HW and its checkpoint, role, what it knows of the leader, its fetcher, the leader-side view
of its followers, its purgatory), the controller, the queued LeaderAndIsr requests, the
clients' requests and metadata, the periodic tasks - and leaves out what only observes it
(events, polls, rewrite markers, cache versions, error counts). Time is kept relative to
``now`` and clamped to what the rules compare: an age past ``replica.lag.time.max.ms`` (or the
session timeout, or the auto-commit interval) behaves like any larger one, and deadlines
count from now. So two runs that differ only in when they got somewhere share one state.

Everything is an integer (replicas by index, record values by the checker's numbering,
names by a fixed code table), so Python's ``hash`` of a key is the same in every process: a
fingerprint that a resumed or distributed search can share. Which steps can act is asked of
the engine (``Cluster.skip_reason``), where each step keeps its guard beside its effect; which
of them the search need not take is said here, each with its argument (``Bounds.cuts``,
``settles_at_once``, ``refused``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..engine.config import ClusterConfig, replica_names
from ..engine.kafka_errors import (
    DIVERGING,
    FENCED_LEADER_EPOCH,
    NETWORK_EXCEPTION,
    NOT_ENOUGH_REPLICAS,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    NOT_LEADER_OR_FOLLOWER,
    OFFSET_OUT_OF_RANGE,
    OUT_OF_ORDER_SEQUENCE_NUMBER,
    REQUEST_TIMED_OUT,
    UNKNOWN_LEADER_EPOCH,
)
from ..engine.protocols import Protocol
from ..engine.releases import rules_named
from ..engine.replica import FETCHING, FOLLOWER, LEADER, OFFLINE, TRUNCATING
from ..engine.steps import Step
from .vocabulary import DEFAULT_MAX_EPOCH, DEFAULT_MAX_RECORDS, DEFAULT_REPLICAS, CheckError

if TYPE_CHECKING:
    from ..anomalies import AnomalyChecker
    from ..engine.cluster import Cluster
    from ..engine.log import ReplicaLog
    from ..engine.replica import Replica

#: every name a state holds, as a small integer (an unknown name is a bug: KeyError)
_CODES: dict[str | None, int] = {name: i for i, name in enumerate((
    None, LEADER, FOLLOWER, OFFLINE, FETCHING, TRUNCATING, "fetch", "epoch", "0", "1", "all",
    "pending", "queued", "retrying", "acked", "no-answer", NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
    UNKNOWN_LEADER_EPOCH, DIVERGING, OFFSET_OUT_OF_RANGE, NETWORK_EXCEPTION, NOT_ENOUGH_REPLICAS,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT, OUT_OF_ORDER_SEQUENCE_NUMBER))}


#: each replica's index by its name, per assignment (the same for every state of a search)
_INDEXES: dict[tuple[str, ...], dict[str, int]] = {}


def _index(replicas: tuple[str, ...]) -> dict[str, int]:
    index = _INDEXES.get(replicas)
    if index is None:
        index = _INDEXES[replicas] = {rid: i for i, rid in enumerate(replicas)}
    return index


def _age(now: int, then: int, cap: int) -> int:
    """How long ago ``then`` was, as far as a rule comparing it with ``cap`` can tell."""
    age = now - then
    return age if age <= cap else cap + 1


def _records(log: ReplicaLog, values: dict[str, int]) -> tuple:
    """A log's records as the state key holds them - (values, epochs, sequence numbers), values
    by their numbers - kept in the log's ``memo`` until it writes them (a clone shares it)."""
    memo = log.memo
    if memo is None or memo[0] is not values:
        memo = log.memo = (values, tuple([values[v] for v in log.values]), tuple(log.epochs), tuple(log.seqs))
    return memo


def _rid(index: dict[str, int], replica_id: str | None) -> int:
    """A replica by its index (-1: none)."""
    return -1 if replica_id is None else index[replica_id]


def _answer(answer: object) -> tuple[int, ...]:
    if answer is None:
        return ()
    if isinstance(answer, tuple):
        return (int(answer[0]), int(answer[1]))
    return (int(answer),)        # type: ignore[call-overload]


def _alter_isr(request: tuple | None, broker_epochs: dict[str, int] | None, index: dict[str, int],
               partition_epoch: int | None) -> tuple:
    """A leader's AlterIsr in flight (kip595+): its ISR, its epoch, whether every member's
    broker epoch it carries is still current (``broker_epochs`` given: the generation's
    controller compares them) and (KRaft, ``partition_epoch`` given) whether its partition epoch
    is the controller's - all the controller reads of it (registrations and partition epochs
    only move forward, so their absolute values are not state)."""
    if request is None:
        return ()
    new_isr, epoch, request_partition_epoch, member_epochs, _reason = request
    current = -1 if broker_epochs is None else int(all(
        broker_epochs[r] == e for r, e in zip(new_isr, member_epochs, strict=True)))
    same = -1 if partition_epoch is None else int(request_partition_epoch == partition_epoch)
    return (tuple(index[r] for r in new_isr), epoch, current, same)


def _partition_epochs(cluster: Cluster, reduced: bool, merged: list[bool]) -> tuple:
    """KRaft (kip841+): the partition epochs a broker compares - the controller's, each
    replica's, each queued change's - as their ranks among the values present. Only their
    order is ever read (a change is stale below the broker's; the controller's next value is
    above all of them), so an order-preserving renaming is the same state. ZooKeeper-era
    generations never read them: (). Reduced, an offline replica's are left out: a restart
    forgets its partition epoch and drops its queue (reduction 2); a broker ``merged`` with its
    reconnected twin (a settled isolation, reduction 7) has its queue as applied: the newest
    change's epoch, no queue."""
    if not cluster.protocol.kraft:
        return ()
    ctl, queues = cluster.controller, cluster.channel.queues
    kept = [r.online or not reduced for r in cluster.replicas]
    own = [queues[r.id][-1].partition_epoch if twin and queues[r.id] else r.partition_epoch
           for r, twin in zip(cluster.replicas, merged, strict=True)]
    present = {ctl.partition_epoch}
    for r, keep, epoch, twin in zip(cluster.replicas, kept, own, merged, strict=True):
        if keep:
            present.add(epoch)
            if not twin:
                present.update(q.partition_epoch for q in queues[r.id])
    rank = {value: i for i, value in enumerate(sorted(present))}
    return (rank[ctl.partition_epoch],
            tuple(rank[epoch] if keep else -1 for epoch, keep in zip(own, kept, strict=True)),
            tuple(tuple(rank[q.partition_epoch] for q in queues[r.id]) if keep and not twin else ()
                  for r, keep, twin in zip(cluster.replicas, kept, merged, strict=True)))


def settled_epoch(generation: Protocol, bounds: Bounds, faults: tuple[str, ...]) -> int | None:
    """The leader epoch from which an unnoticed isolation can settle (reduction 7 of
    ``state_key``) in a search of ``protocol`` within ``bounds`` and ``faults``: the epoch
    bound, where every change the controller could still send a broker carries a new leader
    epoch - in ZooKeeper mode (hw to kip595) all of them, under KRaft 3.3-3.5 (kip841, kip903)
    all but an ISR expansion - with no controller failover (which sends the current state
    again, queued for a broker it cannot reach) and no ticks (a leader's lag-driven ISR shrink
    keeps the epoch before KRaft, and may take the isolated broker out of the ISR). None where
    it never settles: where an ISR shrink keeps the leader epoch (kip966, KAFKA-15021), under
    KRaft with a queue bound (``Bounds.beyond`` reads what waits for a cut-off broker, which
    the reduction leaves out), and the cases above."""
    if not generation.isr_shrink_bumps_leader_epoch or "controller_failover" in faults:
        return None
    if generation.kraft and bounds.max_queued is not None:
        return None
    if "tick" in faults and bounds.max_ticks > 0:
        return None
    return bounds.max_epoch


def _isolation_settled(cluster: Cluster, r: Replica) -> bool:
    """Whether running broker ``r``'s unnoticed isolation can no longer act, once the leader
    epoch is at ``settled_epoch`` (reduction 7 of ``state_key``): the controller counts it
    live and its noticed failure would write a new leader or ISR (a new leader epoch: past the
    bound). Where a leader's ISR change is an AlterIsr the isolation holds (kip595 and KRaft),
    a leader has no AlterIsr in flight and can send none: it leads in the controller's leader
    epoch with every replica in its ISR - nothing to expand, and a shrink needs a tick
    (``Partition.maybe_shrink_isr``) - and nothing waits for it. Otherwise, in ZooKeeper mode
    nothing waits for it and (kip595) it has no AlterIsr in flight; under KRaft it follows the
    controller's leader in the controller's leader epoch (so what waits for it can only be ISR
    expansions of that epoch, which a follower applies by moving its partition epoch alone) and
    has no AlterPartition in flight."""
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
    of ``state_key`` merges with the state it leaves (``settled``: the search's
    ``settled_epoch``): the leader epoch is at ``settled`` and the broker's isolation would be
    settled at once - ``isolate`` without ``detected`` sets the flag and nothing else the
    condition reads (the controller's view; the broker's queue, role, leader, leader epoch, ISR
    and AlterIsr), so the state it makes has the fingerprint of the one it leaves, and its checks
    find nothing new there: every cluster value they read is the same, and each reports a
    violation only when it appears (see ``AnomalyChecker.observe``). The search takes no such
    step."""
    if settled is None or step.kind != "isolate" or step.detected or step.replica is None:
        return False
    return cluster.controller.leader_epoch >= settled and _isolation_settled(cluster, cluster.by_id[step.replica])


def refused(cluster: Cluster, step: Step) -> bool:
    """Whether ``step``, which can act on ``cluster``, is a follower's fetch that starts a
    request (``fetch_request``, or a whole ``fetch`` with nothing in flight) which the broker it
    believes leads refuses before reading anything (``ReplicaManager.request_error``: not the
    leader, or - kip320+ - a leader epoch that is not its own).

    In the engine such a request changes nothing but the follower's request in flight (as in
    Kafka from 2.4, where ``ReplicaManager`` skips the follower's fetch state when the read
    failed, KAFKA-8400; 0.11 to 2.3 wrote placeholder values, -1, into it until the next
    successful fetch, which could only hold back the HW and an ISR expansion - not modelled),
    and its answer changes nothing but that: the fetcher backs off and tries again
    (``handle_response``: a ``refused`` event, which no check reads; Kafka 2.1+ stops fetching
    after FENCED_LEADER_EPOCH until the next LeaderAndIsr, where every retry is refused alike).
    ``tests/check/test_refusals.py`` holds the engine to this.

    So a whole ``fetch`` refused makes the state it leaves, and a ``fetch_request`` refused
    makes one that the search need not keep - reduction 8 (``Search.transition``): a state ``S``
    whose follower waits for a refusal, against its twin ``S0`` without it. Every step acts
    alike on both but three: ``S0``'s follower can also start a new request; ``S``'s ``fetch``
    delivers the refusal, which makes ``S0``; and a step that drops the request (a crash, a
    LeaderAndIsr that restarts the fetcher, the addressed leader stepping down) makes the two
    one. No guard but the follower's own fetch reads its request in flight, and no check reads
    it (``AnomalyChecker``). So whatever ``S`` reaches in ``n`` steps, ``S0`` reaches in at most
    ``n``, through transitions that report the same; and ``S0`` is met a level before ``S``: the
    schedule to ``S`` without the ``fetch_request`` that sent the refusal leads there, each of
    its later steps acting alike (the first point above). Breadth first, ``S0`` is therefore
    known when ``S`` is made, and every state and every report found through ``S`` is found
    sooner through ``S0``: the same verdicts, shortest depths and counterexamples, in fewer
    states (those with a refusal in flight are not kept).
    """
    if step.replica is None or (step.kind != "fetch_request" and step.kind != "fetch"):
        return False
    follower = cluster.by_id[step.replica]
    if follower.in_flight is not None or follower.leader_id is None:
        return False
    return cluster.replica_manager.request_error(cluster.by_id[follower.leader_id], follower) is not None


def state_key(cluster: Cluster, values: dict[str, int], reduced: bool = True, settled: int | None = None) -> tuple:
    """The canonical state (see the module's docstring); ``values`` numbers the record values;
    ``settled``: the search's ``settled_epoch`` (None: reduction 7 is off).

    ``reduced`` (the default) leaves out, besides what only observes the cluster, what no later
    step and no check can read in this state - so two states that differ only there share one
    fingerprint. Each reduction, and why it is sound (``tests/check/test_check.py`` holds the reduced
    search to the unreduced one: the same verdicts, shortest depths and counterexamples):

    1. **A finished produce request keeps only its value.** Once a request is neither pending,
       retrying nor queued, the producer never reads its offset, leader, epoch, status or
       attempts again; the checks read the values in send order (duplicates, order) and the
       acknowledged list (kept), and its offset only for the text of a lost-write's detail.
    2. **An offline replica keeps only what survives a restart.** ``Cluster.restart``
       overwrites its role, leader, leader epoch, fetch state, cached ISR, isolation and
       "awaiting a leader" flag, drops its LeaderAndIsr queue, and sets the HW from the
       checkpoint; while it is down no step reads them (every step and delivery to an offline
       broker skips, and the checks compare only online replicas' roles and HWs). Kept: its
       log, flushed offset, HW checkpoint, epoch cache, the unnoticed-crash clock and the
       unclean-shutdown flag. (Its HW equals min(checkpoint, LEO) from the crash on.)
    3. **Values read only through a generation's rule are kept as that rule reads them.** The
       start offset of the leader's epoch is read only by ``isr_join_floor`` (0 before kip320),
       the unclean-shutdown flag only by a controller with Eligible Leader Replicas (kip966).
    4. **The epoch a request in flight asked about** is written only into events (the leader's
       answer is computed when the request arrives).
    5. **An AlterIsr's member broker epochs** are compared by the controller only from Kafka 3.5
       (KIP-903, kip903+: ``alter_isr_checks_broker_epochs``); before, whether they are current
       is not state.
    6. **A follower's last fetch, once it caught up then.** The leader's view of a follower
       keeps, besides its LEO and caught-up time, the leader's LEO and the time of the
       follower's last fetch; Kafka's ``Replica.updateFetchState`` (2.x-3.x) reads the two only
       to move the caught-up time back to that fetch (``lastFetchTimeMs > lastCaughtUpTimeMs``),
       nothing else reads them, and every write of the caught-up time - the next fetch, a
       ``make_leader`` - writes both anew. So once the caught-up time is at or after the last
       fetch they can never act, and are left out.
    7. **An unnoticed isolation, once the control plane is frozen** (``settled`` given: the
       epoch bound, where an ISR shrink writes a new leader epoch - ZooKeeper mode and KRaft 3.3
       to 3.5 -, without failovers or ticks: ``settled_epoch``). In ZooKeeper-era Kafka every
       leader or ISR the controller writes carries a new leader epoch
       (``LeaderAndIsr.newLeaderAndIsr``, 0.10.2 to 3.x), and that is all it sends a broker by
       LeaderAndIsr; a leader's own ISR change (a ZooKeeper write, from 2.7 an AlterIsr) is not
       sent to the replicas as a LeaderAndIsr. So at the epoch bound every further request would
       leave the bound (the search cuts that state), and a cut-off broker's flag is read only by
       the guards of its own ``isolate`` / ``reconnect`` / ``deliver`` - when
       ``_isolation_settled`` holds, ``reconnect`` leads to the same state without the flag,
       ``isolate_unseen`` back, ``deliver`` has nothing to deliver, and a noticed ``isolate``
       from the state without the flag leaves the bound (a new epoch) where the state with it
       cannot take it. Where a leader's ISR change is an AlterIsr (kip595 and KRaft) the
       leader's flag is read besides by that change, held while it is cut off
       (``Partition.update_isr``), so a leader settles only when it has none to send: it leads
       in the controller's epoch with every replica in its ISR and no AlterIsr in flight -
       nothing to expand, and without ticks nothing to shrink (``Partition.maybe_shrink_isr``).
       Every other step acts alike on both, keeps the condition or leaves the bound (or takes
       the broker down or restarts it: then the flag is gone from both), and no check reads the
       flag. So the two states have the same futures, step for step, and share one fingerprint:
       the search keeps the first met, at the smaller depth. Under KRaft 3.3 to 3.5 (kip841,
       kip903) every partition change the controller writes carries a new leader epoch except an
       ISR expansion (an AlterPartition; 3.3's ``PartitionChangeBuilder`` bumps the epoch only
       when the new ISR lacks a member of the old), which every broker replays
       (``Channel.publish``) and a cut-off one finds waiting. A follower that already follows
       the controller's leader in its epoch applies such a change by moving its partition epoch
       alone (3.3's ``Partition.makeFollower`` returns false without a new leader epoch, and
       ``ReplicaManager.applyLocalFollowersDelta`` restarts no fetcher then; here
       ``ReplicaManager.become_leader_or_follower``), and only a later change's staleness reads
       that (3.3's fetch request carries no partition epoch); a fenced broker never joins the
       ISR (KIP-841). So, settled (``_isolation_settled``), the broker is written as
       reconnected: no flag, no queue, and the newest waiting change's partition epoch as its
       own (what ``reconnect`` and ``deliver`` make of it, one change at a time or in one delta)
       - the state of its twin that was never cut off and applied each change as it came."""
    config = cluster.config
    now = cluster.now
    lag = config.replica_lag_time_max_ms
    index = _index(config.replicas)
    codes = _CODES
    protocol = cluster.protocol
    elr = cluster.controller.elr_enabled
    frozen = settled is not None and cluster.controller.leader_epoch >= settled
    merged = [frozen and r.online and r.isolated and _isolation_settled(cluster, r) for r in cluster.replicas]

    replicas: list[tuple] = []
    for r, merged_here in zip(cluster.replicas, merged, strict=True):
        log = r.log
        _, record_values, record_epochs, record_seqs = _records(log, values)
        crashed = (-1 if r.crashed_at_ms is None or r.id in cluster.controller.dead
                   else _age(now, r.crashed_at_ms, config.session_timeout_ms))
        if reduced and not r.online:
            replicas.append((0, r.hw_checkpoint, record_values, record_epochs, record_seqs, log.flushed,
                             log.cache.key(), int(r.unclean_shutdown and elr), crashed))
            continue
        remotes = tuple(sorted((index[f], m.leo, _age(now, m.last_caught_up_ms, lag), m.last_fetch_leader_leo,
                                _age(now, m.last_fetch_ms, lag))
                               if not reduced or m.last_fetch_ms > m.last_caught_up_ms
                               else (index[f], m.leo, _age(now, m.last_caught_up_ms, lag), -1, -1)
                               for f, m in r.remotes.items()))
        req = r.in_flight
        in_flight: tuple = () if req is None else (
            codes[req.kind], index[req.leader.id], req.fetch_offset, 0 if reduced else req.asked_epoch,
            int(req.parked), req.deadline - now if req.parked else 0, tuple(values[v] for v in req.values),
            tuple(req.epochs), tuple(req.seqs), req.hw, codes[req.error], req.leader_leo, _answer(req.answer))
        replicas.append((
            int(r.online), codes[r.role], _rid(index, r.leader_id), r.leader_epoch, codes[r.fetch_state], r.hw,
            r.hw_checkpoint, record_values, record_epochs, record_seqs, log.flushed,
            log.cache.key(), tuple(index[m] for m in r.isr),
            int(r.isolated and not merged_here), int(r.awaiting_leader),
            int(r.unclean_shutdown and (elr or not reduced)),
            protocol.isr_join_floor(r.leader_epoch_start) if reduced else r.leader_epoch_start,
            crashed, remotes, in_flight, tuple(index[q.follower.id] for q in r.purgatory),
            _alter_isr(r.alter_isr,
                       cluster.controller.broker_epochs
                       if protocol.alter_isr_checks_broker_epochs or not reduced else None,
                       index, cluster.controller.partition_epoch if protocol.kraft else None)))
    ctl = cluster.controller
    controller = (_rid(index, ctl.leader), ctl.leader_epoch, tuple(index[m] for m in ctl.isr),
                  tuple(index[m] for m in ctl.elr), tuple(sorted(index[m] for m in ctl.dead)),
                  _rid(index, ctl.last_known_leader),
                  tuple(sorted(index[m] for m in ctl.ineligible)))
    queues = cluster.channel.queues
    channel = tuple(() if (reduced and not r.online) or merged_here else
                    tuple((q.epoch, _rid(index, q.leader), tuple(index[m] for m in q.isr)) for q in queues[r.id])
                    for r, merged_here in zip(cluster.replicas, merged, strict=True))
    metadata = (tuple((_rid(index, leader), epoch) for leader, epoch in cluster.metadata.known.values())
                if cluster.metadata.stale else ())
    producer, waiting = cluster.producer, cluster.delayed.produces
    position = {id(request): i for i, request in enumerate(producer.produces)} if producer.produces else {}
    pending = set(map(id, waiting)) if waiting else set()
    live = (pending | set(map(id, producer.retrying)) | set(map(id, producer.queued))
            if pending or producer.retrying or producer.queued else pending)
    requests = tuple((values[p.value], codes[p.acks], p.offset, _rid(index, p.leader), p.epoch, codes[p.status],
                      p.deadline - now if id(p) in pending else 0, p.seq, p.attempts, int(p.lose_ack),
                      _rid(index, p.to))
                     if not reduced or id(p) in live else (values[p.value],)
                     for p in producer.produces)
    clients = (requests, tuple(position[id(p)] for p in waiting),
               tuple(position[id(p)] for p in producer.retrying), tuple(position[id(p)] for p in producer.queued),
               tuple(values[v] for v in producer.acked), producer.next_seq)
    consumer = cluster.consumer
    reader = (consumer.position, consumer.committed_offset,
              _age(now, consumer.last_commit_ms, config.auto_commit_interval_ms), consumer.session)
    clock = (cluster.clock.next_isr_check - now, cluster.clock.next_checkpoint - now)
    return (tuple(replicas), controller, channel, metadata, clients, reader, clock,
            _partition_epochs(cluster, reduced, merged))


@dataclass(frozen=True)
class Bounds:
    """How far a search may go: replicas, records produced, leader epoch, changes queued for a
    cut-off broker, ticks, depth, states."""

    replicas: int = DEFAULT_REPLICAS
    max_records: int = DEFAULT_MAX_RECORDS
    max_epoch: int = DEFAULT_MAX_EPOCH
    max_ticks: int = 0
    #: None: until the frontier is empty
    depth: int | None = None
    #: how much time one ``tick`` step passes (default: 1.5 x replica.lag.time.max.ms + 1, so a
    #: tick always runs an ISR check that finds a silent follower lagging)
    tick_ms: int | None = None
    #: stop after the level at which this many distinct states are known (None: no limit); a
    #: search stopped so is not complete, and its verdicts say how deep it went
    max_states: int | None = None
    #: the partition changes waiting for one broker cut off from the controller, at most
    #: (states beyond it are cut; None: no bound) - see ``beyond``
    max_queued: int | None = None

    def beyond(self, cluster: Cluster) -> bool:
        """Whether ``cluster`` is past the leader-epoch bound or the queue bound (a search cuts it).

        The leader epoch bounds the control plane's changes in every generation but one: from
        KRaft 3.6 (kip966, KAFKA-15021) an ISR shrink keeps the leader epoch, so a leader can
        shrink and expand its ISR without end while a third broker, cut off from the controller
        but still registered, is sent every change - its unread part of the metadata log grows
        by two changes a round, each a state of its own (``deliver`` applies them one by one).
        At 3 replicas that space has no end within the epoch bound; ``max_queued`` gives it
        one. Both are in the state key (the queues of running brokers: a broker that is down
        never reads its own, and the key leaves it out - reduction 2 of ``state_key``), so the
        cut is a function of the state, as a bound must be."""
        if cluster.controller.leader_epoch > self.max_epoch:
            return True
        limit = self.max_queued
        return limit is not None and cluster.channel.longest_queue() > limit

    def cuts(self, cluster: Cluster, step: Step) -> bool:
        """Whether ``step``, which can act on ``cluster``, surely leads past the leader-epoch
        bound - known without taking it, so the search need not clone the cluster to find the
        state it cuts: at the bound, an election always writes a new leader epoch
        (``Controller.move_leadership``), and so does a noticed isolation whose failure handling
        moves the leader or shrinks the ISR where a shrink bumps the epoch
        (``Controller.failure_bumps_epoch``). False says nothing: ``beyond`` decides."""
        ctl = cluster.controller
        if ctl.leader_epoch < self.max_epoch:
            return False
        kind = step.kind
        return kind == "elect" or (kind == "isolate" and step.detected and step.replica is not None
                                   and ctl.failure_bumps_epoch(step.replica))

    def tick_length(self, config: ClusterConfig) -> int:
        """How much time one ``tick`` step passes under ``config``: ``tick_ms``, else 1.5 x
        replica.lag.time.max.ms + 1."""
        return self.tick_ms or config.replica_lag_time_max_ms * 3 // 2 + 1

    @property
    def replica_ids(self) -> tuple[str, ...]:
        """The replicas' names: A, B, C ... in assignment order."""
        return replica_names(self.replicas)

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in ("replicas", "max_records", "max_epoch", "max_ticks",
                                                       "depth", "tick_ms", "max_states", "max_queued")}

    def __reduce__(self):
        """By the constructor (see ``Step.__reduce__``)."""
        return (Bounds, (self.replicas, self.max_records, self.max_epoch, self.max_ticks, self.depth, self.tick_ms,
                         self.max_states, self.max_queued))

    def __post_init__(self) -> None:
        for name, low in (("replicas", 1), ("max_records", 0), ("max_epoch", 0), ("max_ticks", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise CheckError(f"{name.replace('_', '-')}: must be an integer >= {low}, got {value!r}")
        if self.replicas > 5:
            raise CheckError(f"replicas: at most 5 (the state space explodes beyond), got {self.replicas}")
        for name in ("depth", "tick_ms", "max_states", "max_queued"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise CheckError(f"{name.replace('_', '-')}: must be an integer >= 1, got {value!r}")


#: the faults that take a broker out of the ISR by the controller's hand, any number of times:
#: a loss it notices (an expired session, a crash, a power loss, a replaced disk, a controlled shutdown)
NOTICED = frozenset(("isolate", "crash", "power_loss", "replace_disk", "controlled_shutdown"))


def must_end(targets: list[str], bounds: Bounds, faults: tuple[str, ...],
             configs: list[ClusterConfig] | None = None) -> None:
    """CheckError if a search under one of ``targets`` (generations or releases, by name; or
    ``configs``, whose rules may carry inter.broker.protocol.version / metadata.version)
    within ``bounds`` and ``faults`` would never end (``endless``): refused before it starts."""
    pairs = ([(c.rules_name, c.rules()) for c in configs] if configs is not None
             else [(name, rules_named(name)) for name in targets])
    for name, generation in pairs:
        reason = endless(name, generation, bounds, faults)
        if reason is not None:
            raise CheckError(reason)


def endless(protocol: str, generation: Protocol, bounds: Bounds, faults: tuple[str, ...]) -> str | None:
    """Why a search of ``protocol`` (named so; its rules ``generation``) within ``bounds`` and
    ``faults`` would never end, or None.

    Under kip966 (KRaft 3.6+, KAFKA-15021) an ISR shrink keeps the leader epoch, so at 3
    replicas or more the leader-epoch bound leaves the ISR free to shrink and expand without
    end - one broker lost in a way the controller notices (``NOTICED``) and back, caught up
    again - while another, cut off from the controller within its session
    (``isolate_unseen``), is sent every change: its queue grows by two a round, each length a
    state of its own (``Bounds.beyond``). Only a queue, depth or state bound ends that search.
    Without such a loss nothing shrinks the ISR but a bounded number of ticks, and the search
    ends (kip966, 3 replicas, leader moves, isolation within the session and late delivery:
    complete at depth 24 with min.insync.replicas=2)."""
    if (generation.isr_shrink_bumps_leader_epoch or not generation.kraft or bounds.replicas < 3
            or "isolate_unseen" not in faults or not NOTICED & set(faults)):
        return None
    if bounds.max_queued is not None or bounds.depth is not None or bounds.max_states is not None:
        return None
    return (f"max-queued: needed for {protocol} at {bounds.replicas} replicas - an ISR shrink keeps the leader "
            f"epoch there (KAFKA-15021), so a broker cut off from the controller can fall behind by any number of "
            f"ISR changes and the search never ends; give --max-queued N (2 keeps two changes replayed in one "
            f"delta), --depth or --max-states")


def alphabet(replicas: tuple[str, ...], faults: tuple[str, ...], tick_ms: int) -> list[Step]:
    """Every step the search tries, in a fixed order (a produce is a placeholder: the search
    gives each produce the next value, m1, m2, ...).

    A follower's fetch is tried whole (``fetch``) and as its first half (``fetch_request``);
    the second half, ``fetch_response``, is not a step of its own here because it is the same
    transition as ``fetch``: both can act exactly when the follower is online with a request in
    flight, and then ``Cluster.fetch`` delivers that request by the very call
    ``fetch_response`` makes (``_fetch_response``), with the same events. Tried after
    ``fetch``, it only re-made the state ``fetch`` had just made from the same parent - a
    duplicate, with the same anomalies, never numbered and never in a schedule (a search to
    depth 8 at 3 replicas made 72,181 such transitions, each one a duplicate). Leaving it out
    changes no state, verdict, depth or counterexample; only fewer transitions are generated
    (``tests/check/test_check.py`` runs searches with it and without)."""
    steps = [Step("produce", value="")]
    for kind in ("fetch", "fetch_request"):
        steps += [Step(kind, replica=r) for r in replicas]
    for r in replicas:
        if "elect" in faults:
            steps.append(Step("elect", replica=r))
        if "isolate" in faults:
            steps.append(Step("isolate", replica=r))
        if "isolate_unseen" in faults:
            steps.append(Step("isolate", replica=r, detected=False))
        if "isolate" in faults or "isolate_unseen" in faults:
            steps.append(Step("reconnect", replica=r))
        if "deliver" in faults:
            steps.append(Step("deliver", replica=r))
        if "crash" in faults:
            steps.append(Step("crash", replica=r))
        if "quick_restart" in faults:
            steps.append(Step("crash", replica=r, detected=False))
        if "power_loss" in faults:
            steps.append(Step("crash", replica=r, lose_unflushed=True))
        if "power_loss_unseen" in faults:
            steps.append(Step("crash", replica=r, lose_unflushed=True, detected=False))
        if "replace_disk" in faults and "crash" not in faults:
            steps.append(Step("crash", replica=r))
        if "controlled_shutdown" in faults:
            steps.append(Step("shutdown", replica=r))
        if {"crash", "quick_restart", "power_loss", "power_loss_unseen", "controlled_shutdown"} & set(faults):
            steps.append(Step("restart", replica=r))
        if "replace_disk" in faults:
            steps.append(Step("replace_disk", replica=r))
        if "flush" in faults:
            steps.append(Step("flush", replica=r))
        if "stale_produce" in faults:
            steps.append(Step("produce", value="", replica=r))
    if "lost_ack" in faults:
        steps += [Step("produce", value="", lose_ack=True), Step("retry")]
    if "controller_failover" in faults:
        steps.append(Step("controller_failover"))
    if "consume" in faults:
        steps.append(Step("consume"))
    if "consumer_crash" in faults:
        steps.append(Step("consumer_crash"))
    if "tick" in faults:
        steps.append(Step("tick", ms=tick_ms))
    return steps


def enabled_steps(cluster: Cluster, alphabet: list[Step]) -> list[Step]:
    """The steps of ``alphabet`` that would act in this state (the engine's guards)."""
    return [step for step in alphabet if cluster.skip_reason(step) is None]


def numbered(produce: Step, records: int) -> Step:
    """A produce of the alphabet as the ``records``-th record: value m1, m2, ..."""
    return Step("produce", value=f"m{records}", replica=produce.replica, lose_ack=produce.lose_ack)


def fingerprint(cluster: Cluster, checker: AnomalyChecker, values: dict[str, int], ticks: int,
                reduced: bool = True, settled: int | None = None) -> int:
    """Python's hash of integers only (the state, the checks' memory, the ticks passed): the
    same in every process and either engine. ``settled``: see ``state_key``."""
    return hash((state_key(cluster, values, reduced, settled), checker.verdict_key(values), ticks))
