"""Layer 1, compiled: one Kafka partition's brokers under Kafka's names, and the steps that drive them."""

from .. import compiled

compiled.extend(__path__, __name__)
