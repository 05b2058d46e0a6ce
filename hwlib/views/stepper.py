"""The stepper: a run's frames (``views.frames``) rendered to HTML by Python, an HW-lag chart, a page to step through.

The page's browser side only switches precomputed frames. Every picture is made here, in
Python, so it is testable and the same everywhere: the live ipywidgets explorer
(``hwlib.views.explorer``) shows these frames, and ``stepper_html`` packs them with a few lines
of JavaScript (``static/stepper.js``: Play, slider, step back / forward, speed) into HTML that
works with no kernel and no network - inside an exported notebook, a report, or a file of its
own.
"""

from __future__ import annotations

import base64
import gzip
import json
from importlib import resources

from ..anomalies.checker import EFFECT_NOTES, is_safety
from ..anomalies.kinds import BY_NAME
from ..engine.config import PROTOCOLS
from ..run import RunResult
from .frames import frames, hw_lag_by_step, key_step, key_steps
from .messages import step_messages
from .sequence import actors, esc, message_lane, sequence_head_svg, sequence_svg

#: epoch -> cell colour (cycled); readable on white, distinct in grey print
EPOCH_COLOURS = ("#cfe2f3", "#fce5cd", "#d9ead3", "#ead1dc", "#fff2cc", "#d0e0e3", "#f4cccc", "#d9d2e9")


def render_log(rid: str, rep: dict, frame: dict) -> str:
    """One replica: its state, then its log as cells coloured by epoch, HW and LEO marked; the
    records it lost as ghosts (struck, with the step), the acknowledged records the leader no
    longer has marked lost; values that changed at this step highlighted."""
    leader = frame["leader"] == rid
    changed = set(frame.get("changed", {}).get("replicas", {}).get(rid, ()))
    state = ("down" if not rep["online"] else "leader" if rep["role"] == "leader" else rep["role"])
    if rep.get("isolated"):
        queued = rep.get("queued")
        waiting = f"; epoch {', '.join(map(str, queued))} queued" if queued else ""
        state += f", isolated (knows epoch {rep['known_epoch']}{waiting})"
    if rep["fetch_state"] == "truncating":
        state += ", reconciling"
    elif rep["fetch_state"] == "failed":
        state += ", partition failed (not fetching)"
    cells = []
    width = max(rep["leo"], 1)
    for offset, epoch, value in rep["log"]:
        colour = EPOCH_COLOURS[epoch % len(EPOCH_COLOURS)] if epoch >= 0 else "#eee"
        committed = " hw-below" if offset < rep["hw"] else ""
        unflushed = " unflushed" if offset >= rep["flushed"] else ""
        cells.append(f'<td class="rec{committed}{unflushed}" style="background:{colour}" '
                     f'title="offset {offset}, epoch {epoch}">{esc(value)}<sub>e{epoch}</sub></td>')
    if leader:
        for value in frame.get("lost", ()):
            cells.append(f'<td class="rec lost" title="{esc(value)} was acknowledged and is not in the leader\'s log">'
                         f'{esc(value)} lost</td>')
    marks = []
    for offset in range(width + 1):
        tags = []
        if offset == rep["hw"]:
            tags.append("HW")
        if offset == rep["leo"]:
            tags.append("LEO")
        marks.append(f'<td class="mark">{"/".join(tags)}</td>')
    ghosts = "".join(
        f'<span class="ghost" data-offset="{g["offset"]}" data-value="{esc(g["value"])}" '
        f'title="{esc(g["value"])} (offset {g["offset"]}, epoch {g["epoch"]}) {g["how"]} at step {g["step"]}">'
        f'<s>{esc(g["value"])}<sub>e{g["epoch"]}</sub></s> @{g["offset"]} {esc(g["how"])} at step {g["step"]}</span>'
        for g in frame.get("ghosts", {}).get(rid, ()))
    remote = frame["remote_leo"].get(rid)
    remote_text = (f' · leader\'s remote LEO <span class="{_chg("remote", changed)}">{remote}</span>'
                   if remote is not None and not leader else "")
    return (
        f'<div class="replica {"is-leader" if leader else ""} {"is-down" if not rep["online"] else ""}" '
        f'data-replica="{esc(rid)}" data-leo="{rep["leo"]}" data-hw="{rep["hw"]}">'
        f'<div class="rhead"><b>{esc(rid)}</b>{" ★" if leader else ""} '
        f'<span class="state {_chg("role", changed, "online")}">{esc(state)}</span>'
        f' · <span class="leo {_chg("leo", changed)}">LEO {rep["leo"]}</span>'
        f' · <span class="hw {_chg("hw", changed)}">HW {rep["hw"]}</span>{remote_text}</div>'
        f'<table class="log"><tr>{"".join(cells) or "<td class=empty>(empty)</td>"}</tr>'
        f'<tr>{"".join(marks)}</tr></table>'
        + (f'<div class="ghosts">{ghosts}</div>' if ghosts else "") + '</div>')


def _chg(field: str, changed: set[str], *also: str) -> str:
    """``chg`` (highlighted) when ``field`` (or one of ``also``) changed at this step."""
    return "chg" if field in changed or any(a in changed for a in also) else ""


#: the lag lines' colours, the same in the steppers' charts and in matplotlib's
LAG_COLOURS = ["#c00", "#36c", "#393", "#c60", "#939", "#077"]


def lag_svg(series: dict[str, list[int | None]], cursor: int, width: int = 520, height: int = 130) -> str:
    """A step chart of the HW lags (whole records: each value holds until the next step) with
    a cursor at ``cursor`` and an integer y axis. Below 0 is a follower whose own HW is ahead
    of the partition HW: after a leader change the new leader's HW is one fetch round stale
    (a caption says so when it happens). It scales to its panel's width."""
    n = max(len(series["leader"]), 2)
    values_seen = [v for values in series.values() for v in values if v is not None]
    peak = max(values_seen + [1])
    low = min(values_seen + [0])
    pad, bottom = 24, 34

    def x(i: int) -> float:
        return pad + (width - 2 * pad) * i / n

    def y(v: int) -> float:
        return height - bottom - (height - pad - bottom) * (v - low) / (peak - low)

    lines, legend = [], []
    for k, (name, values) in enumerate(series.items()):
        colour = LAG_COLOURS[k % len(LAG_COLOURS)]
        dash = "" if name == "leader" else ' stroke-dasharray="4 2"'
        segments: list[list[str]] = []
        points: list[str] = []
        for i, v in enumerate(values):
            if v is None:
                if points:
                    segments.append(points)
                points = []
                continue
            points += [f"{x(i):.1f},{y(v):.1f}", f"{x(i + 1):.1f},{y(v):.1f}"]
        if points:
            segments.append(points)
        for seg in segments:
            lines.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5"{dash} points="{" ".join(seg)}"/>')
        label = "leader LEO − partition HW" if name == "leader" else f"partition HW − {name} HW"
        legend.append(f'<tspan fill="{colour}">{esc(label)}</tspan>  ')
    every = max(1, (peak - low + 5) // 6)
    ticks = "".join(f'<text x="{pad - 4}" y="{y(v) + 3:.1f}" font-size="10" text-anchor="end">{v}</text>'
                    f'<line x1="{pad - 2}" y1="{y(v):.1f}" x2="{pad}" y2="{y(v):.1f}" stroke="#999"/>'
                    for v in range(low, peak + 1) if v % every == 0)
    below = (f'<text x="{pad}" y="{height - 4}" font-size="9" fill="#555">below 0: a follower\'s HW is ahead of '
             f'the new leader\'s (one fetch round stale after a leader change)</text>' if low < 0 else "")
    cx = x(cursor) + (x(1) - x(0)) / 2
    return (
        f'<svg class="lag" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'data-x0="{x(0) + (x(1) - x(0)) / 2:.2f}" data-dx="{x(1) - x(0):.4f}" '
        f'preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'aria-label="HW lag in records, step by step">'
        f'<line x1="{pad}" y1="{y(0):.1f}" x2="{width - pad}" y2="{y(0):.1f}" stroke="#999"/>'
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - bottom}" stroke="#999"/>{ticks}'
        f'<text x="{pad + 2}" y="{pad - 8}" font-size="10" fill="#555">HW lag (records)</text>'
        f'{"".join(lines)}'
        f'<line class="cursor" x1="{cx:.1f}" y1="{pad - 4}" x2="{cx:.1f}" y2="{height - bottom + 4}" stroke="#000"/>'
        f'<text x="{pad}" y="{height - bottom + 16}" font-size="10">{"".join(legend)}</text>{below}</svg>')


def _anomaly(a: dict, new: bool) -> str:
    """One anomaly: a safety violation (red while new), or an expected effect drawn apart, with
    why it is not data loss."""
    safety = is_safety(a["kind"])
    note = "" if safety else (f' <span class="why">({BY_NAME[a["kind"]].effect_words}: '
                               f'{esc(EFFECT_NOTES[a["kind"]])})</span>')
    return (f'<li class="{"new " if new else ""}{"safety" if safety else "effect"}"><b>{esc(a["kind"])}</b> '
            f'(step {a["step"]}): {esc(a["detail"])}{note}</li>')


def render_frame(frame: dict, title: str = "") -> str:
    """The whole picture at one position, as HTML: the partition, each replica's log, this
    step's messages, its caption (if the scenario has one), what happened, the anomalies (the
    HW-lag chart is the stepper's, drawn once per panel: ``lag_svg``)."""
    isr = ",".join(frame["isr"])
    elr = f" · ELR {{{','.join(frame['elr'])}}}" if frame["elr"] else ""
    hw = "—" if frame["partition_hw"] is None else frame["partition_hw"]
    changed = set(frame.get("changed", {}).get("partition", ()))
    prefix = esc(title) + " · " if title else ""
    head = (f'<div class="fhead">{prefix}<b class="label">{esc(frame["label"])}</b></div>'
            f'<div class="meta">leader <b class="{_chg("leader", changed)}">{esc(frame["leader"] or "none")}</b>'
            f' · <span class="{_chg("epoch", changed)}">epoch {frame["epoch"]}</span>'
            f' · <span class="{_chg("isr", changed)}">ISR {{{esc(isr)}}}</span>{esc(elr)}'
            f' · partition HW <b class="phw {_chg("hw", changed)}">{hw}</b></div>')
    caption = f'<div class="caption">{esc(frame["caption"])}</div>' if frame.get("caption") else ""
    logs = "".join(render_log(rid, rep, frame) for rid, rep in frame["replicas"].items())
    lane = message_lane(frame["messages"], frame["actors"]) if "messages" in frame else ""
    events = "".join(f"<li>{esc(e)}</li>" for e in frame["events"]) or "<li>(start)</li>"
    acked = ", ".join(frame["acked"]) or "none yet"
    lost = (f' · <span class="lost-note">lost: {esc(", ".join(frame["lost"]))}</span>'
            if frame.get("lost") else "")
    anomalies = "".join(_anomaly(a, a in frame["new_anomalies"]) for a in frame["anomalies"]) or \
        "<li>none so far</li>"
    return (f'<div class="frame" data-index="{frame["index"]}">{head}{caption}{logs}{lane}'
            f'<div class="events"><b>what happened</b><ul>{events}</ul></div>'
            f'<div class="acked"><b>acknowledged:</b> {esc(acked)}{lost}</div>'
            f'<div class="anomalies"><b>anomalies</b><ul>{anomalies}</ul></div></div>')


def rendered_frames(result: RunResult, title: str = "", captions: dict[int, str] | None = None) -> list[str]:
    """Every position's picture; ``captions``: step number -> a caption under that frame (a
    scenario's ``notes``, ``Scenario.captions``)."""
    return _rendered(result, frames(result), title, captions)


def _rendered(result: RunResult, run_frames: list[dict], title: str, captions: dict[int, str] | None) -> list[str]:
    """The frames without the HW-lag chart: a stepper draws that once per panel and moves its
    cursor (``STEPPER_JS``), instead of carrying a copy in every frame."""
    for step, text in (captions or {}).items():
        if 0 <= step < len(run_frames):
            run_frames[step]["caption"] = text
    return [render_frame(f, title) for f in run_frames]


def static_text(name: str) -> str:
    """A file of ``hwlib/views/static/`` (package data: a wheel carries it)."""
    return (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")


#: The stepper's look (``static/stepper.css``), in each stepper's markup.
STYLE = static_text("stepper.css")

#: The stepper's browser side (``static/stepper.js``), one function for the offline page and
#: the live explorer's widget (``explorer.StepperWidget``): ``hwlStepper(root, options)`` wires
#: the controls of the stepper markup under ``root`` and returns ``{show, stop, position}``.
#: Options: ``start`` (the step to open at, default the markup's own), ``onStep(i)`` (told each
#: step shown: the explorer's kernel learns where a fork goes), ``hash`` (the page's URL
#: fragment picks the step, ``#<id>/step=N``: offline pages only).
STEPPER_JS = static_text("stepper.js")

_used_ids: set[str] = set()


def unique_id(titles: list[str]) -> str:
    """A readable id for the page's URL fragment (``#data-loss-hw-kip101/step=11``), unique
    among the steppers this process made."""
    slug = "-".join("".join(c if c.isalnum() else "-" for c in t.lower()) for t in titles)
    slug = "-".join(part for part in slug.split("-") if part)[:60] or "stepper"
    candidate, n = slug, 2
    while candidate in _used_ids:
        candidate, n = f"{slug}-{n}", n + 1
    _used_ids.add(candidate)
    return candidate


def _ticks(results: list[RunResult], keys: dict[str, int | None], n: int) -> str:
    """Marks under the slider a person can see and point at: one per step with an anomaly (red:
    a safety violation, grey: an expected effect) and one where two runs start to differ
    (orange), each with a tooltip saying what happens there."""
    said: dict[int, list[str]] = {}
    safety: set[int] = set()
    for result in results:
        for a in result.anomalies:
            said.setdefault(a.step, []).append(f"{a.kind} ({result.config.rules_name})")
            if is_safety(a.kind):
                safety.add(a.step)
    if keys["difference"] is not None:
        said.setdefault(keys["difference"], []).insert(0, "the runs start to differ")
    marks = []
    for step in sorted(said):
        if step >= n:
            continue
        kind = "safety" if step in safety else "difference" if step == keys["difference"] else "effect"
        where = step / (n - 1) if n > 1 else 0.0
        text = esc(f"step {step}: " + "; ".join(dict.fromkeys(said[step])))
        marks.append(f'<span class="tick {kind}" data-step="{step}" title="{text}" '
                     f'style="left:calc(8px + (100% - 16px) * {where:.4f})"></span>')
    return "".join(marks)


def stepper_html(results: list[RunResult] | RunResult, titles: list[str] | None = None, start: int | None = None,
                 per_run: list[list[str]] | None = None, captions: list[dict[int, str]] | None = None,
                 sequence_open: bool = True, link_name: str | None = None) -> str:
    """A self-contained stepper over one run or several runs of the same schedule (side by
    side, one slider): no external script, no kernel; the browser only switches frames.
    ``start``: the step it opens at (default: the first anomaly, or where two runs start to
    differ, or the first step). The slider has a tick at each of those steps and buttons jump
    to them; ``#<id>/step=N`` in the page's URL opens it at step N, and "link to this step"
    puts that URL in the address bar (and the clipboard). ``per_run``: the runs'
    ``rendered_frames`` if already at hand (then ``titles`` are theirs); ``captions``: per run,
    step number -> caption. ``sequence_open``: the whole run's sequence diagram starts unfolded
    (a long page, a report, folds it). ``link_name``: what its id - the name in a link to a
    step - is made of (default: the titles)."""
    element_id, markup = stepper_markup(results, titles, start, per_run, captions, packed=True,
                                        sequence_open=sequence_open, link_name=link_name)
    script = STEPPER_JS + (f"var root = document.getElementById({json.dumps(element_id)});"
                           "hwlFrames(root).then(function(data){ hwlStepper(root, {hash: true}, data); });")
    return f"{markup}<script>(function(){{{script}}})();</script>"    # after the stepper: it finds it by id


def stepper_markup(results: list[RunResult] | RunResult, titles: list[str] | None = None,
                   start: int | None = None, per_run: list[list[str]] | None = None,
                   captions: list[dict[int, str]] | None = None, linkable: bool = True,
                   packed: bool = False, sequence_open: bool = True, link_name: str | None = None
                   ) -> tuple[str, str]:
    """``(element id, the stepper's HTML)`` without its script: the controls, the panels at
    the start step, each run's sequence diagram, and the frames as JSON for ``hwlStepper``
    (``STEPPER_JS``). ``linkable``: offer "link to this step" (a page's URL; not in a live
    notebook, whose URL is the notebook's). ``packed``: the frames gzipped and base64-encoded
    (an offline page: repeated markup shrinks about tenfold; ``hwlFrames`` unpacks them with
    the browser's DecompressionStream)."""
    if isinstance(results, RunResult):
        results = [results]
    titles = titles or [f"{r.name} · {r.config.rules_name}" for r in results]
    run_frames = None
    if per_run is None:
        captions = captions or [{} for _ in results]
        run_frames = [frames(r) for r in results]
        per_run = [_rendered(r, f, t, c) for r, f, t, c in zip(results, run_frames, titles, captions, strict=True)]
    n = min(len(f) for f in per_run)
    keys = key_steps(results)
    if start is None:
        start = key_step(results)
    element_id = unique_id([link_name] if link_name else titles)
    start = max(0, min(start, n - 1))
    data = {"n": n, "start": start, "keys": keys, "frames": [f[:n] for f in per_run]}
    if packed:
        payload = base64.b64encode(gzip.compress(json.dumps(data).encode(), mtime=0)).decode()
        frames_tag = '<script type="application/octet-stream" class="hwl-frames" data-encoding="gzip-base64">'
    else:
        payload = json.dumps(data).replace("</", "<\\/")
        frames_tag = '<script type="application/json" class="hwl-frames">'
    panels = []
    for k, (result, rendered) in enumerate(zip(results, per_run, strict=True)):
        messages = [f["messages"] for f in run_frames[k]] if run_frames else step_messages(result)
        lanes = actors(result)
        sequence = (f'<div class="seqhead">{sequence_head_svg(lanes)}</div>'
                    f'{sequence_svg(result, messages, lanes, names=False)}')
        series = hw_lag_by_step(result, run_frames[k] if run_frames else None)
        panels.append(f'<div class="panel"><div class="frame-slot">{rendered[start]}</div>'
                      f'<div class="lag-slot">{lag_svg(series, start)}</div>'
                      f'<details class="seq"{" open" if sequence_open else ""}><summary>the whole run as messages '
                      f'(sequence diagram; the current step is marked)</summary><div class="seqbox">{sequence}</div>'
                      '</details></div>')
    ticks = _ticks(results, keys, n)
    jumps = "".join(f'<button class="jump" data-key="{name}" type="button" title="go to step {k}">'
                    f'first {name} (step {k})</button>' for name, k in keys.items() if k is not None)
    link = ('<button class="link" type="button" title="put a link to this step in the address bar">'
            'link to this step</button><span class="linked"></span>') if linkable else ""
    return element_id, (
        f'<div class="hwl-stepper" id="{element_id}" tabindex="0"><style>{STYLE}</style>'
        f'<div class="controls"><button class="back" type="button" title="step back (←)">◀ Back</button>'
        f'<button class="play" type="button" title="play / pause (space)">▶ Play</button>'
        f'<button class="fwd" type="button" title="step forward (→)">Forward ▶</button>'
        f'<span class="track"><input class="pos" type="range" min="0" max="{n - 1}" value="{data["start"]}" '
        f'aria-label="step">{ticks}</span>'
        f'<label>speed <select class="speed" aria-label="speed"><option value="1200">slow</option>'
        f'<option value="600" selected>normal</option><option value="200">fast</option></select></label>'
        f'{jumps}{link}</div>'
        f'<div class="status"></div>'
        f'<div class="panels">{"".join(panels)}</div>'
        f'{frames_tag}{payload}</script></div>')


_COPY_SCRIPT = """<script>
(function () {
  if (window.hwlCopyReady) { return; }
  window.hwlCopyReady = true;
  document.addEventListener('click', function (e) {
    var button = e.target.closest ? e.target.closest('.hwl-scenario button.copy') : null;
    if (!button) { return; }
    var pre = button.closest('.hwl-scenario').querySelector('pre.hwl-yaml');
    function done(ok) { button.textContent = ok ? 'Copied' : 'Select the text below and copy it'; }
    function fallback() {
      var range = document.createRange(); range.selectNodeContents(pre);
      var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
      var ok = false; try { ok = document.execCommand('copy'); } catch (err) { ok = false; }
      done(ok);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(pre.textContent).then(function () { done(true); }, fallback);
    } else { fallback(); }
  });
})();
</script>"""


def scenario_file_html(scenario, filename: str, fixed_by: str | None = None) -> str:
    """A scenario file in an offline page: collapsed, its YAML revealed on a click, a copy
    button, a download link (the file itself, as a ``data:`` URL) and the ``hwlib run`` lines
    that replay it - under its own generation and, with ``fixed_by``, under the one that fixed
    it. No path of the machine that made it."""

    text = scenario.to_yaml()
    data = base64.b64encode(text.encode()).decode()
    flag = "--protocol" if fixed_by in PROTOCOLS else "--release"
    runs = [f"hwlib run {filename}"] + ([f"hwlib run {filename} {flag} {fixed_by}"] if fixed_by else [])
    lines = "".join(f"<code>{esc(line)}</code><br>" for line in runs)
    return (f'<details class="hwl-scenario" style="margin:.3em 0 1em"><summary style="cursor:pointer">'
            f'The scenario file <code>{esc(filename)}</code> ({len(scenario.steps)} steps): reveal, copy or '
            f'download it</summary><div style="margin:.4em 0">Replay it with hwlib (in its repository, '
            f'<code>make setup</code> installs it as <code>.venv/bin/hwlib</code>):<br>{lines}'
            f'<button class="copy" type="button">Copy</button> '
            f'<a class="download" download="{esc(filename)}" href="data:application/x-yaml;base64,{data}">'
            f'Download {esc(filename)}</a></div>'
            f'<pre class="hwl-yaml" style="background:#f6f6f6;padding:6px;max-height:24em;overflow:auto">'
            f'{esc(text)}</pre>{_COPY_SCRIPT}</details>')


def plot_hw_lag(result: RunResult, ax=None, cursor: int | None = None):
    """Matplotlib chart of the HW lags over all steps (for notebooks and reports): step lines
    (a lag holds until the next step), whole records on the y axis, a note when a lag goes
    below 0. ``cursor``: a step to mark (a static figure; the steppers' own charts follow
    their sliders)."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 2.6))
    low, gaps = 0, False
    for k, (name, values) in enumerate(hw_lag_by_step(result).items()):
        gaps = gaps or any(v is None for v in values)
        label = "leader LEO − partition HW" if name == "leader" else f"partition HW − {name} HW"
        ax.step(range(len(values)), [float("nan") if v is None else v for v in values], where="post",
                label=label, linestyle="-" if name == "leader" else "--", color=LAG_COLOURS[k % len(LAG_COLOURS)])
        low = min([low] + [v for v in values if v is not None])
    if cursor is not None:
        ax.axvline(cursor, color="black", linewidth=1)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step")
    ax.set_ylabel("records")
    ax.set_title(f"HW lag · {result.name} · {result.config.rules_name}")
    if low < 0:
        ax.text(0.99, 0.02, "below 0: a follower's HW is ahead of the new leader's (one fetch round stale)",
                transform=ax.transAxes, ha="right", va="bottom", fontsize=7, color="#555")
    handles, labels = ax.get_legend_handles_labels()
    if gaps:            # what a break in a line means
        handles.append(Line2D([], [], linestyle="none"))
        labels.append("a gap: no leader serves,\nor that replica is down")
    # beside the axes, never over a line (inside, it hid the first rise; tight_layout makes room)
    ax.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return ax


class StepperView:
    """Displays as the self-contained stepper in Jupyter (``_repr_html_``)."""

    def __init__(self, results: list[RunResult] | RunResult, titles: list[str] | None = None,
                 start: int | None = None, captions: list[dict[int, str]] | None = None):
        self.results = [results] if isinstance(results, RunResult) else list(results)
        self.titles = titles
        self.start = start
        self.captions = captions

    def _repr_html_(self) -> str:
        return stepper_html(self.results, self.titles, self.start, captions=self.captions)


def compare_view(scenario, protocols=("hw", "kip101"), start: int | None = None) -> StepperView:
    """One scenario (name, path or object) under several protocols, side by side, with its
    captions (``notes:``) under each generation's frames."""
    from ..scenario import Scenario, load_scenario, run_scenario

    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    return StepperView([run_scenario(scenario, protocol=p) for p in protocols], start=start,
                       captions=[scenario.captions(p) for p in protocols])


def scenarios_view(pairs: list[tuple[str, str]], titles: list[str] | None = None,
                   start: int | None = None) -> StepperView:
    """Several scenarios (name or path, generation) side by side on one slider - runs of
    schedules that share their first steps - each with its captions (``notes:``)."""
    from ..scenario import load_scenario, run_scenario

    scenarios = [(load_scenario(name), protocol) for name, protocol in pairs]
    return StepperView([run_scenario(s, protocol=p) for s, p in scenarios], titles, start,
                       captions=[s.captions(p) for s, p in scenarios])
