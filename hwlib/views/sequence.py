"""Drawings of the messages between brokers, controller and clients: a step's lane, the run's sequence diagram."""

from __future__ import annotations

import html

from ..run import RunResult


def esc(value) -> str:
    """``value`` as HTML text or attribute."""
    return html.escape(str(value), quote=True)


#: message kind -> arrow colour (request blue, response green, error red, control grey)
MESSAGE_COLOURS = {"request": "#2659a6", "response": "#2b7a2b", "error": "#c00", "control": "#666"}


def actors(result: RunResult) -> list[str]:
    """The lanes of a message drawing: the producer, the brokers, the controller, and the
    consumer when the run has one."""
    out = ["producer", *result.config.replicas, "controller"]
    if any(s.kind in ("consume", "consumer_crash") for s in result.recorded().steps):
        out.append("consumer")
    return out


def _lane_x(lanes: list[str], width: int, left: int) -> dict[str, float]:
    """Each lane's x: evenly spread, with room for the outer names."""
    span = width - left - 2 * 34
    return {a: left + 34 + span * k / max(len(lanes) - 1, 1) for k, a in enumerate(lanes)}


def _lanes(xs: dict[str, float], height: float, names: bool = True) -> str:
    """Each lane's name on top (``names``) and its lifeline down to ``height``."""
    return "".join((f'<text x="{x:.1f}" y="11" font-size="10" text-anchor="middle" font-weight="bold">{esc(a)}</text>'
                    if names else "")
                   + f'<line x1="{x:.1f}" y1="{15 if names else 0}" x2="{x:.1f}" y2="{height:.1f}" stroke="#ddd"/>'
                   for a, x in xs.items())


def _rightmost(xs: dict[str, float]) -> float:
    return max(xs.values()) if xs else 0.0


def _arrow(m: dict, xs: dict[str, float], y: float) -> str:
    """One message at height ``y``: an arrow from sender to receiver, labelled; in flight it
    stops half way, lost it is crossed, parked it ends in a box at the receiver."""
    colour = MESSAGE_COLOURS.get(m["kind"], "#666")
    x1, x2 = xs.get(m["sender"], 0.0), xs.get(m["receiver"], 0.0)
    attrs = (f'class="msg" data-kind="{m["kind"]}" data-state="{esc(m["state"])}" data-from="{esc(m["sender"])}" '
             f'data-to="{esc(m["receiver"])}" data-label="{esc(m["label"])}"')
    title = f'<title>{esc(m["sender"])} → {esc(m["receiver"])}: {esc(m["label"])}</title>'
    label_x = min(x1, x2) + 6 if x1 != x2 else x1 + 10
    anchor = ""
    if label_x + 5.6 * len(m["label"]) > _rightmost(xs) + 30:     # it would run off the right edge
        label_x, anchor = (max(x1, x2) - 6 if x1 != x2 else x1 - 10), ' text-anchor="end"'
    text = f'<text x="{label_x:.1f}" y="{y - 4:.1f}" fill="{colour}" font-size="10"{anchor}>{esc(m["label"])}</text>'
    if x1 == x2:                    # something that happens at one broker (a parked fetch woken)
        return (f'<g {attrs}>{title}<circle cx="{x1:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>'
                f'{text}</g>')
    end = x1 + (x2 - x1) * 0.55 if m["state"] == "in flight" else x2 - (6 if x2 > x1 else -6)
    dash = ' stroke-dasharray="5 3"' if m["state"] in ("in flight", "lost") else ""
    head_dir = 1 if x2 > x1 else -1
    head = (f'<path d="M{end:.1f},{y:.1f} l{-7 * head_dir},-4 l0,8 z" fill="{colour}"/>'
            if m["state"] != "lost" else
            f'<text x="{(x1 + x2) / 2:.1f}" y="{y + 4:.1f}" fill="#c00" font-size="13" '
            f'text-anchor="middle">✕</text>')
    parked = (f'<rect x="{x2 - 22:.1f}" y="{y - 2:.1f}" width="44" height="13" rx="3" fill="#fff3c4" '
              f'stroke="#c90"/><text x="{x2:.1f}" y="{y + 8:.1f}" font-size="9" text-anchor="middle">parked</text>'
              if m["state"] == "parked" else "")
    return (f'<g {attrs}>{title}<line x1="{x1:.1f}" y1="{y:.1f}" x2="{end:.1f}" y2="{y:.1f}" stroke="{colour}" '
            f'stroke-width="1.6"{dash}/>{head}{parked}{text}</g>')


def message_lane(messages: list[dict], lanes: list[str], width: int = 560) -> str:
    """This step's messages: one row each, from sender to receiver (SVG)."""
    if not messages:
        return '<div class="msgs"><b>messages</b> <span class="none">none at this step</span></div>'
    xs = _lane_x(lanes, width, 0)
    top, row = 26, 24
    height = top + row * len(messages)
    arrows = "".join(_arrow(m, xs, top + 8 + row * k) for k, m in enumerate(messages))
    return (f'<div class="msgs"><b>messages</b><svg class="lane" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg" role="img" '
            f'aria-label="messages at this step">{_lanes(xs, height)}{arrows}</svg></div>')


def sequence_svg(result: RunResult, messages: list[list[dict]], lanes: list[str], width: int = 700,
                 names: bool = True) -> str:
    """The whole run as a sequence diagram: a lane per broker, the controller and the clients,
    time going down, one band per step; the stepper marks the band of the current step.
    ``names``: the lanes' names on top (a stepper draws them apart, ``sequence_head_svg``, so
    they stay in view while the diagram scrolls)."""
    left, row, gap = 190, 18, 8
    xs = _lane_x(lanes, width, left)
    y = 22.0 if names else 2.0
    bands = []
    for i, step_messages in enumerate(messages):
        if i == 0:
            continue
        h = gap + row * max(len(step_messages), 1)
        label = result.recorded().step_label(i)
        if len(label) > 34:
            label = label[:33] + "…"
        arrows = "".join(_arrow(m, xs, y + gap + row * k + 6) for k, m in enumerate(step_messages))
        bands.append(f'<g class="band" data-step="{i}"><rect class="bg" x="0" y="{y:.1f}" width="{width}" '
                     f'height="{h:.1f}" fill="transparent"/><text x="4" y="{y + gap + 8:.1f}" font-size="10">'
                     f'<title>{esc(result.recorded().step_label(i))}</title>{esc(label)}</text>{arrows}</g>')
        y += h
    height = y + 6
    return (f'<svg class="sequence" width="{width}" height="{height:.0f}" viewBox="0 0 {width} {height:.0f}" '
            f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="the run as a sequence of messages">'
            f'{_lanes(xs, height, names)}{"".join(bands)}</svg>')


def sequence_head_svg(lanes: list[str], width: int = 700) -> str:
    """The sequence diagram's lane names alone, drawn to its scale: kept in view (sticky) above
    the diagram while it scrolls."""
    xs = _lane_x(lanes, width, 190)
    names = "".join(f'<text x="{x:.1f}" y="13" font-size="10" text-anchor="middle" font-weight="bold">{esc(a)}</text>'
                    for a, x in xs.items())
    return (f'<svg class="sequence-head" width="{width}" height="18" viewBox="0 0 {width} 18" '
            f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="lanes">{names}</svg>')

