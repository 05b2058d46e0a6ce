"""Several views shown one at a time in an offline page: a selector picks one, and the page's URL fragment can too.

A report shows, per story, the counterexamples of every generation that has it; drawn one under
the other they would fill screens with the same story. A picker keeps one visible and puts the
rest behind a selector (the first is shown). ``#<variant id>`` - or the id of any element inside
a variant - selects that variant and scrolls to it, so a finding can link to one.
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
  function fromHash() {
    // #<id>, or a stepper's #<id>/step=N ("link to this step"): the stepper shows the step, the
    // picker the variant that holds it - then the element, now visible, is scrolled to
    var id = decodeURIComponent(location.hash.slice(1)).replace(/\\/step=\\d+$/, '');
    var el = document.getElementById(id);
    var variant = el && el.closest ? el.closest('.hwl-pick-variant') : null;
    if (!variant) { return; }
    var group = variant.closest('.hwl-pick-group');
    pick(group, variant.id);
    // the selector in view too (which story is shown), unless the stepper would then be low
    var label = group.querySelector('.hwl-pick-label');
    if (el === variant) { group.scrollIntoView(); }
    else if (label) {
      label.scrollIntoView();
      if (el.getBoundingClientRect().top > window.innerHeight * 0.6) { el.scrollIntoView(); }
    } else { el.scrollIntoView(); }
    window.scrollBy(0, -40);      // clear of a page's fixed bar (the report's contents)
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
