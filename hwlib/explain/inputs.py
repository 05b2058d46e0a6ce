"""Naming the logs to read: glob patterns expanded as a shell would, standard input ("-") kept in a file of hwlib's."""

from __future__ import annotations

import glob
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from .spec import ExplainError

#: the name a paste read from standard input is read under (its lines say "line N of stdin")
STDIN_NAME = "stdin"
#: characters that make an argument a glob pattern (a shell that did not expand it: quoted, or Windows)
GLOB_CHARS = frozenset("*?[")


def expand(pattern: str) -> list[str]:
    """The files a LOG argument names: itself where such a file exists, else the files its glob
    pattern matches, sorted; a pattern that matches none is one line naming it."""
    if Path(pattern).exists() or not GLOB_CHARS & set(pattern):
        return [pattern]
    found = sorted(glob.glob(os.path.expanduser(pattern)))
    if not found:
        raise ExplainError(f"logs: {pattern!r} matches no file")
    return found


@contextmanager
def named_logs(arguments: Sequence[str], stdin: BinaryIO | None = None) -> Iterator[tuple[str, ...]]:
    """The logs to read for ``arguments``: each expanded (``expand``); ``-`` the bytes of
    standard input, copied into a file of a temporary directory hwlib makes and removes when
    the block ends (nothing else is ever removed)."""
    if list(arguments).count("-") > 1:
        raise ExplainError("logs: '-' (standard input) may be given once")
    made: str | None = None
    try:
        paths: list[str] = []
        for argument in arguments:
            if argument != "-":
                paths += expand(argument)
                continue
            made = tempfile.mkdtemp(prefix="hwlib-explain-")
            target = Path(made) / STDIN_NAME
            with target.open("wb") as out:
                shutil.copyfileobj(stdin if stdin is not None else sys.stdin.buffer, out)
            paths.append(str(target))
        yield tuple(paths)
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
