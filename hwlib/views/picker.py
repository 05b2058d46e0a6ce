"""Several views shown one at a time in an offline page: a selector picks one, and the page's URL fragment can too.

A report shows, per story, the counterexamples of every generation that has it; drawn one under
the other they would fill screens with the same story. A picker keeps one visible and puts the
rest behind a selector (the first is shown). ``#<variant id>`` - or the id of any element inside
a variant - selects that variant and scrolls to its selector, so a finding can link to one. A
stepper's "link to this step" (``#<stepper id>/step=N``) is the stepper's to follow: it asks the
picker to show it (a bubbling ``hwl-show`` event, which any element inside a variant may send)
and scrolls itself into view (``static/stepper.js``, ``reveal``); where the picker's script comes
second, it shows the variant and asks the stepper to do that again (``hwl-reveal``). Only the
stepper scrolls to a stepper.
"""

from __future__ import annotations

import html

_SCRIPT = """<script>
(function () {
  if (window.hwlPickReady) { return; }
  window.hwlPickReady = true;
  function pick(group, id) {
    group.querySelectorAll('.hwl-pick-variant').forEach(function (v) { v.style.display = v.id === id ? '' : 'none'; });
    var select = group.querySelector('select.hwl-pick');
    if (select) { select.value = id; }
  }
  document.addEventListener('change', function (e) {
    if (e.target.matches && e.target.matches('select.hwl-pick')) {
      pick(e.target.closest('.hwl-pick-group'), e.target.value);
    }
  });
  function holding(el) {
    var variant = el && el.closest ? el.closest('.hwl-pick-variant') : null;
    if (variant) { pick(variant.closest('.hwl-pick-group'), variant.id); }
    return variant;
  }
  // an element inside a variant asks to be shown (a stepper following its "link to this step")
  document.addEventListener('hwl-show', function (e) { holding(e.target); });
  function fromHash() {
    // #<id>: the variant that holds the element, shown, its selector scrolled to (clear of a
    // page's fixed bar, the report's contents); a stepper's #<id>/step=N: its variant shown, and
    // the stepper asked to bring itself into view (it may have tried while hidden)
    var hash = decodeURIComponent(location.hash.slice(1));
    var step = hash.match(/^(.+)\\/step=\\d+$/);
    var el = document.getElementById(step ? step[1] : hash);
    var variant = holding(el);
    if (!variant) { return; }
    if (step) { el.dispatchEvent(new CustomEvent('hwl-reveal')); return; }
    variant.closest('.hwl-pick-group').scrollIntoView();
    window.scrollBy(0, -40);
  }
  window.addEventListener('hashchange', fromHash);
  if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', fromHash); }
  else { fromHash(); }
})();
</script>"""


def picker_html(group_id: str, heading: str, prompt: str, variants: list[tuple[str, str, str]]) -> str:
    """``variants``: (element id, the selector's label, the HTML) in the order offered; the
    first is shown. ``heading`` and ``prompt`` are HTML; with one variant there is no selector."""
    options = "".join(f'<option value="{html.escape(ident)}">{html.escape(label)}</option>'
                      for ident, label, _ in variants)
    select = (f'<label class="hwl-pick-label">{prompt} <select class="hwl-pick">{options}</select></label>'
              if len(variants) > 1 else "")
    bodies = "".join(f'<div class="hwl-pick-variant" id="{html.escape(ident)}"'
                     f'{"" if index == 0 else " style=display:none"}>{body}</div>'
                     for index, (ident, _, body) in enumerate(variants))
    return f'<div class="hwl-pick-group" id="{html.escape(group_id)}">{heading}{select}{bodies}</div>{_SCRIPT}'
