"""What a family of checks remembers between steps: shared with the checks it continues until either side writes.

The model checker continues a cluster's checks on each clone it makes (``AnomalyChecker``
with a ``source``), and most of its steps change nothing the checks remember. So a
continuation shares its source's containers (``util.shared.CopyOnWrite``) and its verdict
key, kept in ``memo`` until the next write.

Two checkers whose clusters have equal keys and whose verdict keys are equal report alike from
then on: the model checker merges them. So every field a family (and ``AnomalyChecker``) holds
is in its verdict key or named in its ``UNKEYED`` with one of six reasons - wiring (the
cluster, the report callback, the cluster's own lists), a constant, a cache (its fresh value
gives the same reports), what annotates (only the step a later report names), what is synced
with the cluster after every observation, or what only observes (the reports made) - and
``tests/anomalies/test_checker_memory.py`` perturbs every other field and holds each named one
to its reason.
"""

from __future__ import annotations

from ..util.shared import CopyOnWrite


class Remembered(CopyOnWrite):
    """A family supplies ``_own`` (copy every container it remembers) and ``_verdict`` (its
    verdict key, computed); ``verdict_key`` keeps the answer."""

    def _verdict(self, values: dict[str, int]) -> tuple:
        raise NotImplementedError

    def verdict_key(self, values: dict[str, int]) -> tuple:
        """What these checks remember that decides their later verdicts (values as the model
        checker numbers them): kept until the next write, and shared by a continuation."""
        key = self.memo
        if key is None or key[0] is not values:
            key = self.memo = (values, self._verdict(values))
        return key[1]
