"""What the command line prints: a run step by step, a check's verdicts, a sweep's table, the built-in catalogues.

Each function returns the text (lines joined by newlines, no trailing one); ``hwlib.cli``
parses, dispatches and prints it.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping
from pathlib import Path

from ..anomalies.checker import effect_tag, is_safety
from ..check import CheckResult, Verdict, coverage_text, matrix_markdown
from ..engine.releases import GATES, KRAFT, LOWEST_FEATURE_VERSION, ZK, feature_version_text
from ..explain import ExplainRun
from ..profiles import FaultProfile
from ..run import RunResult
from ..scenario import Scenario
from .explain_out import answer_dict
from .explain_words import NECESSITY_WORDS, search_words, settings_words

#: the coverage line where none was measured: a search that did not complete (its states are
#: not the reachable space), or one an earlier run finished with other coverage runs
NOT_MEASURED = {False: "not measured: the search did not complete (give --exhaustive, or raise --max-states)",
                True: "not measured: an earlier run finished this search with other --coverage-runs "
                      "(run without --resume to measure)"}


def _stale(rep: dict) -> str:
    """``(isolated, epoch 0, 2 queued)``: a broker cut off from the controller, the epoch it
    knows, and the LeaderAndIsr requests waiting for it."""
    if rep["isolated"]:
        queued = f", {len(rep['queued'])} queued" if rep["queued"] else ""
        return f"(isolated, epoch {rep['known_epoch']}{queued})"
    return ""


def _start(rep: dict) -> str:
    """`` start 4`` where a replica's log start offset moved from 0 (retention, DeleteRecords)."""
    return f" start {rep['log_start']}" if rep.get("log_start") else ""


def run_text(result: RunResult) -> str:
    """``hwlib run``: the rules, then per step every replica's LEO and HW, the leader's view
    of its followers and the step's events; the acknowledged values, final logs, anomalies."""
    trace = result.recorded()
    row = result.config.release_row
    rules = (f"release {row.label} (rules {result.protocol}, read at {row.read_at})" if row is not None
             else f"protocol {result.protocol}")
    settings = [f"replicas {','.join(result.config.replicas)}", *result.config.settings_words()]
    lines = _packed(f"scenario {result.name}", [rules, *settings], indent=9)
    for i, snap in enumerate(trace.snapshots):
        reps = "  ".join(
            f"{rid}{'*' if rid == snap['leader'] else ''}{'' if rep['online'] else '(down)'}"
            f"{_stale(rep)}{_start(rep)} LEO {rep['leo']} HW {rep['hw']}"
            for rid, rep in snap["replicas"].items())
        remote = " ".join(f"{k}={v}" for k, v in snap["remote_leo"].items())
        elr = f" ELR {{{','.join(snap['elr'])}}}" if snap["elr"] else ""
        lines += _packed(f"{trace.step_label(i):<34}", [f"epoch {snap['leader_epoch']} ISR {{{','.join(snap['isr'])}}}"
                                                          f"{elr}", *reps.split("  "), f"remote LEO {remote or '-'}"])
        for text in trace.event_texts(i):
            lines += wrapped("    -", text, 6)
    lines.append(f"acked: {', '.join(result.acked) or '-'}")
    for rid, rep in result.final["replicas"].items():
        log = ", ".join(f"{value} at {offset} (epoch {epoch})" for offset, epoch, value in rep["log"]) or "empty"
        cache = ", ".join(f"epoch {epoch} from {start}" for epoch, start in rep["epoch_cache"]) or "empty"
        lines += wrapped(f"final {rid}:", f"log {log}; epoch cache {cache}", 9)
    for a in result.anomalies:           # a safety violation, or an expected effect - said as one
        if is_safety(a.kind):
            lines += wrapped(f"ANOMALY step {a.step} {a.kind}:", a.detail, 4)
        else:
            lines += wrapped(f"EFFECT step {a.step} {a.kind} ({effect_tag(a.kind)}):", a.detail, 4)
    if not result.anomalies:
        lines.append("no anomalies")
    return "\n".join(lines)


def check_text(results: list[CheckResult], kinds: tuple[str, ...], shown: Mapping[tuple[str, str], Verdict],
               note: str, files: Mapping[str, Path], coverage: bool, matrix: bool, reconciled: str = "") -> str:
    """``hwlib check``: what the search covered, then per rule set its states, each kind's
    verdict (``shown``: a "holds" says what the default report's faults it left out, ``note``),
    its coverage (``coverage``), each shortest counterexample's steps and file; ``matrix``:
    the verdict matrix after them. ``reconciled``: the line saying which sweep the verdicts
    were reconciled with."""
    lines = wrapped("checked", coverage_text(results[0], results), 8) + ([reconciled] if reconciled else [])
    for result in results:
        lines.append(f"\n{result.protocol} ({result.ending}): {result.distinct:,} "
                     f"distinct / {result.generated:,} generated states, depth {result.depth}, "
                     f"{result.seconds:.1f} s ({result.states_per_second:,.0f} states/s)")
        for kind in kinds:
            cell = shown[(result.protocol, kind)]
            untried_part = f" - {note}" if note and cell.state in ("holds", "partial") else ""
            lines += wrapped(f"  {kind:<20}", f"{cell.text}{untried_part}", 23)
        if coverage:
            measured = result.coverage
            lines.append(f"  coverage: {measured.text() if measured is not None else NOT_MEASURED[result.complete]}")
        for kind, found in result.violations.items():
            lines += wrapped(f"  shortest {kind} ({found.depth} steps):", found.detail, 4)
            lines.extend(f"    {i:>2}. {step.describe()}" for i, step in enumerate(found.steps, 1))
            path = files.get(f"{result.protocol}-{kind}")
            if path is not None:
                lines.append(f"    written to {path}: hwlib run {path}")
            for text in what_to_try(result.config, found.steps):
                lines += wrapped("    try:", text, 9)
    if not reconciled and any(cell.state in ("holds", "partial") for cell in shown.values()):
        lines += [""] + wrapped("", "A kind that holds holds within the bounds above: a schedule they leave out can "
                                "still violate it. Larger bounds (--max-records, --max-epoch, --max-ticks) search "
                                "further; --sweep DIR reconciles each verdict with a finished sweep's runs, as the "
                                "report does.", 0)
    config = results[0].config
    if config.acks != "all":
        lines += [""] + wrapped("", f"These searches ran with acks={config.acks} (the release's default unless "
                                "--acks was given), where a leader may acknowledge what no follower has: a lost write "
                                "is what that setting allows. The report asks its question with --acks all (at 2 "
                                "replicas and min.insync.replicas=1 a write goes on with one replica out of the ISR, "
                                "as at 3 replicas with min.insync.replicas=2).", 0)
    if matrix:
        lines += ["", matrix_markdown(results, kinds)]
    return "\n".join(lines)


def what_to_try(config, steps) -> list[str]:
    """The settings that may close a loss found under ``config``, as questions to ask
    ``hwlib check`` next: flushing every message where a power loss took an unflushed suffix,
    a feature gate the cluster runs at level 0 where the release has the feature."""
    out = []
    if config.log_flush_interval_messages is None and any(s.kind == "crash" and s.lose_unflushed for s in steps):
        out.append("a power loss takes what was not flushed: --config log.flush.interval.messages=1 (an fsync per "
                   "record, at a cost in throughput) asks whether flushing every message closes it")
    row = config.release_row
    for gate in GATES:
        if row is not None and gate.available(row) and config.gate_level(gate.setting) == 0:
            out.append(f"this cluster runs {gate.kafka}=0: --config {gate.kafka}=1 asks whether the feature closes "
                       f"it (kafka-features.sh upgrade --feature {gate.kafka}=1 on the cluster)")
    return out


def check_json(results: list[CheckResult], kinds: tuple[str, ...], shown: Mapping[tuple[str, str], Verdict],
               not_tried: list[str], reconciled: bool) -> str:
    """``hwlib check --json``: one object per rule set (with the reconciled verdicts' words)."""
    return "\n".join(json.dumps({**r.as_dict(), "not_tried": not_tried,
                                 **({"reconciled": {k: shown[(r.protocol, k)].text for k in kinds}}
                                    if reconciled else {})}) for r in results)


def sweep_text(spec, result, out: Path) -> str:
    """``hwlib sweep``'s table after the run: per cell its settings that vary, runs, loss rate
    (95% interval), divergence and unavailability; each shrunk failure; where it all is."""
    summary = result.summary
    params = list(spec.cells[0].params)
    params = [p for p in params if summary[p].nunique() > 1] or params   # what varies between cells
    lines = [f"\n{'cell':<5} {' '.join(f'{p[:14]:<14}' for p in params)}  runs  lost (95% CI)        "
             f"diverged  unavailable"]
    for row in summary.itertuples(index=False):
        r = row._asdict()
        lines.append(f"{r['cell']:<5} {' '.join(f'{str(r[p])[:14]:<14}' for p in params)} {r['runs']:>5}  "
                     f"{r['lost_rate']:6.1%} [{r['lost_lo']:5.1%},{r['lost_hi']:6.1%}]  {r['diverged_rate']:7.1%}  "
                     f"{r['unavailability']:10.1%}")
    lines.extend(f"shrunk {item['cell']} run {item['run']} ({item['kind']}): {item['before']} -> {item['after']} "
                 f"steps; hwlib run {out / item['path']}" for item in result.shrunk)
    return "\n".join(lines)


#: the terminal width hwlib's text is written for (words are never cut; a line is longer only
#: where a word is: a path, a scenario's name)
WIDTH = 100


def wrapped(head: str, text: str, indent: int) -> list[str]:
    """``head`` in a column ``indent`` wide (or longer, then a space), ``text`` wrapped to
    ``WIDTH`` beside and under it, words whole."""
    first = f"{head:<{indent}}" if len(head) < indent or not head else f"{head} "
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=" " * indent,
                         break_long_words=False, break_on_hyphens=False) or [first.rstrip()]


def _packed(head: str, parts: list[str], indent: int = 35) -> list[str]:
    """``head`` then ``parts`` two spaces apart, a part never split: as many on a line as fit in
    ``WIDTH``, the rest on lines indented ``indent``."""
    lines, line = [], head
    for part in parts:
        gap = "" if line.endswith(" ") or not line.strip() else "  "
        if line.strip() and len(line) + len(gap) + len(part) > WIDTH:
            lines.append(line.rstrip())
            line, gap = " " * indent, ""
        line += gap + part
    lines.append(line.rstrip())
    return lines


def _runs(expect: Mapping[str, tuple[str, ...]]) -> str:
    """Expected anomalies per rule set, consecutive rule sets that expect the same as one run:
    ``hw - kip101: lost-write; kip279 - kip966: none``."""
    groups: list[tuple[list[str], tuple[str, ...]]] = []
    for rules, kinds in expect.items():
        if groups and groups[-1][1] == tuple(kinds):
            groups[-1][0].append(rules)
        else:
            groups.append(([rules], tuple(kinds)))
    return "; ".join(f"{names[0] if len(names) == 1 else names[0] + ' - ' + names[-1]}: {', '.join(kinds) or 'none'}"
                     for names, kinds in groups)


def scenarios_text(scenarios: Mapping[str, Scenario]) -> str:
    """``hwlib scenarios``: each built-in's name, summary (its description where it has none) and
    expected anomalies per rule set, wrapped to ``WIDTH`` columns."""
    lines = []
    for name, s in scenarios.items():
        lines += wrapped(name, " ".join((s.summary or s.description).split()), 28)
        if s.expect:
            lines += wrapped("", f"expected anomalies - {_runs(s.expect)}", 28)
    return "\n".join(lines)


def generations_text(rows: list[dict]) -> str:
    """``hwlib protocols``: each generation, the Kafka it runs, what changed and the releases on
    its rules, wrapped to ``WIDTH`` columns."""
    lines = []
    for row in rows:
        lines += wrapped(row["protocol"], f"Kafka {row['kafka']}", 9)
        lines += wrapped("", row["summary"], 9)
        lines += wrapped("", "releases on these rules: " + (", ".join(row["releases"]) or "none"), 9)
        lines.append("")
    return "\n".join(lines).rstrip()


#: Kafka's short names of the release-default settings, as ``hwlib releases`` prints them
#: the release table's short names of settings (``hwlib releases`` explains them in its header)
KAFKA_NAMES = {"unclean_leader_election": "unclean", "acks": "acks", "replica_lag_time_max_ms": "lag",
               "session_timeout_ms": "session", "retries": "retries"}


def _default_value(name: str, value: object) -> str:
    """A default as the table prints it: ``10s`` for milliseconds, ``max`` for Integer.MAX_VALUE."""
    if isinstance(value, bool):
        return str(value).lower()
    if name.endswith("_ms") and isinstance(value, int):
        return f"{value / 1000:g}s"
    return "max" if value == 2147483647 else str(value)


def releases_text(rows: list[dict], flags) -> str:
    """``hwlib releases``: each release and mode, its rules and patches; its defaults and feature
    gates; the flags that differ from its generation's; then every flag and where it was read."""
    lines = [f"{'release':<10} {'mode':<10} {'rules':<7} patches",
             f"{'':<10} defaults: unclean = unclean.leader.election.enable, acks, lag = replica.lag.time.max.ms,",
             f"{'':<10}   session = zookeeper.session.timeout.ms (ZooKeeper) / broker.session.timeout.ms (KRaft),",
             f"{'':<10}   retries (the producer's); feature gates at their default level",
             f"{'':<10} differs from the rules (+ on, - off)"]
    for row in rows:
        differs = "; ".join(f"{'+' if d['value'] else '-'}{d['flag']} ({d['source']})" for d in row["differs"])
        defaults = " ".join(f"{KAFKA_NAMES.get(k, k)}={_default_value(k, v)}" for k, v in row["defaults"].items())
        gates = "; ".join(f"{name}={level}" for name, level in row["gates"].items())
        lines += wrapped(f"{row['release']:<10} {row['mode']:<10} {row['generation']:<7}", ", ".join(row["patches"]),
                         30)
        lines += wrapped("", defaults + (f"; {gates}" if gates else ""), 11)
        if differs:
            lines += wrapped("", differs, 11)
    lines.append("\nflags (+ on, - off; each read at the tag named):")
    for flag in flags:
        lines += wrapped(f"  {flag.attr}:", f"{flag.title} - {flag.source}; read at {flag.read_at}", 4)
    lines.append("\nfeature gates (a level you set with --config or in a file wins):")
    for gate in GATES:
        lines += wrapped(f"  {gate.kafka}:", f"{gate.note} - {gate.source}", 4)
    for kafka, mode, words in (("inter.broker.protocol.version", ZK, "ZooKeeper"),
                               ("metadata.version", KRAFT, "KRaft")):
        below = "; ".join(f"below {feature_version_text(needs)} as before {f.source} ({f.attr})"
                          for f in flags if (needs := f.needs(mode)) is not None)
        lines += wrapped(f"  {kafka}:", f"{words}, {LOWEST_FEATURE_VERSION[mode]} up to the release's own (a cluster "
                                        f"part way through an upgrade; not given: the release's own): {below}", 4)
    lines += wrapped("  log.message.format.version:", "ZooKeeper 0.11 - 2.8, 0.8.0 up to the inter.broker.protocol."
                     "version: below 0.11.0 (v0 / v1 records) no append records its leader epoch (Log.append), so "
                     "a follower truncates to its HW as before KIP-101; 2.0.1 - 2.1.0 still cache a leader's own "
                     "elections (KAFKA-7897, fixed in 2.1.1)", 4)
    return "\n".join(lines)


def profiles_text(profiles: Mapping[str, FaultProfile], actions: Mapping[str, str]) -> str:
    """``hwlib profiles``: each built-in fault profile's description and mix, then every action."""
    lines = []
    for name, profile in profiles.items():
        mix = ", ".join(f"{a} {w:g}" for a, w in profile.weights.items())
        lines += wrapped(name, " ".join(profile.description.split()), 18)
        lines += wrapped("", f"{profile.steps} steps; weights: {mix}{'; swarm' if profile.swarm else ''}", 18)
    lines.append("\nactions:")
    width = max(map(len, actions)) + 3
    for action, text in actions.items():
        lines += wrapped(f"  {action}", text, width)
    return "\n".join(lines)


def explain_text(run: ExplainRun) -> str:
    """``hwlib explain``: per partition the verdict sentence, the maps, release and settings, the
    explanation's steps with the lines each matched, the anomalies, every input line with its
    status (lines joined into another's record shown with it, empty ones left out), and the search."""
    out: list[str] = []
    for answer in run.answers:
        data = answer_dict(answer, run)
        out.append(f"{answer.partition}: {answer.verdict.upper()}")
        out.append(f"  {data['sentence']}")
        if answer.release_range:
            out.append(f"  release: the lines' texts are written by Kafka {answer.release_range.words()}"
                       + (f"; explained under {answer.rules_label}" if answer.rules_label and answer.explains
                          else ""))
        for note in answer.notes:
            out.append(f"  note: {note}")
        if data["config"] is not None and answer.explains:
            out.append(f"  settings inferred: {settings_words(data['config'])}; brokers "
                       + ", ".join(f"{real} -> {model}" for real, model in data["broker_map"].items()))
        if answer.steps:
            title = ("explanation" if answer.verdict == "explained"
                     else "explanation of the lines before it" if answer.explains
                     else "prefix (matches every line before)")
            out.append(f"  {title}, {len(answer.steps)} steps:")
            for item in data["steps"]:
                shown = "" if not item["lines"] else "   <- " + " | ".join(item["lines"])
                out.append(f"    {item['step']:>3}. {item['words']}{shown}")
        for entry in answer.anomalies:
            out.append(f"  anomaly {entry.kind} at step {entry.step} ({NECESSITY_WORDS[entry.necessary]}): "
                       f"{entry.detail}")
        for entry in answer.expected_effects:
            out.append(f"  expected effect {entry.kind} at step {entry.step}: {entry.detail}")
        if data["failed_at"]:
            failed = data["failed_at"]
            said = "outside the model at" if failed["category"] == "outside-model" else "failed at"
            out.append(f"  {said} {failed['file']}:{failed['line']}: {failed['text']}")
        out.append("  lines:")
        for line in data["lines"]:
            if line["status"] in ("empty", "joined"):
                continue
            end = f"-{line['end_line']}" if "end_line" in line else ""
            where = f"{line['file']}:{line['line']}{end}"
            status = line["status"] + (f" (step {line['step']})" if "step" in line else "")
            reason = f" - {line['reason']}" if line.get("reason") and line["status"] != "matched" else ""
            out.append(f"    {where:<24} {status:<22} {line['text'][:140]}{reason}")
        if data["search"]:
            out.append(f"  search: {search_words(data['search'], answer.verdict)}, within {data['search']['bounds']}")
    for status, count in run.omitted.items():
        out.append(f"({count:,} more lines {status}, not listed)")
    return "\n".join(out)
