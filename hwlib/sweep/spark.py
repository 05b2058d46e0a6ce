"""Spark: the session (embedded ``local[*]`` by default, any master by URL), one job per chunk
of batches through ``mapInPandas``, and the per-cell summary in Spark SQL."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from ..errors import HwlibError
from ..util.extras import require
from .runs import anomaly_column, ddl, run_batch
from .spec import SweepSpec


class SparkSetupError(HwlibError, RuntimeError):
    """Spark cannot start here (no Java, bad master URL ...)."""


LOG4J = (Path(__file__).resolve().parent / "log4j2.properties").as_uri()
#: settings that suit a small machine (see STACK-NOTES): no UI, few shuffle partitions, quiet
LOCAL_SETTINGS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.adaptive.coalescePartitions.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.memory": "1g",
    "spark.driver.extraJavaOptions": ("-XX:+UseSerialGC -XX:TieredStopAtLevel=1 "
                                      f"-Dlog4j2.configurationFile={LOG4J}"),
    "spark.executor.extraJavaOptions": f"-Dlog4j2.configurationFile={LOG4J}",
    "spark.python.worker.reuse": "true",
    "spark.sql.session.timeZone": "UTC",
}


def default_master() -> str:
    return os.environ.get("HWLIB_SPARK_MASTER", "local[*]")


#: the master URLs Spark accepts (https://spark.apache.org/docs/latest/submitting-applications.html#master-urls)
_MASTER = re.compile(r"local(\[(\*|[1-9]\d*)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]"
                     r"|spark://[\w.-]+(:\d+)?(,[\w.-]+(:\d+)?)*|yarn|k8s://\S+|mesos://\S+")


def check_master(master: str | None, field: str = "master") -> None:
    """A one-line error for a master URL Spark cannot take, before a JVM starts (its own
    failure would be a page of Java stack trace)."""
    if master is not None and not _MASTER.fullmatch(master):
        raise SparkSetupError(f"{field}: {master!r} is not a Spark master URL; use local, local[N], local[*], "
                              "spark://HOST:PORT, yarn or k8s://...")


def _package_zip() -> str:
    """hwlib as a zip for executors that do not have it installed (a remote cluster)."""
    package = Path(__file__).resolve().parent.parent
    target = Path(tempfile.mkdtemp(prefix="hwlib-pyfiles-")) / "hwlib.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(package.rglob("*.py")):
            archive.write(path, Path("hwlib") / path.relative_to(package))
    return str(target)


def _engine_archive() -> str | None:
    """The compiled engine this process runs, as a tar.gz for ``spark.archives`` (executors
    of a remote cluster unpack it and select it with HWLIB_ENGINE_DIR), or None."""
    from ..compiled import active

    engine = active()
    if engine.kind != "compiled":
        return None
    build = Path(engine.build)
    target = Path(tempfile.mkdtemp(prefix="hwlib-engine-")) / "hwlib-engine.tar.gz"
    with tarfile.open(target, "w:gz") as archive:
        archive.add(build, arcname=build.name)
    return str(target)


@contextlib.contextmanager
def _jvm_output():
    """While the JVM starts, the process's stderr (file descriptor 2, which the JVM inherits) is
    a temporary file: its start-up banner ("Using incubator modules", "Setting default log level")
    does not reach the user's terminal. Yields a function returning the lines it wrote, for an
    error message; the file is removed when the block ends (the JVM writes on into it unseen -
    Spark reports a task's failure to the driver as an exception)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(prefix="hwlib-jvm-") as log:
        os.dup2(log.fileno(), 2)
        try:
            def said() -> list[str]:
                log.seek(0)
                return [line.strip() for line in log.read().decode(errors="replace").splitlines() if line.strip()]

            yield said
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def start_session(master: str | None = None, app_name: str = "hwlib-sweep"):
    """A SparkSession on ``master`` (default: $HWLIB_SPARK_MASTER or local[*])."""
    require("spark", "Spark sweeps")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise SparkSetupError("spark: no Java found (java on PATH or JAVA_HOME); Spark needs Java 17+")
    master = master or default_master()
    check_master(master)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if master.startswith("local") or "127.0.0.1" in master or "localhost" in master:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in LOCAL_SETTINGS.items():
        builder = builder.config(key, value)
    builder = builder.config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
    remote = not master.startswith("local")
    engine = _engine_archive() if remote else None
    if engine is not None:       # ship the compiled engine; the zipped sources pick it by key
        builder = builder.config("spark.archives", f"{engine}#hwlib_engine")
        builder = builder.config("spark.executorEnv.HWLIB_ENGINE_DIR", "hwlib_engine")
    try:
        with _jvm_output() as said:
            spark = builder.getOrCreate()
    except Exception as exc:  # py4j / JVM start failures carry multi-line messages
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        last = said()[-1:] if said() else []
        raise SparkSetupError(f"spark: cannot start a session on master {master!r}: {first}"
                              + (f" (the JVM said: {last[0]})" if last else "")) from None
    spark.sparkContext.setLogLevel("ERROR")
    if remote:
        spark.sparkContext.addPyFile(_package_zip())
    return spark


def run_chunk(spark, spec: SweepSpec, batches: list[tuple[int, int]], path: str) -> None:
    """Run ``batches`` (first run, count; see ``run_batch``) - one Spark task each - and write the
    rows as parquet at ``path`` (Spark's committer: the directory appears complete or not at all
    under its temporary name; the caller renames it)."""
    batches = list(batches)

    def run_partition(frames):
        for frame in frames:
            for task in frame["id"]:
                first, count = batches[int(task)]
                yield run_batch(spec, first, count)

    tasks = spark.range(0, len(batches), 1, numPartitions=len(batches))   # task i runs batches[i]
    tasks.mapInPandas(run_partition, schema=ddl(spec)).write.mode("error").parquet(path)


def summarize(spark, runs_paths: list[str], param_columns: list[str]):
    """Per-cell rates (with Wilson 95% intervals), unavailability, produce errors, HW-lag
    quantiles and fault coverage, as a pandas DataFrame sorted by cell. Columns: ``cell``, the
    ``param_columns``, then the measurements from ``runs`` on (readers rely on this layout)."""
    from ..anomalies.checker import SAFETY
    from ..faults import FAULT_KINDS

    spark.read.parquet(*runs_paths).createOrReplaceTempView("runs")
    params = ", ".join(f"`{c}`" for c in param_columns)
    coverage = ",\n  ".join(f"avg(CAST(fired_{k} AS DOUBLE)) AS fired_{k}" for k in FAULT_KINDS)
    violations = " + ".join(anomaly_column(k) for k in SAFETY)       # a run with any safety violation
    base = f"""
SELECT cell, {params},
  count(*) AS runs,
  sum(CASE WHEN lost > 0 THEN 1 ELSE 0 END) AS runs_lost,
  sum(CASE WHEN n_log_divergence > 0 THEN 1 ELSE 0 END) AS runs_diverged,
  sum(CASE WHEN duplicates > 0 THEN 1 ELSE 0 END) AS runs_duplicated,
  sum(CASE WHEN {violations} > 0 THEN 1 ELSE 0 END) AS runs_violated,
  sum(acked) AS acked, sum(lost) AS lost,
  avg(CAST(steps_without_leader AS DOUBLE) / steps) AS unavailability,
  avg(CAST(produce_errors AS DOUBLE)) AS produce_errors_per_run,
  avg(CAST(err_NOT_ENOUGH_REPLICAS + err_NOT_ENOUGH_REPLICAS_AFTER_APPEND AS DOUBLE)) AS not_enough_replicas_per_run,
  avg(hw_lag_mean) AS hw_lag_mean,
  percentile(hw_lag_max, 0.5) AS hw_lag_max_p50,
  percentile(hw_lag_max, 0.9) AS hw_lag_max_p90,
  percentile(hw_lag_max, 0.99) AS hw_lag_max_p99,
  max(hw_lag_max) AS hw_lag_max,
  {coverage}
FROM runs GROUP BY cell, {params}"""
    rates = []
    for name in ("lost", "diverged", "duplicated", "violated"):
        k, n = f"runs_{name}", "runs"
        p = f"({k} / {n})"
        center = f"(({p} + 1.920729 / {n}) / (1 + 3.841459 / {n}))"
        half = f"(1.959964 * sqrt({p} * (1 - {p}) / {n} + 3.841459 / (4 * {n} * {n})) / (1 + 3.841459 / {n}))"
        rates.append(f"{p} AS {name}_rate, greatest(0.0, {center} - {half}) AS {name}_lo, "
                     f"least(1.0, {center} + {half}) AS {name}_hi")
    query = f"SELECT *, {', '.join(rates)} FROM ({base}) ORDER BY cell"
    return spark.sql(query).toPandas()
