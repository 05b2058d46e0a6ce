"""The engine, compiled: one Kafka partition's brokers under Kafka's names, and the steps that drive them."""

from .. import compiled

compiled.extend(__path__, __name__)

from .cluster import Cluster  # noqa: E402  (after the build is on the path)
from .config import PROTOCOLS, ClusterConfig  # noqa: E402
from .epoch_cache import LeaderEpochCache  # noqa: E402
from .events import describe  # noqa: E402
from .protocols import GENERATIONS, Protocol, get_protocol  # noqa: E402
from .steps import STEP_KINDS, Step, parse_step, parse_steps  # noqa: E402

__all__ = ["GENERATIONS", "PROTOCOLS", "STEP_KINDS", "Cluster", "ClusterConfig", "LeaderEpochCache", "Protocol",
           "Step", "describe", "get_protocol", "parse_step", "parse_steps"]
