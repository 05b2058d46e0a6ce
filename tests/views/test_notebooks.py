"""The notebooks: executed headless from the checkout, exported to offline HTML, stepped in a
real headless Chromium with the network off; JupyterLab starts with the widgets extension.

The browser tests use the ``browser`` fixture (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

import hwlib
from hwlib.views.notebooks import execute, export_html

from ..helpers.browser import ARTIFACTS, offline_page

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = ("01_explore_rounds", "02_anomaly_gallery")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("notebooks")
    pages = {}
    for name in NOTEBOOKS:
        started = time.perf_counter()
        nb = execute(REPO / "notebooks" / f"{name}.ipynb", out / f"{name}.ipynb", cwd=out)
        pages[name] = (nb, export_html(nb, out / f"{name}.html"), time.perf_counter() - started)
    return pages


def test_notebooks_in_the_repo_are_clean_and_parameterised():
    """Committed without outputs, with the metadata JupyterLab writes (so opening one changes
    nothing) and the marker that has the save hook strip them; as JupyterLab writes a file."""
    from hwlib.views.notebook_files import strip_before_save

    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        assert all(not c.get("outputs") and not c.get("execution_count") for c in nb.cells if c.cell_type == "code")
        assert nb.metadata.hwlib == {"save_outputs": False}, path.name
        assert nb.metadata.kernelspec.display_name == "Python 3 (ipykernel)", path.name
        assert nb.metadata.language_info.pygments_lexer == "ipython3" and "version" not in nb.metadata.language_info
        model = {"type": "notebook", "content": nbformat.from_dict(nb)}
        strip_before_save(model=model, path=path.name, contents_manager=None)
        assert nbformat.writes(model["content"]) + "\n" == path.read_text(encoding="utf-8"), path.name
    for name in ("01_explore_rounds", "03_model_check", "04_incident_replay"):
        nb = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
        assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells), name


def test_model_check_notebook_shows_the_matrix_and_steps_each_shortest_counterexample(tmp_path, browser):
    """Papermill parameters pick the generations; the faults are the default profile's
    (kip101-data-loss: crashes, quick restarts, time passing); every violated cell of the
    matrix gets a step-through of its shortest schedule beside the first later generation that
    holds, and its scenario file."""
    import html as html_lib

    import papermill

    papermill.execute_notebook(str(REPO / "notebooks" / "03_model_check.ipynb"), str(tmp_path / "check.ipynb"),
                               parameters={"protocols": "hw,kip101"}, cwd=str(tmp_path),
                               progress_bar=False, kernel_name="python3")
    nb = nbformat.read(tmp_path / "check.ipynb", as_version=4)
    assert not [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    page_path = export_html(nb, tmp_path / "check.html")
    text = page_path.read_text()
    matrix = text[text.index('class="hwl-matrix"'):]
    matrix = matrix[:matrix.index("</table>")]
    assert "the faults of the fault profile <strong>kip101-data-loss</strong>" in text
    assert matrix.count("violated at depth") == 4            # hw: KIP-101's loss and all it brings
    assert matrix.count("holds (complete)") == 4               # kip101: every kind
    # never a bare "holds": each names the fault classes of the default report it did not try
    assert matrix.count("not tried: power loss, flushes, leader moves") == 4
    assert ('A "holds" below covers only these faults: power loss, flushes and leader moves not tried: check '
            "with --profile power-loss --max-ticks 1; --profile leader-moves --max-ticks 1") in html_lib.unescape(text)
    assert text.count('class="hwl-scenario"') == 4
    page = offline_page(browser, page_path.as_uri())
    steppers = page.locator(".hwl-stepper")
    assert steppers.count() == 4
    first = steppers.first
    assert "hw: lost-write at step 6" in first.inner_text() and "kip101: the same steps" in first.inner_text()
    assert first.get_attribute("data-position") == "6" and first.locator(".panel").count() == 2
    first.locator("button.back").click()
    assert first.get_attribute("data-position") == "5"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "model-check.png"), full_page=True)
    assert page.requests_outside == [] and page.errors == []


def test_both_notebooks_execute_without_errors_in_seconds(exported):
    for name, (nb, _, seconds) in exported.items():
        errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, (name, errors)
        assert seconds < 60, (name, seconds)
    explore = exported["01_explore_rounds"][0]
    assert "widgets" in explore.metadata                # the live widget state is stored
    assert any("image/png" in o.get("data", {}) for c in explore.cells for o in c.get("outputs", []))


def test_exported_html_is_offline_and_keeps_the_steppers(exported):
    for name, (_, page, _) in exported.items():
        text = page.read_text()
        assert not re.search(r"<script[^>]+src=|<link[^>]+href=[\"']https?:", text), name
        # no address of a CDN (base64 images may hold the letters "cdn": only URLs count)
        assert not re.search(r"https?://[^\s\"'<>]*(cdn|unpkg|jsdelivr)", text, re.IGNORECASE), name
        assert "application/vnd.jupyter.widget-view+json" not in text
        steppers = text.count('class="hwl-stepper"')
        assert steppers == (2 if name == "01_explore_rounds" else 15), (name, steppers)


def _shown(stepper, panel: int, replica: str) -> tuple[int, int]:
    element = stepper.locator(".panel").nth(panel).locator(f'.replica[data-replica="{replica}"]')
    return int(element.get_attribute("data-leo")), int(element.get_attribute("data-hw"))


def test_exported_explorer_steps_offline_in_chromium(exported, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    hw, kip101 = (hwlib.run_scenario("data-loss", protocol=p) for p in ("hw", "kip101"))
    expect = lambda run, i, r: (run.trace.snapshots[i]["replicas"][r]["leo"],  # noqa: E731
                                run.trace.snapshots[i]["replicas"][r]["hw"])
    page = offline_page(browser, exported["01_explore_rounds"][1].as_uri())
    stepper = page.locator(".hwl-stepper").first
    assert stepper.get_attribute("data-position") == "10"        # scripts ran: the view is live
    assert _shown(stepper, 0, "B") == expect(hw, 10, "B") and _shown(stepper, 1, "B") == expect(kip101, 10, "B")
    stepper.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "explore-step-10.png"))

    stepper.locator("button.fwd").click()                         # one step forward
    assert _shown(stepper, 0, "B") == expect(hw, 11, "B") and _shown(stepper, 1, "A") == expect(kip101, 11, "A")
    assert "11. crash A" in stepper.locator(".panel").nth(0).inner_text()

    slider = stepper.locator("input.pos")                         # drag the slider to step 3
    slider.evaluate("(s) => { s.value = 3; s.dispatchEvent(new Event('input')); }")
    assert _shown(stepper, 0, "A") == expect(hw, 3, "A") and _shown(stepper, 0, "B") == expect(hw, 3, "B")
    assert stepper.get_attribute("data-position") == "3"
    page.screenshot(path=str(ARTIFACTS / "explore-step-3.png"))

    stepper.locator("select.speed").select_option("200")          # Play runs to the end by itself
    stepper.locator("button.play").click()
    page.wait_for_function("(el) => el.getAttribute('data-position') === '15'", arg=stepper.element_handle(),
                           timeout=20000)
    final = len(hw.steps)
    assert _shown(stepper, 0, "B") == expect(hw, final, "B")
    assert "lost-write" in stepper.locator(".panel").nth(0).inner_text()
    page.screenshot(path=str(ARTIFACTS / "explore-played-to-end.png"))
    assert page.requests_outside == [] and page.errors == []


@pytest.mark.slow
def test_every_link_to_this_step_in_the_exported_gallery_lands_on_its_stepper_and_step(exported, browser):
    """The deep-link contract over the anomaly gallery as exported to HTML (``helpers.deeplinks``):
    each of its 15 steppers linked from a step before its last and opened in a new page (22 s:
    make test runs the first, a middle and the last, below)."""
    from ..helpers.deeplinks import check_every_step_link

    assert check_every_step_link(browser, exported["02_anomaly_gallery"][1].as_uri()) == 15


def test_links_to_steps_in_the_exported_gallery_land_first_middle_and_last(exported, browser):
    """The fast subset of the gallery's deep-link contract: its first, eighth and last stepper."""
    from ..helpers.deeplinks import check_every_step_link

    assert check_every_step_link(browser, exported["02_anomaly_gallery"][1].as_uri(), only=(0, 7, 14)) == 3


def test_exported_gallery_steppers_work_offline(exported, browser):
    page = offline_page(browser, exported["02_anomaly_gallery"][1].as_uri())
    steppers = page.locator(".hwl-stepper")
    assert steppers.count() == 15
    zombie = page.locator(".hwl-stepper").nth(5)
    assert "kafka-6880-zombie-follower" in zombie.inner_text()
    zombie.locator("button.fwd").click()                          # 17: A leads again, epoch 3
    zombie.locator("button.fwd").click()                          # 18: B's stale fetch
    assert zombie.get_attribute("data-position") == "18"
    assert "FENCED_LEADER_EPOCH" not in zombie.locator(".panel").nth(0).inner_text()   # kip279 serves it
    assert "FENCED_LEADER_EPOCH" in zombie.locator(".panel").nth(1).inner_text()
    zombie.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "gallery-zombie-fenced.png"))
    failover = steppers.nth(11)
    assert "epochs 1 and 2 in one delta" in failover.inner_text()
    # it opens at the first anomaly, step 9: A catches up in one metadata delta (KRaft)
    assert failover.get_attribute("data-position") == "9"
    right = failover.locator(".panel").nth(1).inner_text()
    assert "m1 at offset 0 acknowledged" in right and "strong-isr" in right
    assert "acknowledged: none yet" in failover.locator(".panel").nth(0).inner_text()
    failover.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "gallery-controller-failover.png"))
    assert page.requests_outside == [] and page.errors == []


def _start_lab(root) -> tuple[subprocess.Popen, int]:
    """``jupyter lab`` from the venv on 127.0.0.1 (a free port, no token) serving ``root``."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # every cell rendered (JupyterLab 4 detaches off-screen cells by default), no news prompt
    settings = Path(root) / ".lab-settings"
    for plugin, values in (("notebook-extension/tracker", {"windowingMode": "none"}),
                           ("apputils-extension/notification", {"fetchNews": "false"})):
        path = settings / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    lab = subprocess.Popen([sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.token=",
                            "--ServerApp.password=", "--allow-root", "--ip", "127.0.0.1", "--port", str(port),
                            f"--ServerApp.root_dir={root}",
                            # its own workspace: tabs a user's (or an earlier run's) JupyterLab left open would
                            # be restored, each with a kernel, and nothing outside ``root`` is written
                            f"--LabApp.workspaces_dir={settings / 'workspaces'}"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root,
                           env=dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings)))
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5):
                return lab, port
        except OSError:
            if lab.poll() is not None or time.monotonic() > deadline:
                lab.kill()
                raise AssertionError("jupyter lab did not come up") from None
            time.sleep(0.5)


def _stop_lab(lab: subprocess.Popen) -> None:
    lab.terminate()
    try:
        lab.wait(timeout=30)
    except subprocess.TimeoutExpired:
        lab.kill()


def _open_notebook(page, port: int, path: str) -> None:
    """``path`` (under the server's root) opened in JupyterLab, its kernel idle. ``?reset``
    starts from an empty workspace: a page load restores the workspace the server last saved,
    which under load can still hold a notebook closed a moment ago."""
    name = path.rsplit("/", 1)[-1]
    page.goto(f"http://127.0.0.1:{port}/lab/tree/{path}?reset")
    page.locator(".lm-TabBar-tab.lm-mod-current", has_text=name).first.wait_for(timeout=90000)
    page.locator(".jp-Notebook:visible .jp-Cell").first.wait_for(timeout=90000)
    page.get_by_text("Python 3 (ipykernel) | Idle").first.wait_for(timeout=90000)


def _close_notebook(page) -> None:
    """File > Close and Shut Down Notebook, its dialogs answered (a modified notebook asks to
    save first: discarded), until the panel is gone."""
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Close and Shut Down Notebook").first.click()
    page.wait_for_timeout(300)
    for answer in ("Discard", "Ok"):
        dialog = page.locator(".jp-Dialog button", has_text=answer)
        if dialog.count():
            dialog.first.click()
    page.locator(".jp-NotebookPanel").first.wait_for(state="detached", timeout=60000)


_VISIBLE_FRAMES = """() => Array.from(document.querySelectorAll('.hwl-stepper .panel .frame'))
    .filter(f => f.offsetParent !== null)
    .map(f => {
      const cell = f.querySelector('td.rec.hw-below');
      const style = cell ? getComputedStyle(cell) : null;
      const panel = f.closest('.panel');
      return {index: +f.dataset.index, label: f.querySelector('.label').textContent,
              replicas: Object.fromEntries(Array.from(f.querySelectorAll('.replica')).map(
                  r => [r.dataset.replica, [+r.dataset.leo, +r.dataset.hw]])),
              bold: style && style.fontWeight, border: style && style.borderTopStyle,
              background: cell && cell.style.background, computedBackground: style && style.backgroundColor,
              leaderBar: f.querySelector('.replica.is-leader')
                  && getComputedStyle(f.querySelector('.replica.is-leader')).borderLeftColor,
              overflow: panel.scrollWidth - panel.clientWidth};
    })"""


def test_live_explorer_in_jupyterlab_is_styled_steps_and_forks(tmp_path, browser):
    """The real thing: JupyterLab from the venv, Chromium, Run All on the explorer notebook.
    The widget's panels carry the stepper's stylesheet (a record below the HW is bold with a
    solid border, its background its epoch's colour, the leader has a red bar); stepping
    shows the trace's LEO / HW and draws the step's messages; three forks in a row at the last
    step (a controlled shutdown, two produces) each show the new last step, under a title that
    says it is a fork; no panel clips."""
    import shutil

    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    (tmp_path / "notebooks").mkdir()
    shutil.copy(REPO / "notebooks" / "01_explore_rounds.ipynb", tmp_path / "notebooks")
    hw, kip101 = (hwlib.run_scenario("data-loss", protocol=p) for p in ("hw", "kip101"))
    snap = lambda run, i, r: [run.trace.snapshots[i]["replicas"][r]["leo"],  # noqa: E731
                              run.trace.snapshots[i]["replicas"][r]["hw"]]
    lab, port = _start_lab(tmp_path)
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    try:
        page.goto(f"http://127.0.0.1:{port}/lab/tree/notebooks/01_explore_rounds.ipynb")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90000)
        page.get_by_text("Python 3 (ipykernel) | Idle").first.wait_for(timeout=90000)   # the kernel is up
        page.locator(".jp-Notebook .jp-Cell").first.click()
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        page.wait_for_function("() => Array.from(document.querySelectorAll('.hwl-stepper .panel .frame'))"
                               ".filter(f => f.offsetParent !== null).length >= 2", timeout=120000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        explorer = page.locator(".hwl-explorer").first
        stepper = explorer.locator(".hwl-stepper")
        explorer.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "jupyterlab-explorer-step-10.png"))
        shown = page.evaluate(_VISIBLE_FRAMES)[:2]          # the first explorer's two panels
        assert [f["index"] for f in shown] == [10, 10]
        for frame in shown:
            assert frame["bold"] == "700" and frame["border"] == "solid", frame
            assert frame["background"] and frame["computedBackground"] not in ("", "rgba(0, 0, 0, 0)"), frame
            assert frame["leaderBar"] == "rgb(204, 0, 0)" and frame["overflow"] <= 0, frame
        assert shown[0]["replicas"]["B"] == snap(hw, 10, "B") and shown[1]["replicas"]["B"] == snap(kip101, 10, "B")
        assert "the runs differ from step" in explorer.inner_text()

        stepper.focus()
        page.keyboard.press("ArrowRight")                          # the stepper's keys, not JupyterLab's
        page.wait_for_function("() => document.querySelector('.hwl-stepper').innerText.includes('step 11 / 15')",
                               timeout=30000)
        shown = page.evaluate(_VISIBLE_FRAMES)[:2]
        assert [f["index"] for f in shown] == [11, 11]
        assert shown[0]["replicas"]["A"] == snap(hw, 11, "A") and shown[1]["replicas"]["B"] == snap(kip101, 11, "B")
        forward = stepper.locator("button.fwd")
        for _ in range(4):
            forward.click()
        page.wait_for_function("() => document.querySelector('.hwl-stepper').innerText.includes('step 15 / 15')",
                               timeout=30000)
        lane = page.locator(".hwl-stepper .panel .frame").filter(has=page.locator("svg.lane")).first
        assert lane.locator("g.msg").count() >= 1                  # the messages are drawn here too
        for last, action in ((16, "controlled shutdown"), (17, "produce"), (18, "produce")):   # 3 forks at the end
            explorer.locator(".widget-dropdown", has_text="fault").locator("select").select_option(action)
            explorer.locator("button", has_text="fork here").click()
            page.wait_for_function(f"() => document.querySelector('.hwl-stepper').innerText.includes("
                                   f"'step {last} / {last}')", timeout=30000)
            page.wait_for_timeout(500)
            shown = page.evaluate(_VISIBLE_FRAMES)[:2]
            assert [f["index"] for f in shown] == [last, last], shown
            assert all(f["label"].startswith(f"{last}. {action}") for f in shown), shown
            assert all(f["overflow"] <= 0 for f in shown)
            assert "data-loss, forked at step 15" in explorer.inner_text()
            assert f"forked at step {last - 1}: " in explorer.locator(".widget-hbox", has_text="fork here").inner_text()
            if last == 16:
                page.screenshot(path=str(ARTIFACTS / "jupyterlab-explorer-controlled-shutdown.png"))
        stepper.locator("button.jump", has_text="first difference").click()     # the kernel learns the step
        # the kernel offers the faults that can act at the new step (it resets the choices it sends
        # back): each choice is made once that round trip is over, so it is not overwritten
        page.wait_for_timeout(500)
        explorer.locator(".widget-dropdown", has_text="fault").locator("select").select_option("power loss")
        page.wait_for_timeout(500)
        explorer.get_by_label("replica", exact=True).select_option("A")
        page.wait_for_timeout(500)
        explorer.locator("button", has_text="fork here").click()
        page.wait_for_function("() => document.querySelector('.hwl-stepper').innerText.includes('step 11 / 11')",
                               timeout=30000)
        fork_row = explorer.locator(".widget-hbox", has_text="fork here")
        try:
            explorer.get_by_text("forked at step 10: power loss A (11 steps now)").wait_for(timeout=30000)
        except PlaywrightTimeout:
            raise AssertionError(f"the fork row says: {fork_row.inner_text()!r}") from None
        assert "data-loss, forked at step 10" in stepper.inner_text()
        explorer.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "jupyterlab-explorer-forked.png"))
        # a scenario file loaded opens where every stepper opens: at its first anomaly (divergence: step 11
        # of 17), with the slider's tick there; a bad path is one line, the built-in names on demand
        explorer.locator("input[placeholder^='or a YAML file']").fill("data/scenarios/divergence.yaml")
        explorer.locator("button", has_text="load file").click()
        page.wait_for_function("() => document.querySelector('.hwl-stepper').innerText.includes('step 11 / 17')",
                               timeout=30000)
        assert [f["index"] for f in page.evaluate(_VISIBLE_FRAMES)[:2]] == [11, 11]
        tick = stepper.locator(".tick.safety").first
        assert tick.get_attribute("data-step") == "11" and tick.bounding_box()["width"] >= 3
        explorer.locator("input[placeholder^='or a YAML file']").fill("no/such.yaml")
        explorer.locator("button", has_text="load file").click()
        said = explorer.get_by_text("'no/such.yaml': no such file, nor a built-in scenario")
        said.wait_for(timeout=30000)
        assert said.bounding_box()["height"] < 30
        assert not explorer.locator("li", has_text="hw-update-one-record").is_visible()     # the names: on demand
        page.screenshot(path=str(ARTIFACTS / "jupyterlab-explorer-loaded-file.png"))
    finally:
        page.close()
        _stop_lab(lab)


def test_jupyter_lab_starts_with_the_widgets_extension(tmp_path):
    """The venv's JupyterLab has the widgets extension and serves the notebooks through hwlib's
    contents manager (the config ``make setup`` wrote): each opens with the language info the
    kernel will report, and the server warns of nothing about its hooks."""
    from ipykernel.ipkernel import IPythonKernel

    listing = subprocess.run([sys.executable, "-m", "jupyter", "labextension", "list"],
                             capture_output=True, text=True, timeout=120)
    assert "@jupyter-widgets/jupyterlab-manager" in listing.stdout + listing.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path / "lab.log"
    lab = subprocess.Popen([sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.token=",
                            "--ServerApp.password=", "--allow-root", "--ip", "127.0.0.1", "--port", str(port),
                            f"--ServerApp.root_dir={REPO}"],
                           stdout=subprocess.DEVNULL, stderr=log.open("w"), cwd=tmp_path)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5) as r:
                    status = json.load(r)
                break
            except OSError:
                assert lab.poll() is None and time.monotonic() < deadline, "jupyter lab did not come up"
                time.sleep(0.5)
        assert "started" in status
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab", timeout=10) as r:
            assert r.status == 200 and b"JupyterLab" in r.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/notebooks", timeout=10) as r:
            names = {item["name"] for item in json.load(r)["content"]}
        assert {f"{n}.ipynb" for n in NOTEBOOKS} <= names
        for name in sorted(names):
            if name.endswith(".ipynb"):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/notebooks/{name}", timeout=10) as r:
                    metadata = json.load(r)["content"]["metadata"]
                assert metadata["language_info"] == IPythonKernel.language_info, name
    finally:
        lab.terminate()
        lab.wait(timeout=30)
    text = log.read_text()
    assert "Jupyter Server" in text, text[-2000:]
    # the deprecated pre_save_hook setting warned "Overriding existing pre_save_hook" at every start
    assert "pre_save_hook" not in text and "Warning" not in text, text[-2000:]


def test_the_contents_manager_opens_the_notebooks_as_the_kernel_reports_and_saves_them_as_committed(tmp_path):
    """Jupyter's own file manager under hwlib's: a notebook of ``notebooks/`` loads with the
    kernel's language info (JupyterLab then has nothing to write into it on opening) and, run
    and saved, is written back byte for byte as committed; a user's notebook loads as it is."""
    import asyncio
    import concurrent.futures
    import shutil
    import warnings

    from ipykernel.ipkernel import IPythonKernel

    from hwlib.views.notebook_files import NotebookFiles

    for name in ("01_explore_rounds", "04_incident_replay"):
        shutil.copy(REPO / "notebooks" / f"{name}.ipynb", tmp_path / f"{name}.ipynb")
    mine = nbformat.v4.new_notebook(metadata={"language_info": {"name": "python"}})
    nbformat.write(mine, tmp_path / "mine.ipynb")

    async def session() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            manager = NotebookFiles(root_dir=str(tmp_path))
        for name in ("01_explore_rounds", "04_incident_replay"):
            model = await manager.get(f"{name}.ipynb")
            assert model["content"]["metadata"]["language_info"] == IPythonKernel.language_info, name
            for cell in model["content"]["cells"]:              # as a run leaves it
                if cell["cell_type"] == "code":
                    cell["outputs"] = [nbformat.v4.new_output("stream", text="x")]
                    cell["execution_count"] = 7
            await manager.save({"type": "notebook", "format": "json", "content": model["content"]}, f"{name}.ipynb")
            saved = (tmp_path / f"{name}.ipynb").read_text(encoding="utf-8")
            assert saved == (REPO / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"), name
        theirs = await manager.get("mine.ipynb")
        assert theirs["content"]["metadata"]["language_info"] == {"name": "python"}
        listing = await manager.get("", content=True)
        assert {item["name"] for item in listing["content"]} >= {"mine.ipynb", "01_explore_rounds.ipynb"}

    # a thread of its own: the browser tests' driver may hold this thread's event loop
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, session()).result()


def test_the_save_hook_strips_only_notebooks_that_ask_for_it():
    from hwlib.views.notebook_files import strip_before_save

    def model(metadata):
        return {"type": "notebook", "content": {
            "metadata": {"language_info": {"name": "python", "version": "3.11.7"}, "widgets": {"x": 1}, **metadata},
            "cells": [{"cell_type": "code", "source": "1", "outputs": [{"output_type": "stream"}],
                       "execution_count": 3, "metadata": {"execution": {"t": 1}, "tags": ["a"]}}]}}

    mine = model({"hwlib": {"save_outputs": False}})
    strip_before_save(model=mine, path="notebooks/x.ipynb", contents_manager=None)
    assert mine["content"]["cells"][0] == {"cell_type": "code", "source": "1", "outputs": [], "execution_count": None,
                                           "metadata": {"tags": ["a"]}}
    assert mine["content"]["metadata"] == {"language_info": {"name": "python"}, "hwlib": {"save_outputs": False}}
    theirs = model({})
    strip_before_save(model=theirs, path="mine.ipynb", contents_manager=None)
    assert theirs == model({})                                   # a user's notebook is saved as it is
    text = {"type": "file", "content": "x"}
    strip_before_save(model=text, path="a.txt", contents_manager=None)
    assert text == {"type": "file", "content": "x"}


@pytest.mark.parametrize("which", [pytest.param("01_explore_rounds", id="the-explorer"),
                                   pytest.param("*", id="every-notebook", marks=pytest.mark.slow)])
def test_jupyterlab_opens_every_notebook_unmodified(tmp_path, browser, which):
    """Opened in JupyterLab (the venv's, with the config ``make setup`` wrote) and connected to
    its kernel, no notebook is marked modified: JupyterLab writes the kernel's language info into
    the notebook's metadata, which the contents manager already gave it. The fast subset opens
    the explorer; the slow one every notebook (the same manager serves them all)."""
    import shutil

    shutil.copytree(REPO / "notebooks", tmp_path / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    lab, port = _start_lab(tmp_path)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    marked = {}
    expected = sorted(p.name for p in (tmp_path / "notebooks").glob(f"{which}.ipynb"))
    try:
        for path in (tmp_path / "notebooks" / name for name in expected):
            _open_notebook(page, port, f"notebooks/{path.name}")
            page.wait_for_timeout(1500)             # the kernel's info is applied once it connects
            if path.stem == "01_explore_rounds":
                page.screenshot(path=str(ARTIFACTS / "jupyterlab-opened-01.png"))
            marked[path.name] = page.evaluate("""() => [document.title.startsWith('●'),
                !!document.querySelector('.lm-TabBar-tab.lm-mod-current.jp-mod-dirty')]""")
            _close_notebook(page)
    finally:
        page.close()
        _stop_lab(lab)
    assert len(expected) == (1 if which != "*" else 5) and sorted(marked) == expected
    assert marked == {name: [False, False] for name in marked}, marked


@pytest.mark.slow
def test_running_the_notebooks_in_jupyterlab_leaves_git_status_clean(tmp_path, browser):
    """A copy of the checkout's notebooks in a git repository, JupyterLab from the venv (whose
    server config ``make setup`` wrote): JupyterLab runs 01, 02 and 03 (Run All), opens 10 (its
    sweep is the report's job), saves each and closes it; ``git status`` stays clean."""
    import shutil

    config = Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.py"
    assert "notebook_files.NotebookFiles" in config.read_text(), "make setup writes the venv's Jupyter server config"
    root = tmp_path / "checkout"
    shutil.copytree(REPO / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copy(REPO / ".gitignore", root / ".gitignore")
    with (root / ".gitignore").open("a") as ignore:
        ignore.write(".lab-settings/\n")

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    git("config", "user.email", "test@hwlib")
    git("config", "user.name", "test")
    git("add", "-A")
    git("commit", "-qm", "checkout")
    lab, port = _start_lab(root)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    saved = []
    try:
        for name, run in (("01_explore_rounds", True), ("02_anomaly_gallery", True), ("03_model_check", True),
                          ("10_fault_sweep_report", False)):
            # from an empty workspace: else the notebook closed a moment ago may open beside this
            # one and be the one File > Save saves
            _open_notebook(page, port, f"notebooks/{name}.ipynb")
            if run:
                page.locator(".jp-Notebook:visible .jp-Cell").first.click()
                page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
                page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
                # done when every code cell has its execution count ("[3]:"), neither "[ ]:" nor "[*]:"
                page.wait_for_function("""() => {
                    const prompts = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) '
                                                                  + '.jp-CodeCell .jp-InputPrompt')];
                    return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
                }""", timeout=300000)
                page.get_by_text("Python 3 (ipykernel) | Idle").first.wait_for(timeout=300000)
                assert page.locator(".jp-Notebook:visible .jp-OutputArea-output").count() > 0, name
            before = (root / "notebooks" / f"{name}.ipynb").stat().st_mtime_ns
            # File > Save Notebook (a key press depends on where the focus landed, which differs between
            # Chromium builds); then wait for the server's answer to the save itself, not a fixed time
            url = f"/api/contents/notebooks/{name}"
            page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
            try:
                with page.expect_response(lambda r, url=url: r.request.method == "PUT" and url in r.url,
                                          timeout=60000) as answer:
                    page.locator(".lm-Menu-itemLabel", has_text="Save Notebook").first.click()
            except Exception as error:  # say what the page showed instead of a bare timeout
                shown = page.evaluate("() => [document.title, [...document.querySelectorAll('.jp-Dialog')]"
                                      ".map(d => d.innerText)]")
                raise AssertionError(f"{name}: no save reached the server; the page showed {shown}") from error
            assert answer.value.ok, (name, answer.value.status)
            page.wait_for_function("() => !document.title.startsWith('●')", timeout=30000)
            saved.append((root / "notebooks" / f"{name}.ipynb").stat().st_mtime_ns > before)
            _close_notebook(page)
    finally:
        page.close()
        _stop_lab(lab)
    assert saved == [True, True, True, True]                 # JupyterLab did write each file
    assert git("status", "--porcelain") == ""
