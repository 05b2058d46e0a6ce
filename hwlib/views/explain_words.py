"""An explain answer in words: the verdict's sentence, the rules, the settings, the search, the necessity of an anomaly.

The one wording of an ``explain.Answer`` that the text (``hwlib explain``), the JSON, the
offline page and notebook 04 all print: ``sentence(answer, lines)`` reads the answer's values
(and the run's lines, for where a line is) and writes nothing back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..engine.config import FEATURE_SETTINGS, ClusterConfig
from ..explain.answer import Anomaly, Answer
from ..explain.observations import KINDS
from ..explain.recognise import Line

#: what an explain answer's anomaly being necessary (True), not (False) or undecided (None) means
NECESSITY_WORDS = {True: "necessary: every explanation within the bounds shows it",
                   False: "not necessary: another explanation does without it",
                   None: "necessity not decided within its budget"}
MARKS = {True: " (necessary)", False: " (not necessary)", None: ""}


def where(line: Line) -> str:
    return f"line {line.record.line} of {line.record.file}"


def rules_words(config: ClusterConfig) -> str:
    """The rules a config runs, with the protocol version that selects older ones where set (a
    cluster part way through an upgrade)."""
    said = config.rules_name
    for key, name in FEATURE_SETTINGS:
        if getattr(config, key) is not None:
            said += f", {name}={getattr(config, key)}"
    return said


def necessary_first(anomalies: Sequence[Anomaly]) -> list[Anomaly]:
    """An answer's anomalies as its sentence names them: the necessary, the undecided, the not
    necessary (each group in severity order)."""
    rank = {True: 0, None: 1, False: 2}
    return sorted(anomalies, key=lambda entry: rank[entry.necessary])


def sentence(answer: Answer, lines: Sequence[Line]) -> str:
    """The answer's verdict in one sentence."""
    if answer.verdict == "nothing" and answer.failure is None:
        return _nothing(answer)
    if answer.failure is not None and answer.failure.category == "outside-model":
        line = lines[answer.failure.line]
        head = f"outside hwlib's model at {where(line)}: {answer.failure.needs}"
        if answer.steps:
            return f"{head}. Before it: {_explained(answer)}"
        return f"{head}; no line before it states anything the model has"
    if answer.verdict == "explained":
        return _explained(answer)
    return _unexplained(answer, lines)


def _nothing(answer: Answer) -> str:
    named = answer.partitions
    if answer.partition == "-":
        said = "no line names a replication event of a partition that hwlib's model has: nothing to explain"
    else:
        said = f"{answer.partition}: no line about it states anything the model has: nothing to explain"
    if named:
        listed = ", ".join(f"{name} ({count} line{'s' if count != 1 else ''})" for name, count in
                           list(named.items())[:12])
        said += f" (the lines name {listed}{' and more' if len(named) > 12 else ''})"
    return said


def _explained(answer: Answer) -> str:
    config = answer.config
    assert config is not None
    offsets = ", ".join(f"{real:,} -> {model}" for real, model in answer.maps.offsets if real not in (0, -1))
    epochs = ", ".join(f"{real} -> {model}" for real, model in answer.maps.epochs if real not in (0, -1))
    kinds_said = ", ".join(f"{a.kind}{MARKS[a.necessary]}" for a in necessary_first(answer.anomalies))
    loses = any(a.kind == "lost-write" and a.necessary is True for a in answer.anomalies)
    created = any(v.status == "matched" and v.step == 0 for v in answer.lines.values())
    one = " with one replica (the lines name one broker and an ISR of it alone)" if len(config.replicas) == 1 else ""
    return (f"hwlib's model of Kafka {answer.rules_label} ({rules_words(config)} rules){one} explains "
            f"{answer.explained_lines} of {answer.own_lines} lines "
            + (f"in {len(answer.steps)} steps" + (" after the partition's creation" if created else "")
               if answer.steps else "as the partition's creation (its first leader elected, epoch 0)")
            + (f"; offsets {offsets}" if offsets else "") + (f"; epochs {epochs}" if epochs else "")
            + (f"; it loses acknowledged writes: {kinds_said}" if loses
               else (f"; anomalies: {kinds_said}" if kinds_said else "; no anomaly")))


def _unexplained(answer: Answer, lines: Sequence[Line]) -> str:
    failure, label = answer.failure, answer.rules_label
    if failure is None:
        return f"{answer.partition}: no search ran within the time limit"
    at = where(lines[failure.line])
    unclean = failure.category == "halt" and answer.config is not None and answer.config.unclean_leader_election
    if failure.never:
        return (f"not explainable under Kafka {label}: {at} needs {failure.needs}; Kafka {label}'s rules never make "
                f"such a line" + (" with unclean.leader.election.enable=true" if unclean else ""))
    if answer.verdict == "not-explainable":
        can = ", ".join(failure.model_can) if failure.model_can else "do nothing more within the bounds"
        return (f"not explainable under Kafka {label}: {at} needs {failure.needs}; at that point the model can "
                f"only {can}")
    observed = next((o for o, refs in answer.observed if failure.line in refs), None)
    said = observed.describe() if observed is not None else KINDS.get(failure.category, ("",))[0]
    return (f"inconclusive: no explanation within the bounds and time; the furthest search (Kafka {label}) stopped "
            f"before {at} ({said})")


def settings_words(cfg: Mapping) -> str:
    """An explain answer's settings (its JSON ``config``) as Kafka's keys: acks,
    min.insync.replicas, unclean.leader.election.enable, and the protocol version where one
    selected older rules."""
    said = (f"acks={cfg['acks']}, min.insync.replicas={cfg['min_insync_replicas']}, "
            f"unclean.leader.election.enable={str(cfg['unclean_leader_election']).lower()}")
    for key, name in FEATURE_SETTINGS:
        if cfg.get(key) is not None:
            said += f", {name}={cfg[key]}"
    return said


def search_words(search: Mapping, verdict: str) -> str:
    """An explain answer's search in words: how many searches and states, how long, and what
    that proves (an explanation shortest within the bounds; none within them; or neither)."""
    count = search.get("searches", 0)
    said = (f"{count} search{'es' if count != 1 else ''}, {search.get('states', 0):,} states, "
            f"{search.get('seconds', 0)} s")
    if verdict == "explained" or (verdict == "outside-model" and "shortest" in search):
        shortest = search.get("shortest")
        return said + ("; no shorter explanation within the bounds (breadth first)" if shortest == "proven"
                       else f"; shortest {shortest}" if shortest else "")
    if count == 0 and search.get("complete"):
        return "no search needed: the rules tried never make the line the answer stops at"
    return said + ("; complete: no schedule within the bounds explains the lines" if search.get("complete")
                   else "; not complete: stopped at the time limit or a budget")
