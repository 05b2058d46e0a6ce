"""hwlib: an exact, deterministic engine of one Kafka partition's replication, and tools around it: the facade."""

from . import compiled as _compiled

#: the compiled (mypyc) or the interpreted engine, and why (set before any engine module loads)
ENGINE = _compiled.activate(__path__, __spec__.loader)

from .anomalies import KINDS as ANOMALY_KINDS
from .anomalies import Anomaly, AnomalyChecker
from .engine import PROTOCOLS, Cluster, ClusterConfig, LeaderEpochCache, Step, parse_step, parse_steps
from .errors import ConfigError, HwlibError, ScenarioError, UnknownScenarioError
from .run import RunResult, run_steps
from .scenario import Scenario, builtin_scenarios, load_scenario, run_scenario
from .trace import Trace
from .version import __version__

__all__ = [
    "ANOMALY_KINDS", "ENGINE", "PROTOCOLS", "Anomaly", "AnomalyChecker", "Cluster", "ClusterConfig",
    "ConfigError", "HwlibError", "LeaderEpochCache", "RunResult", "Scenario", "ScenarioError",
    "Step", "Trace", "UnknownScenarioError", "__version__", "builtin_scenarios", "load_scenario",
    "parse_step", "parse_steps", "run_scenario", "run_steps",
]
