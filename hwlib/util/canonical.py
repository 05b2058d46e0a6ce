"""Canonical bytes of plain values - equal values, equal bytes, in any process - for the trace and schedule hashes."""

from __future__ import annotations

import io
import pickle


def canonical_bytes(value: object) -> bytes:
    """Pickle (protocol 5) without its memo: with the memo, the bytes would depend on which
    equal objects happen to be the same object, which differs between the compiled and the
    interpreted engine. Plain values only: str, int, bool, None, tuples and lists of them."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, 5)
    pickler.fast = True
    pickler.dump(value)
    return out.getvalue()
