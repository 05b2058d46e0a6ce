"""What the clients believe about the partition leader (Kafka's client ``Metadata``): current, or stale until an error.

``client_metadata: current`` (the default) gives every request the controller's current
leader and epoch: clients never talk to a broker that lost its leadership. With ``stale``
each client (the producer, the consumer) keeps the leader and epoch it last learned and
sends there until an answer invalidates it - NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH or
a broken connection (the InvalidMetadataException family: the producer's ``Sender`` and the
consumer's ``Fetcher`` call ``metadata.requestUpdate()``). A refresh learns the controller's
current state. So a client can write to, or read from, a broker that still believes it
leads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .kafka_errors import STALE_METADATA

if TYPE_CHECKING:
    from .controller import Controller
    from .state_key import KeyContext

CLIENTS = ("producer", "consumer")


class ClientMetadata:
    __slots__ = ("controller", "events", "stale", "known")

    def __init__(self, controller: Controller, events: list, stale: bool,
                 source: ClientMetadata | None = None) -> None:
        self.controller = controller
        self.events = events
        self.stale = stale
        #: client -> (leader, leader epoch) it last learned. Never changed in place, only
        #: replaced (``on_error``, the one writer), so a copy shares its source's
        self.known: dict[str, tuple[str | None, int]] = (
            {client: (controller.leader, controller.leader_epoch) for client in CLIENTS} if source is None
            else source.known)

    UNKEYED: ClassVar[dict[str, str]] = {
        "stale": "constant: client_metadata (config)", "events": "observes: the run's events"}

    def key(self, ctx: KeyContext) -> tuple:
        """Its state (see ``state_key``): the leader and leader epoch each client last learned."""
        if not ctx.known_leaders_read(self.stale):
            return ()
        return tuple([(ctx.rid(leader), epoch) for leader, epoch in self.known.values()])

    def view(self, client: str) -> tuple[str | None, int]:
        """The (leader, leader epoch) ``client`` sends its next request with."""
        if self.stale:
            return self.known[client]
        return self.controller.leader, self.controller.leader_epoch

    def on_error(self, client: str, code: str) -> None:
        """An answer that invalidates the client's metadata makes it refresh (stale mode)."""
        if self.stale and code in STALE_METADATA:
            current = (self.controller.leader, self.controller.leader_epoch)
            if current != self.known[client]:
                known = dict(self.known)
                known[client] = current
                self.known = known
                self.events.append(("metadata", client, current[0], current[1]))
