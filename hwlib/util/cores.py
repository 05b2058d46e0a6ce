"""The cores this process may run on, asked where the platform can say."""

from __future__ import annotations

import os


def cores() -> int:
    """The cores this process may run on (all of the machine's where that cannot be asked)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1
