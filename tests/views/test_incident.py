"""The explain answer as a page and in notebook 04: verdict and maps first, each line with its status by the stepper.

Read in headless Chromium with the network off: a click on a matched line shows its step and
lights its lines; a line that cannot be explained is red with what it needs, the prefix stepped
to it. The page names no path of the machine that made it and loads nothing from a network.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from hwlib.explain import ExplainSpec, explain
from hwlib.util.files import OutputError
from hwlib.views import incident_page, write_incident_page
from hwlib.views.explain_words import sentence

from ..explain.test_explain import _situation, _write
from ..helpers.browser import ARTIFACTS, offline_page

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def follower_exit(tmp_path_factory):
    """The pre-2.0.1 follower exit (0.10.2), explained; its logs and its page."""
    folder = tmp_path_factory.mktemp("incident")
    config, steps, release, _ = _situation("follower-exit-on-shorter-leader")
    paths = _write(folder, config, steps, release)
    run = explain(ExplainSpec(tuple(paths), time_limit=25))
    return folder, paths, run, write_incident_page(run, folder / "incident.html")


def test_the_page_puts_the_verdict_first_and_keeps_every_line_with_its_status(follower_exit):
    folder, paths, run, page = follower_exit
    (answer,) = run.answers
    assert answer.verdict == "explained", sentence(answer, run.lines)
    text = page.read_text()
    body = text[text.index("<body"):]
    assert body.index("verdict ok") < body.index('class="facts"') < body.index('class="lines"') \
        < body.index('class="hwl-stepper"')
    assert text.count('<li class="line ') == len(run.lines)
    for line in run.lines:
        assert f">{line.record.file}:{line.record.line}<" in text
    steps = [int(n) for n in re.findall(r'<li class="line st-matched" data-step="(\d+)"', text)]
    assert steps and all(1 <= n <= len(answer.steps) for n in steps)
    assert str(folder) not in text and "/tmp/" not in text                    # no machine path
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|https?://(?!www\.w3\.org/)", text)  # no network


def test_clicking_a_line_steps_to_it_and_the_step_lights_its_lines(follower_exit, browser):
    _, _, run, page_path = follower_exit
    (answer,) = run.answers
    page = offline_page(browser, page_path.as_uri())
    stepper = page.locator(".hwl-stepper")
    exit_line = page.locator("li.line", has_text="Exiting because log truncation is not allowed")
    step = int(exit_line.get_attribute("data-step"))
    exit_line.click()
    assert stepper.get_attribute("data-position") == str(step)
    lit = page.locator("li.line.now")
    assert lit.count() >= 1 and all(int(lit.nth(i).get_attribute("data-step")) == step for i in range(lit.count()))
    assert f"{step}. " in stepper.locator(".panel").inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explain-follower-exit.png"))
    stepper.locator("button.back").click()                   # a step no line shows lights none
    assert stepper.get_attribute("data-position") == str(step - 1)
    shown = {int(page.locator("li.line.now").nth(i).get_attribute("data-step"))
             for i in range(page.locator("li.line.now").count())}
    assert shown <= {step - 1} and step <= len(answer.steps)
    assert page.requests_outside == [] and page.errors == []


def test_a_line_that_cannot_be_explained_is_red_with_what_it_needs_and_the_prefix_stops_before_it(tmp_path, browser):
    config, steps, release, _ = _situation("fetch-fenced-by-leader-epoch")
    paths = _write(tmp_path, config, steps, release)
    run = explain(ExplainSpec(tuple(paths), release="2.0.1", time_limit=60))
    (answer,) = run.answers
    assert answer.verdict == "not-explainable", sentence(answer, run.lines)
    page_path = write_incident_page(run, tmp_path / "refused.html")
    page = offline_page(browser, page_path.as_uri())
    failed = page.locator("li.line.st-failed")
    assert failed.count() == 1 and "FENCED_LEADER_EPOCH" in failed.inner_text()
    assert "needs" in failed.inner_text()
    assert page.locator(".verdict.bad").inner_text() == "not explainable"
    if answer.steps:                                          # the prefix opens at its end
        assert page.locator(".hwl-stepper").get_attribute("data-position") == str(len(answer.steps))
    page.screenshot(path=str(ARTIFACTS / "explain-not-explainable.png"))
    assert page.requests_outside == [] and page.errors == []


def test_html_never_replaces_a_file_hwlib_did_not_write(follower_exit, tmp_path):
    _, paths, run, _ = follower_exit
    mine = tmp_path / "mine.html"
    mine.write_text("<html>my notes</html>")
    with pytest.raises(OutputError, match="html: .* exists and hwlib explain did not write it"):
        write_incident_page(run, mine)
    assert mine.read_text() == "<html>my notes</html>"
    ours = tmp_path / "ours.html"
    ours.write_text(incident_page(run))
    assert write_incident_page(run, ours) == ours
    refused = subprocess.run([sys.executable, "-m", "hwlib", "explain", *paths, "--html", str(mine)],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "html:" in refused.stderr
    assert mine.read_text() == "<html>my notes</html>"


def test_notebook_04_replays_an_incident_from_its_parameters(tmp_path):
    import papermill

    config, steps, release, _ = _situation("noop-truncation-on-empty-log")
    paths = _write(tmp_path, config, steps, release)
    papermill.execute_notebook(str(REPO / "notebooks" / "04_incident_replay.ipynb"), str(tmp_path / "out.ipynb"),
                               parameters={"logs": ",".join(paths), "partition": "orders-0", "time_limit": 60},
                               cwd=str(tmp_path), progress_bar=False, kernel_name="python3")
    nb = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert not [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    shown = "".join(o.get("data", {}).get("text/html", "") for c in nb.cells for o in c.get("outputs", []))
    assert 'class="hwl-incidents"' in shown and "verdict ok" in shown and 'class="hwl-stepper"' in shown
