"""The fields an object holds, as the state-key and checker-memory tests perturb them (never bookkeeping)."""

from __future__ import annotations

#: never state: the lists and notes the copy-on-write containers share (``util.shared``)
BOOKKEEPING = ("_owned", "memo", "__dict__", "__weakref__")


def field_names(obj: object) -> list[str]:
    """The names of the fields ``obj`` holds: a compiled class's attributes, else its slots and
    its instance dict (a class may add a dict to the slots of its base), bookkeeping left out."""
    names = getattr(type(obj), "__mypyc_attrs__", None)
    if names is None:
        names = [n for cls in type(obj).__mro__ for n in getattr(cls, "__slots__", ())]
        names += list(getattr(obj, "__dict__", ()))
    return [n for n in dict.fromkeys(names) if n not in BOOKKEEPING and not n.startswith("__") and hasattr(obj, n)]


def unkeyed(cls: type) -> dict[str, str]:
    """What a class names as held but left out of its key, with the reason (``UNKEYED``)."""
    return getattr(cls, "UNKEYED", {})
