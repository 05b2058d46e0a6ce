"""The live explorer (ipywidgets): pick a scenario and protocols, step with Play / slider /
back / forward at a chosen speed, fork the future with a fault at the current step, save it.

Stepping is linked on the browser side (``jslink``: Play -> slider -> one ``Stack`` of
precomputed frames per protocol), so it needs no kernel round trip; forking and saving run
Python. When the notebook is exported, the explorer's ``text/html`` form - the self-contained
stepper of ``hwlib.views`` - stands in for the widgets.
"""

from __future__ import annotations

from pathlib import Path

import ipywidgets as w

from ..engine.config import PROTOCOLS
from ..engine.steps import Step
from ..errors import HwlibError
from ..run import RunResult, run_steps
from ..scenario import Scenario, builtin_scenarios, load_scenario
from ..util.paths import resolve, shown
from .stepper import STYLE, first_divergent_step, rendered_frames, stepper_html

#: fork actions -> how they become a step (replica-less actions ignore the replica)
FORKS = {
    "produce": lambda replica, value: Step("produce", value=value),
    "fetch": lambda replica, value: Step("fetch", replica=replica),
    "fetch request only": lambda replica, value: Step("fetch_request", replica=replica),
    "fetch response": lambda replica, value: Step("fetch_response", replica=replica),
    "flush": lambda replica, value: Step("flush", replica=replica),
    "crash": lambda replica, value: Step("crash", replica=replica),
    "quick restart (unnoticed crash)": lambda replica, value: Step("crash", replica=replica, detected=False),
    "power loss": lambda replica, value: Step("crash", replica=replica, lose_unflushed=True),
    "restart": lambda replica, value: Step("restart", replica=replica),
    "elect": lambda replica, value: Step("elect", replica=replica),
    "produce to this replica (stale client)": lambda replica, value: Step("produce", value=value, replica=replica),
    "isolate": lambda replica, value: Step("isolate", replica=replica),
    "isolate (session holds)": lambda replica, value: Step("isolate", replica=replica, detected=False),
    "deliver one queued LeaderAndIsr": lambda replica, value: Step("deliver", replica=replica),
    "reconnect": lambda replica, value: Step("reconnect", replica=replica),
    "controller failover": lambda replica, value: Step("controller_failover"),
    "tick 30 s": lambda replica, value: Step("tick", ms=30000),
}
NONE = "(none)"
#: where "save scenario" writes unless told otherwise: a folder for the user's own scenarios
#: (git-ignored, made on the first save), never the project root
MY_SCENARIOS = "data/my-scenarios"


class Explorer:
    """``Explorer("data-loss", ["hw", "kip101"])`` - display it as the last line of a cell."""

    def __init__(self, scenario: str | Scenario = "data-loss", protocols=("hw", "kip101"), start: int = 0):
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.steps: list[Step] = list(self.scenario.steps)
        protocols = list(protocols)[:2]
        self.results: list[RunResult] = []
        self._titles: list[str] = []
        self._frames: list[list[str]] = []       # rendered frames per result (widgets and export)

        names = list(builtin_scenarios())
        self.pick = w.Dropdown(options=names, value=self.scenario.name if self.scenario.name in names else None,
                               description="scenario")
        self.path = w.Text(placeholder="or a YAML file, e.g. data/sweeps/x/shrunk/c000-lost-write.yaml",
                           layout=w.Layout(width="420px"))
        self.load = w.Button(description="load file")
        self.left = w.Dropdown(options=PROTOCOLS, value=protocols[0], description="protocol")
        self.right = w.Dropdown(options=(NONE, *PROTOCOLS), value=protocols[1] if len(protocols) > 1 else NONE,
                                description="beside it")
        self.play = w.Play(interval=600, min=0, max=1, step=1, description="play")
        self.slider = w.IntSlider(min=0, max=1, description="step", continuous_update=True,
                                  layout=w.Layout(width="420px"))
        self.speed = w.IntSlider(value=600, min=100, max=2000, step=100, description="ms/step")
        self.back = w.Button(description="◀", layout=w.Layout(width="40px"), tooltip="step back")
        self.fwd = w.Button(description="▶|", layout=w.Layout(width="40px"), tooltip="step forward")
        w.jslink((self.play, "value"), (self.slider, "value"))
        w.jslink((self.speed, "value"), (self.play, "interval"))
        self.action = w.Dropdown(options=list(FORKS), description="fault")
        self.replica = w.Dropdown(options=list(self.scenario.config.replicas), description="replica")
        self.value = w.Text(value="x1", description="value", layout=w.Layout(width="180px"))
        self.fork_button = w.Button(description="fork here", button_style="warning",
                                    tooltip="keep the steps up to the current one, add this, drop the rest")
        self.save_path = w.Text(value=f"{MY_SCENARIOS}/forked.yaml", description="save as",
                                layout=w.Layout(width="420px"))
        self.save_button = w.Button(description="save scenario")
        self.message = w.HTML()
        self.status = w.HTML()
        # the frames are the offline stepper's own HTML: its stylesheet travels in the widget
        # (JupyterLab shows widget output without the styles of other cells or exports)
        self.panels = w.HBox(layout=w.Layout(width="100%", align_items="flex-start"))
        self.panels.add_class("panels")
        self.widget = w.VBox([
            w.HTML(f"<style>{STYLE}</style>"),
            w.HBox([self.pick, self.path, self.load]), w.HBox([self.left, self.right]),
            w.HBox([self.back, self.play, self.fwd, self.slider, self.speed]), self.status, self.panels,
            w.HBox([self.action, self.replica, self.value, self.fork_button]),
            w.HBox([self.save_path, self.save_button]), self.message], layout=w.Layout(width="100%"))
        self.widget.add_class("hwl-stepper")
        self._switching = False
        self._links: list = []            # slider -> each panel's stack, in the browser

        self.pick.observe(self._picked, names="value")
        self.slider.observe(lambda _: self._show_status(), names="value")
        self.load.on_click(lambda _: self._load_file())
        self.left.observe(lambda _: self.rebuild(), names="value")
        self.right.observe(lambda _: self.rebuild(), names="value")
        self.back.on_click(lambda _: self._move(-1))
        self.fwd.on_click(lambda _: self._move(+1))
        self.fork_button.on_click(lambda _: self.fork(self.slider.value, self.action.value, self.replica.value,
                                                      self.value.value))
        self.save_button.on_click(lambda _: self._save())
        self.rebuild(start)

    # ----------------------------------------------------------------------------- model
    @property
    def protocols(self) -> list[str]:
        return [self.left.value] + ([self.right.value] if self.right.value != NONE else [])

    def rebuild(self, position: int | None = None) -> None:
        """Run the current schedule under the chosen protocols and show it at ``position``."""
        position = self.slider.value if position is None else position
        config = self.scenario.config
        self.results = [run_steps(config.replace(protocol=p), self.steps, self.scenario.name) for p in self.protocols]
        original = list(self.scenario.steps)
        kept = next((k for k, (a, b) in enumerate(zip(self.steps, original, strict=False)) if a != b),
                    min(len(self.steps), len(original)))
        forked = kept < len(self.steps) or len(self.steps) < len(original)
        name = f"{self.scenario.name}, forked at step {kept}" if forked else self.scenario.name
        self._titles = [f"{name} · {result.protocol}" for result in self.results]
        # a caption stays only where the steps up to it are the scenario's own
        captions = [{k: text for k, text in self.scenario.captions(p).items() if k <= kept} for p in self.protocols]
        self._frames = [rendered_frames(r, t, c) for r, t, c in zip(self.results, self._titles, captions, strict=True)]
        self._diff = first_divergent_step(self.results[0], self.results[1]) if len(self.results) == 2 else None
        last = len(self.steps)
        target = max(0, min(position, last))
        # the bound that makes room first: growing, max then value; shrinking, value then max.
        # The Play is linked to the slider in the browser, so a value the slider cannot hold
        # yet would be clamped there and echoed back (a fork at the last step showed the old
        # last step)
        if last >= self.slider.max:
            self.play.max = self.slider.max = last
            self.play.value = self.slider.value = target
        else:
            self.play.value = self.slider.value = target
            self.play.max = self.slider.max = last
        for link in self._links:          # the previous panels' links go with them
            link.unlink()
        self._links = []
        stacks = []
        for run_frames in self._frames:
            stack = w.Stack([w.HTML(html) for html in run_frames], selected_index=target,
                            layout=w.Layout(flex="1 1 0", min_width="0"))
            stack.add_class("panel")
            self._links.append(w.jslink((self.slider, "value"), (stack, "selected_index")))
            stacks.append(stack)
        self.panels.children = stacks
        self._show_status()

    def _show_status(self) -> None:
        """``step 7 / 15 · the runs differ from step 4``, as the offline stepper says it."""
        at, last = self.slider.value, len(self.steps)
        differ = f" · the runs differ from step {self._diff}" if self._diff is not None and at >= self._diff else ""
        self.status.value = f"step {at} / {last}{differ}"

    def fork(self, at: int, action: str, replica: str | None = None, value: str = "x") -> None:
        """Keep steps 1..``at``, append the fault, discard the rest (as RaftScope does)."""
        if action not in FORKS:
            raise HwlibError(f"action: {action!r} is not a fork action; allowed: {', '.join(FORKS)}")
        self.steps = self.steps[:at] + [FORKS[action](replica, value or "x")]
        self.rebuild(len(self.steps))
        self.message.value = f"forked at step {at}: {self.steps[-1].describe()} ({len(self.steps)} steps now)"

    def forked_scenario(self, name: str = "forked") -> Scenario:
        shows = {r.protocol: tuple(r.anomaly_kinds()) for r in self.results}
        return Scenario(name=name, config=self.scenario.config, steps=tuple(self.steps),
                        description=f"forked from {self.scenario.name} in the explorer", expect=shows)

    def save(self, path) -> Path:
        """Writes the forked scenario to ``path`` (relative: against the project root, as
        ``hwlib run`` from there reads it); the folder must exist, except the user's scenarios
        folder (``MY_SCENARIOS``), which the first save makes."""
        target = resolve(path)
        if target.parent == resolve(MY_SCENARIOS):
            target.parent.mkdir(parents=True, exist_ok=True)
        if not target.parent.is_dir():
            raise HwlibError(f"save: folder {shown(target.parent)} does not exist; create it or choose another")
        return self.forked_scenario(target.stem).save(target)

    # -------------------------------------------------------------------------- handlers
    def _picked(self, change) -> None:
        if self._switching or change["new"] is None:
            return
        self._load(load_scenario(change["new"]))

    def _load(self, scenario: Scenario, from_file: bool = False) -> None:
        self.scenario = scenario
        self.message.value = ""          # what was said of the previous scenario no longer holds
        self.steps = list(scenario.steps)
        self.replica.options = list(scenario.config.replicas)
        self._switching = True           # the dropdown shows what is loaded, without reloading it
        try:
            self.pick.value = None if from_file or scenario.name not in self.pick.options else scenario.name
        finally:
            self._switching = False
        self.rebuild(0)

    def _load_file(self) -> None:
        try:
            path = resolve(self.path.value)
            self._load(load_scenario(path if path.is_file() else self.path.value), from_file=path.is_file())
            self.message.value = f"loaded {shown(path) if path.is_file() else self.path.value}"
        except HwlibError as exc:
            self.message.value = f"<span style='color:#b00'>{exc}</span>"

    def _move(self, delta: int) -> None:
        self.slider.value = max(0, min(self.slider.max, self.slider.value + delta))

    def _save(self) -> None:
        try:
            path = self.save(self.save_path.value)
            self.message.value = f"saved {shown(path)}: <code>hwlib run {shown(path)}</code>"
        except (HwlibError, OSError) as exc:
            self.message.value = f"<span style='color:#b00'>{exc}</span>"

    # --------------------------------------------------------------------------- display
    def _repr_mimebundle_(self, **kwargs):
        """The widgets for a live kernel; the self-contained stepper as the ``text/html``
        form that an exported notebook keeps."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/html"] = stepper_html(self.results, self._titles, self.slider.value, per_run=self._frames)
        return bundle
