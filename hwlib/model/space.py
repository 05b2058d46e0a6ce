"""The model both searches walk: bounds, the alphabet of steps, which can act, the state key and fingerprint.

A state is what the engine's parts declare (``Cluster.key``: each stateful part's ``key``
beside its copy constructor, ``hwlib.engine.state_key``): everything that decides the
cluster's future, and nothing that only observes it (events, polls, rewrite markers, cache
versions, error counts), times relative to ``now``, integers only - so Python's ``hash`` of a
key is the same in every process: a fingerprint that a resumed or distributed search can
share. The search takes it with the reductions of ``reductions`` (each a named predicate with
its argument), or whole (``reduced=False``: their equivalence tests). Which steps can act is
asked of the engine (``Cluster.skip_reason``), where each step keeps its guard beside its
effect; which of them the search need not take is said here and in ``reductions``, each with
its argument (``Bounds.cuts``, ``settles_at_once``, ``refused``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..engine.config import ClusterConfig, replica_names
from ..engine.protocols import Protocol
from ..engine.releases import rules_named
from ..engine.steps import Step
from .reductions import ModelKeys, Reductions, Renamings
from .vocabulary import DEFAULT_MAX_EPOCH, DEFAULT_MAX_RECORDS, DEFAULT_REPLICAS, CheckError, parse_budget

if TYPE_CHECKING:
    from ..anomalies import AnomalyChecker
    from ..engine.cluster import Cluster


def key_context(replicas: tuple[str, ...] | list[str], values: dict[str, int], reduced: bool = True,
                settled: int | None = None) -> ModelKeys:
    """How a search takes its states' keys: with every reduction (``reductions.Reductions``;
    ``settled``: the search's ``settled_epoch``, None: reduction 7 off), or - ``reduced`` False -
    the whole state the engine's parts declare up to a renaming of the counters that only grow
    (``reductions.Renamings``: a finite space within the bounds). ``values`` numbers the
    record values."""
    return Reductions(replicas, values, settled) if reduced else Renamings(replicas, values)


def state_key(cluster: Cluster, values: dict[str, int], reduced: bool = True, settled: int | None = None) -> tuple:
    """The canonical state (``Cluster.key``, each part's own key) with every reduction
    (``reductions``) or, ``reduced`` False, whole up to the counters' renaming (see
    ``key_context``); ``values`` numbers the record values;
    ``settled``: the search's ``settled_epoch`` (None: reduction 7 is off)."""
    return key_context(cluster.config.replicas, values, reduced, settled).key_of(cluster)


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
    #: how much time one ``tick`` step passes (default: replica.lag.time.max.ms + the ISR check's
    #: period + 1, so a tick always runs an ISR check that finds a silent follower lagging)
    tick_ms: int | None = None
    #: stop after the level at which this many distinct states are known (None: no limit); a
    #: search stopped so is not complete, and its verdicts say how deep it went
    max_states: int | None = None
    #: the partition changes waiting for one broker cut off from the controller, at most
    #: (states beyond it are cut; None: no bound) - see ``beyond``
    max_queued: int | None = None
    #: faults taken at most this many times each, as (fault, limit) pairs, kept in ``FAULTS``
    #: order (a TLA+ specification's fault counters; ``vocabulary.parse_budget`` reads a dict or
    #: ``power_loss=1,isolate=1``); counted in each state (``budget.Counters``), a step past its
    #: limit is not taken
    fault_budget: tuple[tuple[str, int], ...] = ()
    #: ISR changes the leaders send (AlterPartition, AlterIsr, the ZooKeeper ISR write), at most
    #: (None: no bound; counted in each state, states past it are cut) - ``budget.isr_requests``
    max_alter_partitions: int | None = None

    def beyond(self, cluster: Cluster) -> bool:
        """Whether ``cluster`` is past the leader-epoch bound or the queue bound (a search cuts it).

        The leader epoch bounds the control plane's changes in every generation but one: from
        KRaft 3.6 (kip966, KAFKA-15021) an ISR shrink keeps the leader epoch, so a leader can
        shrink and expand its ISR without end while a third broker, cut off from the controller
        but still registered, is sent every change - its unread part of the metadata log grows
        by two changes a round, each a state of its own (``deliver`` applies them one by one).
        At 3 replicas that space has no end within the epoch bound; ``max_queued`` gives it
        one. Both are in the state key (the queues of running brokers: a broker that is down
        never reads its own, and the key leaves it out - reduction 2, ``reductions.offline``), so the
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
        """How much time one ``tick`` step passes under ``config``: ``tick_ms``, else
        replica.lag.time.max.ms + the ISR check's period + 1 (1.5 x the lag + 1; 2 x up to
        Kafka 0.10.1, whose check runs every lag): enough for a lagging follower to leave the ISR."""
        if self.tick_ms:
            return self.tick_ms
        lag = config.replica_lag_time_max_ms
        return lag + config.rules().isr_check_period(lag) + 1

    @property
    def replica_ids(self) -> tuple[str, ...]:
        """The replicas' names: A, B, C ... in assignment order."""
        return replica_names(self.replicas)

    def as_dict(self) -> dict:
        """Plain values (JSON); the budgets only where given, so a check written without them
        keeps its identity (an ``--out`` directory's marker)."""
        out = {name: getattr(self, name) for name in ("replicas", "max_records", "max_epoch", "max_ticks",
                                                      "depth", "tick_ms", "max_states", "max_queued")}
        if self.fault_budget:
            out["fault_budget"] = dict(self.fault_budget)
        if self.max_alter_partitions is not None:
            out["max_alter_partitions"] = self.max_alter_partitions
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Bounds:
        """Bounds from ``as_dict``'s plain values (a fault budget as a mapping)."""
        values = dict(data)
        if "fault_budget" in values:
            values["fault_budget"] = parse_budget(values["fault_budget"])
        return cls(**values)

    def __reduce__(self):
        """By the constructor (see ``Step.__reduce__``)."""
        return (Bounds, (self.replicas, self.max_records, self.max_epoch, self.max_ticks, self.depth, self.tick_ms,
                         self.max_states, self.max_queued, self.fault_budget, self.max_alter_partitions))

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
        value = self.max_alter_partitions
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise CheckError(f"max-alter-partitions: must be an integer >= 0, got {value!r}")
        object.__setattr__(self, "fault_budget", parse_budget(self.fault_budget))


#: the faults that take a broker out of the ISR by the controller's hand, any number of times:
#: a loss it notices (an expired session, a crash, a power loss, a replaced disk, a controlled shutdown)
NOTICED = frozenset(("isolate", "crash", "power_loss", "replace_disk", "controlled_shutdown"))


def settled_epoch(generation: Protocol, bounds: Bounds, faults: tuple[str, ...]) -> int | None:
    """The leader epoch from which an unnoticed isolation can settle (reduction 7,
    ``reductions.isolation_settled``) in a search of ``generation`` within ``bounds`` and
    ``faults``: the epoch bound, where every change the controller could still send a broker carries a new
    leader epoch - in ZooKeeper mode (hw to kip595) all of them, under KRaft 3.3-3.5 (kip841,
    kip903) all but an ISR expansion - with no controller failover (which sends the current
    state again, queued for a broker it cannot reach) and no ticks (a leader's lag-driven ISR
    shrink keeps the epoch before KRaft, and may take the isolated broker out of the ISR). None
    where it never settles: where an ISR shrink keeps the leader epoch (kip966, KAFKA-15021),
    under KRaft with a queue bound (``Bounds.beyond`` reads what waits for a cut-off broker,
    which the reduction leaves out), and the cases above."""
    if not generation.isr_shrink_bumps_leader_epoch or "controller_failover" in faults:
        return None
    if generation.kraft and bounds.max_queued is not None:
        return None
    if "tick" in faults and bounds.max_ticks > 0:
        return None
    return bounds.max_epoch


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
    state of its own (``Bounds.beyond``). Only a queue, depth or state bound ends that search,
    or a budget that ends the rounds: on every such loss, or on the AlterPartitions (each
    round's expansion is one).
    Without such a loss nothing shrinks the ISR but a bounded number of ticks, and the search
    ends (kip966, 3 replicas, leader moves, isolation within the session and late delivery:
    complete at depth 24 with min.insync.replicas=2)."""
    if (generation.isr_shrink_bumps_leader_epoch or not generation.kraft or bounds.replicas < 3
            or "isolate_unseen" not in faults or not NOTICED & set(faults)):
        return None
    if bounds.max_queued is not None or bounds.depth is not None or bounds.max_states is not None:
        return None
    budget = dict(bounds.fault_budget)
    if bounds.max_alter_partitions is not None or all(fault in budget for fault in NOTICED & set(faults)):
        return None
    return (f"max-queued: needed for {protocol} at {bounds.replicas} replicas - an ISR shrink keeps the leader "
            f"epoch there (KAFKA-15021), so a broker cut off from the controller can fall behind by any number of "
            f"ISR changes and the search never ends; give --max-queued N (2 keeps two changes replayed in one "
            f"delta), --depth, --max-states, --max-alter-partitions or a --fault-budget on "
            f"{', '.join(sorted(NOTICED & set(faults)))}")


def alphabet(replicas: tuple[str, ...], faults: tuple[str, ...], tick_ms: int, max_records: int = 0) -> list[Step]:
    """Every step the search tries, in a fixed order (a produce is a placeholder: the search
    gives each produce the next value, m1, m2, ...).

    Retention and DeleteRecords move a log start to any offset a segment boundary or an admin
    could name: as far as the replica's release allows (``-1``) and to each offset 1 ..
    ``max_records - 1`` - a start below the HW leaves a leader's older epochs in its cache,
    which a start at the HW can drop (KAFKA-12996's path needs one).

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
        if "retention" in faults:
            steps += [Step("retention", replica=r, offset=o) for o in (-1, *range(1, max_records))]
    if "lost_ack" in faults:
        steps += [Step("produce", value="", lose_ack=True), Step("retry")]
    if "retention" in faults:
        steps += [Step("delete_records", offset=o) for o in (-1, *range(1, max_records))]
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


def fingerprint(cluster: Cluster, checker: AnomalyChecker, ctx: ModelKeys, ticks: int) -> int:
    """Python's hash of integers only (the state as ``ctx`` takes it, the checks' memory, the
    ticks passed): the same in every process and either engine."""
    return hash((ctx.key_of(cluster), checker.verdict_key(ctx.values), ticks))
