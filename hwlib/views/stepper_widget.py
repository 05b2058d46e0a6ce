"""The live stepper widget: the offline stepper's markup and browser script (``stepper.py``) as
one anywidget, whose current step the kernel reads (where the explorer forks) and sets.

One widget per explorer, not one per frame: a scenario switch sends the new markup (every
frame as JSON) in one message, and stepping, Play, the jump buttons and the keyboard run in
the browser exactly as on an offline page - one look and one set of controls everywhere.
"""

from __future__ import annotations

import anywidget
import traitlets

from .stepper import STEPPER_JS

_ESM = STEPPER_JS + """
function render({ model, el }) {
  let stepper = null;
  function draw() {
    if (stepper) { stepper.stop(); }
    el.innerHTML = model.get('markup');
    const root = el.querySelector('.hwl-stepper');
    stepper = null;
    if (!root) { return; }
    stepper = hwlStepper(root, {
      start: model.get('step'),
      // a message of its own, not a state sync: ipywidgets holds back a state update while
      // the previous one is unanswered, so a "fork here" click could overtake it
      onStep(i) { if (model.get('step') !== i) { model.set('step', i); model.send({ step: i }); } },
    });
  }
  model.on('change:markup', draw);
  // after the markup of the same message is drawn (a new step may not exist in the old runs)
  model.on('change:step', () => queueMicrotask(() => {
    if (stepper && stepper.position() !== model.get('step')) { stepper.show(model.get('step')); }
  }));
  draw();
  return () => { if (stepper) { stepper.stop(); } };
}
export default { render };
"""


class StepperWidget(anywidget.AnyWidget):
    """``markup``: ``stepper.stepper_markup(..., linkable=False)``; ``step``: the step shown,
    kept in step both ways (set both in one ``hold_sync`` so the browser draws the new markup
    at the new step)."""

    _esm = _ESM
    markup = traitlets.Unicode("").tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.on_msg(self._stepped)

    def _stepped(self, _widget, content, _buffers) -> None:
        """The browser showed another step."""
        if isinstance(content, dict) and isinstance(content.get("step"), int):
            self.step = content["step"]
