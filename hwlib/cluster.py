"""The partition's replicas, leader-side logic and controller, driven one step at a time.

Leader-side functions carry Kafka's names (``update_follower_fetch_state``,
``maybe_expand_isr``, ``maybe_shrink_isr``, ``maybe_increment_leader_hw``, ``make_leader``,
``make_follower``) and follow ``Partition`` / ``ReplicaManager`` of the modelled release.
Every step is total: a step that cannot act (a fetch from an offline replica, say) records a
``skip`` event and changes nothing. Logical time moves only in ``tick``.
"""

from __future__ import annotations

import functools

from .channel import ControllerChannel, LeaderAndIsr
from .config import ClusterConfig
from .controller import Controller
from .errors import ScenarioError
from .kafka_errors import (
    DIVERGING,
    FENCED_LEADER_EPOCH,
    NETWORK_EXCEPTION,
    NOT_ENOUGH_REPLICAS,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    NOT_LEADER_OR_FOLLOWER,
    OFFSET_OUT_OF_RANGE,
    OUT_OF_ORDER_SEQUENCE_NUMBER,
    REFUSED,
    REQUEST_TIMED_OUT,
    RETRIABLE,
    UNKNOWN_LEADER_EPOCH,
)
from .metadata import ClientMetadata
from .protocols import get_protocol
from .replica import (
    FETCHING,
    FOLLOWER,
    LEADER,
    NEVER_MS,
    OFFLINE,
    TRUNCATING,
    InFlight,
    RemoteReplica,
    Replica,
)


class ProduceRequest:
    """One record the producer sends, over all its attempts. ``status``: ``queued`` (waiting
    for an in-flight slot), ``pending`` (awaiting its acknowledgement), ``retrying`` (failed
    with a retriable error or lost acknowledgement, awaiting a ``retry`` step), ``acked``,
    ``no-answer`` (acks=0), or the error it finally failed with."""

    __slots__ = ("value", "offset", "acks", "leader", "epoch", "status", "deadline", "order",
                 "seq", "attempts", "lose_ack", "error", "to")

    def __init__(self, value: str, acks: str, order: int, seq: int, lose_ack: bool,
                 to: str | None = None) -> None:
        self.value = value
        self.offset = -1
        self.acks = acks
        self.leader: str | None = None
        self.epoch = -1
        self.status = "pending"
        self.deadline = 0
        self.order = order
        self.seq = seq
        self.attempts = 0
        self.lose_ack = lose_ack
        self.error: str | None = None
        #: the broker the first attempt goes to, whatever the producer's metadata says
        self.to = to

    def as_dict(self) -> dict:
        out = {"value": self.value, "offset": self.offset, "acks": self.acks,
               "leader": self.leader, "epoch": self.epoch, "status": self.status,
               "attempts": self.attempts}
        if self.seq >= 0:
            out["seq"] = self.seq
        return out


class Cluster:
    """One partition: ``config.replicas`` in assignment order; the first leads epoch 0 at start,
    all logs empty, ISR = all replicas, the leader's remote LEOs known to be 0."""

    def __init__(self, config: ClusterConfig) -> None:
        self.config = config
        self.protocol = get_protocol(config.protocol)
        self.replicas = [Replica(rid, i) for i, rid in enumerate(config.replicas)]
        self.by_id = {r.id: r for r in self.replicas}
        self.now = 0
        self.events: list[tuple] = []
        self.produces: list[ProduceRequest] = []
        self.pending: list[ProduceRequest] = []
        self.acked: list[str] = []
        self.retrying: list[ProduceRequest] = []
        self.queued: list[ProduceRequest] = []
        self.next_seq = 0
        self.consumer_position = 0
        self.committed_offset = 0
        self.last_commit_ms = 0
        self.consumer_session = 0
        #: every poll: (consumer session, records returned as (offset, epoch, value))
        self.polls: list[tuple[int, list[tuple[int, int, str]]]] = []
        self._lag = config.replica_lag_time_max_ms
        self._next_isr_check = self._lag // 2
        self._next_checkpoint = config.replica_high_watermark_checkpoint_interval_ms
        self.controller = Controller(config.replicas, config.unclean_leader_election,
                                     elr=self.protocol.eligible_leader_replicas,
                                     min_insync_replicas=config.min_insync_replicas)
        first = self.replicas[0]
        self.controller.leader = self.controller.last_known_leader = first.id
        self.controller.leader_epoch = 0
        for r in self.replicas:
            r.leader_id = first.id
            r.leader_epoch = 0
        self.channel = ControllerChannel(config.replicas)
        self.metadata = ClientMetadata(self.controller, self.events, config.client_metadata == "stale")
        self.make_leader(first, self.current_state(), is_new_leader=True, initial=True)

    # ---------------------------------------------------------------------------- reading
    def replica(self, replica_id: str) -> Replica:
        try:
            return self.by_id[replica_id]
        except KeyError:
            raise ScenarioError(
                f"replica: {replica_id!r} is not a replica; allowed: {', '.join(self.by_id)}"
            ) from None

    @property
    def leader(self) -> Replica | None:
        lid = self.controller.leader
        return self.by_id[lid] if lid is not None else None

    @property
    def leader_epoch(self) -> int:
        return self.controller.leader_epoch

    @property
    def isr(self) -> tuple[str, ...]:
        return self.controller.isr

    @property
    def partition_hw(self) -> int | None:
        """The leader's HW, or None while the partition has no leader."""
        leader = self.leader
        return leader.hw if leader is not None else None

    # ---------------------------------------------------------------------- step dispatch
    #: step kind -> how it calls the cluster
    _STEP_CALLS = {
        "produce": lambda c, s: c.produce(s.value, s.acks, s.lose_ack, s.replica),
        "retry": lambda c, s: c.retry(),
        "fetch": lambda c, s: c.fetch(s.replica),
        "fetch_request": lambda c, s: c.fetch_request(s.replica),
        "fetch_response": lambda c, s: c.fetch_response(s.replica),
        "flush": lambda c, s: c.flush(s.replica),
        "crash": lambda c, s: c.crash(s.replica, s.lose_unflushed, s.detected),
        "restart": lambda c, s: c.restart(s.replica),
        "elect": lambda c, s: c.elect(s.replica),
        "isolate": lambda c, s: c.isolate(s.replica, s.detected),
        "reconnect": lambda c, s: c.reconnect(s.replica),
        "deliver": lambda c, s: c.deliver(s.replica, s.count),
        "controller_failover": lambda c, s: c.controller_failover(),
        "tick": lambda c, s: c.tick(s.ms),
        "consume": lambda c, s: c.consume(s.replica),
        "commit": lambda c, s: c.commit(),
        "consumer_crash": lambda c, s: c.consumer_crash(),
    }

    def apply(self, step) -> None:
        """Apply one parsed ``hwlib.steps.Step``."""
        self.bind(step)()

    def bind(self, step):
        """``step`` as a call without arguments on this cluster (runs bind a schedule once)."""
        call = self._STEP_CALLS.get(step.kind)
        if call is None:
            raise ScenarioError(f"step: unknown kind {step.kind!r}; allowed: {', '.join(sorted(self._STEP_CALLS))}")
        return functools.partial(call, self, step)

    def _skip(self, step: str, replica: str | None, reason: str) -> None:
        self.events.append(("skip", step, replica, reason))

    # ---------------------------------------------------------------------------- produce
    def produce(self, value: str, acks: str | None = None, lose_ack: bool = False,
                to: str | None = None) -> ProduceRequest:
        """The producer sends one record (SPEC section 4). ``lose_ack``: the acknowledgement of
        the first attempt never reaches the producer, which times out (errors still arrive).
        ``to``: the first attempt goes to that broker, which answers as it would (a stale
        leader accepts); retries follow the producer's metadata."""
        config = self.config
        if to is not None:
            self.replica(to)
        seq = -1
        if config.enable_idempotence:
            seq, self.next_seq = self.next_seq, self.next_seq + 1
        request = ProduceRequest(value, acks or config.acks, len(self.produces), seq, lose_ack, to)
        limit = config.max_in_flight_requests_per_connection
        full = limit is not None and self._in_flight() >= limit
        self.produces.append(request)
        if full:
            request.status = "queued"
            self.queued.append(request)
            self.events.append(("queued", value))
            return request
        self._send(request)
        return request

    def _in_flight(self) -> int:
        return sum(1 for r in self.produces if r.status in ("pending", "retrying"))

    def _send(self, request: ProduceRequest) -> None:
        """One attempt: the request reaches the broker the producer believes leads (or the one
        it is addressed ``to``) and is handled there, as that broker would."""
        request.attempts += 1
        request.status = "pending"
        if request.to is not None and request.attempts == 1:
            leader = self.by_id[request.to]
        else:
            leader_id = self.metadata.view("producer")[0]
            leader = self.by_id[leader_id] if leader_id is not None else None
        if leader is None:
            return self._fail(request, NOT_LEADER_OR_FOLLOWER)
        if not leader.online:
            return self._fail(request, NETWORK_EXCEPTION)
        if leader.role != LEADER:   # elected, but its LeaderAndIsr has not arrived
            return self._fail(request, NOT_LEADER_OR_FOLLOWER)
        if request.acks == "all" and len(leader.isr) < self.config.min_insync_replicas:
            return self._fail(request, NOT_ENOUGH_REPLICAS)
        epoch = leader.leader_epoch
        request.leader, request.epoch = leader.id, epoch
        offset = self._append_or_find_duplicate(leader, request, epoch)
        if offset is None:
            return None
        request.offset = offset
        if request.acks == "1":
            self._ack(request)
        elif request.acks == "0":
            request.status = "no-answer"
        else:
            request.deadline = self.now + self.config.request_timeout_ms
            self.pending.append(request)
            self._complete_pending_produces(leader)
        return None

    def _append_or_find_duplicate(self, leader: Replica, request: ProduceRequest, epoch: int) -> int | None:
        """Append, or - idempotent producer - answer a duplicate with the original offset and
        reject a sequence gap, from the producer state the leader rebuilds from its log."""
        log = leader.log
        if request.seq >= 0:
            last_seq, last_offset = log.last_sequence()
            if request.seq <= last_seq:
                for offset in range(last_offset, -1, -1):
                    if log.seqs[offset] == request.seq:
                        self.events.append(("duplicate_seq", request.value, request.seq, offset))
                        return offset
            if request.seq != last_seq + 1:
                self._fail(request, OUT_OF_ORDER_SEQUENCE_NUMBER)
                return None
        offset = log.append(epoch, request.value, request.seq)
        self.events.append(("append", leader.id, offset, epoch, request.value))
        self._maybe_flush(leader)
        if leader.purgatory:
            self._wake_parked_fetches(leader)
        self.maybe_increment_leader_hw(leader)
        return offset

    def retry(self) -> None:
        """The producer resends its failed batches in the order it first sent them."""
        if not self.retrying:
            return self._skip("retry", None, "no batch awaits a retry")
        batches = sorted(self.retrying, key=lambda r: r.order)
        self.retrying = []
        for request in batches:
            self.events.append(("retry", request.value, request.attempts + 1))
            self._send(request)
        self._send_queued()

    def _send_queued(self) -> None:
        limit = self.config.max_in_flight_requests_per_connection
        while self.queued and (limit is None or self._in_flight() < limit):
            self._send(self.queued.pop(0))

    def _fail(self, request: ProduceRequest, code: str) -> ProduceRequest:
        self.events.append(("produce_error", request.value, code))
        self.metadata.on_error("producer", code)
        request.error = code
        if code in RETRIABLE and request.attempts <= self.config.retries:
            request.status = "retrying"
            self.retrying.append(request)
        else:
            request.status = code
            if self.queued:
                self._send_queued()
        return request

    def _ack(self, request: ProduceRequest) -> None:
        if request.lose_ack and request.attempts == 1:
            self.events.append(("ack_lost", request.value, request.offset))
            self._fail(request, REQUEST_TIMED_OUT)
            return
        request.status = "acked"
        self.acked.append(request.value)
        self.events.append(("ack", request.value, request.offset))
        if self.queued:
            self._send_queued()

    def _complete_pending_produces(self, leader: Replica) -> None:
        """DelayedProduce: acks=all succeeds once the leader HW passes the record."""
        hw = leader.hw
        enough = len(leader.isr) >= self.config.min_insync_replicas
        done = [r for r in self.pending if r.leader == leader.id and r.offset < hw]
        if not done:
            return
        # Detach first: answering may send queued batches, which may complete others.
        self.pending = [r for r in self.pending if not (r.leader == leader.id and r.offset < hw)]
        for request in done:
            if enough:
                self._ack(request)
            else:
                self._fail(request, NOT_ENOUGH_REPLICAS_AFTER_APPEND)

    def _fail_pending_produces(self, leader_id: str, code: str) -> None:
        failed = [r for r in self.pending if r.leader == leader_id]
        if not failed:
            return
        self.pending = [r for r in self.pending if r.leader != leader_id]
        for request in failed:
            self._fail(request, code)

    def _maybe_flush(self, replica: Replica) -> None:
        interval = self.config.log_flush_interval_messages
        if interval is not None and replica.leo - replica.log.flushed >= interval:
            replica.log.flush()

    # ------------------------------------------------------------------------------ fetch
    def fetch(self, replica_id: str) -> None:
        """One whole round; if a request is already in flight, this delivers it instead."""
        follower = self.replica(replica_id)
        if follower.in_flight is None:
            self.fetch_request(replica_id)
        if follower.in_flight is not None:
            self.fetch_response(replica_id)

    def fetch_request(self, replica_id: str) -> None:
        """The follower's request reaches the leader and is handled there."""
        follower = self.replica(replica_id)
        if not follower.online:
            return self._skip("fetch_request", replica_id, "replica is offline")
        if follower.role == LEADER:
            return self._skip("fetch_request", replica_id, "replica is the leader")
        if follower.in_flight is not None:
            return self._skip("fetch_request", replica_id, "a request is already in flight")
        if follower.leader_id is None:
            return self._skip("fetch_request", replica_id, "the partition has no leader")
        leader = self.by_id[follower.leader_id]
        if not leader.online:
            return self._skip("fetch_request", replica_id, f"leader {leader.id} is offline")
        error = self._request_error(leader, follower)
        if error is not None:
            request = follower.in_flight = InFlight("fetch", follower, leader, follower.leo)
            request.error = error
            request.asked_epoch = follower.leader_epoch
        elif follower.fetch_state == TRUNCATING and not self.protocol.truncate_on_fetch:
            self._handle_epoch_request(leader, follower)
        else:
            self._handle_fetch(leader, follower)

    def _request_error(self, leader: Replica, follower: Replica) -> str | None:
        """What the broker the follower believes leads answers before reading anything: it may
        not lead (any more, or yet); kip320+ compares the request's current leader epoch."""
        if leader.role != LEADER:
            return NOT_LEADER_OR_FOLLOWER
        if self.protocol.fences_requests and follower.leader_epoch != leader.leader_epoch:
            return FENCED_LEADER_EPOCH if follower.leader_epoch < leader.leader_epoch else UNKNOWN_LEADER_EPOCH
        return None

    def _handle_epoch_request(self, leader: Replica, follower: Replica) -> None:
        request = InFlight("epoch", follower, leader, follower.leo)
        request.asked_epoch = self.protocol.epoch_request(follower.log)
        request.answer = self.protocol.answer_epoch_request(leader.log, request.asked_epoch)
        follower.in_flight = request

    def _handle_fetch(self, leader: Replica, follower: Replica) -> None:
        """ReplicaManager.fetchMessages for a follower (SPEC section 5, leader side)."""
        fetch_offset = len(follower.log.values)
        leader_log = leader.log
        leader_leo = len(leader_log.values)
        request = InFlight("fetch", follower, leader, fetch_offset)
        follower.in_flight = request
        if self.protocol.truncate_on_fetch and follower.log.cache.latest_epoch is not None:
            request.asked_epoch = follower.log.cache.latest_epoch
            diverging = self.protocol.diverging_epoch(leader_log, request.asked_epoch, fetch_offset)
            if diverging is not None:
                request.error = DIVERGING
                request.answer = diverging
                return
        if fetch_offset > leader_leo:
            request.error = OFFSET_OUT_OF_RANGE
            request.leader_leo = leader_leo
            return
        hw0 = leader.hw
        self.update_follower_fetch_state(leader, follower.id, fetch_offset, leader_leo)
        self.maybe_expand_isr(leader, follower.id)
        self.maybe_increment_leader_hw(leader)
        if fetch_offset < leader_leo:
            request.epochs = leader_log.epochs[fetch_offset:]
            request.values = leader_log.values[fetch_offset:]
            request.seqs = leader_log.seqs[fetch_offset:]
            request.hw = hw0
            self.events.append(("fetch", follower.id, fetch_offset, leader_leo - fetch_offset, hw0))
        else:
            request.parked = True
            request.deadline = self.now + self.config.replica_fetch_wait_max_ms
            leader.purgatory.append(request)
            self.events.append(("park", follower.id, fetch_offset))

    def _complete_delayed_fetch(self, request: InFlight) -> None:
        """DelayedFetch.onComplete: re-read the log and the current HW."""
        leader = request.leader
        request.parked = False
        request.epochs = leader.log.epochs[request.fetch_offset:]
        request.values = leader.log.values[request.fetch_offset:]
        request.seqs = leader.log.seqs[request.fetch_offset:]
        request.hw = leader.hw
        self.events.append(("fetch", request.follower.id, request.fetch_offset,
                            len(request.values), request.hw))

    def _wake_parked_fetches(self, leader: Replica) -> None:
        for request in leader.purgatory:
            self.events.append(("wake", request.follower.id))
            self._complete_delayed_fetch(request)
        leader.purgatory.clear()

    def fetch_response(self, replica_id: str) -> None:
        """Deliver the follower's in-flight response (a parked fetch first times out)."""
        follower = self.replica(replica_id)
        request = follower.in_flight
        if not follower.online:
            return self._skip("fetch_response", replica_id, "replica is offline")
        if request is None:
            return self._skip("fetch_response", replica_id, "no request in flight")
        if request.parked:
            request.leader.purgatory.remove(request)
            self.events.append(("expire", replica_id))
            self._complete_delayed_fetch(request)
        follower.in_flight = None
        if request.error in REFUSED:
            # the fetcher backs off and tries again; it learns the new state only from the
            # controller (FENCED) or once the leader has learned it (UNKNOWN)
            self.events.append(("refused", replica_id, request.leader.id, request.error, request.asked_epoch,
                                request.leader.leader_epoch))
        elif request.kind == "epoch":
            self._process_epoch_response(follower, request)
        elif request.error == DIVERGING:
            self._process_diverging_epoch(follower, request)
        elif request.error == OFFSET_OUT_OF_RANGE:
            self._handle_offset_out_of_range(follower, request)
        else:
            self._process_fetch_response(follower, request)

    def _process_diverging_epoch(self, follower: Replica, request: InFlight) -> None:
        """kip595: no records, no HW; truncate and let the next fetch validate again."""
        offset, _ = self.protocol.truncation_after_answer(follower.log, follower.hw, request.answer)
        self.events.append(("diverging", follower.id, request.fetch_offset, request.asked_epoch,
                            request.answer))
        self._truncate(follower, offset, "diverging epoch")

    def _process_fetch_response(self, follower: Replica, request: InFlight) -> None:
        """Follower side: append the records, then HW = min(leader HW, own LEO)."""
        if follower.fetch_state == TRUNCATING:   # kip595: the leader accepted the fetch
            follower.fetch_state = FETCHING
            self.events.append(("reconciled", follower.id, request.fetch_offset))
        log = follower.log
        if request.values:
            start = len(log.values)
            log.append_as_follower(request.epochs, request.values, request.seqs)
            self.events.append(("replicate", follower.id, start, len(log.values)))
            self._maybe_flush(follower)
        new_hw = request.hw if request.hw < len(log.values) else len(log.values)
        if new_hw != follower.hw:
            self.events.append(("hw", follower.id, follower.hw, new_hw, False))
            follower.hw = new_hw

    def _handle_offset_out_of_range(self, follower: Replica, request: InFlight) -> None:
        """The leader is shorter than the follower (it lost or never had the suffix)."""
        self.events.append(("out_of_range", follower.id, request.fetch_offset, request.leader_leo))
        if request.leader_leo < follower.leo:
            self._truncate(follower, request.leader_leo, "leader's log is shorter")

    def _process_epoch_response(self, follower: Replica, request: InFlight) -> None:
        offset, done = self.protocol.truncation_after_answer(follower.log, follower.hw, request.answer)
        self.events.append(("epoch_request", follower.id, request.asked_epoch, request.answer))
        if done:
            follower.fetch_state = FETCHING
        self._truncate(follower, offset, "OffsetsForLeaderEpoch" if done else "OffsetsForLeaderEpoch, walking back")

    def _truncate(self, replica: Replica, offset: int, reason: str) -> None:
        old = replica.leo
        if offset < old:
            replica.log.truncate_to(offset)
            self.events.append(("truncate", replica.id, old, offset, reason))
        if replica.hw > replica.leo:
            self.events.append(("hw", replica.id, replica.hw, replica.leo, replica.is_leader))
            replica.hw = replica.leo

    # -------------------------------------------------------------- leader-side partition
    def update_follower_fetch_state(self, leader: Replica, follower_id: str, fetch_offset: int,
                                    leader_leo: int) -> None:
        """Remote LEO := fetch offset; caught-up time as in Kafka's Replica.updateFetchState."""
        remote = leader.remotes[follower_id]
        now = self.now
        if fetch_offset >= leader_leo:
            if now > remote.last_caught_up_ms:
                remote.last_caught_up_ms = now
        elif fetch_offset >= remote.last_fetch_leader_leo:
            if remote.last_fetch_ms > remote.last_caught_up_ms:
                remote.last_caught_up_ms = remote.last_fetch_ms
        remote.leo = fetch_offset
        remote.last_fetch_leader_leo = leader_leo
        remote.last_fetch_ms = now

    def maybe_expand_isr(self, leader: Replica, follower_id: str) -> None:
        """A follower joins the ISR once its remote LEO reaches the leader's HW."""
        isr = leader.isr
        leo = leader.remotes[follower_id].leo
        if follower_id in isr or leo < leader.hw or leo < self.protocol.isr_join_floor(leader.leader_epoch_start):
            return
        new_isr = tuple(r for r in self.controller.assignment if r in isr or r == follower_id)
        if self._update_isr(leader, new_isr, f"{follower_id} caught up to HW {leader.hw}"):
            self.maybe_increment_leader_hw(leader)

    def maybe_shrink_isr(self, leader: Replica) -> None:
        """Drop followers not caught up for longer than replica.lag.time.max.ms."""
        leader_leo = leader.leo
        out = [rid for rid in leader.isr
               if rid != leader.id
               and leader.remotes[rid].leo != leader_leo
               and self.now - leader.remotes[rid].last_caught_up_ms > self._lag]
        if out:
            new_isr = tuple(r for r in leader.isr if r not in out)
            if self._update_isr(leader, new_isr, f"{','.join(out)} lagged > {self._lag} ms"):
                self.maybe_increment_leader_hw(leader)

    def _update_isr(self, leader: Replica, new_isr: tuple[str, ...], reason: str) -> bool:
        """The leader writes a new ISR (ZooKeeper conditional update / AlterPartition). The
        write is refused, and the leader's cached ISR kept, unless it is the controller's
        current leader in the current epoch (a zombie leader keeps retrying, as Kafka logs
        "Cached zkVersion ... not equal to that in zookeeper")."""
        ctl = self.controller
        if ctl.leader != leader.id or ctl.leader_epoch != leader.leader_epoch:
            self.events.append(("isr_refused", leader.id, leader.leader_epoch, new_isr, reason))
            return False
        old_isr, old_elr = ctl.isr, ctl.elr
        ctl.set_isr(new_isr)
        leader.isr = ctl.isr
        self._note_membership(old_isr, old_elr, reason)
        return True

    def _note_membership(self, old_isr: tuple[str, ...], old_elr: tuple[str, ...], reason: str) -> None:
        """Events for whatever changed in the ISR and (kip966) the ELR."""
        ctl = self.controller
        if ctl.isr != old_isr:
            self.events.append(("isr", old_isr, ctl.isr, reason))
        if ctl.elr != old_elr:
            self.events.append(("elr", old_elr, ctl.elr))

    def maybe_increment_leader_hw(self, leader: Replica) -> bool:
        """HW = min LEO over the leader and every follower in the ISR or caught up within the lag;
        it only ever rises. Completes acks=all produces it passes."""
        isr = leader.isr
        if self.protocol.strict_min_isr and len(isr) < self.config.min_insync_replicas:
            return False
        new_hw = len(leader.log.values)
        horizon = self.now - self._lag
        dead = self.controller.dead if self.protocol.hw_counts_only_live_followers else ()
        for rid, remote in leader.remotes.items():
            if remote.leo < new_hw and (rid in isr or (remote.last_caught_up_ms >= horizon and rid not in dead)):
                new_hw = remote.leo
        if new_hw <= leader.hw:
            return False
        self.events.append(("hw", leader.id, leader.hw, new_hw, True))
        leader.hw = new_hw
        if self.pending:
            self._complete_pending_produces(leader)
        return True

    def make_leader(self, replica: Replica, request: LeaderAndIsr, is_new_leader: bool,
                    initial: bool = False) -> None:
        """Partition.makeLeader with the request's epoch and ISR: reset followers' caught-up
        times; a new leader (one that did not lead just before, by its own knowledge) forgets
        their LEOs (unknown, -1) and never truncates; then try to advance the HW. A broker that
        still believes it leads keeps its followers' LEOs, even across epochs it never heard
        of (``isNewLeader = !isLeader`` in every release from 0.10.2 to 3.7: 3.7's
        ``resetReplicaState(isNewLeader = false)`` keeps ``logEndOffsetMetadata``)."""
        replica.role = LEADER
        replica.leader_id = replica.id
        replica.leader_epoch = request.epoch
        replica.isr = request.isr
        replica.awaiting_leader = False
        replica.fetch_state = FETCHING
        self._drop_in_flight(replica)
        replica.leader_epoch_start = self.protocol.on_become_leader(replica.log, request.epoch)
        leo = replica.leo
        now = self.now
        isr = replica.isr
        if is_new_leader:
            replica.purgatory.clear()
            replica.remotes = {}
        for r in self.replicas:
            if r is replica:
                continue
            caught_up = now if r.id in isr else NEVER_MS
            remote = replica.remotes.get(r.id)
            if remote is None:
                replica.remotes[r.id] = RemoteReplica(0 if initial else -1, caught_up, leo, now)
            else:
                remote.last_caught_up_ms = caught_up
                remote.last_fetch_leader_leo = leo
                remote.last_fetch_ms = now
        self.maybe_increment_leader_hw(replica)

    def make_follower(self, replica: Replica, request: LeaderAndIsr) -> None:
        """Partition.makeFollower when the leader changed (or, kip320+, the epoch): follow the
        request's leader in its epoch, forget the cached ISR, reconcile."""
        if replica.role == LEADER:
            self._stop_leading(replica, NOT_LEADER_OR_FOLLOWER)
        replica.role = FOLLOWER
        replica.leader_id = request.leader
        replica.leader_epoch = request.epoch
        replica.isr = ()
        replica.awaiting_leader = False
        self._drop_in_flight(replica)
        self._begin_reconciliation(replica)

    def _stop_leading(self, replica: Replica, code: str) -> None:
        """The replica is no longer leader (demoted, or down): its pending produces fail with
        ``code``, every request addressed to it is gone (parked or answered), and it forgets
        its followers."""
        self._fail_pending_produces(replica.id, code)
        for r in self.replicas:
            if r.in_flight is not None and r.in_flight.leader is replica:
                r.in_flight = None
        replica.purgatory.clear()
        replica.remotes = {}

    def _begin_reconciliation(self, replica: Replica) -> None:
        offset = self.protocol.begin_reconciliation(replica.log, replica.hw)
        if offset is None:
            replica.fetch_state = TRUNCATING
        else:
            replica.fetch_state = FETCHING
            self._truncate(replica, offset, "truncate to HW")

    def _drop_in_flight(self, replica: Replica) -> None:
        request = replica.in_flight
        if request is not None:
            if request.parked and request in request.leader.purgatory:
                request.leader.purgatory.remove(request)
            replica.in_flight = None

    # ------------------------------------------------------------------------- controller
    def current_state(self) -> LeaderAndIsr:
        """The controller's (leader epoch, leader, ISR) as a LeaderAndIsr request carries it."""
        ctl = self.controller
        return LeaderAndIsr(ctl.leader_epoch, ctl.leader, ctl.isr)

    def _apply_leader_and_isr(self, old_leader: str | None) -> None:
        """The controller sends its new (leader, epoch, ISR) to every broker, the new leader
        first."""
        ctl = self.controller
        new_leader = ctl.leader
        self.events.append(("leader", old_leader, new_leader, ctl.leader_epoch))
        request = self.current_state()
        if new_leader is not None:
            self._send_leader_and_isr(self.by_id[new_leader], request)
        if old_leader is not None and old_leader != new_leader and not self.by_id[old_leader].isolated:
            # after the new leader took over: the producer's retries go to it
            self._fail_pending_produces(old_leader, NOT_LEADER_OR_FOLLOWER)
        for r in self.replicas:
            if r.id != new_leader:
                self._send_leader_and_isr(r, request)

    def _send_leader_and_isr(self, r: Replica, request: LeaderAndIsr) -> None:
        """The controller's channel to one broker: nothing for a broker it believes dead (no
        channel) or that is down (a restart learns the current state); queued while the broker
        cannot be reached; otherwise handled at once."""
        if not r.online or r.id in self.controller.dead:
            return
        if r.isolated:
            self.channel.enqueue(r.id, request)
            self.events.append(("leader_and_isr_queued", r.id, request.epoch, request.leader))
            return
        self.become_leader_or_follower(r, request)

    def become_leader_or_follower(self, r: Replica, request: LeaderAndIsr, queued: bool = False) -> None:
        """ReplicaManager.becomeLeaderOrFollower for this partition. A request whose leader
        epoch is not above the one the broker knows is stale and ignored (every release). The
        broker leads if the request names it; otherwise it follows the named leader and
        reconciles when that leader differs from the one it knew (makeFollower returns true;
        kip320+, Kafka 2.1: on any epoch change). ``queued``: the request waited in the
        channel (the broker was unreachable), which the events say."""
        if request.epoch <= r.leader_epoch:
            self.events.append(("leader_and_isr_stale", r.id, request.epoch, r.leader_epoch))
            return
        if queued:
            self.events.append(("leader_and_isr", r.id, request.epoch, request.leader))
        new_leader = request.leader
        if new_leader == r.id:
            self.make_leader(r, request, is_new_leader=r.role != LEADER)
        elif new_leader is None:
            # no leader: the fetcher stops; a leader that lost its leadership steps down
            if r.role == LEADER:
                self._stop_leading(r, NOT_LEADER_OR_FOLLOWER)
                r.role = FOLLOWER
            self._drop_in_flight(r)
            r.leader_id = None
            r.leader_epoch = request.epoch
        elif r.leader_id != new_leader or r.role == LEADER or self.protocol.reconcile_on_epoch_change:
            self.make_follower(r, request)
        else:
            r.leader_epoch = request.epoch

    def _on_broker_failure(self, replica: Replica) -> None:
        """The controller handles a failed broker: its channel and queue go (removeBroker)."""
        ctl = self.controller
        self.channel.drop(replica.id)
        old_leader, old_isr, old_elr = ctl.leader, ctl.isr, ctl.elr
        if ctl.on_broker_failure(replica.id):
            self._note_membership(old_isr, old_elr, f"controller: {replica.id} failed")
            self._apply_leader_and_isr(old_leader)

    def _on_broker_startup(self, replica: Replica, unclean_shutdown: bool) -> None:
        """A broker (re-)registers: elect if the partition has no leader, else send it the
        current state (onBrokerStartup)."""
        ctl = self.controller
        old_leader, old_isr, old_elr = ctl.leader, ctl.isr, ctl.elr
        elected = ctl.on_broker_startup(replica.id, unclean_shutdown)
        self._note_membership(old_isr, old_elr, f"election of {ctl.leader}")
        if elected:
            self._apply_leader_and_isr(old_leader)
        else:
            self._send_leader_and_isr(replica, self.current_state())

    # ----------------------------------------------------------------- faults and restarts
    def flush(self, replica_id: str) -> None:
        """Make the replica durable: log up to its LEO, HW checkpoint."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self._skip("flush", replica_id, "replica is offline")
        replica.log.flush()
        replica.hw_checkpoint = replica.hw
        self.events.append(("flush", replica_id, replica.log.flushed, replica.hw))

    def crash(self, replica_id: str, lose_unflushed: bool = False, detected: bool = True) -> None:
        """Process crash (``lose_unflushed``: power loss). The in-memory HW is lost; an
        undetected crash is a restart within the session timeout: ISR and leadership stay."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self._skip("crash", replica_id, "replica is already offline")
        replica.online = False
        self._drop_in_flight(replica)
        if replica.role == LEADER:
            self._stop_leading(replica, NETWORK_EXCEPTION)
        replica.role = OFFLINE
        replica.remotes = {}
        lost = 0
        if lose_unflushed:
            lost = replica.log.truncate_to(replica.log.flushed)
        replica.hw = min(replica.hw_checkpoint, replica.leo)
        replica.crashed_at_ms = self.now
        replica.unclean_shutdown = lose_unflushed
        self.events.append(("crash", replica_id, lost, detected))
        if detected:
            self._on_broker_failure(replica)

    def restart(self, replica_id: str) -> None:
        """The broker comes back from disk, a new process with no partition state (its leader
        epoch unknown), and learns its role from the controller: the current state only -
        requests queued for the old process are dropped (from Kafka 1.1 the controller handles
        the re-registration as a bounce and re-creates the channel; up to 0.11 the SPEC's
        quick restart learns the current state too)."""
        replica = self.replica(replica_id)
        if replica.online:
            return self._skip("restart", replica_id, "replica is already online")
        replica.online = True
        replica.crashed_at_ms = None
        replica.hw = min(replica.hw_checkpoint, replica.leo)
        replica.fetch_state = FETCHING
        replica.role = FOLLOWER
        replica.leader_id = None
        replica.leader_epoch = -1
        replica.awaiting_leader = True
        replica.isolated = False   # a new process: a new ZooKeeper session and controller channel
        self.channel.drop(replica_id)
        self.events.append(("restart", replica_id))
        ctl = self.controller
        unclean, replica.unclean_shutdown = replica.unclean_shutdown, False
        if self.protocol.notices_restarts and replica_id not in ctl.dead:
            # the broker re-registers: the controller sees the bounce (failure, then startup)
            self.events.append(("bounced", replica_id))
            self._on_broker_failure(replica)
        if replica_id in ctl.dead:
            self._on_broker_startup(replica, unclean)
        else:
            self._send_leader_and_isr(replica, self.current_state())

    def elect(self, replica_id: str) -> None:
        """Controller moves leadership to ``replica_id`` (clean: it must be a live ISR member)."""
        replica = self.replica(replica_id)
        ctl = self.controller
        if not replica.online:
            return self._skip("elect", replica_id, "replica is offline")
        if replica_id in ctl.dead:
            return self._skip("elect", replica_id, "the controller sees the broker as failed")
        if ctl.leader == replica_id:
            return self._skip("elect", replica_id, "replica is already the leader")
        if replica_id not in ctl.isr:
            return self._skip("elect", replica_id, "replica is not in the ISR (clean election only)")
        old_leader = ctl.leader
        ctl.move_leadership(replica_id)
        self._apply_leader_and_isr(old_leader)

    def isolate(self, replica_id: str, detected: bool = True) -> None:
        """The controller can no longer reach the broker: LeaderAndIsr requests to it wait in its
        queue until ``deliver`` or ``reconnect`` (a restart drops them). The broker keeps running on what it knows - a
        follower keeps fetching from the leader it knew, a leader keeps leading (a zombie).
        ``detected``: its ZooKeeper session expires too, so the controller handles it as
        failed (KAFKA-6880) and sends it nothing until it re-registers; otherwise the controller
        still counts it live, may elect it, and queues its requests."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self._skip("isolate", replica_id, "replica is offline")
        if replica.isolated:
            return self._skip("isolate", replica_id, "replica is already isolated")
        replica.isolated = True
        self.events.append(("isolate", replica_id, detected))
        if detected:
            self._on_broker_failure(replica)

    def reconnect(self, replica_id: str) -> None:
        """The broker reaches the controller again: it applies every queued LeaderAndIsr in
        order; after an expired session it re-registers and gets the current state."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self._skip("reconnect", replica_id, "replica is offline (a restart reconnects it)")
        if not replica.isolated:
            return self._skip("reconnect", replica_id, "replica is not isolated")
        replica.isolated = False
        self.events.append(("reconnect", replica_id))
        if replica_id in self.controller.dead:
            self._on_broker_startup(replica, unclean_shutdown=False)
        else:
            for request in self.channel.take(replica_id):
                self.become_leader_or_follower(replica, request, queued=True)

    def deliver(self, replica_id: str, count: int = 1) -> None:
        """The controller's send thread gets through to an isolated broker once: the broker
        applies its ``count`` oldest queued LeaderAndIsr requests, in order, and stays cut off
        (a broker acting on a superseded request, late)."""
        replica = self.replica(replica_id)
        if not replica.online:
            return self._skip("deliver", replica_id, "replica is offline")
        if not replica.isolated:
            return self._skip("deliver", replica_id, "replica is not isolated: it gets each request at once")
        requests = self.channel.take(replica_id, count)
        if not requests:
            return self._skip("deliver", replica_id, "no LeaderAndIsr request waits for it")
        for request in requests:
            self.become_leader_or_follower(replica, request, queued=True)

    def controller_failover(self) -> None:
        """A new controller takes over (ZooKeeper-era failover; under KRaft, a broker that
        applies several partition changes in one metadata delta): every queued request is
        dropped, and each live broker gets the current state only - at once if it can be
        reached (it has it already), else when it is reached again. An unreachable broker
        thus skips the epochs in between."""
        dropped = sum(self.channel.drop(r.id) for r in self.replicas)
        self.events.append(("controller_failover", dropped))
        request = self.current_state()
        for r in self.replicas:
            if r.isolated:
                self._send_leader_and_isr(r, request)

    # ------------------------------------------------------------------------------- time
    def tick(self, ms: int) -> None:
        """Advance logical time by ``ms``, running what falls due in time order: parked fetch
        and produce timeouts, session timeouts, ISR shrink checks (every lag/2), HW checkpoints."""
        if ms < 0:
            raise ScenarioError(f"tick: milliseconds must be >= 0, got {ms}")
        target = self.now + ms
        while True:
            due = self._next_due()
            if due is None or due > target:
                break
            self.now = due
            self._run_due(due)
        self.now = target
        self.events.append(("time", target))

    def _next_due(self) -> int | None:
        candidates = [self._next_isr_check, self._next_checkpoint]
        for r in self.replicas:
            for request in r.purgatory:
                candidates.append(request.deadline)
            if not r.online and r.crashed_at_ms is not None and r.id not in self.controller.dead:
                candidates.append(r.crashed_at_ms + self.config.session_timeout_ms)
        for request in self.pending:
            candidates.append(request.deadline)
        return min(candidates)

    def _run_due(self, now: int) -> None:
        for r in self.replicas:
            expired = [q for q in r.purgatory if q.deadline <= now]
            for request in expired:
                r.purgatory.remove(request)
                self.events.append(("expire", request.follower.id))
                self._complete_delayed_fetch(request)
        timed_out = [q for q in self.pending if q.deadline <= now]
        if timed_out:
            self.pending = [q for q in self.pending if q.deadline > now]
            for request in timed_out:
                self._fail(request, REQUEST_TIMED_OUT)
        for r in self.replicas:
            if (not r.online and r.crashed_at_ms is not None and r.id not in self.controller.dead
                    and r.crashed_at_ms + self.config.session_timeout_ms <= now):
                self.events.append(("detected", r.id))
                self._on_broker_failure(r)
        if self._next_isr_check <= now:
            self._next_isr_check += self._lag // 2
            for r in self.replicas:   # every broker that believes it leads (zombies too)
                if r.online and r.role == LEADER:
                    self.maybe_shrink_isr(r)
        if self._next_checkpoint <= now:
            self._next_checkpoint += self.config.replica_high_watermark_checkpoint_interval_ms
            for r in self.replicas:
                if r.online and r.hw_checkpoint != r.hw:
                    r.hw_checkpoint = r.hw
                    self.events.append(("checkpoint", r.id, r.hw))

    # --------------------------------------------------------------------------- consumer
    def consume(self, broker: str | None = None) -> list[tuple[int, int, str]]:
        """The consumer polls the broker it believes leads (or ``broker``) from its position up
        to that broker's HW, carrying the leader epoch its metadata holds. With auto-commit,
        a poll first commits the position once the interval has passed; a position beyond
        the broker's log end is OFFSET_OUT_OF_RANGE and is reset."""
        known, epoch = self.metadata.view("consumer")
        if broker is not None:
            leader = self.replica(broker)
        else:
            leader = self.by_id[known] if known is not None else None
        error = self._consumer_fetch_error(leader, epoch)
        if error is not None:
            self.metadata.on_error("consumer", error)
            return []
        config = self.config
        if config.enable_auto_commit and self.now - self.last_commit_ms >= config.auto_commit_interval_ms:
            self.commit()
        start = self.consumer_position
        if start > leader.leo:
            start = 0 if config.auto_offset_reset == "earliest" else leader.hw
            self.events.append(("consumer_reset", self.consumer_position, start, config.auto_offset_reset))
        end = max(start, min(leader.hw, leader.leo))
        records = leader.log.records(start, end)
        self.consumer_position = end
        self.polls.append((self.consumer_session, records))
        self.events.append(("consume", start, end))
        return records

    def _consumer_fetch_error(self, leader: Replica | None, epoch: int) -> str | None:
        """What a broker answers the consumer's fetch before reading (recorded as a skip):
        nobody to ask, a broker down or not leading, and - consumers of Kafka >= 2.3 (the
        client side of KIP-320: kip595 on) - a leader epoch other than the broker's."""
        current = leader is None or leader.id == self.controller.leader
        if leader is None or not leader.online:
            if current:
                self._skip("consume", None, "no online leader")
            else:
                self._skip("consume", leader.id, "the broker is down (NETWORK_EXCEPTION)")
            return NETWORK_EXCEPTION if leader is not None else NOT_LEADER_OR_FOLLOWER
        if leader.role != LEADER:
            if current:   # elected, but its LeaderAndIsr has not arrived
                self._skip("consume", None, f"{leader.id} does not know yet that it leads (NOT_LEADER_OR_FOLLOWER)")
            else:
                self._skip("consume", leader.id, "the broker does not lead (NOT_LEADER_OR_FOLLOWER)")
            return NOT_LEADER_OR_FOLLOWER
        if self.protocol.fences_consumer_fetches and epoch != leader.leader_epoch:
            code = FENCED_LEADER_EPOCH if epoch < leader.leader_epoch else UNKNOWN_LEADER_EPOCH
            self._skip("consume", leader.id, f"the fetch carries epoch {epoch}, the broker is in epoch "
                                             f"{leader.leader_epoch} ({code})")
            return code
        return None

    def commit(self) -> None:
        """The consumer commits its position (as commitSync does)."""
        self.committed_offset = self.consumer_position
        self.last_commit_ms = self.now
        self.events.append(("commit", self.committed_offset))

    def consumer_crash(self) -> None:
        """The consumer dies; a new one resumes from the last committed offset."""
        self.events.append(("consumer_crash", self.consumer_position, self.committed_offset))
        self.consumer_position = self.committed_offset
        self.consumer_session += 1
