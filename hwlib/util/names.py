"""Lists of names a user types (generations, faults, anomaly kinds): one parser for all of them."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def parse_names(text: str | Sequence[str], field: str, allowed: Collection[str], what: str = "a name",
                error: type[Exception] = ValueError, empty: bool = False) -> list[str]:
    """``"a, b,a"`` (comma-separated) or a list -> ``["a", "b"]``: stripped, empty items
    dropped, each name once in the order first given. A name not in ``allowed``, or no name at
    all (unless ``empty``), raises ``error`` with one line naming ``field`` (when the caller
    does not name it already, e.g. argparse: ``""``) and what is allowed."""
    items = text.split(",") if isinstance(text, str) else list(text)
    names = list(dict.fromkeys(item.strip() for item in items if item.strip()))
    choices = ", ".join(allowed)
    where = f"{field}: " if field else ""
    for name in names:
        if name not in allowed:
            raise error(f"{where}{name!r} is not {what}; allowed: {choices}")
    if not names and not empty:
        raise error(f"{where}name at least one of {choices} (comma-separated)")
    return names
