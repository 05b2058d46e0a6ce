"""``explain(spec)``: read the logs, recognise, attribute, project onto each partition, search the rules, answer.

Five stages. Read (``read``: any layout, streamed) and recognise (``recognise``: the format
table) every line; attribute each file to the broker that wrote it where its lines say so (or
``--broker``); project onto one partition (a broker-level line - a process that started or
shut down - belongs to every partition); turn the partition's lines into the observations to
explain, in their order (a file is a chain, timestamps order the chains); search
(``search.ExplainSearch``) each candidate release's rules - the releases whose code writes every
recognised line's text, newest first, one search per distinct rule set - under the settings the
logs cannot show (acks, min.insync.replicas, unclean.leader.election.enable: the release's
defaults first), with more kinds of fault only when fewer explain nothing. The first
explanation found is the answer; it is replayed, and each anomaly it shows is marked
``necessary`` when a second search that forbids it finds no explanation within the same bounds.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..anomalies.checker import EFFECTS
from ..check.model import Bounds
from ..engine.config import ClusterConfig, replica_names
from ..engine.releases import KRAFT, RELEASES, ZK, Release, release
from ..engine.steps import Step
from ..run import run_steps
from .formats import version
from .observations import KINDS, Maps, Observation
from .read import read_records
from .recognise import Line, recognise
from .search import ExplainSearch, Outcome, Target
from .spec import ExplainSpec

#: observation kinds that concern a broker, not a partition (they hold for every partition it has)
BROKER_LEVEL = ("started", "stopped")
#: lines kept per file and status beyond the partition's own (the rest are counted)
KEEP_OTHERS = 200
#: seconds the second search that decides whether an anomaly is necessary may take, each
NECESSITY_S = 5.0
#: ... and at most this share of the time left
NECESSITY_SHARE = 0.25


@dataclass
class Rules:
    """A candidate rule set: the release rows that share it (newest first) and a config naming the first."""

    rows: list[Release]

    @property
    def key(self) -> str:
        return self.rows[0].key

    @property
    def label(self) -> str:
        names = [r.label for r in self.rows]
        return names[0] if len(names) == 1 else f"{names[-1]} to {names[0]}"


@dataclass
class Answer:
    """One partition's answer."""

    partition: str
    verdict: str                       # explained, not-explainable, outside-model, inconclusive, nothing
    sentence: str
    lines: list[Line]
    release: str | None = None
    rules_label: str = ""
    protocol: str | None = None
    config: ClusterConfig | None = None
    maps: Maps = field(default_factory=Maps)
    steps: list[tuple[Step, tuple[int, ...]]] = field(default_factory=list)
    anomalies: list[dict] = field(default_factory=list)
    expected_effects: list[dict] = field(default_factory=list)
    failed_at: dict | None = None
    prefix: list[Step] = field(default_factory=list)
    search: dict = field(default_factory=dict)
    #: the observations explained, in order, each with its lines
    observed: list[tuple[Observation, list[Line]]] = field(default_factory=list)
    release_range: tuple[str, str] | None = None

    @property
    def exit_code(self) -> int:
        return {"explained": 0, "nothing": 0, "not-explainable": 3, "outside-model": 4, "inconclusive": 5}[self.verdict]


@dataclass
class ExplainRun:
    """What ``explain`` found: every line read (kept), counts of the lines not kept, an answer per partition."""

    answers: list[Answer]
    lines: list[Line]
    omitted: dict[str, int]
    seconds: float
    release_range: tuple[str, str] | None = None

    @property
    def exit_code(self) -> int:
        codes = [a.exit_code for a in self.answers] or [0]
        for code in (5, 3, 4):
            if code in codes:
                return code
        return 0


# ------------------------------------------------------------------------------- reading
def read_lines(spec: ExplainSpec, progress: Callable[[str], None] | None = None) -> tuple[list[Line], dict[str, int]]:
    """Every line of the logs recognised, the files attributed; lines of other partitions beyond
    ``KEEP_OTHERS`` per file are counted, not kept."""
    named = dict(spec.brokers)
    lines: list[Line] = []
    omitted: dict[str, int] = {}
    names = [Path(p).name for p in spec.logs]
    for path in spec.logs:
        label = Path(path).name if names.count(Path(path).name) == 1 else str(path)
        writers: set[str] = set()
        sources: dict[str, set[str]] = {}
        kept_other = 0
        file_lines: list[Line] = []
        for record in read_records(path, label, _Meter(label, progress)):
            line = recognise(record)
            if line.writer is not None:
                writers.add(line.writer)
                if record.source is not None:
                    sources.setdefault(record.source, set()).add(line.writer)
            if spec.partition is not None and line.partition is not None and not _about(line.partition,
                                                                                      spec.partition):
                line.status, line.reason = "other-partition", f"about {line.partition}"
                kept_other += 1
                if kept_other > KEEP_OTHERS:
                    omitted["other-partition"] = omitted.get("other-partition", 0) + 1
                    continue
            file_lines.append(line)
        own = named.get(path) or named.get(label) or (next(iter(writers)) if len(writers) == 1 else None)
        for line in file_lines:
            if line.observation is None or line.observation.broker is not None:
                continue
            who = own
            source = line.record.source
            if who is None and source is not None and len(sources.get(source, ())) == 1:
                who = next(iter(sources[source]))
            if who is not None:
                line.writer = who
                line.observation = Observation(line.observation.kind, who, line.observation.values)
        lines += file_lines
    return lines, omitted


class _Meter:
    """Called with the bytes read as a file is read: says how far it got every 64 MB."""

    STEP = 1 << 26

    def __init__(self, label: str, progress: Callable[[str], None] | None) -> None:
        self.label, self.progress, self.read = label, progress, 0

    def __call__(self, size: int) -> None:
        before, self.read = self.read, self.read + size
        if self.progress is not None and self.read // self.STEP > before // self.STEP:
            self.progress(f"{self.label}: {self.read / (1 << 20):,.0f} MB read")


def _about(named: str, partition: str) -> bool:
    """Whether a line naming ``named`` (a partition, or a topic alone) is about ``partition``."""
    return named == partition or named == partition.rsplit("-", 1)[0]


def partitions_of(lines: list[Line]) -> list[str]:
    """The partitions the recognised lines are about, in the order first met."""
    out: list[str] = []
    for line in lines:
        if line.observation is not None and line.partition is not None and line.partition[-1:].isdigit() \
                and "-" in line.partition and line.partition not in out:
            out.append(line.partition)
    return out


# ---------------------------------------------------------------------------- candidates
def release_range(lines: list[Line]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The releases whose code writes every recognised line's text (None: they disagree)."""
    low: tuple[int, ...] = (0,)
    high: tuple[int, ...] = (99,)
    for line in lines:
        if line.releases is None:
            continue
        first, last = line.releases
        low, high = max(low, first), min(high, last)
    return (low, high) if low <= high else None


def candidate_rules(spec: ExplainSpec, span: tuple[tuple[int, ...], tuple[int, ...]] | None,
                    kraft_seen: bool) -> list[Rules]:
    """The rule sets to try: ``--release``'s, else every release row within ``span``, newest
    first (ZooKeeper before KRaft unless a line is KRaft's), one per distinct rule set."""
    if spec.release is not None:
        return [Rules([release(spec.release)])]
    if spec.protocol is not None:
        return []
    low, high = span if span is not None else ((0,), (99,))
    rows = [r for r in RELEASES if any(low <= version(p if p.count(".") > 1 or p.startswith("0") else p + ".0")
                                       <= high for p in r.patches)]
    order = (KRAFT, ZK) if kraft_seen else (ZK, KRAFT)
    rows.sort(key=lambda r: (r.version, -order.index(r.mode)), reverse=True)
    groups: dict[tuple, Rules] = {}
    for row in rows:
        rules = row.rules()
        key = (type(rules).__name__, tuple(sorted(vars(rules).items())) if hasattr(rules, "__dict__") else (),
               tuple(sorted(row.flags().items())), row.mode)
        groups.setdefault(key, Rules([])).rows.append(row)
    return list(groups.values())


def configs(spec: ExplainSpec, row: Release | None, protocol: str | None, replicas: int) -> list[ClusterConfig]:
    """The settings to try, the release's defaults first: unclean.leader.election.enable, then
    min.insync.replicas and acks, each as the user fixed it or over its values."""
    unclean_default = row.unclean_default if row is not None else False
    acks_default = "all" if row is not None and row.version >= (3, 0, 0) else "1"
    fixed_unclean = spec.fixed("unclean_leader_election")
    fixed_min = spec.fixed("min_insync_replicas")
    fixed_acks = spec.fixed("acks")
    uncleans = [bool(fixed_unclean)] if fixed_unclean is not None else [unclean_default, not unclean_default]
    mins = [int(str(fixed_min))] if fixed_min is not None else list(range(1, replicas + 1))
    acks = [str(fixed_acks)] if fixed_acks is not None else \
        [acks_default] + [a for a in ("all", "1") if a != acks_default]
    out = []
    for unclean, min_isr, ack in itertools.product(uncleans, mins, acks):
        if min_isr > replicas:
            continue
        out.append(ClusterConfig(replicas=replica_names(replicas), retries=1, protocol=protocol or "",
                                 release=None if row is None else row.key, unclean_leader_election=unclean,
                                 min_insync_replicas=min_isr, acks=ack))
    return out


# --------------------------------------------------------------------------------- answer
def _observed(lines: list[Line]) -> list[tuple[Observation, list[Line]]]:
    """The observations to explain, in file order per file: repeated identical lines (the same
    file, one after another) are one observation, seen at least once."""
    out: list[tuple[Observation, list[Line]]] = []
    last: dict[str, tuple[str, int]] = {}
    for line in lines:
        if line.observation is None:
            continue
        key = line.record.file
        previous = last.get(key)
        if previous is not None and previous[0] == line.record.message:
            out[previous[1]][1].append(line)
            continue
        last[key] = (line.record.message, len(out))
        out.append((line.observation, [line]))
    return out


def target_of(observed: list[tuple[Observation, list[Line]]], skew_ms: float) -> Target:
    files: list[str] = []
    chain_of, stamps = [], []
    for _, lines in observed:
        record = lines[0].record
        if record.file not in files:
            files.append(record.file)
        chain_of.append(files.index(record.file))
        stamps.append(record.timestamp)
    return Target.of([o for o, _ in observed], chain_of, stamps, skew_ms)


def explain(spec: ExplainSpec, progress: Callable[[str], None] | None = None) -> ExplainRun:
    """The answer for each partition (the spec's partition, else every partition the logs name)."""
    started = time.perf_counter()
    lines, omitted = read_lines(spec, progress)
    partitions = [spec.partition] if spec.partition is not None else partitions_of(lines)
    deadline = started + spec.time_limit
    answers = [answer_partition(spec, lines, p, deadline, progress) for p in partitions]
    if not answers:
        answers = [Answer("-", "nothing", "no line names a partition hwlib can explain: nothing to explain", lines)]
    span = release_range([line for line in lines if line.format is not None])
    named = (".".join(map(str, span[0])), ".".join(map(str, span[1]))) if span else None
    return ExplainRun(answers, lines, omitted, time.perf_counter() - started, named)


def answer_partition(spec: ExplainSpec, lines: list[Line], partition: str, deadline: float,
                     progress: Callable[[str], None] | None) -> Answer:
    own: list[Line] = []
    for line in lines:
        if line.status == "other-partition":
            continue
        if line.partition is not None and not _about(line.partition, partition):
            continue
        if line.partition is None and line.observation is not None and line.observation.kind not in BROKER_LEVEL:
            continue
        own.append(line)
    observed = _observed(own)
    brokers = sorted({o.broker for o, _ in observed if o.broker is not None}, key=lambda b: (len(b), b))
    replicas = spec.replicas or max(2, min(5, len(brokers) or 2))
    span = release_range(own)
    kraft_seen = any(line.format is not None and line.format.logger in ("kafka.server.BrokerServer",
                                                                          "kafka.server.KafkaRaftServer")
                     for line in own)
    candidates = candidate_rules(spec, span, kraft_seen)
    answer = Answer(partition, "inconclusive", "", own, observed=observed,
                    release_range=(".".join(map(str, span[0])), ".".join(map(str, span[1]))) if span else None)
    if not observed:
        answer.verdict = "nothing"
        answer.sentence = f"{partition}: no line about it states anything the model has: nothing to explain"
        return answer
    target = target_of(observed, spec.skew_ms)
    plans: list[tuple[Release | None, str | None, str]] = []
    if spec.protocol is not None:
        plans.append((None, spec.protocol, spec.protocol))
    for rules in candidates:
        plans.append((rules.rows[0], None, rules.label))
    best: tuple[Outcome, ClusterConfig, str, ExplainSearch] | None = None
    totals: dict[str, object] = {"states": 0, "transitions": 0, "seconds": 0.0, "searches": 0}
    complete_everywhere = True
    found: tuple[Outcome, ClusterConfig, str, ExplainSearch] | None = None
    for tier, records, epochs, label, config in attempts(spec, plans, observed, replicas):
        if time.perf_counter() > deadline:
            complete_everywhere = False
            break
        bounds = Bounds(replicas=replicas, max_records=records, max_epoch=epochs,
                        max_ticks=1 if "tick" in tier else 0, depth=spec.depth)
        search = ExplainSearch(config, bounds, tier, target, spec.max_silent, deadline=deadline)
        impossible = unmakeable(config, target)
        if impossible is not None:
            if best is None or impossible > _progress(best[0]):
                stuck = Outcome(None, None, True)
                stuck.impossible = impossible
                best = (stuck, config, label, search)
            continue
        outcome = search.run(greedy=True)
        for name, amount in (("states", outcome.states), ("transitions", outcome.transitions),
                             ("seconds", outcome.seconds), ("searches", 1)):
            totals[name] = totals[name] + amount          # type: ignore[operator]
        if progress is not None:
            progress(f"{partition}: {label}, {'unclean' if config.unclean_leader_election else 'clean'} election, "
                     f"min ISR {config.min_insync_replicas}, acks {config.acks}, faults {'/'.join(tier)}, "
                     f"{records} records, epoch <= {epochs}: {outcome.states:,} states, {outcome.seconds:.1f} s"
                     + (" - explained" if outcome.goal is not None else ""))
        if not outcome.complete:
            complete_everywhere = False
        if outcome.goal is not None:
            found = (outcome, config, label, search)
            shortest = shorten(found, deadline)
            if shortest is not None:
                found = shortest
            totals["shortest"] = "proven" if shortest is not None and shortest[0].complete else (
                "proven" if shortest is not None else "not proven (the time ran out)")
            break
        if best is None or _progress(outcome) > _progress(best[0]):
            best = (outcome, config, label, search)
    answer.search = {**totals, "seconds": round(float(totals["seconds"]), 2),       # type: ignore[arg-type]
                     "complete": complete_everywhere,
                     "bounds": {"replicas": replicas, "max_records": spec.max_records, "max_epoch": spec.max_epoch,
                                "max_silent": spec.max_silent, "depth": spec.depth, "time_limit": spec.time_limit}}
    if found is not None:
        return _explained(answer, found, spec, deadline)
    return _unexplained(answer, best, target, complete_everywhere)


#: the faults a kind of line implies: the model cannot make it without one of them
IMPLIED = {"started": ("crash",), "stopped": ("controlled_shutdown",), "isr_shrink": ("tick",),
           "isr_refused": ("isolate", "isolate_unseen", "tick"), "fenced": ("isolate", "isolate_unseen", "deliver"),
           "unknown_epoch": ("isolate", "isolate_unseen", "deliver"),
           "not_leader": ("isolate", "isolate_unseen", "deliver"),
           "halt": ("crash", "quick_restart", "power_loss", "power_loss_unseen", "flush"),
           "out_of_range": ("crash", "quick_restart")}
#: the settings a kind of line implies: a follower exits rather than truncate only with unclean
#: leader election disabled (ReplicaFetcherThread.handleOffsetOutOfRange, 0.9 to 2.0.0)
IMPLIED_SETTINGS = {"halt": ("unclean_leader_election", False)}
#: what each later tier adds
MORE = (("quick_restart", "tick", "isolate", "isolate_unseen", "deliver", "controlled_shutdown"),
        ("power_loss", "power_loss_unseen", "flush", "controller_failover", "replace_disk"))


def fault_tiers(spec: ExplainSpec, observed: list[tuple[Observation, list[Line]]]) -> list[tuple[str, ...]]:
    """The faults to search, tier by tier: leader moves and crashes, with what the lines' kinds
    imply (``IMPLIED``: a shrinking ISR needs time to pass, a zombie's refused ISR write an
    isolation ...); then the common ones; then every fault. Each tier holds the one before."""
    if spec.fault_tiers is not None:
        return list(spec.fault_tiers)
    first = ["elect", "crash"]
    for seen, _ in observed:
        first += [f for f in IMPLIED.get(seen.kind, ()) if f not in first]
    tiers = [tuple(first)]
    for extra in MORE:
        widened = tuple(dict.fromkeys(tiers[-1] + extra))
        if widened != tiers[-1]:
            tiers.append(widened)
    return tiers


def attempts(spec: ExplainSpec, plans: list[tuple[Release | None, str | None, str]],
             observed: list[tuple[Observation, list[Line]]], replicas: int):
    """The searches to run, in order: every rule set under its release's default settings, the
    smallest bounds and fewest kinds of fault first; then the other settings likewise."""
    tiers = fault_tiers(spec, observed)
    implied = [IMPLIED_SETTINGS[seen.kind] for seen, _ in observed if seen.kind in IMPLIED_SETTINGS]
    for phase in (0, 1):
        for records, epochs in widening(spec, observed):
            for tier in tiers:
                for row, protocol, label in plans:
                    tried = [c for c in configs(spec, row, protocol, replicas)
                             if all(getattr(c, name) == value for name, value in implied)]
                    for config in (tried[:1] if phase == 0 else tried[1:]):
                        yield tier, records, epochs, label, config


def widening(spec: ExplainSpec, observed: list[tuple[Observation, list[Line]]]) -> list[tuple[int, int]]:
    """The (records, leader epoch) bounds to search, smallest first: the model needs a distinct
    value for each distinct offset and epoch the lines name (the maps are strictly increasing),
    so no smaller bound can explain them; each try widens both by one, up to the spec's."""
    offsets: set[int] = set()
    epochs: set[int] = set()
    for seen, _ in observed:
        sorts = KINDS[seen.kind][1]
        for name, value in seen.values:
            if sorts[name] == "offset" and isinstance(value, int) and value > 0:
                offsets.add(value)
            elif sorts[name] == "epoch" and isinstance(value, int) and value > 0:
                epochs.add(value)
    records = min(spec.max_records, max(1, len(offsets)))
    epoch = min(spec.max_epoch, max(1, len(epochs)))
    out = [(records, epoch)]
    while records < spec.max_records or epoch < spec.max_epoch:
        records, epoch = min(spec.max_records, records + 1), min(spec.max_epoch, epoch + 1)
        out.append((records, epoch))
    return out


#: the share of the time left that the search for a shorter explanation may take, and at most seconds
SHORTEN_SHARE = 0.5
SHORTEN_S = 10.0


def shorten(found: tuple[Outcome, ClusterConfig, str, ExplainSearch], deadline: float
            ) -> tuple[Outcome, ClusterConfig, str, ExplainSearch] | None:
    """A shortest explanation under the same rules, settings and bounds: breadth first, no
    deeper than the one found (whose first goal is a shortest one); None if it could not
    finish within its share of the time left (the one found stands, not known to be shortest)."""
    outcome, config, label, search = found
    assert outcome.goal is not None
    length = len(outcome.goal.schedule(search.steps))
    now = time.perf_counter()
    budget = now + min(SHORTEN_S, max(0.0, deadline - now) * SHORTEN_SHARE)
    bounds = Bounds(replicas=search.bounds.replicas, max_records=search.bounds.max_records,
                    max_epoch=search.bounds.max_epoch, max_ticks=search.bounds.max_ticks, depth=length)
    breadth = ExplainSearch(config, bounds, search.faults, search.target, search.max_silent, deadline=budget)
    result = breadth.run()
    if result.goal is not None:
        result.complete = True                 # breadth first: the first goal is a shortest one
        return result, config, label, breadth
    return None


def _progress(outcome: Outcome) -> int:
    if outcome.impossible is not None:
        return outcome.impossible
    best = outcome.best
    return 0 if best is None else sum(best.cursors)


def _explained(answer: Answer, found: tuple[Outcome, ClusterConfig, str, ExplainSearch], spec: ExplainSpec,
               deadline: float) -> Answer:
    outcome, config, label, search = found
    goal = outcome.goal
    assert goal is not None
    schedule = goal.schedule(search.steps)
    answer.verdict = "explained"
    answer.config, answer.rules_label, answer.maps, answer.steps = config, label, goal.maps, schedule
    answer.release = config.release
    answer.protocol = config.rules().name if hasattr(config.rules(), "name") else config.protocol
    for number, (_, matched) in enumerate(schedule, 1):
        for index in matched:
            for line in answer.observed[index][1]:
                line.status, line.step = "matched", number
    result = run_steps(config, [step for step, _ in schedule], name="explanation")
    kinds: list[str] = []
    for anomaly in result.anomalies:
        if anomaly.kind in kinds:
            continue
        kinds.append(anomaly.kind)
        entry = {"kind": anomaly.kind, "step": anomaly.step, "detail": anomaly.detail, "necessary": None}
        if anomaly.kind in EFFECTS:
            answer.expected_effects.append(entry)
        else:
            answer.anomalies.append(entry)
    for entry in answer.anomalies:
        if time.perf_counter() > deadline:
            break
        now = time.perf_counter()
        budget = now + min(NECESSITY_S, max(0.0, deadline - now) * NECESSITY_SHARE)
        forbid = ExplainSearch(config, search.bounds, search.faults, search.target, search.max_silent,
                               forbid=str(entry["kind"]), deadline=budget)
        other = forbid.run(greedy=True)
        if other.goal is not None:
            entry["necessary"] = False
        elif other.complete:
            entry["necessary"] = True
    explained_lines = sum(len(lines) for _, lines in answer.observed)
    total = len(answer.lines)
    offsets = ", ".join(f"{real:,} -> {model}" for real, model in answer.maps.offsets if real not in (0, -1))
    epochs = ", ".join(f"{real} -> {model}" for real, model in answer.maps.epochs if real not in (0, -1))
    losses = ", ".join(f"{a['kind']}" + {True: " (necessary)", False: " (not necessary)", None: ""}[a["necessary"]]
                       for a in answer.anomalies)
    answer.sentence = (f"hwlib's model of Kafka {label} ({config.rules_name} rules) explains {explained_lines} of "
                       f"{total} lines in {len(schedule)} steps"
                       + (f"; offsets {offsets}" if offsets else "") + (f"; epochs {epochs}" if epochs else "")
                       + (f"; it loses acknowledged writes: {losses}" if any(a["kind"] == "lost-write"
                                                                            for a in answer.anomalies)
                          else (f"; anomalies: {losses}" if losses else "; no anomaly")))
    return answer


#: kinds of line only some rule sets can make at all (a candidate without the rule is refused
#: before any search: it cannot make the line, in any state)
CAN_MAKE = {
    "fenced": lambda rules: rules.fences_requests,
    "unknown_epoch": lambda rules: rules.fences_requests,
    "halt": lambda rules: rules.out_of_range_exits_broker,
    "epoch_entry": lambda rules: rules.uses_leader_epochs,
    "epoch_answer": lambda rules: rules.uses_leader_epochs,
}


def unmakeable(config: ClusterConfig, target: Target) -> int | None:
    """The first observation (by index, in order) the config's rules can never make, or None."""
    rules = config.rules()
    for index, seen in enumerate(target.observations):
        can = CAN_MAKE.get(seen.kind)
        if can is not None and not can(rules):
            return index
        if seen.kind == "halt" and config.unclean_leader_election:
            return index
    return None


#: what each kind of line needs of the model, and the releases whose logs show it
NEEDS = {
    "halt": "a follower whose broker exits rather than truncate below its log end (Kafka 0.9 to 2.0.0, "
            "unclean.leader.election.enable=false)",
    "fenced": "a fetch refused with FENCED_LEADER_EPOCH (Kafka 2.1 and later, KIP-320)",
    "unknown_epoch": "a fetch refused with UNKNOWN_LEADER_EPOCH (Kafka 2.1 and later, KIP-320)",
    "epoch_entry": "a leader-epoch cache entry (Kafka 0.11 and later, KIP-101)",
    "epoch_answer": "an OffsetsForLeaderEpoch answer (Kafka 0.11 and later, KIP-101)",
}


def _unexplained(answer: Answer, best: tuple[Outcome, ClusterConfig, str, ExplainSearch] | None, target: Target,
                 complete: bool) -> Answer:
    if best is None:
        answer.verdict = "inconclusive"
        answer.sentence = f"{answer.partition}: no search ran within the time limit"
        return answer
    outcome, config, label, search = best
    node = outcome.best
    if outcome.impossible is not None:
        index = outcome.impossible
    else:
        assert node is not None
        waiting = target.next_ones(node.cursors)
        index = min(i for _, i in waiting) if waiting else 0
    wanted, lines = answer.observed[index]
    first = lines[0]
    kind_text = KINDS[wanted.kind][0]
    needs = NEEDS.get(wanted.kind, f"{kind_text}: {wanted.describe()}")
    same = [o for o in outcome.frontier if o.kind == wanted.kind]
    can = sorted({o.describe() for o in (same or outcome.frontier)})[:6]
    if outcome.impossible is not None:
        can = [f"never make it: Kafka {label}'s rules have no such line"
               + (" with unclean.leader.election.enable=true" if wanted.kind == "halt" else "")]
    answer.verdict = "not-explainable" if complete else "inconclusive"
    answer.config, answer.rules_label = config, label
    if node is not None:
        answer.maps = node.maps
        answer.prefix = [step for step, _ in node.schedule(search.steps)]
        answer.steps = node.schedule(search.steps)
    for number, (_, matched) in enumerate(answer.steps, 1):
        for index in matched:
            for line in answer.observed[index][1]:
                line.status, line.step = "matched", number
    answer.failed_at = {"file": first.record.file, "line": first.record.line, "text": first.record.text,
                        "category": wanted.kind, "needs": needs, "model_can": can}
    first.reason = f"needs {needs}"
    where = f"line {first.record.line} of {first.record.file}"
    if complete:
        answer.sentence = (f"not explainable under Kafka {label}: {where} needs {needs}; at that point the model can "
                           f"only {', '.join(can) if can else 'do nothing more within the bounds'}")
    else:
        answer.sentence = (f"inconclusive: no explanation within the bounds and time; the furthest search (Kafka "
                           f"{label}) stopped before {where} ({wanted.describe()})")
    return answer


