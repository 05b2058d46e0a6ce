"""The leader's remote views in tests: read as a tuple, or replaced with some fields changed, as Partition does."""

from __future__ import annotations

from hwlib.engine.replica import RemoteReplica, Replica

#: a remote view's fields, in ``RemoteReplica``'s order
FIELDS = ("leo", "last_caught_up_ms", "last_fetch_leader_leo", "last_fetch_ms")


def view_fields(remote: RemoteReplica) -> tuple[int, ...]:
    """Every field of a remote view, in ``FIELDS`` order."""
    return tuple(getattr(remote, name) for name in FIELDS)


def replace_view(leader: Replica, follower_id: str, **changes: int) -> None:
    """The leader's view of ``follower_id`` replaced by one with ``changes`` and its other fields
    as they were (a view is never changed in place: a copy of the cluster shares it)."""
    unknown = set(changes) - set(FIELDS)
    if unknown:
        raise TypeError(f"RemoteReplica has no field {', '.join(sorted(unknown))}")
    old = leader.remotes[follower_id]
    leader.remotes[follower_id] = RemoteReplica(*(changes.get(name, getattr(old, name)) for name in FIELDS))
