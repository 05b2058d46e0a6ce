"""Copy on write: a copy shares its containers with its source until either side writes them.

The model checker copies every log, epoch cache and check for every transition it tries,
and most transitions write none of them. A class built on ``CopyOnWrite`` hands its
containers to a copy as they are (``_share``) and calls ``_write`` before any write of them -
its own methods are their only writers -, which first gives the writer copies of its own
(``_own``, the class's list of containers) and drops ``memo``, a note about the contents
(a cached key) that a copy shares too.
"""

from __future__ import annotations


class CopyOnWrite:
    """``_fresh`` for a new instance, ``_share(source)`` for a copy, ``_write`` before each
    write; a subclass supplies ``_own``."""

    __slots__ = ("_owned", "memo")

    #: whether the containers are this instance's alone (False: shared with a copy or its source)
    _owned: bool
    #: a note about the contents, kept until the next write (None: none)
    memo: tuple | None

    def _fresh(self) -> None:
        self._owned = True
        self.memo = None

    def _share(self, source: CopyOnWrite) -> None:
        """Share ``source``'s containers: neither owns them now (either may write next)."""
        self._owned = source._owned = False
        self.memo = source.memo

    def _write(self) -> None:
        """Before any write of the containers."""
        if not self._owned:
            self._own()
            self._owned = True
        self.memo = None

    def _own(self) -> None:
        raise NotImplementedError
