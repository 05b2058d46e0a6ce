"""Which engine runs: the mypyc build of the hot modules when it matches these sources, else the interpreted one.

``make setup`` compiles the modules in ``COMPILED`` with mypyc into
``build/engine/<key>/`` beside the package (``python -m hwlib.build_engine``; an installed
package builds into the user's cache instead, see ``build_root``), where the key
hashes those modules' sources and the interpreter's extension suffix. At import, ``hwlib``
calls ``activate``: when the build for the current key exists it goes first on the package's
``__path__``, and each subpackage holding compiled modules puts its part of the build first on
its own ``__path__`` (``extend``), so ``import hwlib.engine.cluster`` loads the compiled module;
otherwise - no build, no compiler, or sources edited since the build - the ``.py`` files run,
and ``ENGINE`` says why. A stale build can never shadow an edited source: its key no longer
matches.

``HWLIB_ENGINE=interpreted`` forces the interpreted engine, ``HWLIB_ENGINE=compiled`` makes a
missing build an error; ``HWLIB_ENGINE_DIR`` points at a build root elsewhere (Spark
executors unpack one there).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: the modules mypyc compiles, as paths in the package: the engine, the checks, the run loop,
#: schedule generation and the model checker's search (hot in every sweep and every check)
COMPILED = tuple(f"engine/{m}" for m in (
    "epoch_cache", "log", "replica", "controller", "kafka_errors", "channel", "metadata", "protocols", "partition",
    "replica_manager", "fetcher", "produce_request", "producer", "consumer", "cluster", "steps", "clock",
    "logical_time", "delayed", "state_key")) + (
    "anomalies/memory", "anomalies/replication", "anomalies/clients", "anomalies/checker", "util/canonical",
    "util/shared", "run", "faults", "model/budget", "model/reductions", "model/space", "model/transition",
    "check/fingerprints", "check/level_merge",
    "check/search",
    "explain/observations", "explain/search")

PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Engine:
    kind: str        # "compiled" or "interpreted"
    detail: str      # where the build is, or why the interpreted engine runs
    build: str = ""  # the compiled build's directory (``<root>/<key>``)

    def __str__(self) -> str:
        return f"{self.kind} engine ({self.detail})"


def source_key(package: str | Path = PACKAGE, read: Callable[[str], bytes] | None = None) -> str:
    """16 hex digits over the compiled modules' sources and the extension suffix. ``read``
    gets a path's bytes (a zipped package's loader reads inside its archive)."""
    read = read or (lambda path: Path(path).read_bytes())
    digest = hashlib.blake2b(digest_size=8)
    digest.update((sysconfig.get_config_var("EXT_SUFFIX") or "").encode())
    for name in COMPILED:
        digest.update(name.encode() + b"\0" + read(os.path.join(package, f"{name}.py")))
    return digest.hexdigest()


def build_root(package: str | Path = PACKAGE) -> Path:
    """``$HWLIB_ENGINE_DIR``; else ``build/engine`` in the checkout holding the package; else,
    for an installed package, the user's cache (``$XDG_CACHE_HOME/hwlib/engine``, by default
    ``~/.cache/hwlib/engine``): builds there are keyed by their sources, so installs share them."""
    env = os.environ.get("HWLIB_ENGINE_DIR")
    if env:
        return Path(env)
    if in_checkout(package):
        return Path(package).parent / "build" / "engine"
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "hwlib" / "engine"


def in_checkout(package: str | Path = PACKAGE) -> bool:
    """Whether the package runs from a source checkout (``pyproject.toml`` beside it)."""
    return (Path(package).parent / "pyproject.toml").is_file()


def _choose(package: str, read: Callable[[str], bytes] | None) -> tuple[Engine, Path | None]:
    wanted = os.environ.get("HWLIB_ENGINE", "")
    if wanted not in ("", "compiled", "interpreted"):
        raise ImportError(f"HWLIB_ENGINE: {wanted!r} is not allowed; allowed: compiled, interpreted (or unset)")
    if wanted == "interpreted":
        return Engine("interpreted", "HWLIB_ENGINE=interpreted"), None
    root = build_root(package)
    try:
        key = source_key(package, read)
    except OSError as exc:
        return Engine("interpreted", f"sources unreadable: {exc}"), None
    build = root / key
    if (build / "hwlib").is_dir():
        return Engine("compiled", f"mypyc, {build}", str(build)), build
    builder = "make setup" if in_checkout(package) else "python -m hwlib.build_engine"
    if not root.is_dir():
        why = f"no compiled build ({builder} builds one when a C compiler is present)"
    else:
        why = f"the compiled build does not match these sources ({builder} rebuilds it)"
    if wanted == "compiled":
        raise ImportError(f"HWLIB_ENGINE=compiled: {why}")
    return Engine("interpreted", why), None


#: the engine chosen by ``activate`` (None before), and its build
ENGINE: Engine | None = None
_BUILD: Path | None = None


def activate(package_path: list[str], loader: object = None) -> Engine:
    """Put the matching compiled build, if any, in front of the package's sources (read with
    the package's ``loader``: a file system or a zip Spark ships to executors)."""
    global ENGINE, _BUILD
    get_data = getattr(loader, "get_data", None)
    engine, build = _choose(package_path[0], get_data)   # as the loader spells it (a zip: "./x.zip/hwlib")
    if build is not None:
        package_path.insert(0, str(build / "hwlib"))
        _load_runtime(build)
    ENGINE, _BUILD = engine, build
    return engine


def active() -> Engine:
    """The engine ``activate`` chose (the package activates it on import)."""
    if ENGINE is None:
        raise RuntimeError("hwlib.compiled.active: no engine chosen yet (import hwlib first)")
    return ENGINE


def extend(package_path: list[str], name: str) -> None:
    """A subpackage (``name``, e.g. ``hwlib.engine``) with compiled modules puts its part of
    the active build in front of its own sources."""
    if _BUILD is not None:
        package_path.insert(0, str(_BUILD.joinpath(*name.split("."))))


def _load_runtime(build: Path) -> None:
    """mypyc's shared runtime module of the group, loaded from the build by file name. (Putting
    the build on ``sys.path`` instead would make its ``hwlib/`` folder of compiled modules a
    namespace package that shadows the real one for a process that imports ``hwlib`` afresh
    from elsewhere - a worker process started by a script.)"""
    for path in sorted(build.glob("*__mypyc*")):
        name = path.name.split(".", 1)[0]
        if name in sys.modules:
            return
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return
