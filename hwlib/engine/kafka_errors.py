"""Kafka's error codes as the engine's brokers answer them (``org.apache.kafka.common.protocol.Errors``)."""

NOT_LEADER_OR_FOLLOWER = "NOT_LEADER_OR_FOLLOWER"
NOT_ENOUGH_REPLICAS = "NOT_ENOUGH_REPLICAS"
NOT_ENOUGH_REPLICAS_AFTER_APPEND = "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
NETWORK_EXCEPTION = "NETWORK_EXCEPTION"
REQUEST_TIMED_OUT = "REQUEST_TIMED_OUT"
OUT_OF_ORDER_SEQUENCE_NUMBER = "OUT_OF_ORDER_SEQUENCE_NUMBER"
#: errors the producer may retry (Kafka's RetriableException family, and the idempotent
#: producer's out-of-order answer, which it resolves by resending in sequence order)
RETRIABLE = frozenset((NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                       NETWORK_EXCEPTION, REQUEST_TIMED_OUT, OUT_OF_ORDER_SEQUENCE_NUMBER))
OFFSET_OUT_OF_RANGE = "OFFSET_OUT_OF_RANGE"
FENCED_LEADER_EPOCH = "FENCED_LEADER_EPOCH"      # the request's leader epoch is older (kip320+)
UNKNOWN_LEADER_EPOCH = "UNKNOWN_LEADER_EPOCH"    # ... newer: the leader has not learned it yet
DIVERGING = "DIVERGING"  # a fetch response carrying diverging_epoch (kip595)
#: request errors that leave the follower's log untouched
REFUSED = frozenset((NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH))
#: errors after which a client refreshes its metadata (Kafka's InvalidMetadataException
#: family, and a broken connection): the producer's Sender and the consumer's Fetcher call
#: ``metadata.requestUpdate()``
STALE_METADATA = frozenset((NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, NETWORK_EXCEPTION))
