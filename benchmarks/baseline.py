"""A git ref's tree beside this one, and a benchmark's child process on either, for comparisons in one run.

    with checkout("61dc743", compiled=True) as tree:   # a temporary git worktree
        ... run a child process with PYTHONPATH=tree, cwd=tree ...

With ``compiled``, the ref's own compiled engine is built there first (its ``hwlib.build_engine``),
so compiled is compared with compiled. The worktree is removed on exit.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def checkout(ref: str, compiled: bool = False) -> Iterator[Path]:
    tree = Path(tempfile.mkdtemp(prefix="hwlib-baseline-")) / "src"
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), ref], cwd=REPO, check=True,
                   capture_output=True)
    try:
        if compiled:
            print(f"building {ref}'s compiled engine ...", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "-m", "hwlib.build_engine"], cwd=tree, check=True, capture_output=True,
                           env=dict(os.environ, PYTHONPATH=str(tree)))
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=REPO, capture_output=True)


def in_tree(script: str, source: Path, *args: str, prefix: tuple[str, ...] = (), **env: str) -> str:
    """``script`` (a benchmark, with ``args``) run in a fresh process on the hwlib of
    ``source`` (this checkout or a ``checkout``), with ``env`` added - under ``prefix``, a
    command that runs the interpreter (valgrind) -; what it printed."""
    done = subprocess.run([*prefix, sys.executable, str(Path(script).resolve()), *args], cwd=source,
                          capture_output=True, text=True, check=True,
                          env=dict(os.environ, PYTHONPATH=str(source), **env))
    return done.stdout
