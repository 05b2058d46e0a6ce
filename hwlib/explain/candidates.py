"""What to try, in order: rule sets, settings, faults and bounds - and what a rule set can never make.

The release range is the intersection of the ranges of releases whose code writes each
recognised line's text (``release_range``); each distinct rule set in it is a candidate
(``candidate_rules``), newest first. Settings the logs cannot show are tried with the release's
defaults first (``configs``); a kind of line can imply a setting or a fault (``IMPLIED``,
``IMPLIED_SETTINGS``); faults widen tier by tier (``fault_tiers``) and the records and epochs from
what the lines need (``widening``). ``attempts`` orders them all. A rule set that cannot make a
line at all (``CAN_MAKE``) is refused before any search (``unmakeable``), and ``NEEDS`` says what
such a line needs.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..engine.config import ClusterConfig, replica_names
from ..engine.releases import (
    FLAGS,
    KRAFT,
    LOWEST_FEATURE_VERSION,
    RELEASES,
    ZK,
    Release,
    parse_feature_version,
    release,
)
from .formats import ALL, Releases, version
from .observations import KINDS, Observation
from .recognise import Line
from .search import Target
from .spec import ExplainSpec

#: the observations to explain, each with the lines (by index) that show it
Observed = Sequence[tuple[Observation, tuple[int, ...]]]


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


def release_range(lines: list[Line]) -> Releases | None:
    """The releases whose code writes every recognised line's text (None: none writes them all)."""
    out = ALL
    for line in lines:
        if line.releases is not None:
            out = out & line.releases
    return out if out else None


def candidate_rules(spec: ExplainSpec, span: Releases | None, kraft_seen: bool) -> list[Rules]:
    """The rule sets to try: ``--release``'s, else every release row within ``span``, newest
    first (ZooKeeper before KRaft unless a line is KRaft's), one per distinct rule set."""
    if spec.release is not None:
        return [Rules([release(spec.release)])]
    if spec.protocol is not None:
        return []
    within = span if span is not None else ALL
    rows = [r for r in RELEASES if any(version(p if p.count(".") > 1 or p.startswith("0") else p + ".0") in within
                                       for p in r.patches)]
    order = (KRAFT, ZK) if kraft_seen else (ZK, KRAFT)
    rows.sort(key=lambda r: (r.version, -order.index(r.mode)), reverse=True)
    groups: dict[tuple, Rules] = {}
    for row in rows:
        rules = row.rules()
        key = (type(rules).__name__, tuple(sorted(vars(rules).items())) if hasattr(rules, "__dict__") else (),
               tuple(sorted(row.flags().items())), row.mode)
        groups.setdefault(key, Rules([])).rows.append(row)
    return list(groups.values())


def feature_options(row: Release | None) -> list[tuple[str | None, str | None]]:
    """(inter.broker.protocol.version, metadata.version) settings that select other rules in
    ``row``'s release - a cluster part way through an upgrade runs its new code under the old
    protocol version - the release's own (None, None) first, then each version just below a
    flag's threshold (``releases.FLAGS``), one per distinct rule set."""
    if row is None:
        return [(None, None)]
    out: list[tuple[str | None, str | None]] = [(None, None)]
    seen = [row.flags()]
    thresholds: set[tuple[int, int, int]] = set()
    for flag in FLAGS:
        needs = flag.needs(row.mode)
        if needs is not None and row.version >= flag.since and row.mode in flag.modes:
            thresholds.add(needs)
    # explain tries IBPs from 2.1 (a cluster upgrading to the 2.x - 3.x release it names); an
    # older one (KIP-101 / KIP-279 / KIP-320 turned back) only when given with --config
    lowest = parse_feature_version("2.1" if row.mode == ZK else LOWEST_FEATURE_VERSION[KRAFT], "lowest")
    for major, minor, iv in sorted(thresholds, reverse=True):
        if (major, minor, iv) <= lowest:
            continue
        below = f"{major}.{minor}-IV{iv - 1}" if iv > 0 else f"{major}.{minor - 1}"
        value = parse_feature_version(below, "feature version")
        if value < lowest:
            continue
        flags = row.flags(value, None) if row.mode == ZK else row.flags(None, value)
        if flags not in seen:
            seen.append(flags)
            out.append((below, None) if row.mode == ZK else (None, below))
    return out


def configs(spec: ExplainSpec, row: Release | None, protocol: str | None, replicas: int,
            unclean_first: bool | None = None) -> list[ClusterConfig]:
    """The settings to try, the release's defaults first: unclean.leader.election.enable (the
    value the lines suggest first, ``unclean_first``, where they suggest one), the protocol
    version (``feature_options``), then min.insync.replicas and acks, each as the user fixed it
    or over its values."""
    unclean_default = row.unclean_default if row is not None else False
    if unclean_first is not None:
        unclean_default = unclean_first
    acks_default = str(row.default("acks")) if row is not None else "1"
    fixed_unclean = spec.fixed("unclean_leader_election")
    fixed_min = spec.fixed("min_insync_replicas")
    fixed_acks = spec.fixed("acks")
    uncleans = [bool(fixed_unclean)] if fixed_unclean is not None else [unclean_default, not unclean_default]
    mins = [int(str(fixed_min))] if fixed_min is not None else list(range(1, replicas + 1))
    acks = [str(fixed_acks)] if fixed_acks is not None else \
        [acks_default] + [a for a in ("all", "1") if a != acks_default]
    features = feature_options(row)
    out = []
    # the fewest settings away from the defaults first; the unclean flag, then the protocol version,
    # then min.insync.replicas, then acks (what a line can show most, first: an election outside the
    # ISR, an upgrade's older rules, a refused write)
    tried = sorted(itertools.product(range(len(uncleans)), range(len(features)), range(len(mins)),
                                     range(len(acks))), key=lambda ufma: (sum(ufma), ufma[3], ufma[2], ufma[1]))
    for u, f, m, a in tried:
        if mins[m] > replicas:
            continue
        ibp, metadata_version = features[f]
        out.append(ClusterConfig(replicas=replica_names(replicas), retries=1, protocol=protocol or "",
                                 release=None if row is None else row.key, unclean_leader_election=uncleans[u],
                                 min_insync_replicas=mins[m], acks=acks[a], inter_broker_protocol_version=ibp,
                                 metadata_version=metadata_version))
    return out


#: the faults a kind of line implies: the model cannot make it without one of them
IMPLIED = {"started": ("crash",), "stopped": ("controlled_shutdown",), "isr_shrink": ("tick",),
           "isr_refused": ("isolate", "isolate_unseen", "tick"), "fenced": ("isolate", "isolate_unseen", "deliver"),
           "unknown_epoch": ("isolate", "isolate_unseen", "deliver"),
           "not_leader": ("isolate", "isolate_unseen", "deliver"),
           "halt": ("crash", "quick_restart", "power_loss", "power_loss_unseen", "flush"),
           "out_of_range": ("crash", "quick_restart"),
           "log_start": ("retention",), "reset_to_start": ("retention", "crash"),
           "truncate_fully": ("retention", "crash"), "fetcher_failed": ("retention", "crash")}
#: the settings a kind of line implies: a follower exits rather than truncate only with unclean
#: leader election disabled (ReplicaFetcherThread.handleOffsetOutOfRange, 0.9 to 2.0.0)
IMPLIED_SETTINGS = {"halt": ("unclean_leader_election", False)}
#: what each later tier adds
MORE = (("quick_restart", "tick", "isolate", "isolate_unseen", "deliver", "controlled_shutdown"),
        ("power_loss", "power_loss_unseen", "flush", "controller_failover", "replace_disk"))


def fault_tiers(spec: ExplainSpec, observed: Observed) -> list[tuple[str, ...]]:
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
             observed: Observed, replicas: int, lines: Sequence[Line]
             ) -> Iterator[tuple[tuple[str, ...], int, int, str, ClusterConfig]]:
    """The searches to run, in order: every rule set under its release's default settings, the
    smallest bounds and fewest kinds of fault first; then the other settings likewise."""
    tiers = fault_tiers(spec, observed)
    implied = [IMPLIED_SETTINGS[seen.kind] for seen, _ in observed if seen.kind in IMPLIED_SETTINGS]
    unclean_first = True if leader_outside_isr(observed, lines) else None
    bounds = widening(spec, observed)
    # every bound with the fewer faults before a wider tier of faults: a record no line names (lost,
    # or not yet read) is likelier than one more kind of fault, and cheaper to search
    order = [(b, t) for t in range(len(tiers)) for b in range(len(bounds))]
    for phase in (0, 1):
        for b, t in order:
            records, epochs = bounds[b]
            for row, protocol, label in plans:
                tried = [c for c in configs(spec, row, protocol, replicas, unclean_first)
                         if all(getattr(c, name) == value for name, value in implied)]
                for config in (tried[:1] if phase == 0 else tried[1:]):
                    yield tiers[t], records, epochs, label, config


#: the kinds of line that say an ISR (the value that holds it), and those that say a new leader
ISR_SAID = {"isr_shrink": "new", "isr_expand": "new", "isr_updated": "isr", "leader": "isr", "elected": "isr"}
LEADER_SAID = {"leader": None, "elected": "leader"}


def leader_outside_isr(observed: Observed, lines: Sequence[Line]) -> bool:
    """Whether, in time order, a broker becomes leader (or is elected) while the last ISR a line
    stated does not hold it - an unclean election, unless an ISR change no line shows came in
    between. Only an order of search: the unclean setting is tried first, the other still after."""
    def when(i: int) -> tuple[bool, float, int]:
        stamp = lines[observed[i][1][0]].record.timestamp          # each observation has its line(s)
        return stamp is None, stamp or 0.0, i

    stamped = sorted(range(len(observed)), key=when)
    isr: tuple[str, ...] | None = None
    for i in stamped:
        seen = observed[i][0]
        if seen.kind in LEADER_SAID:
            name = LEADER_SAID[seen.kind]
            leader = seen.broker if name is None else seen.value(name)
            if isr is not None and leader is not None and leader not in isr:
                return True
        if seen.kind in ISR_SAID and seen.value(ISR_SAID[seen.kind]) is not None:
            isr = tuple(seen.value(ISR_SAID[seen.kind]))         # type: ignore[arg-type]
    return False


def named_values(observed: Observed) -> tuple[int, int]:
    """How many distinct offsets and leader epochs (other than 0 and -1) the lines name."""
    offsets: set[int] = set()
    epochs: set[int] = set()
    for seen, _ in observed:
        sorts = KINDS[seen.kind][1]
        for name, value in seen.values:
            if sorts[name] == "offset" and isinstance(value, int) and value > 0:
                offsets.add(value)
            elif sorts[name] == "epoch" and isinstance(value, int) and value > 0:
                epochs.add(value)
    return len(offsets), len(epochs)


def bound_caps(spec: ExplainSpec, observed: Observed) -> tuple[int, int]:
    """The widest (records, leader epoch) bounds searched: the spec's, else the lines' distinct
    offsets + 2 (at least 3) and distinct epochs + 2 (at least 4)."""
    offsets, epochs = named_values(observed)
    return (spec.max_records if spec.max_records is not None else max(3, offsets + 2),
            spec.max_epoch if spec.max_epoch is not None else max(4, epochs + 2))


def widening(spec: ExplainSpec, observed: Observed) -> list[tuple[int, int]]:
    """The (records, leader epoch) bounds to search, smallest first: the model needs a distinct
    value for each distinct offset and epoch the lines name (the maps are strictly increasing),
    so no smaller bound can explain them; each try widens both by one, up to ``bound_caps``."""
    offsets, epochs = named_values(observed)
    most_records, most_epoch = bound_caps(spec, observed)
    records = min(most_records, max(1, offsets))
    epoch = min(most_epoch, max(1, epochs))
    out = [(records, epoch)]
    while records < most_records or epoch < most_epoch:
        records, epoch = min(most_records, records + 1), min(most_epoch, epoch + 1)
        out.append((records, epoch))
    return out


#: kinds of line only some rule sets can make at all (a candidate without the rule is refused
#: before any search: it cannot make the line, in any state)
CAN_MAKE = {
    "fenced": lambda rules: rules.fences_requests,
    "unknown_epoch": lambda rules: rules.fences_requests,
    "halt": lambda rules: rules.out_of_range_exits_broker,
    "epoch_entry": lambda rules: rules.uses_leader_epochs,
    "epoch_answer": lambda rules: rules.uses_leader_epochs,
}


#: the only values where the model makes an offset of -1 (an OffsetsForLeaderEpoch answer for an
#: epoch the leader never had); anywhere else -1 is Kafka's sentinel for "no offset" leaking into a
#: log line - nothing the model's rules can make
NO_OFFSET = {("epoch_answer", "offset")}


def no_offset(seen: Observation) -> bool:
    """Whether the observation carries an offset of -1 where the model never makes one."""
    sorts = KINDS[seen.kind][1]
    return any(sorts[name] == "offset" and value == -1 and (seen.kind, name) not in NO_OFFSET
               for name, value in seen.values)


def unmakeable(config: ClusterConfig, target: Target) -> int | None:
    """The first observation (by index, in order) the config's rules can never make, or None."""
    rules = config.rules()
    for index, seen in enumerate(target.observations):
        can = CAN_MAKE.get(seen.kind)
        if can is not None and not can(rules):
            return index
        if no_offset(seen):
            return index
        if seen.kind == "halt" and config.unclean_leader_election:
            return index
    return None


#: what each kind of line needs of the model, and the releases whose logs show it
NEEDS = {
    "offset -1": "an offset of -1, Kafka's sentinel for 'no offset' (an offset lookup or a high watermark that "
                 "found none); the model's offsets start at 0",
    "halt": "a follower whose broker exits rather than truncate below its log end (Kafka 0.9 to 2.0.0, "
            "unclean.leader.election.enable=false)",
    "fenced": "a fetch refused with FENCED_LEADER_EPOCH (Kafka 2.1 and later, KIP-320)",
    "unknown_epoch": "a fetch refused with UNKNOWN_LEADER_EPOCH (Kafka 2.1 and later, KIP-320)",
    "epoch_entry": "a leader-epoch cache entry (Kafka 0.11 and later, KIP-101)",
    "epoch_answer": "an OffsetsForLeaderEpoch answer (Kafka 0.11 and later, KIP-101)",
}
