"""The consumer client: polls up to the HW, commits, crashes and resumes, resets an out-of-range position.

One consumer (Kafka's ``KafkaConsumer`` / ``Fetcher``): it polls the broker its metadata names
as leader, carrying that leader epoch (fenced from Kafka 2.3), reads from its position up to
that broker's HW, commits its position (``commit``, or auto-commit at a poll), and a new
consumer after a crash resumes from the last commit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .events import skip
from .kafka_errors import FENCED_LEADER_EPOCH, NETWORK_EXCEPTION, NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH
from .replica import LEADER, Replica

if TYPE_CHECKING:
    from .config import ClusterConfig
    from .logical_time import Time
    from .metadata import ClientMetadata
    from .protocols import Protocol
    from .state_key import KeyContext


class Consumer:
    """The client: its position, commits and sessions. It picks a broker by its ``metadata``
    and reads from it (``brokers``) as that broker answers a fetch."""

    def __init__(self, config: ClusterConfig, protocol: Protocol, events: list, time: Time, metadata: ClientMetadata,
                 brokers: dict[str, Replica], source: Consumer | None = None) -> None:
        self.config = config
        self.protocol = protocol
        self.events = events
        self.time = time
        self.metadata = metadata
        self.brokers = brokers
        self.position = 0
        self.committed_offset = 0
        self.last_commit_ms = 0
        self.session = 0
        #: every poll: (consumer session, records returned as (offset, epoch, value))
        self.polls: list[tuple[int, list[tuple[int, int, str]]]] = []
        if source is not None:       # a copy (poll results are never changed once made)
            self.position = source.position
            self.committed_offset = source.committed_offset
            self.last_commit_ms = source.last_commit_ms
            self.session = source.session
            self.polls = list(source.polls)

    UNKEYED: ClassVar[dict[str, str]] = {
        "brokers": "wiring: the brokers it reads from", "events": "observes: the run's events",
        "polls": "observes: what each poll returned (the checks read it as it happens; what they "
                 "remember is the checker's own key)"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): position, committed offset, how long since the last
        commit, session."""
        return (self.position, self.committed_offset, ctx.age(self.last_commit_ms, ctx.auto_commit), self.session)

    def consume(self, broker: str | None = None) -> list[tuple[int, int, str]]:
        """The consumer polls the broker it believes leads (or ``broker``) from its position up
        to that broker's HW, carrying the leader epoch its metadata holds. With auto-commit,
        a poll first commits the position once the interval has passed; a position beyond
        the broker's log end or below its log start is OFFSET_OUT_OF_RANGE and is reset."""
        known, epoch = self.metadata.view("consumer")
        target = broker if broker is not None else known
        leader = self.brokers[target] if target is not None else None
        error = self.fetch_error(leader, epoch)
        if error is not None or leader is None:
            self.metadata.on_error("consumer", error or NOT_LEADER_OR_FOLLOWER)
            return []
        config = self.config
        if config.enable_auto_commit and self.time.now - self.last_commit_ms >= config.auto_commit_interval_ms:
            self.commit()
        start = self.position
        if start > leader.leo or start < leader.log.start:
            # OFFSET_OUT_OF_RANGE: past the log end, or below the log start (retention,
            # DeleteRecords); auto.offset.reset's earliest is the log start offset
            start = leader.log.start if config.auto_offset_reset == "earliest" else leader.hw
            self.events.append(("consumer_reset", self.position, start, config.auto_offset_reset))
        end = max(start, min(leader.hw, leader.leo))
        records = leader.log.records(start, end)
        self.position = end
        self.polls.append((self.session, records))
        self.events.append(("consume", start, end))
        return records

    def fetch_error(self, leader: Replica | None, epoch: int) -> str | None:
        """What a broker answers the consumer's fetch before reading (recorded as a skip):
        nobody to ask, a broker down or not leading, and - consumers of Kafka >= 2.3 (the
        client side of KIP-320) - a leader epoch other than the broker's, checked first."""
        events = self.events
        if leader is None:
            skip(events, "consume", None, "no online leader")
            return NOT_LEADER_OR_FOLLOWER
        current = leader.id == self.metadata.controller.leader
        if not leader.online:
            if current:
                skip(events, "consume", None, "no online leader")
            else:
                skip(events, "consume", leader.id, "the broker is down (NETWORK_EXCEPTION)")
            return NETWORK_EXCEPTION
        if self.protocol.fences_consumer_fetches and leader.leader_epoch >= 0 and epoch != leader.leader_epoch:
            # the epoch is checked before leadership (Partition.localLogWithEpochOrException)
            code = FENCED_LEADER_EPOCH if epoch < leader.leader_epoch else UNKNOWN_LEADER_EPOCH
            skip(events, "consume", leader.id, f"the fetch carries epoch {epoch}, the broker is in epoch "
                                               f"{leader.leader_epoch} ({code})")
            return code
        if leader.role != LEADER:
            if current:   # elected, but its LeaderAndIsr has not arrived
                skip(events, "consume", None, f"{leader.id} does not know yet that it leads (NOT_LEADER_OR_FOLLOWER)")
            else:
                skip(events, "consume", leader.id, "the broker does not lead (NOT_LEADER_OR_FOLLOWER)")
            return NOT_LEADER_OR_FOLLOWER
        return None

    def commit(self) -> None:
        """The consumer commits its position (as commitSync does)."""
        self.committed_offset = self.position
        self.last_commit_ms = self.time.now
        self.events.append(("commit", self.committed_offset))

    def crash(self) -> None:
        """The consumer dies; a new one resumes from the last committed offset."""
        self.events.append(("consumer_crash", self.position, self.committed_offset))
        self.position = self.committed_offset
        self.session += 1
