"""Building the compiled engine: mypyc over ``compiled.COMPILED`` into ``build/engine/<key>/`` (``make setup`` runs it).

``python -m hwlib.build_engine [--force]``. With no C compiler, or no mypy, it says so in
one line and exits 0: the interpreted engine runs (after a failed build too, which prints
its log's tail). A build for the current sources is kept; builds for other sources that
this tool made (they carry its ``hwlib-engine.json``) are removed from a checkout's build
folder (not from the user's cache, which other installs share). The build happens in a
temporary directory that is renamed into place only when complete.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .compiled import COMPILED, PACKAGE, build_root, in_checkout, source_key

MARKER = "hwlib-engine.json"

_SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
modules, target, lib, tmp = sys.argv[1].split(","), sys.argv[2], sys.argv[3], sys.argv[4]
# --ignore-missing-imports as pyproject's [tool.mypy] says (an installed package has no pyproject)
setup(name="hwlib-engine", ext_modules=mypycify(["--ignore-missing-imports", *(f"hwlib/{m}.py" for m in modules)],
      opt_level="3",
      group_name="hwlib_engine", target_dir=target),
      script_args=["build_ext", "--build-lib", lib, "--build-temp", tmp, "--parallel", "2"])
"""


def compiler() -> str | None:
    return shutil.which(os.environ.get("CC") or "cc") or shutil.which("gcc")


def _prune(root: Path, keep: Path) -> None:
    """Remove older builds this tool made (never anything without its marker)."""
    for path in root.iterdir():
        if path != keep and path.is_dir() and (path / MARKER).is_file():
            shutil.rmtree(path, ignore_errors=True)


def build(force: bool = False) -> int:
    root = build_root()
    key = source_key()
    target = root / key
    if (target / "hwlib").is_dir() and not force:
        print(f"hwlib: compiled engine up to date ({target})")
        return 0
    cc = compiler()
    if cc is None:
        print("hwlib: no C compiler found (cc, gcc): the interpreted engine will run")
        return 0
    try:
        import mypyc  # noqa: F401
    except ImportError:
        print("hwlib: mypy (mypyc) is not installed: the interpreted engine will run")
        return 0
    root.mkdir(parents=True, exist_ok=True)
    for old in root.glob("_tmp-*"):         # what an earlier, failed or killed build left
        if (old / "build.log").is_file():
            shutil.rmtree(old, ignore_errors=True)
    work = root / f"_tmp-{key}-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    started = time.perf_counter()
    log = work / "build.log"
    sources = PACKAGE.parent
    if not in_checkout():
        # an installed package: mypy run inside site-packages would take every installed module
        # for one of the program's own, so it compiles a copy of the package's sources
        sources = work / "src"
        shutil.copytree(PACKAGE, sources / "hwlib", ignore=shutil.ignore_patterns("__pycache__", "builtin", "*.so"))
    with log.open("w") as out:
        done = subprocess.run([sys.executable, "-c", _SETUP, ",".join(COMPILED), str(work / "c"),
                               str(work / "lib"), str(work / "obj")],
                              cwd=sources, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = log.read_text().strip().splitlines()[-15:]
        print("\n".join(tail), file=sys.stderr)
        print(f"hwlib: the mypyc build failed (log: {log}): the interpreted engine will run", file=sys.stderr)
        return 0
    lib = work / "lib"
    (lib / MARKER).write_text(json.dumps({"key": key, "modules": list(COMPILED), "python": sys.version,
                                          "seconds": round(time.perf_counter() - started, 1)}))
    shutil.rmtree(target, ignore_errors=True)
    lib.rename(target)
    shutil.rmtree(work, ignore_errors=True)
    if in_checkout():          # the user's cache is shared by installs of other versions: keep theirs
        _prune(root, target)
    print(f"hwlib: compiled engine built in {time.perf_counter() - started:.0f} s ({target})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hwlib.build_engine", description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if a build for these sources exists")
    args = parser.parse_args(argv)
    return build(args.force)


if __name__ == "__main__":
    sys.exit(main())
