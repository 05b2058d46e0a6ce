"""Views of a run, step by step: frames (data), each frame rendered to HTML by Python, an HW-lag
chart, and a self-contained stepper page whose browser side only switches precomputed frames.

Every picture is made here, in Python, so it is testable and the same everywhere: the live
ipywidgets explorer (``hwlib.explorer``) shows these frames, and ``stepper_html`` packs them
with a few lines of JavaScript (Play, slider, step back / forward, speed) into HTML that works
with no kernel and no network - inside an exported notebook, a report, or a file of its own.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json

from ..anomalies.checker import EFFECT_NOTES, is_safety
from ..run import RunResult

#: epoch -> cell colour (cycled); readable on white, distinct in grey print
EPOCH_COLOURS = ("#cfe2f3", "#fce5cd", "#d9ead3", "#ead1dc", "#fff2cc", "#d0e0e3", "#f4cccc", "#d9d2e9")
_ids = itertools.count()


def frames(result: RunResult) -> list[dict]:
    """One frame per trace position (0 = before the first step): what the stepper shows."""
    trace = result.trace
    if trace is None:
        raise ValueError("frames: the run was not recorded; run it with record=True")
    out = []
    for i, snap in enumerate(trace.snapshots):
        leader = snap["leader"]
        leader_leo = snap["replicas"][leader]["leo"] if leader is not None else None
        phw = snap["partition_hw"]
        out.append({
            "index": i,
            "label": trace.step_label(i),
            "events": trace.event_texts(i),
            "leader": leader,
            "epoch": snap["leader_epoch"],
            "isr": snap["isr"],
            "elr": snap["elr"],
            "partition_hw": phw,
            "leader_lag": None if phw is None or leader_leo is None else leader_leo - phw,
            "remote_leo": snap["remote_leo"],
            "acked": snap["acked"],
            "replicas": snap["replicas"],
            "anomalies": [a.as_dict() for a in result.anomalies if a.step <= i],
            "new_anomalies": [a.as_dict() for a in result.anomalies if a.step == i],
        })
    return out


def hw_lag_by_step(result: RunResult, run_frames: list[dict] | None = None) -> dict[str, list[int | None]]:
    """Per position: leader LEO - partition HW (``leader``) and partition HW - each follower's
    HW (by replica id); None while there is no leader. ``run_frames``: ``frames(result)`` if
    already at hand."""
    series: dict[str, list[int | None]] = {"leader": []}
    for rid in result.config.replicas:
        series[rid] = []
    for frame in run_frames if run_frames is not None else frames(result):
        series["leader"].append(frame["leader_lag"])
        for rid, rep in frame["replicas"].items():
            phw = frame["partition_hw"]
            series[rid].append(None if phw is None or rid == frame["leader"] else phw - rep["hw"])
    return series


def first_divergent_step(a: RunResult, b: RunResult) -> int | None:
    """The first position where the two runs' replicas differ (logs, HWs, roles), or None."""
    for i, (x, y) in enumerate(zip(a.trace.snapshots, b.trace.snapshots, strict=False)):
        if _shape(x) != _shape(y):
            return i
    return None


def _shape(snap: dict):
    return (snap["leader"], [(r["role"], r["log"], r["hw"]) for r in snap["replicas"].values()])


# ----------------------------------------------------------------------------- rendering
def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def render_log(rid: str, rep: dict, frame: dict) -> str:
    """One replica: its state, then its log as cells coloured by epoch, HW and LEO marked."""
    leader = frame["leader"] == rid
    state = ("down" if not rep["online"] else "leader" if rep["role"] == "leader" else rep["role"])
    if rep.get("isolated"):
        queued = rep.get("queued")
        waiting = f"; epoch {', '.join(map(str, queued))} queued" if queued else ""
        state += f", isolated (knows epoch {rep['known_epoch']}{waiting})"
    if rep["fetch_state"] == "truncating":
        state += ", reconciling"
    cells = []
    width = max(rep["leo"], 1)
    for offset, epoch, value in rep["log"]:
        colour = EPOCH_COLOURS[epoch % len(EPOCH_COLOURS)] if epoch >= 0 else "#eee"
        committed = " hw-below" if offset < rep["hw"] else ""
        unflushed = " unflushed" if offset >= rep["flushed"] else ""
        cells.append(f'<td class="rec{committed}{unflushed}" style="background:{colour}" '
                     f'title="offset {offset}, epoch {epoch}">{_esc(value)}<sub>e{epoch}</sub></td>')
    marks = []
    for offset in range(width + 1):
        tags = []
        if offset == rep["hw"]:
            tags.append("HW")
        if offset == rep["leo"]:
            tags.append("LEO")
        marks.append(f'<td class="mark">{"/".join(tags)}</td>')
    remote = frame["remote_leo"].get(rid)
    remote_text = f" · leader's remote LEO {remote}" if remote is not None and not leader else ""
    return (
        f'<div class="replica {"is-leader" if leader else ""} {"is-down" if not rep["online"] else ""}" '
        f'data-replica="{_esc(rid)}" data-leo="{rep["leo"]}" data-hw="{rep["hw"]}">'
        f'<div class="rhead"><b>{_esc(rid)}</b>{" ★" if leader else ""} <span class="state">{_esc(state)}</span>'
        f' · <span class="leo">LEO {rep["leo"]}</span> · <span class="hw">HW {rep["hw"]}</span>'
        f'{_esc(remote_text)}</div>'
        f'<table class="log"><tr>{"".join(cells) or "<td class=empty>(empty)</td>"}</tr>'
        f'<tr>{"".join(marks)}</tr></table></div>')


#: the lag lines' colours, the same in the steppers' charts and in matplotlib's
LAG_COLOURS = ["#c00", "#36c", "#393", "#c60", "#939", "#077"]


def lag_svg(series: dict[str, list[int | None]], cursor: int, width: int = 520, height: int = 120) -> str:
    """A small line chart of the HW lags with a cursor at ``cursor``. The y axis spans every
    value, negative ones included (a follower whose own HW is ahead of the leader's partition
    HW after a leader change); it scales to its panel's width."""
    n = max(len(series["leader"]), 2)
    values_seen = [v for values in series.values() for v in values if v is not None]
    peak = max(values_seen + [1])
    low = min(values_seen + [0])
    pad = 24

    def x(i: int) -> float:
        return pad + (width - 2 * pad) * i / (n - 1)

    def y(v: int) -> float:
        return height - pad - (height - 2 * pad) * (v - low) / (peak - low)

    colours = LAG_COLOURS
    lines, legend = [], []
    for k, (name, values) in enumerate(series.items()):
        colour = colours[k % len(colours)]
        dash = "" if name == "leader" else ' stroke-dasharray="4 2"'
        path, segment = [], []
        for i, v in enumerate(values):
            if v is None:
                if segment:
                    path.append(segment)
                segment = []
            else:
                segment.append(f"{x(i):.1f},{y(v):.1f}")
        if segment:
            path.append(segment)
        for seg in path:
            lines.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5"{dash} points="{" ".join(seg)}"/>')
        label = "leader LEO − partition HW" if name == "leader" else f"partition HW − {name} HW"
        legend.append(f'<tspan fill="{colour}">{_esc(label)}</tspan>  ')
    cx = x(cursor)
    return (
        f'<svg class="lag" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="HW lag">'
        f'<line x1="{pad}" y1="{y(0):.1f}" x2="{width - pad}" y2="{y(0):.1f}" stroke="#999"/>'
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#999"/>'
        f'<text x="2" y="{pad + 4}" font-size="10">{peak}</text>'
        f'<text x="10" y="{y(0) + 4:.1f}" font-size="10">0</text>'
        + (f'<text x="2" y="{height - pad + 4}" font-size="10">{low}</text>' if low < 0 else "") +
        f'{"".join(lines)}'
        f'<line class="cursor" x1="{cx:.1f}" y1="{pad - 6}" x2="{cx:.1f}" y2="{height - pad + 4}" stroke="#000"/>'
        f'<text x="{pad}" y="{height - 6}" font-size="10">{"".join(legend)}</text></svg>')


def _anomaly(a: dict, new: bool) -> str:
    """One anomaly: a safety violation (red while new), or an expected effect drawn apart, with
    why it is not data loss."""
    safety = is_safety(a["kind"])
    note = "" if safety else f' <span class="why">(an expected effect: {_esc(EFFECT_NOTES[a["kind"]])})</span>'
    return (f'<li class="{"new " if new else ""}{"safety" if safety else "effect"}"><b>{_esc(a["kind"])}</b> '
            f'(step {a["step"]}): {_esc(a["detail"])}{note}</li>')


def render_frame(frame: dict, series: dict | None = None, title: str = "") -> str:
    """The whole picture at one position, as HTML."""
    isr = ",".join(frame["isr"])
    elr = f" · ELR {{{','.join(frame['elr'])}}}" if frame["elr"] else ""
    hw = "—" if frame["partition_hw"] is None else frame["partition_hw"]
    prefix = _esc(title) + " · " if title else ""
    head = (f'<div class="fhead">{prefix}<b class="label">{_esc(frame["label"])}</b></div>'
            f'<div class="meta">leader <b>{_esc(frame["leader"] or "none")}</b> · epoch {frame["epoch"]} · '
            f'ISR {{{_esc(isr)}}}{_esc(elr)} · partition HW <b class="phw">{hw}</b></div>')
    logs = "".join(render_log(rid, rep, frame) for rid, rep in frame["replicas"].items())
    events = "".join(f"<li>{_esc(e)}</li>" for e in frame["events"]) or "<li>(start)</li>"
    acked = ", ".join(frame["acked"]) or "none yet"
    anomalies = "".join(_anomaly(a, a in frame["new_anomalies"]) for a in frame["anomalies"]) or \
        "<li>none so far</li>"
    chart = lag_svg(series, frame["index"]) if series is not None else ""
    return (f'<div class="frame" data-index="{frame["index"]}">{head}{logs}'
            f'<div class="events"><b>what happened</b><ul>{events}</ul></div>'
            f'<div class="acked"><b>acknowledged:</b> {_esc(acked)}</div>'
            f'<div class="anomalies"><b>anomalies</b><ul>{anomalies}</ul></div>{chart}</div>')


def rendered_frames(result: RunResult, title: str = "") -> list[str]:
    run_frames = frames(result)
    series = hw_lag_by_step(result, run_frames)
    return [render_frame(f, series, title) for f in run_frames]


STYLE = """
.hwl-stepper{font:13px/1.35 system-ui,sans-serif;color:#222}
.hwl-stepper .controls{display:flex;gap:6px;align-items:center;margin:4px 0 8px}
.hwl-stepper .controls input[type=range]{flex:1;min-width:160px}
.hwl-stepper .panels{display:flex;gap:12px;flex-wrap:wrap}
.hwl-stepper .panel{flex:1 1 0;min-width:300px;border:1px solid #ddd;border-radius:4px;padding:6px;
  overflow-wrap:anywhere;box-sizing:border-box}
.hwl-stepper svg.lag{width:100%;height:auto;max-width:520px;display:block}
.hwl-stepper .fhead{font-size:14px;margin-bottom:2px}
.hwl-stepper .meta{color:#444;margin-bottom:6px}
.hwl-stepper .replica{margin:4px 0;padding:2px 4px;border-left:3px solid #ccc}
.hwl-stepper .replica.is-leader{border-left-color:#c00}
.hwl-stepper .replica.is-down{opacity:.55}
.hwl-stepper table.log{border-collapse:collapse;margin-top:2px}
.hwl-stepper td.rec{border:1px solid #888;padding:1px 5px;min-width:26px;text-align:center;font-family:monospace}
.hwl-stepper td.rec.hw-below{font-weight:bold}
.hwl-stepper td.rec.unflushed{border-style:dashed}
.hwl-stepper td.mark{font-size:10px;color:#c00;text-align:left;padding:0 2px;height:12px}
.hwl-stepper .events ul,.hwl-stepper .anomalies ul{margin:2px 0 4px 18px;padding:0}
.hwl-stepper .anomalies li.new.safety{color:#b00}
.hwl-stepper .anomalies li.effect{color:#666}
.hwl-stepper .anomalies li.effect .why{font-size:11px}
.hwl-stepper .diff{color:#b00;font-weight:bold}
"""

SCRIPT = """
(function(){
  var root = document.getElementById(%(id)s);
  var data = JSON.parse(root.querySelector('script.hwl-frames').textContent);
  var slider = root.querySelector('input.pos'), play = root.querySelector('button.play');
  var panels = root.querySelectorAll('.panel'), speed = root.querySelector('select.speed');
  var status = root.querySelector('.status'), timer = null;
  function show(i){
    i = Math.max(0, Math.min(data.n - 1, i)); slider.value = i;
    for (var p = 0; p < panels.length; p++) { panels[p].innerHTML = data.frames[p][i]; }
    status.textContent = 'step ' + i + ' / ' + (data.n - 1) +
      (data.diff !== null && i >= data.diff ? '  \u2022  the runs differ from step ' + data.diff : '');
    root.setAttribute('data-position', i);
  }
  function stop(){ if (timer) { clearInterval(timer); timer = null; play.textContent = '\u25B6 Play'; } }
  play.onclick = function(){
    if (timer) { stop(); return; }
    if (+slider.value >= data.n - 1) { show(0); }
    play.textContent = '\u23F8 Pause';
    timer = setInterval(function(){ if (+slider.value >= data.n - 1) { stop(); } else { show(+slider.value + 1); } },
                        +speed.value);
  };
  speed.onchange = function(){ if (timer) { stop(); play.onclick(); } };
  root.querySelector('button.back').onclick = function(){ stop(); show(+slider.value - 1); };
  root.querySelector('button.fwd').onclick = function(){ stop(); show(+slider.value + 1); };
  slider.oninput = function(){ stop(); show(+slider.value); };
  show(data.start);
})();
"""


def stepper_html(results: list[RunResult] | RunResult, titles: list[str] | None = None, start: int = 0,
                 per_run: list[list[str]] | None = None) -> str:
    """A self-contained stepper over one run or several runs of the same schedule (side by
    side, one slider): no external script, no kernel; the browser only switches frames.
    ``per_run``: the runs' ``rendered_frames`` if already at hand (then ``titles`` are theirs)."""
    if isinstance(results, RunResult):
        results = [results]
    titles = titles or [f"{r.name} · {r.protocol}" for r in results]
    if per_run is None:
        per_run = [rendered_frames(r, t) for r, t in zip(results, titles, strict=True)]
    n = min(len(f) for f in per_run)
    diff = first_divergent_step(results[0], results[1]) if len(results) == 2 else None
    digest = hashlib.sha1("\n".join(titles).encode()).hexdigest()[:8]
    element_id = f"hwl-stepper-{digest}-{next(_ids)}"
    data = {"n": n, "start": max(0, min(start, n - 1)), "diff": diff, "frames": [f[:n] for f in per_run]}
    payload = json.dumps(data).replace("</", "<\\/")
    first = "".join(f'<div class="panel">{f[data["start"]]}</div>' for f in per_run)
    return (
        f'<div class="hwl-stepper" id="{element_id}"><style>{STYLE}</style>'
        f'<div class="controls"><button class="back" title="step back">◀</button>'
        f'<button class="play">▶ Play</button><button class="fwd" title="step forward">▶|</button>'
        f'<input class="pos" type="range" min="0" max="{n - 1}" value="0" aria-label="step">'
        f'<select class="speed" aria-label="speed"><option value="1200">slow</option>'
        f'<option value="600" selected>normal</option><option value="200">fast</option></select>'
        f'<span class="status"></span></div>'
        f'<div class="panels">{first}</div>'
        f'<script type="application/json" class="hwl-frames">{payload}</script>'
        f'<script>{SCRIPT % {"id": json.dumps(element_id)}}</script></div>')


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
    import base64

    text = scenario.to_yaml()
    data = base64.b64encode(text.encode()).decode()
    runs = [f"hwlib run {filename}"] + ([f"hwlib run {filename} --protocol {fixed_by}"] if fixed_by else [])
    lines = "".join(f"<code>{_esc(line)}</code><br>" for line in runs)
    return (f'<details class="hwl-scenario" style="margin:.3em 0 1em"><summary style="cursor:pointer">'
            f'The scenario file <code>{_esc(filename)}</code> ({len(scenario.steps)} steps): reveal, copy or '
            f'download it</summary><div style="margin:.4em 0">Replay it with hwlib (in its repository, '
            f'<code>make setup</code> installs it as <code>.venv/bin/hwlib</code>):<br>{lines}'
            f'<button class="copy" type="button">Copy</button> '
            f'<a class="download" download="{_esc(filename)}" href="data:application/x-yaml;base64,{data}">'
            f'Download {_esc(filename)}</a></div>'
            f'<pre class="hwl-yaml" style="background:#f6f6f6;padding:6px;max-height:24em;overflow:auto">'
            f'{_esc(text)}</pre>{_COPY_SCRIPT}</details>')


def plot_hw_lag(result: RunResult, ax=None, cursor: int | None = None):
    """Matplotlib chart of the HW lags over all steps (for notebooks and reports)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 2.6))
    for k, (name, values) in enumerate(hw_lag_by_step(result).items()):
        label = "leader LEO − partition HW" if name == "leader" else f"partition HW − {name} HW"
        ax.step(range(len(values)), [float("nan") if v is None else v for v in values], where="post",
                label=label, linestyle="-" if name == "leader" else "--", color=LAG_COLOURS[k % len(LAG_COLOURS)])
    if cursor is not None:
        ax.axvline(cursor, color="black", linewidth=1)
    ax.set_xlabel("step")
    ax.set_ylabel("records")
    ax.set_title(f"HW lag · {result.name} · {result.protocol}")
    ax.legend(fontsize=7, loc="upper left")
    return ax


class StepperView:
    """Displays as the self-contained stepper in Jupyter (``_repr_html_``)."""

    def __init__(self, results: list[RunResult] | RunResult, titles: list[str] | None = None, start: int = 0):
        self.results = [results] if isinstance(results, RunResult) else list(results)
        self.titles = titles
        self.start = start

    def _repr_html_(self) -> str:
        return stepper_html(self.results, self.titles, self.start)


def compare_view(scenario, protocols=("hw", "kip101"), start: int = 0) -> StepperView:
    """One scenario (name, path or object) under several protocols, side by side."""
    from ..scenario import run_scenario

    return StepperView([run_scenario(scenario, protocol=p) for p in protocols], start=start)
