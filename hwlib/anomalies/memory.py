"""What a family of checks remembers between steps: shared with the checks it continues until either side writes.

The model checker continues a cluster's checks on each clone it makes (``AnomalyChecker``
with a ``source``), and most of its steps change nothing the checks remember. So a
continuation starts out sharing its source's containers; ``_write`` - called before any
write, by the family's own methods, the only writers - gives the writer its own copies
first (``_own``) and drops the remembered ``verdict_key``, which a continuation also shares.
"""

from __future__ import annotations


class Remembered:
    """The copy-on-write and the remembered verdict key; a family supplies ``_own`` (copy
    every container it remembers) and ``_verdict`` (the verdict key, computed)."""

    #: whether the containers are this instance's own (a continuation shares its source's)
    _owned: bool
    #: ``verdict_key``'s last answer, with the numbering it was made for (None: written since)
    _key: tuple | None

    def _fresh(self) -> None:
        self._owned = True
        self._key = None

    def _share(self, source: Remembered) -> None:
        """Continue ``source``: both stop owning what they now share (either may write next)."""
        self._owned = source._owned = False
        self._key = source._key

    def _write(self) -> None:
        """Before any write of what the checks remember."""
        if not self._owned:
            self._own()
            self._owned = True
        self._key = None

    def _own(self) -> None:
        raise NotImplementedError

    def _verdict(self, values: dict[str, int]) -> tuple:
        raise NotImplementedError

    def verdict_key(self, values: dict[str, int]) -> tuple:
        """What these checks remember that decides their later verdicts (values as the model
        checker numbers them): kept until the next write, and shared by a continuation."""
        key = self._key
        if key is None or key[0] is not values:
            key = self._key = (values, self._verdict(values))
        return key[1]
