"""The report's findings are computed from the tables: sentences follow the data, inconclusive
cells say so with the runs they would need, the paired test gives known p-values, and every
number shown is the summary's."""

from __future__ import annotations

import pandas as pd
import pytest

from hwlib.faults import FAULT_KINDS
from hwlib.report import findings as fnd
from hwlib.report.tables import cell_table, coverage, paired_tests, sortable_html


def tables(losses: dict[tuple, list[bool]], profile="leader-moves", unavailability=None):
    """A summary and run table from per-cell run outcomes: ``losses[(protocol, acks, min_isr)]``
    is one boolean per run (lost acknowledged data or not); runs with the same index share a
    schedule."""
    rows, runs = [], []
    for index, ((protocol, acks, min_isr), lost) in enumerate(losses.items()):
        cell = f"c{index:03d}"
        k, n = sum(lost), len(lost)
        lo, hi = fnd.wilson(k, n)
        rows.append({"cell": cell, "profile": profile, "protocol": protocol, "replicas": 3, "acks": acks,
                     "min_insync_replicas": min_isr, "runs": n, "runs_lost": k, "runs_diverged": 0,
                     "unavailability": (unavailability or {}).get(protocol, 0.1), "produce_errors_per_run": 0.0,
                     "hw_lag_max_p90": 3.0, "lost_rate": k / n, "lost_lo": lo, "lost_hi": hi,
                     "diverged_rate": 0.0, "diverged_lo": 0.0, "diverged_hi": fnd.wilson(0, n)[1],
                     **{f"fired_{k}": 0.5 if k == "crash" else 0.0 for k in FAULT_KINDS}})
        runs += [{"cell": cell, "run": r, "protocol": protocol, "acks": acks, "lost": int(x),
                  "schedule_hash": f"s{r}"} for r, x in enumerate(lost)]
    return pd.DataFrame(rows), pd.DataFrame(runs)


def durable(protocols_lost: dict[str, int], n: int) -> dict:
    return {(p, "all", 2): [r < k for r in range(n)] for p, k in protocols_lost.items()}


GENERATIONS = ("hw", "kip101", "kip279", "kip320", "kip595", "kip966")


def test_paired_test_gives_the_known_exact_p_values():
    a = pd.Series([True] * 9 + [False] * 31)
    b = pd.Series([False] * 40)
    assert fnd.paired_test(a, b) == {"runs": 40, "a_only": 9, "b_only": 0, "p": pytest.approx(2 * 0.5 ** 9)}
    # 10 against 2 discordant: two-sided binomial, 2 * P(X <= 2 | 12, 1/2) = 2 * 79 / 4096
    a = pd.Series([True] * 10 + [False] * 2 + [True] * 5 + [False] * 23)
    b = pd.Series([False] * 10 + [True] * 2 + [True] * 5 + [False] * 23)
    assert fnd.paired_test(a, b)["p"] == pytest.approx(158 / 4096)
    assert fnd.paired_test(a, a)["p"] == 1.0


def test_wilson_and_the_runs_a_clean_claim_needs():
    assert fnd.runs_needed() == 381
    assert fnd.wilson(0, 381)[1] < 0.01 <= fnd.wilson(0, 380)[1]


def test_the_durable_finding_follows_the_data():
    summary, runs = tables(durable({"hw": 12, "kip101": 1, "kip279": 0, "kip320": 0, "kip595": 0, "kip966": 0}, 400))
    first = fnd.compute(summary, runs)[0]
    assert first.conclusive
    text = fnd.plain(first.html)
    assert "hw in 3.0% [1.7%, 5.2%] of 400 runs" in text and "kip101 in 0.2%" in text
    assert "Every generation from kip279 on lost none, in 400 runs each (95% upper bound 0.95%)" in text
    # one more loss under kip279: the sentence changes with it
    summary, runs = tables(durable({"hw": 12, "kip101": 1, "kip279": 3, "kip320": 0, "kip595": 0, "kip966": 0}, 400))
    text = fnd.plain(fnd.compute(summary, runs)[0].html)
    assert "kip279 in 0.8% [0.3%, 2.2%] of 400 runs" in text and "Every generation from kip320 on lost none" in text


def test_a_small_sweep_is_too_small_to_tell_and_says_how_many_runs_would():
    summary, runs = tables(durable({"hw": 5, "kip101": 0, "kip279": 0}, 40))
    first = fnd.compute(summary, runs)[0]
    assert not first.conclusive
    assert ("kip101 and kip279 lost none, but in too few runs to tell: the 95% upper bound is 8.76%; "
            "381 runs per cell would bound it below 1%.") in fnd.plain(first.html)
    # the sentence itself says what is unsure, tagged there rather than on the whole finding
    page = fnd.findings_html([first])
    assert '<span class="hwl-unsure">kip101 and kip279 lost none, but in too few runs' in page
    assert "(inconclusive)" not in page


def test_a_safer_generation_is_a_paired_test_with_its_p_value_and_its_price():
    summary, runs = tables(durable({"kip595": 12, "kip966": 0}, 40), profile="power-loss",
                           unavailability={"kip595": 0.15, "kip966": 0.5})
    upgrade = [f for f in fnd.compute(summary, runs) if f.key.startswith("upgrade:")]
    assert len(upgrade) == 1 and upgrade[0].numbers["p"] == pytest.approx(2 * 0.5 ** 12)
    text = fnd.plain(upgrade[0].html)
    assert "kip966 is safer than kip595" in text and "12 lost data under kip595 only and 0 under kip966" in text
    assert "p = 0.0005" in text and "no online leader in 50.0% of steps under kip966, against 15.0%" in text
    # two discordant runs are not evidence: no "safer", an inconclusive note instead
    summary, runs = tables(durable({"kip595": 2, "kip966": 0}, 40))
    upgrade = [f for f in fnd.compute(summary, runs) if f.key.startswith("upgrade:")]
    assert len(upgrade) == 1 and not upgrade[0].conclusive and "safer" not in upgrade[0].html
    assert "p = 0.500" in fnd.plain(upgrade[0].html)


def test_acks_1_is_the_setting_not_the_protocol_only_when_every_cell_lost():
    losses = {(p, "1", 1): [r < 20 + i for r in range(40)] for i, p in enumerate(GENERATIONS)}
    losses.update({(p, "all", 1): [False] * 40 for p in GENERATIONS})
    summary, runs = tables(losses)
    acks = next(f for f in fnd.compute(summary, runs) if f.key == "acks-1")
    text = fnd.plain(acks.html)
    assert "acks=1 lost acknowledged data in every generation" in text and "50.0% to 62.5%" in text
    assert acks.numbers["acks1_only"] == sum(20 + i for i in range(6)) and acks.numbers["acks_all_only"] == 0
    losses[("kip966", "1", 1)] = [False] * 40
    summary, runs = tables(losses)
    text = fnd.plain(next(f for f in fnd.compute(summary, runs) if f.key == "acks-1").html)
    assert "every generation" not in text and "in 5 of 6 cells" in text and "none in kip966" in text


def test_every_number_of_the_durable_finding_is_the_summarys():
    summary, runs = tables(durable({"hw": 7, "kip101": 2, "kip279": 0}, 120))
    first = fnd.compute(summary, runs)[0]
    for protocol, numbers in first.numbers.items():
        row = summary[summary["cell"] == numbers["cell"]].iloc[0]
        assert row["protocol"] == protocol
        for name in ("runs", "runs_lost", "lost_rate", "lost_lo", "lost_hi"):
            assert numbers[name] == row[name]


def test_details_tables_are_collapsed_sortable_and_self_contained():
    summary, runs = tables(durable({"hw": 7, "kip101": 0, "kip279": 0}, 40))
    page = sortable_html(cell_table(summary), "Every cell")
    assert page.startswith("<details") and 'class="hwl-sortable"' in page and "<script>" in page
    assert "src=" not in page and "http" not in page
    assert list(cell_table(summary)["cell"]) == ["c000", "c001", "c002"]
    assert "crash" in coverage(summary).columns and "power loss" not in coverage(summary).columns
    tests = paired_tests(summary, runs)
    assert list(tests["older"]) == ["hw", "kip101"] and list(tests["lost under older only"]) == [7, 0]
    assert list(tests["difference"]) == ["significant", "not shown"]


def test_a_sweep_without_the_durable_setting_says_so():
    summary, runs = tables({("hw", "all", 1): [True, False] * 10, ("kip101", "all", 1): [False] * 20})
    first = fnd.compute(summary, runs)[0]
    assert not first.conclusive and "no cell at the durable setting" in first.html


def test_a_finding_that_says_which_parts_are_unsure_is_not_stamped_inconclusive_as_a_whole():
    from hwlib.report.findings import Finding

    inline = Finding("model-check:x", 'lost-write cannot under kip320; <span class="hwl-unsure">under kip279 the '
                     "bounds are too small to tell</span>", conclusive=False)
    whole = Finding("upgrade:x", "no upgrade made a difference the sweep can show", conclusive=False)
    page = fnd.findings_html([inline, whole])
    assert page.count("(inconclusive)") == 1
    assert page.index("(inconclusive)") > page.index('data-key="upgrade:x"')

