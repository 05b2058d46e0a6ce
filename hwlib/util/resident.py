"""The memory this process holds resident (its RSS), asked where the platform can say it cheaply."""

from __future__ import annotations

import os

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """This process's resident memory in bytes, read from ``/proc/self/statm`` (Linux; a few
    microseconds); None where the platform has no such file."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None
