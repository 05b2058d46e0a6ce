"""The statistics the findings rest on: Wilson intervals, the runs a clean claim needs, McNemar's exact paired test."""

from __future__ import annotations

import math

import pandas as pd

#: "lost none" is claimed when the Wilson 95% upper bound of the loss rate is below this
CLAIM_BOUND = 0.01
#: significance level of the paired tests
ALPHA = 0.05


def wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson score 95% interval of ``k`` successes in ``n`` runs (statsmodels; the same
    interval the sweep's summary stores per cell)."""
    from statsmodels.stats.proportion import proportion_confint  # the report extra: here, not on import

    lo, hi = proportion_confint(k, n, alpha=ALPHA, method="wilson")
    return float(lo), float(hi)


def runs_needed(limit: float = CLAIM_BOUND) -> int:
    """The fewest runs with no loss whose Wilson 95% upper bound is below ``limit``."""
    z2 = 1.959963984540054 ** 2
    n = max(1, math.floor(z2 * (1 - limit) / limit) - 1)
    while wilson(0, n)[1] >= limit:
        n += 1
    return n


def paired_test(a: pd.Series, b: pd.Series) -> dict:
    """McNemar's exact test on two boolean outcomes of the same runs (index-aligned): ``a_only``
    runs where only ``a`` happened, ``b_only`` where only ``b`` did, the two-sided p-value
    (the binomial test of the discordant runs against 1/2; 1.0 when there are none)."""
    from statsmodels.stats.contingency_tables import mcnemar  # the report extra: here, not on import

    a, b = a.astype(bool), b.astype(bool)
    both, a_only = int((a & b).sum()), int((a & ~b).sum())
    b_only, neither = int((~a & b).sum()), int((~a & ~b).sum())
    p = 1.0 if a_only + b_only == 0 else float(mcnemar([[both, a_only], [b_only, neither]], exact=True).pvalue)
    return {"runs": len(a), "a_only": a_only, "b_only": b_only, "p": p}
