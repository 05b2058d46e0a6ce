"""Views: frames, rendered HTML, the self-contained stepper, the live explorer (no browser)."""

from __future__ import annotations

import html
import re

import hwlib
from hwlib.views.explorer import FORKS, Explorer
from hwlib.views.frames import first_divergent_step, frames, hw_lag_by_step
from hwlib.views.stepper import compare_view, render_frame, stepper_html


def test_frames_follow_the_trace_and_anomalies_appear_when_found():
    result = hwlib.run_scenario("data-loss", protocol="hw")
    fs = frames(result)
    assert len(fs) == len(result.steps) + 1
    assert fs[10]["replicas"]["B"]["leo"] == 1 and fs[10]["label"].startswith("10. restart B")
    first = min(a.step for a in result.anomalies)
    assert fs[first - 1]["anomalies"] == [] and fs[first]["new_anomalies"]
    assert [a["kind"] for a in fs[-1]["anomalies"]] == [a.kind for a in result.anomalies]


def test_hw_lag_by_step_shows_the_two_round_hw_update():
    """The record is uncommitted from the produce until the second fetch round; B's own HW
    arrives with that round's (parked, expired) response, so B never trails the partition HW."""
    series = hw_lag_by_step(hwlib.run_scenario("hw-update-one-record", protocol="hw"))
    assert series == {"leader": [0, 1, 1, 0], "A": [None, None, None, None], "B": [0, 0, 0, 0]}


def test_rendered_frame_shows_logs_hw_leo_and_events():
    result = hwlib.run_scenario("data-loss", protocol="hw")
    page = render_frame(frames(result)[10])
    assert 'data-replica="B" data-leo="1" data-hw="1"' in page
    assert "B truncates to 1" in page and "strong-isr" in page
    assert page.count('class="rec') == 3                                 # A: m1 m2, B: m1


def test_stepper_is_self_contained_and_marks_where_protocols_part():
    hw, kip = (hwlib.run_scenario("data-loss", protocol=p) for p in ("hw", "kip101"))
    page = stepper_html([hw, kip], start=3)
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|https?://(?!www\.w3\.org/2000/svg)", page)
    assert page.count('<div class="frame"') == 2                        # the start frames, server-side
    assert first_divergent_step(hw, kip) == 10
    data = packed_frames(page)
    assert data["keys"]["difference"] == 10 and data["start"] == 3 and data["n"] == 16
    # the HW-lag chart is drawn once per panel (its cursor moves in script), not in every frame
    assert page.count('<svg class="lag"') == 2
    assert not any('class="lag"' in frame for panel in data["frames"] for frame in panel)
    # anomaly ticks a person can see and point at: one per step with an anomaly, with what happens there
    ticks = re.findall(r'<span class="tick (\w+)" data-step="(\d+)" title="([^"]+)"', page)
    assert ("safety", "10", "step 10: the runs start to differ; strong-isr (hw)") in ticks
    assert any(kind == "safety" and "lost-write (hw)" in title for kind, _, title in ticks)
    assert compare_view("data-loss", ["hw"])._repr_html_().count('class="panel"') == 1


def packed_frames(page: str) -> dict:
    """The frames a stepper's page carries (gzipped, base64), as its script unpacks them."""
    import base64
    import gzip
    import json

    text = re.search(r'class="hwl-frames" data-encoding="gzip-base64">([^<]+)</script>', page).group(1)
    return json.loads(gzip.decompress(base64.b64decode(text)))


def test_explorer_forks_the_future_and_saves_it(tmp_path):
    explorer = Explorer("data-loss", ["hw", "kip101"], start=10)
    assert explorer.position == explorer.stepper.step == 10
    assert explorer.stepper.markup.count('class="panel"') == 2 and '"n": 16' in explorer.stepper.markup
    explorer.fork(10, "power loss", "B")
    assert len(explorer.steps) == 11 and explorer.steps[-1].lose_unflushed
    assert explorer.position == 11 and '"n": 12' in explorer.stepper.markup
    assert explorer.fork_message.value == "forked at step 10: power loss B (11 steps now)"
    saved = explorer.save(tmp_path / "forked.yaml")
    replay = hwlib.run_scenario(hwlib.load_scenario(saved), protocol="hw")
    assert replay.trace_hash == explorer.results[0].trace_hash
    assert hwlib.load_scenario(saved).expect == {r.protocol: tuple(r.anomaly_kinds()) for r in explorer.results}
    explorer.right.value = "(none)"
    assert explorer.protocols == ["hw"] and explorer.stepper.markup.count('class="panel"') == 1
    assert "link to this step" not in explorer.stepper.markup     # a notebook's URL is the notebook's
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and 'class="hwl-stepper"' in bundle["text/html"]
    assert set(FORKS) >= {"produce", "fetch", "crash", "power loss", "restart", "elect"}


def test_a_cut_off_broker_shows_the_epoch_it_knows_and_its_queued_requests():
    result = hwlib.run_scenario("late-leader-and-isr", protocol="kip320")
    page = render_frame(frames(result)[6])
    assert "isolated (knows epoch 0; epoch 1, 2 queued)" in page
    assert "isolated (knows epoch 1; epoch 2 queued)" in render_frame(frames(result)[7])


def test_explorer_forks_the_controller_faults():
    explorer = Explorer("in-order-leader-and-isr", ["kip320"], start=7)
    explorer.fork(7, "controller failover", "A")
    explorer.fork(8, "reconnect", "A")
    assert [s.kind for s in explorer.steps[-2:]] == ["controller_failover", "reconnect"]
    assert explorer.results[0].acked == ["m1"]            # A skipped epoch 1 and kept B's stale LEO
    assert "strong-isr" in explorer.results[0].anomaly_kinds()
    explorer.fork(9, "deliver one queued LeaderAndIsr", "A")
    explorer.fork(10, "produce to this replica (stale client)", "B")
    assert explorer.steps[-2].kind == "deliver" and explorer.steps[-1].replica == "B"


def test_explorer_compares_releases_and_forks_a_controlled_shutdown():
    """Releases side by side (their titles name them); a controlled shutdown of the leader moves
    leadership off it before it stops, under ZooKeeper 2.1 as under KRaft 3.7."""
    explorer = Explorer("data-loss", ["2.1", "3.7-kraft"], start=3)
    assert [r.config.rules_name for r in explorer.results] == ["2.1", "3.7-kraft"]
    assert "data-loss · 2.1" in explorer.stepper.markup and "data-loss · 3.7-kraft" in explorer.stepper.markup
    # each panel's settings, a release's defaults marked (the scenario gives acks, not the lag)
    said = explorer.settings.value.replace("&#x27;", "'")
    assert "<b>2.1</b> ran with acks=all, min.insync.replicas=1, replica.lag.time.max.ms=10000 (2.1's default)" in said
    assert "broker.session.timeout.ms=9000 (3.7's default)" in said and "acks=all (" not in said
    explorer.fork(3, "controlled shutdown", "A")
    assert explorer.steps[-1] == hwlib.Step("shutdown", replica="A")
    for result in explorer.results:
        events = [e[0] for e in result.trace.events[-1]]
        assert events[0] == "shutdown" and "leader" in events and events[-1] == "stopped", result.config.rules_name
        assert result.final["leader"] == "B"


def test_explorer_shows_the_step_the_user_expects_and_what_is_loaded(tmp_path, monkeypatch):
    """Fork at the last step: the new step; two forks from 0: the last of two; another scenario
    or a file loaded: where the offline steppers open (its first anomaly, else where the runs
    part, else its first step); a file loaded: the dropdown names the file (it joins the menu), and
    picking a name - or the file - again loads it; the live status line says where the runs differ."""
    explorer = Explorer("data-loss", ["hw", "kip101"], start=15)
    explorer.fork(15, "crash", "A")
    assert explorer.position == 16 and '"n": 17' in explorer.stepper.markup
    assert '"difference": 10' in explorer.stepper.markup and "first difference (step 10)" in explorer.stepper.markup
    assert "data-loss, forked at step 15 · hw" in explorer.stepper.markup
    explorer.position = 3                                   # the browser moved the stepper
    explorer.fork(0, "crash", "A")
    explorer.action.value, explorer.replica.value = "restart", "A"
    explorer._fork()                                        # the button: at the stepper's step
    assert explorer.position == 2 and len(explorer.steps) == 2 and explorer.steps[1].kind == "restart"
    explorer.pick.value = "hw-update-one-record"                      # no anomaly, the runs never part
    assert explorer.position == 0 and '"n": 4' in explorer.stepper.markup     # read from its start
    assert explorer.scenario.name == "hw-update-one-record" and explorer.fork_message.value == ""
    explorer.path.value = "data/scenarios/divergence.yaml"            # relative to the project root
    explorer._load_file()
    assert explorer.scenario.name == "divergence" and explorer.pick.value == explorer.scenario.path
    assert dict(explorer.pick.options)["data/scenarios/divergence.yaml (file)"] == explorer.scenario.path
    assert explorer.position == 11 == explorer.results[0].anomalies[0].step     # its first anomaly
    assert explorer.load_message.value == "loaded data/scenarios/divergence.yaml"
    explorer.pick.value = "hw-update-one-record"
    assert explorer.scenario.name == "hw-update-one-record"
    explorer.pick.value = dict(explorer.pick.options)["data/scenarios/divergence.yaml (file)"]
    assert explorer.scenario.name == "divergence" and explorer.position == 11


def test_explorer_saves_against_the_project_root_and_refuses_a_missing_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HWLIB_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path.parent)
    explorer = Explorer("data-loss", ["hw"])
    explorer.save_path.value = "forked.yaml"
    explorer._save()
    assert (tmp_path / "forked.yaml").is_file()
    assert explorer.save_message.value == "saved forked.yaml: <code>hwlib run forked.yaml</code>"
    explorer.save_path.value = "missing/dir/x.yaml"
    explorer._save()
    assert "save: folder missing/dir does not exist; create it or choose another" in explorer.save_message.value
    assert not (tmp_path / "missing").exists() and explorer.fork_message.value == explorer.load_message.value == ""
    assert Explorer("data-loss", ["hw"]).save_path.value == "data/my-scenarios/forked.yaml"   # not the root
    explorer.save_path.value = "data/my-scenarios/forked.yaml"
    explorer._save()                                        # the user's folder is made on the first save
    assert (tmp_path / "data" / "my-scenarios" / "forked.yaml").is_file()


def test_lag_chart_keeps_negative_lag_inside_its_axes():
    """A follower's HW ahead of the partition HW (after a leader change) is a negative lag:
    the axis reaches down to it, every point stays inside the chart, each value holds for its
    whole step (a step line: no slanted segment), the y axis is labelled in whole records,
    and a caption says what below 0 means."""
    from hwlib.views.stepper import lag_svg

    svg = lag_svg({"leader": [0, 1, -2, None, 3], "B": [0, 0, -1, 1, 2]}, 2, width=520, height=130)
    lines = [[tuple(map(float, p.split(","))) for p in points.split()]
             for points in re.findall(r'points="([^"]+)"', svg)]
    ys = [y for line in lines for _, y in line]
    assert ys and all(24 <= y <= 130 - 34 for y in ys)
    for line in lines:
        for (x1, y1), (x2, y2) in zip(line, line[1:], strict=False):
            assert x1 == x2 or y1 == y2                     # horizontal or vertical only
    labels = re.findall(r'text-anchor="end">(-?\d+)</text>', svg)
    assert labels == [str(v) for v in range(-2, 4)]          # every whole record from -2 to 3
    assert "below 0: a follower's HW is ahead of the new leader's" in html.unescape(svg)


def test_the_notebook_lag_chart_s_legend_sits_beside_the_lines_and_says_what_a_gap_is():
    """Notebook 01's chart (``plot_hw_lag``): the legend is outside the axes, so it covers no
    line (inside, it hid the first rise of data-loss's leader lag), and a run with a step where
    no leader serves or a replica is down says what the break in its lines means."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from hwlib.views import plot_hw_lag

    fig, ax = plt.subplots()
    try:
        plot_hw_lag(hwlib.run_scenario("data-loss", protocol="hw"), ax)
        fig.canvas.draw()
        legend = ax.get_legend().get_window_extent()
        assert legend.x0 > ax.get_window_extent().x1            # right of the axes: over nothing drawn
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert texts[0] == "leader LEO − partition HW" and "a gap: no leader serves" in texts[-1]
        assert any(v is None for values in hw_lag_by_step(hwlib.run_scenario("data-loss", protocol="hw")).values()
                   for v in values)
    finally:
        plt.close(fig)


def test_a_bad_path_is_one_line_with_the_built_in_names_on_demand():
    explorer = Explorer("data-loss", ["hw"])
    explorer.path.value = "no/such/file.yaml"
    explorer._load_file()
    said = explorer.load_message.value
    visible = said[:said.index("<details")]
    assert "&#x27;no/such/file.yaml&#x27;: no such file, nor a built-in scenario" in visible
    assert "data-loss" not in visible and "<summary" in said and "<li>data-loss</li>" in said
    assert explorer.scenario.name == "data-loss"                  # nothing else changed


def test_the_fork_menu_offers_only_the_faults_that_can_act_at_the_step_shown():
    """At each step the fault menu holds what the engine would carry out there (under at least
    one generation shown), the replica menu the replicas it would act on; the others are
    counted, and their reasons - the engine's own - are on hover."""
    explorer = Explorer("data-loss", ["hw", "kip101"], start=0)
    assert "restart" not in explorer.action.options                 # everyone is up
    assert "fetch response" not in explorer.action.options          # nothing in flight
    assert "crash" in explorer.action.options and "fetch" in explorer.action.options
    explorer.action.value = "fetch"
    assert explorer.replica.options == ("B",)                        # the leader A does not fetch
    assert "restart: replica is already online" in explorer.fork_note.value
    crashed = next(i for i, s in enumerate(explorer.steps, 1) if s.kind == "crash")
    explorer.position = crashed                                      # the browser moved the stepper
    down = explorer.steps[crashed - 1].replica
    assert "restart" in explorer.action.options
    explorer.action.value = "restart"
    assert explorer.replica.options == (down,)
    choices = explorer.fork_choices(crashed)
    for action, by in choices.items():
        assert (action in explorer.action.options) == (None in by.values()), action
    assert [r for r, reason in choices["restart"].items() if reason is None] == [down]
    assert "crash: replica is already down" not in explorer.fork_note.value    # crash still acts on the others



def test_a_counterexample_says_which_later_generations_it_was_checked_against():
    """"No later generation closes it" only where later ones were checked: the caption names
    them, or says none was (notebook 03 given one release must not suggest 4.1 was tried)."""
    from hwlib.check import Bounds, CheckSpec, parse_faults, run
    from hwlib.views import counterexample_view

    bounds = Bounds(replicas=2, max_records=2, max_epoch=2, depth=12)
    spec = CheckSpec(protocols=("3.9-kraft", "4.0"),
                     config=hwlib.ClusterConfig(replicas=bounds.replica_ids, release="3.9-kraft"),
                     bounds=bounds, faults=parse_faults("crash,quick_restart,power_loss"), kinds=("lost-write",))
    results = run(spec).results
    assert all("lost-write" in r.violations for r in results)
    caption, *_ = counterexample_view(results, results[0], "lost-write")
    assert "None of the later ones checked here (4.0) closes it within these bounds" in caption
    caption, *_ = counterexample_view(results, results[1], "lost-write")
    assert caption.endswith("No later generation was checked here.")
