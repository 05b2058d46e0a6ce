"""The anomaly kinds are one record each: every table a view reads is derived from them, consistently."""

from __future__ import annotations

from hwlib.anomalies import EFFECT_NOTES, EFFECTS, KINDS, SAFETY, SEVERITY
from hwlib.anomalies.kinds import BY_NAME, KIND_TABLE, effect_tag
from hwlib.scenario import SHORT_KINDS


def test_every_table_of_kinds_comes_from_the_records():
    assert len(BY_NAME) == len(KIND_TABLE) == len(KINDS)
    assert sorted(k.severity for k in KIND_TABLE) == list(range(len(KIND_TABLE)))
    assert SEVERITY == SAFETY + EFFECTS and set(SEVERITY) == set(KINDS)
    assert all(BY_NAME[name].safety for name in SAFETY) and not any(BY_NAME[name].safety for name in EFFECTS)
    assert set(EFFECT_NOTES) == set(EFFECTS) and all(EFFECT_NOTES.values())
    assert not any(BY_NAME[name].note for name in SAFETY)
    assert SHORT_KINDS == {k.name: k.short for k in KIND_TABLE}


def test_an_effect_that_is_a_kafka_bug_is_not_called_expected():
    assert effect_tag("hw-regression") == "expected, not a safety violation"
    assert effect_tag("fetcher-stopped") == "a Kafka bug, not a safety violation"
    assert BY_NAME["fetcher-stopped"].effect_words != BY_NAME["consumer-skipped"].effect_words == "an expected effect"
    assert effect_tag("lost-write") == ""
