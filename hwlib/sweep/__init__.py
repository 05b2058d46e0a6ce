"""Fault-injection sweeps: spec (grid x fault profile x runs), per-run rows, Spark pipeline, driver."""

from .driver import SweepResult, check_runs, plan, read_runs, read_summary, run_sweep
from .spec import SweepSpec, SweepSpecError, load_spec, parse_spec

__all__ = ["SweepResult", "SweepSpec", "SweepSpecError", "check_runs", "load_spec", "parse_spec", "plan",
           "read_runs", "read_summary", "run_sweep"]
