"""What a folder holds, byte for byte: for tests that an error left a user's files as they were."""

from __future__ import annotations


def tree(path) -> dict:
    """Every file under ``path`` (relative name -> bytes)."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
