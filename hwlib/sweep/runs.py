"""One sweep run -> one row; a batch of runs -> a pandas DataFrame with the run table's schema.

Pure Python and pandas: the Spark pipeline calls ``run_batch`` inside its workers, the
benchmark and ``--check-determinism`` call it directly. A row depends only on (cell, run
index, sweep seed), so any executor produces the same rows.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from .. import compiled
from ..anomalies.checker import KINDS
from ..engine.kafka_errors import (
    NETWORK_EXCEPTION,
    NOT_ENOUGH_REPLICAS,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    NOT_LEADER_OR_FOLLOWER,
    OUT_OF_ORDER_SEQUENCE_NUMBER,
    REQUEST_TIMED_OUT,
)
from ..faults import FAULT_KINDS, derive_seed, fired_faults, generate, schedule_hash
from ..run import LagMeter, run_steps
from .spec import Cell, SweepSpec

#: produce error codes counted per run, one column each (err_<code>)
ERROR_CODES = (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
               NETWORK_EXCEPTION, REQUEST_TIMED_OUT, OUT_OF_ORDER_SEQUENCE_NUMBER)


def anomaly_column(kind: str) -> str:
    return "n_" + kind.replace("-", "_")


#: the fixed part of the run table, after the cell's parameter columns: (name, Spark type)
METRIC_COLUMNS = (
    [("seed", "bigint"), ("steps", "int"), ("engine", "string"), ("schedule_hash", "string"), ("trace_hash", "string"),
     ("faults_enabled", "string"), ("faults_fired", "string")]
    + [(f"fired_{k}", "boolean") for k in FAULT_KINDS]
    + [(anomaly_column(k), "int") for k in KINDS]
    + [("anomalies", "int"), ("first_anomaly_step", "int"), ("acked", "int"), ("lost", "int"),
       ("duplicates", "int"), ("hw_lag_max", "int"), ("hw_lag_mean", "double"),
       ("steps_without_leader", "int"), ("produce_errors", "int")]
    + [(f"err_{code}", "int") for code in ERROR_CODES]
)
KEY_COLUMNS = (("cell", "string"), ("run", "int"))


def param_types(spec: SweepSpec) -> list[tuple[str, str]]:
    """Spark types of the cells' parameter columns, from the values the grid gives them."""
    out = []
    for name in spec.cells[0].params:
        values = [c.params[name] for c in spec.cells if c.params[name] is not None]
        if values and all(isinstance(v, bool) for v in values):
            kind = "boolean"
        elif values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            kind = "bigint"
        elif values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            kind = "double"
        else:
            kind = "string"
        out.append((name, kind))
    return out


def schema(spec: SweepSpec) -> list[tuple[str, str]]:
    return list(KEY_COLUMNS) + param_types(spec) + METRIC_COLUMNS


def ddl(spec: SweepSpec) -> str:
    """The run table's schema as a Spark DDL string."""
    return ", ".join(f"`{name}` {kind}" for name, kind in schema(spec))


def run_one(spec: SweepSpec, cell: Cell, run: int) -> dict:
    """The row of run ``run`` of ``cell``."""
    seed = derive_seed(spec.seed, cell.schedule_key, run)
    schedule = generate(cell.profile, seed, cell.config.replicas)
    meter = LagMeter()
    result = run_steps(cell.config, schedule.steps, cell.id, record=False, on_step=meter)
    counts = Counter(a.kind for a in result.anomalies)
    fired = fired_faults(schedule.steps, result.events, result.marks)
    errors = result.produce_errors
    row = {"cell": cell.id, "run": run}
    row.update(cell.params)
    row.update({
        "seed": seed, "steps": len(schedule.steps), "engine": compiled.active().kind,
        "schedule_hash": schedule_hash(schedule.steps),
        "trace_hash": result.trace_hash[:16], "faults_enabled": ",".join(schedule.enabled),
        "faults_fired": ",".join(fired),
    })
    for kind in FAULT_KINDS:
        row[f"fired_{kind}"] = kind in fired
    for kind in KINDS:
        row[anomaly_column(kind)] = counts.get(kind, 0)
    row.update({
        "anomalies": len(result.anomalies),
        "first_anomaly_step": min((a.step for a in result.anomalies), default=-1),
        "acked": len(result.acked), "lost": counts.get("lost-write", 0),
        "duplicates": counts.get("duplicate", 0), "hw_lag_max": meter.max,
        "hw_lag_mean": meter.total / meter.led if meter.led else 0.0,
        "steps_without_leader": meter.leaderless, "produce_errors": sum(errors.values()),
    })
    for code in ERROR_CODES:
        row[f"err_{code}"] = errors.get(code, 0)
    return row


def run_batch(spec: SweepSpec, first: int, count: int) -> pd.DataFrame:
    """Runs ``first .. first+count-1`` of the sweep - run ``g`` is run ``g % runs`` of cell
    ``g // runs``, so a batch may span cells - as a DataFrame in the run table's schema."""
    runs, cells = spec.runs, spec.cells
    rows = [run_one(spec, cells[g // runs], g % runs) for g in range(first, first + count)]
    return to_frame(spec, rows)


_PANDAS_TYPES = {"string": "object", "int": "int32", "bigint": "int64", "double": "float64", "boolean": "bool"}


def to_frame(spec: SweepSpec, rows: list[dict]) -> pd.DataFrame:
    """The rows as a DataFrame of the run table's types, built column by column (strings as
    ``str`` or None; integers with a missing value as nullable types)."""
    data = {}
    for name, kind in schema(spec):
        values = [row[name] for row in rows]
        if kind == "string":
            data[name] = pd.Series([None if v is None else str(v) for v in values], dtype=object)
        elif any(v is None for v in values):
            data[name] = pd.Series(values, dtype={"int": "Int32", "bigint": "Int64", "double": "float64",
                                                  "boolean": "boolean"}[kind])
        else:
            data[name] = pd.Series(values, dtype=_PANDAS_TYPES[kind])
    return pd.DataFrame(data)
