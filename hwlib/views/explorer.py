"""The live explorer (ipywidgets): pick a scenario and protocols, step through them with the
same stepper as offline pages (Play, speed, back / forward, jump buttons, keyboard), fork the
future with a fault at the current step, save it.

The stepper is one widget (``stepper_widget.StepperWidget``) whose browser side switches
precomputed frames, so stepping needs no kernel round trip; forking and saving run Python and
read the step the stepper shows. A message or error appears beside the control that caused
it. When the notebook is exported, the explorer's ``text/html`` form - the self-contained
stepper of ``hwlib.views`` - stands in for the widgets.
"""

from __future__ import annotations

from pathlib import Path

import ipywidgets as w

from ..engine.cluster import Cluster
from ..engine.config import PROTOCOLS
from ..engine.releases import RELEASES
from ..engine.steps import Step
from ..errors import HwlibError, UnknownScenarioError
from ..run import RunResult, run_steps
from ..scenario import Scenario, builtin_scenarios, load_scenario
from ..util.paths import resolve, shown
from .frames import key_step
from .sequence import esc
from .stepper import rendered_frames, stepper_html, stepper_markup
from .stepper_widget import StepperWidget

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
    "controlled shutdown": lambda replica, value: Step("shutdown", replica=replica),
    "restart": lambda replica, value: Step("restart", replica=replica),
    "restart on a new, empty disk": lambda replica, value: Step("replace_disk", replica=replica),
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
#: what the two panels can run: each generation, then each release of ``hwlib releases``
RULES = PROTOCOLS + tuple(r.key for r in RELEASES)
#: where "save scenario" writes unless told otherwise: a folder for the user's own scenarios
#: (git-ignored, made on the first save), never the project root
MY_SCENARIOS = "data/my-scenarios"


class Explorer:
    """``Explorer("data-loss", ["hw", "kip101"])`` - display it as the last line of a cell."""

    def __init__(self, scenario: str | Scenario = "data-loss", protocols=("hw", "kip101"), start: int | None = None):
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.steps: list[Step] = list(self.scenario.steps)
        protocols = list(protocols)[:2]
        self.results: list[RunResult] = []
        self._titles: list[str] = []
        self._frames: list[list[str]] = []       # rendered frames per result (the stepper and export)

        names = list(builtin_scenarios())
        self.pick = w.Dropdown(options=[(n, n) for n in names],
                               value=self.scenario.name if self.scenario.name in names else None,
                               description="scenario")
        #: files loaded with "load file": path -> their label in the menu
        self._files: dict[str, str] = {}
        self.path = w.Text(placeholder="or a YAML file, e.g. data/sweeps/x/shrunk/c000-lost-write.yaml",
                           layout=w.Layout(width="420px"))
        self.load = w.Button(description="load file")
        self.load_message = w.HTML()
        rules = RULES + tuple(p for p in protocols if p not in RULES)     # "3.7.1-kraft" as given
        self.left = w.Dropdown(options=rules, value=protocols[0], description="rules")
        self.right = w.Dropdown(options=(NONE, *rules), value=protocols[1] if len(protocols) > 1 else NONE,
                                description="beside it")
        #: the settings each panel ran with, those a release chose marked as its default
        self.settings = w.HTML()
        self.stepper = StepperWidget(layout=w.Layout(width="100%"))
        self.action = w.Dropdown(options=list(FORKS), description="fault")
        self.replica = w.Dropdown(options=list(self.scenario.config.replicas), description="replica")
        self.value = w.Text(value="x1", description="value", layout=w.Layout(width="180px"))
        self.fork_button = w.Button(description="fork here", button_style="warning",
                                    tooltip="keep the steps up to the current one, add this, drop the rest")
        self.fork_message = w.HTML()
        #: what cannot act at the current step, and why (the engine's own reasons), on hover
        self.fork_note = w.HTML()
        self.save_path = w.Text(value=f"{MY_SCENARIOS}/forked.yaml", description="save as",
                                layout=w.Layout(width="420px"))
        self.save_button = w.Button(description="save scenario")
        self.save_message = w.HTML()
        row = lambda *items: w.HBox(list(items), layout=w.Layout(flex_flow="row wrap", align_items="center"))  # noqa: E731
        self.widget = w.VBox([
            row(self.pick, self.path, self.load, self.load_message), row(self.left, self.right),
            self.settings, self.stepper,
            row(self.action, self.replica, self.value, self.fork_button, self.fork_message), self.fork_note,
            row(self.save_path, self.save_button, self.save_message)], layout=w.Layout(width="100%"))
        self.widget.add_class("hwl-explorer")
        self._switching = False

        self.pick.observe(self._picked, names="value")
        self.load.on_click(lambda _: self._load_file())
        self.left.observe(lambda _: self.rebuild(), names="value")
        self.right.observe(lambda _: self.rebuild(), names="value")
        self.fork_button.on_click(lambda _: self._fork())
        self.save_button.on_click(lambda _: self._save())
        self.stepper.observe(lambda _: self._offer(), names="step")
        self.action.observe(lambda _: self._offer_replicas(), names="value")
        self._choices: dict[str, dict[str, str | None]] = {}
        self.rebuild(start, key=start is None)

    # ----------------------------------------------------------------------------- model
    @property
    def protocols(self) -> list[str]:
        return [self.left.value] + ([self.right.value] if self.right.value != NONE else [])

    @property
    def position(self) -> int:
        """The step the stepper shows (where a fork goes)."""
        return self.stepper.step

    @position.setter
    def position(self, step: int) -> None:
        self.stepper.step = max(0, min(step, len(self.steps)))

    def rebuild(self, position: int | None = None, key: bool = False) -> None:
        """Run the current schedule under the chosen protocols and show it at ``position``
        (None: where it is now) - or, ``key``, at its key step, as the offline steppers open:
        the first anomaly, else where the two runs part, else the first step."""
        config = self.scenario.config
        self.results = [run_steps(config.with_rules(p), self.steps, self.scenario.name) for p in self.protocols]
        if key:
            position = key_step(self.results)
        position = self.position if position is None else position
        original = list(self.scenario.steps)
        kept = next((k for k, (a, b) in enumerate(zip(self.steps, original, strict=False)) if a != b),
                    min(len(self.steps), len(original)))
        forked = kept < len(self.steps) or len(self.steps) < len(original)
        name = f"{self.scenario.name}, forked at step {kept}" if forked else self.scenario.name
        self._titles = [f"{name} · {result.config.rules_name}" for result in self.results]
        self.settings.value = "".join(
            f"<div style='color:#444;font-size:12px'><b>{esc(result.config.rules_name)}</b> ran with "
            f"{esc(', '.join(result.config.settings_words()))}</div>" for result in self.results)
        # a caption stays only where the steps up to it are the scenario's own
        captions = [{k: text for k, text in self.scenario.captions(p).items() if k <= kept} for p in self.protocols]
        self._frames = [rendered_frames(r, t, c) for r, t, c in zip(self.results, self._titles, captions, strict=True)]
        target = max(0, min(position, len(self.steps)))
        _, markup = stepper_markup(self.results, self._titles, target, per_run=self._frames, linkable=False)
        with self.stepper.hold_sync():       # one message: the browser draws the new runs at the new step
            self.stepper.markup = markup
            self.stepper.step = target
        self._offer()

    def fork_choices(self, at: int) -> dict[str, dict[str, str | None]]:
        """Each fork action -> replica -> None where it would act after step ``at`` under at
        least one of the generations shown, else why it would not (the engine's own reason,
        ``Cluster.skip_reason``); an action without a replica answers alike for each."""
        clusters = []
        for protocol in self.protocols:
            cluster = Cluster(self.scenario.config.with_rules(protocol))
            for step in self.steps[:at]:
                cluster.apply(step)
            clusters.append(cluster)
        choices: dict[str, dict[str, str | None]] = {}
        for action, make in FORKS.items():
            choices[action] = {}
            for replica in self.scenario.config.replicas:
                reasons = [c.skip_reason(make(replica, "x")) for c in clusters]
                choices[action][replica] = None if None in reasons else reasons[0]
        return choices

    def _offer(self) -> None:
        """Offer only the faults that can act at the current step; say on hover why the others
        cannot."""
        self._choices = self.fork_choices(self.position)
        can = [a for a, by in self._choices.items() if None in by.values()]
        cannot = {a: _reasons(by) for a, by in self._choices.items() if a not in can}
        current = self.action.value
        self.action.options = can
        if current in can:
            self.action.value = current
        self._offer_replicas()
        why = "; ".join(f"{a}: {reason}" for a, reason in cannot.items())
        self.fork_note.value = (f"<span title='{esc(why)}' style='color:#666;font-size:12px'>the faults offered are "
                                f"those that can act at step {self.position}; {len(cannot)} others cannot (hover for "
                                "why)</span>" if cannot else "")

    def _offer_replicas(self) -> None:
        by = self._choices.get(self.action.value or "", {})
        replicas = [r for r, reason in by.items() if reason is None] or list(self.scenario.config.replicas)
        current = self.replica.value
        self.replica.options = replicas
        if current in replicas:
            self.replica.value = current

    def fork(self, at: int, action: str, replica: str | None = None, value: str = "x") -> None:
        """Keep steps 1..``at``, append the fault, discard the rest (as RaftScope does)."""
        if action not in FORKS:
            raise HwlibError(f"action: {action!r} is not a fork action; allowed: {', '.join(FORKS)}")
        self.steps = self.steps[:at] + [FORKS[action](replica, value or "x")]
        self.rebuild(len(self.steps))
        self.fork_message.value = f"forked at step {at}: {esc(self.steps[-1].describe())} ({len(self.steps)} steps now)"
    def forked_scenario(self, name: str = "forked") -> Scenario:
        shows = {r.config.rules_name: tuple(r.anomaly_kinds()) for r in self.results}
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
        picked = change["new"]          # a built-in's name, or a file loaded before (its path)
        self._load(load_scenario(Path(picked) if picked in self._files else picked), from_file=picked in self._files)

    def _load(self, scenario: Scenario, from_file: bool = False) -> None:
        self.scenario = scenario
        for said in (self.load_message, self.fork_message, self.save_message):
            said.value = ""              # what was said of the previous scenario no longer holds
        self.steps = list(scenario.steps)
        self._switching = True           # the dropdown shows what is loaded, without reloading it
        try:
            if from_file and scenario.path is not None:
                # a file loaded joins the menu under its path, so the menu names what is shown
                key = str(scenario.path)
                if key not in self._files:
                    self._files[key] = f"{shown(Path(key))} (file)"
                    self.pick.options = [*((n, n) for n in builtin_scenarios()),
                                         *((label, path) for path, label in self._files.items())]
                self.pick.value = key
            else:
                names = [value for _, value in self.pick.options]
                self.pick.value = scenario.name if scenario.name in names else None
        finally:
            self._switching = False
        self.rebuild(key=True)             # where the offline steppers open: its first anomaly

    def _load_file(self) -> None:
        try:
            path = resolve(self.path.value)
            self._load(load_scenario(path if path.is_file() else self.path.value), from_file=path.is_file())
            self.load_message.value = f"loaded {esc(shown(path) if path.is_file() else self.path.value)}"
        except UnknownScenarioError:
            # one line; the built-in names only on demand
            names = "".join(f"<li>{esc(n)}</li>" for n in builtin_scenarios())
            self.load_message.value = (
                f"{_error(f'{self.path.value!r}: no such file, nor a built-in scenario')} "
                f"<details style='display:inline-block;vertical-align:top'><summary style='cursor:pointer'>"
                f"built-in names</summary><ul style='margin:0;max-height:12em;overflow:auto'>{names}</ul></details>")
        except HwlibError as exc:
            self.load_message.value = _error(exc)

    def _fork(self) -> None:
        try:
            self.fork(self.position, self.action.value, self.replica.value, self.value.value)
        except HwlibError as exc:
            self.fork_message.value = _error(exc)

    def _save(self) -> None:
        try:
            path = self.save(self.save_path.value)
            self.save_message.value = f"saved {esc(shown(path))}: <code>hwlib run {esc(shown(path))}</code>"
        except (HwlibError, OSError) as exc:
            self.save_message.value = _error(exc)

    # --------------------------------------------------------------------------- display
    def _repr_mimebundle_(self, **kwargs):
        """The widgets for a live kernel; the self-contained stepper as the ``text/html``
        form that an exported notebook keeps."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/html"] = stepper_html(self.results, self._titles, self.position, per_run=self._frames)
        return bundle


def _reasons(by: dict[str, str | None]) -> str:
    """Why an action cannot act on any replica: one reason when they share it, else each's."""
    said = set(by.values())
    return str(next(iter(said))) if len(said) == 1 else ", ".join(f"{r} - {reason}" for r, reason in by.items())


def _error(exc: Exception | str) -> str:
    return f"<span style='color:#b00'>{esc(str(exc))}</span>"
