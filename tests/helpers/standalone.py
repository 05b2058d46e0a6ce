"""A Spark standalone master + worker started from the pyspark installation, loopback only."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(log: Path, text: str, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{proc.args[1]} exited with {proc.returncode}:\n{tail}")
        time.sleep(0.2)
    raise TimeoutError(f"no {text!r} in {log} after {timeout} s:\n{log.read_text(errors='replace')[-3000:]}")


@contextmanager
def standalone_cluster(workdir: Path, cores: int = 2, memory: str = "1g"):
    """Yields the master URL; stops both daemons afterwards."""
    import pyspark

    spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
               SPARK_WORKER_DIR=str(workdir / "work"), SPARK_LOG_DIR=str(workdir / "logs"))
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    procs = []
    try:
        master_log = workdir / "master.log"
        master = subprocess.Popen(
            [str(spark_class), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
             "--port", str(port), "--webui-port", str(_free_port())],
            env=env, stdout=master_log.open("w"), stderr=subprocess.STDOUT)
        procs.append(master)
        _wait_for(master_log, "I have been elected leader", master, 90)
        worker_log = workdir / "worker.log"
        worker = subprocess.Popen(
            [str(spark_class), "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
             "--cores", str(cores), "--memory", memory, "--webui-port", str(_free_port())],
            env=env, stdout=worker_log.open("w"), stderr=subprocess.STDOUT)
        procs.append(worker)
        _wait_for(worker_log, "Successfully registered with master", worker, 90)
        yield url
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
