"""An explain answer as an offline page: verdict, maps, release, settings; the lines beside the explanation's stepper.

``incident_markup(run)`` is the body (notebook 04 displays it; ``hwlib explain --html`` wraps
it in a page with ``incident_page``): per partition the verdict sentence, the release the
lines' texts come from and the rules that explained them, the settings inferred, the maps of
offsets, epochs and brokers, the anomalies (necessary or not) and the search; then every input
line with its status beside a stepper over the explanation (or, not explained, the prefix that
matches every line before the failing one, opened at its end). Clicking a matched line shows
its step; the step shown highlights its lines; lines not used are greyed with their reason; the
failed line is red with what it needs. No script or style from a network, no path of the
machine that made it.
"""

from __future__ import annotations

from pathlib import Path

from ..explain.answer import Answer, ExplainRun
from ..run import run_steps
from ..util.files import check_replaceable, write_text_atomically
from .explain_out import answer_dict, scenario_of
from .explain_words import NECESSITY_WORDS, necessary_first, rules_words, search_words, settings_words
from .sequence import esc
from .stepper import STEPPER_JS, scenario_file_html, static_text, stepper_markup, unique_id

#: what marks a page ``write_incident_page`` wrote (the only kind of file it replaces)
GENERATOR = '<meta name="generator" content="hwlib explain">'
#: a verdict's colour and its words on the page
VERDICTS = {"explained": ("ok", "explained"), "not-explainable": ("bad", "not explainable"),
            "outside-model": ("bad", "outside the model"), "inconclusive": ("warn", "inconclusive"),
            "nothing": ("warn", "nothing to explain")}
#: a line's status in words, for its badge's tooltip
STATUS_WORDS = {
    "matched": "matched: a step of the explanation makes it",
    "informational": "informational: a message that states nothing the model has, or a fact another line gives",
    "other-partition": "other-partition: about another partition",
    "unattributed": "unattributed: no broker could be named for it",
    "unrecognised": "unrecognised: no message hwlib knows",
    "outside-model": "outside-model: needs behaviour the model does not have",
    "not-matched": "not matched: the answer stopped before it",
    "failed": "the line the answer stops at",
}
#: the stopping line's badge, by verdict: an inconclusive search says nothing of what the rules can make
FAILED_BADGE = {"not-explainable": "cannot be made", "outside-model": "outside the model",
                "inconclusive": "not reached in time", "explained": "failed", "nothing": "failed"}


STYLE = static_text("incident.css")
#: the page's browser side beside the stepper's (``static/incident.js``)
INCIDENT_JS = static_text("incident.js")


def incident_markup(run: ExplainRun) -> str:
    """Every partition's answer (a summary first when there are several), with its script."""
    datas = [answer_dict(answer, run) for answer in run.answers]
    sections = [_answer_section(answer, data, run) for answer, data in zip(run.answers, datas, strict=True)]
    summary = ""
    if len(run.answers) > 1:
        rows = "".join(f'<tr><td><a href="#incident-{esc(a.partition)}">{esc(a.partition)}</a></td>'
                       f'<td class="{VERDICTS[a.verdict][0]}">{VERDICTS[a.verdict][1]}</td>'
                       f'<td>{esc(d["sentence"])}</td></tr>' for a, d in zip(run.answers, datas, strict=True))
        summary = f'<table class="summary"><tr><th>partition</th><th>verdict</th><th>answer</th></tr>{rows}</table>'
    omitted = "".join(f"<p class=\"omitted\">{count:,} more lines {esc(status)}, not listed.</p>"
                      for status, count in run.omitted.items())
    element_id = unique_id(["hwl incidents", *(a.partition for a in run.answers)])     # a notebook may show several
    script = STEPPER_JS + INCIDENT_JS + f"hwlIncidents(document.getElementById({element_id!r}));"
    return (f'<div class="hwl-incidents" id="{element_id}"><style>{STYLE}</style>{summary}{"".join(sections)}'
            f'{omitted}<script>(function(){{{script}}})();</script></div>')


def _answer_section(answer: Answer, data: dict, run: ExplainRun) -> str:
    colour, words = VERDICTS[answer.verdict]
    facts = _facts(answer, data)
    lines = _lines(data)
    stepper = _stepper(answer, data, run)
    shown = sum(1 for entry in data["lines"] if entry["status"] not in ("empty", "joined"))
    return (f'<section class="hwl-incident" id="incident-{esc(answer.partition)}">'
            f'<h2>{esc(answer.partition)} <span class="verdict {colour}">{words}</span></h2>'
            f'<p class="sentence {colour}">{esc(data["sentence"])}</p>{facts}'
            f'<div class="columns"><div class="lines-col"><h3>The lines ({shown})</h3>'
            f'<p class="hint">Click a matched line to see its step; the step shown lights its lines.</p>'
            f'{lines}</div><div class="stepper-col">{stepper}</div></div></section>')


def _facts(answer: Answer, data: dict) -> str:
    """The answer's facts as table rows (name, HTML)."""
    rows: list[tuple[str, str]] = []
    if answer.release_range:
        rows.append(("release", esc(f"the lines' texts are written by Kafka {answer.release_range.words()}"
                     + (f"; explained under Kafka {answer.rules_label}" if answer.explains else
                        (f"; the furthest search ran Kafka {answer.rules_label}" if answer.rules_label else "")))))
    elif answer.rules_label:
        rows.append(("release", esc(f"Kafka {answer.rules_label}")))
    if answer.config is not None:
        rows.append(("rules", esc(f"{rules_words(answer.config)} (protocol generation {answer.config.protocol})")))
        cfg = data["config"]
        rows.append(("settings" + (" inferred" if answer.explains else " tried"),
                     esc(settings_words(cfg))))
    if data["broker_map"]:
        pairs = ", ".join(f"{real} = replica {model}" for real, model in data["broker_map"].items())
        rows.append(("brokers", esc(pairs)))
    for name, pairs in (("offsets", data["offset_map"]), ("leader epochs", data["epoch_map"])):
        shown = [f"{real:,} -> {model}" for real, model in pairs if real not in (0, -1)]
        if shown:
            rows.append((name, esc("Kafka's -> the model's: " + ", ".join(shown) + " (0 and -1 kept)")))
    for note in answer.notes:
        rows.append(("note", esc(note)))
    for entry in necessary_first(answer.anomalies):                   # as the sentence names them
        rows.append(("anomaly", f"<b>{esc(entry.kind)}</b> at step {entry.step} "
                     f"({NECESSITY_WORDS[entry.necessary]}): {esc(entry.detail)}"))
    for entry in answer.expected_effects:
        rows.append(("expected effect", f"{esc(entry.kind)} at step {entry.step}: {esc(entry.detail)}"))
    if data["failed_at"]:
        failed = data["failed_at"]
        said = "outside the model: " if failed["category"] == "outside-model" else "needs "
        rows.append(("stops at", f"line {failed['line']} of {esc(failed['file'])}: {said}{esc(failed['needs'])}"))
    if data["search"]:
        rows.append(("search", esc(search_words(data["search"], answer.verdict))))
    body = "".join(f"<tr><th>{esc(name)}</th><td>{value}</td></tr>" for name, value in rows)
    return f'<table class="facts">{body}</table>'


def _lines(data: dict) -> str:
    failed = data["failed_at"]
    items = []
    for entry in data["lines"]:
        status = entry["status"]
        if status in ("empty", "joined"):
            continue
        is_failed = failed is not None and entry["file"] == failed["file"] and entry["line"] == failed["line"]
        shown = "failed" if is_failed else status
        step = f' data-step="{entry["step"]}"' if "step" in entry else ""
        badge = f"step {entry['step']}" if "step" in entry else (FAILED_BADGE[data["verdict"]] if is_failed else status)
        reason = entry.get("reason", "") if status != "matched" else ""
        items.append(f'<li class="line st-{shown}"{step} title="{esc(STATUS_WORDS.get(shown, shown))}">'
                     f'<span class="where">{esc(entry["file"])}:{entry["line"]}</span>'
                     f'<span class="badge">{esc(badge)}</span><span class="text">{esc(entry["text"])}</span>'
                     + (f'<span class="reason">{esc(reason)}</span>' if reason else "") + "</li>")
    return f'<ol class="lines">{"".join(items)}</ol>'


def _stepper(answer: Answer, data: dict, run: ExplainRun) -> str:
    if answer.config is not None and not answer.steps and answer.explains:
        return ('<p class="hint">The lines are the partition\'s creation itself - its first leader elected at '
                'leader epoch 0, the model\'s initial state (step 0): no step to step through.</p>')
    if answer.config is None or not answer.steps:
        return '<p class="hint">No schedule to step through: the search matched no line.</p>'
    explained = answer.explains
    steps = [step for step, _ in answer.steps]
    result = run_steps(answer.config, steps, name=f"explain-{answer.partition}")
    captions = {item["step"]: " | ".join(item["lines"]) for item in data["steps"] if item["lines"]}
    title = ("the prefix: every line before the failing one" if not explained
             else "the explanation of the lines before the first one outside the model"
             if answer.verdict == "outside-model" else "the explanation")
    _, markup = stepper_markup(result, [f"{title} · {answer.config.rules_name}"],
                               start=len(steps) if not explained else None, captions=[captions],
                               packed=True, sequence_open=False)
    scenario = scenario_of(answer, run, prefix=not explained)
    name = "explanation.yaml" if explained else "prefix.yaml"
    return f'<h3>{"The explanation" if explained else "How far it gets"} ({len(steps)} steps)</h3>{markup}' + \
        scenario_file_html(scenario, name)


def incident_page(run: ExplainRun) -> str:
    """A whole offline page of ``incident_markup``."""
    names = ", ".join(a.partition for a in run.answers)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">{GENERATOR}'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>hwlib explain: {esc(names)}</title></head><body class="hwl-page">'
            f'<h1>hwlib explain: {esc(names)}</h1><p class="lede">Broker log lines matched against hwlib\'s model '
            f'of Kafka\'s replication: the shortest schedule of the model whose steps make every line, or the '
            f'line no schedule can make. Offsets and epochs map in order (the model counts 0, 1, 2 ...).</p>'
            f'{incident_markup(run)}</body></html>')


def incident_target(path: str | Path) -> Path:
    """Where ``write_incident_page`` may write (one line naming ``html`` when not: a directory,
    unwritable, or a file that is not a page hwlib explain wrote)."""
    return check_replaceable(path, "html", GENERATOR, owner="hwlib explain")


def write_incident_page(run: ExplainRun, path: str | Path) -> Path:
    return write_text_atomically(incident_target(path), incident_page(run))
