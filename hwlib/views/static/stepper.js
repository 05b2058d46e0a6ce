// The stepper's browser side: hwlStepper(root, options), for offline pages and the explorer's widget (hwlib/views/stepper.py reads it).
function hwlFrames(root){
  var el = root.querySelector('script.hwl-frames');
  if (el.getAttribute('data-encoding') !== 'gzip-base64') { return Promise.resolve(JSON.parse(el.textContent)); }
  var bytes = Uint8Array.from(atob(el.textContent.trim()), function(c){ return c.charCodeAt(0); });
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Response(stream).text().then(JSON.parse);
}
function hwlStepper(root, options, data){
  options = options || {};
  data = data || JSON.parse(root.querySelector('script.hwl-frames').textContent);
  var slider = root.querySelector('input.pos'), play = root.querySelector('button.play');
  var slots = root.querySelectorAll('.panel .frame-slot'), speed = root.querySelector('select.speed');
  var status = root.querySelector('.status'), timer = null;
  function show(i){
    i = Math.max(0, Math.min(data.n - 1, i)); slider.value = i;
    for (var p = 0; p < slots.length; p++) { slots[p].innerHTML = data.frames[p][i]; }
    var lags = root.querySelectorAll('svg.lag');
    for (var q = 0; q < lags.length; q++) {
      var x = +lags[q].getAttribute('data-x0') + (+lags[q].getAttribute('data-dx')) * i;
      var cursor = lags[q].querySelector('line.cursor');
      cursor.setAttribute('x1', x.toFixed(1)); cursor.setAttribute('x2', x.toFixed(1));
    }
    var bands = root.querySelectorAll('svg.sequence g.band');
    for (var b = 0; b < bands.length; b++) {
      var on = +bands[b].getAttribute('data-step') === i;
      bands[b].classList.toggle('now', on);
      if (on && bands[b].getClientRects().length) {       // not while hidden (a report's other variants)
        var box = bands[b].closest('.seqbox'), r = bands[b].getBBox();
        if (box && (r.y < box.scrollTop || r.y + r.height > box.scrollTop + box.clientHeight)) {
          box.scrollTop = Math.max(0, r.y - 40); } }
    }
    var notes = [];
    if (data.keys.anomaly !== null) { notes.push('first anomaly at step ' + data.keys.anomaly); }
    if (data.keys.difference !== null) { notes.push('the runs differ from step ' + data.keys.difference); }
    var sep = '  \u2022  ';
    status.textContent = 'step ' + i + ' / ' + (data.n - 1) + (notes.length ? sep + notes.join(sep) : '');
    root.setAttribute('data-position', i);
    if (options.onStep) { options.onStep(i); }
  }
  function stop(){ if (timer) { clearInterval(timer); timer = null; play.textContent = '\u25B6 Play'; } }
  play.onclick = function(){
    if (timer) { stop(); return; }
    if (+slider.value >= data.n - 1) { show(0); }
    play.textContent = '\u25AE\u25AE Pause';
    timer = setInterval(function(){ if (+slider.value >= data.n - 1) { stop(); } else { show(+slider.value + 1); } },
                        +speed.value);
  };
  speed.onchange = function(){ if (timer) { stop(); play.onclick(); } };
  root.querySelector('button.back').onclick = function(){ stop(); show(+slider.value - 1); };
  root.querySelector('button.fwd').onclick = function(){ stop(); show(+slider.value + 1); };
  root.querySelectorAll('.tick').forEach(function(tick){
    tick.onclick = function(){ stop(); show(+tick.getAttribute('data-step')); };
  });
  root.querySelectorAll('button.jump').forEach(function(button){
    button.onclick = function(){ stop(); show(data.keys[button.getAttribute('data-key')]); };
  });
  var link = root.querySelector('button.link');
  if (link) link.onclick = function(){
    var url = location.href.split('#')[0] + '#' + root.id + '/step=' + slider.value;
    history.replaceState(null, '', url);
    var done = root.querySelector('.linked');
    function said(text){ done.textContent = text; }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(url).then(function(){ said('link copied'); }, function(){ said(url); });
    } else { said(url); }
  };
  root.addEventListener('keydown', function(e){
    if (e.target.tagName === 'SELECT') { return; }
    if (e.key === 'ArrowLeft') { stop(); show(+slider.value - 1); e.preventDefault(); }
    else if (e.key === 'ArrowRight') { stop(); show(+slider.value + 1); e.preventDefault(); }
    else if (e.key === ' ') { play.onclick(); e.preventDefault(); }
    else { return; }
    e.stopPropagation();          // the stepper's keys, not the page's (JupyterLab's other shortcuts still work)
  });
  slider.oninput = function(){ stop(); show(+slider.value); };
  function reveal(){
    // shown (behind a story selector, the picker shows the option that holds it: hwl-show), then
    // into view, clear of a page's fixed bar (the report's contents) - with the selector too
    // (which story this is), unless that would leave the stepper low on the screen
    root.dispatchEvent(new CustomEvent('hwl-show', {bubbles: true}));
    var group = root.closest ? root.closest('.hwl-pick-group') : null;
    var label = group ? group.querySelector('.hwl-pick-label') : null;
    if (label) {
      label.scrollIntoView();
      if (root.getBoundingClientRect().top > window.innerHeight * 0.6) { root.scrollIntoView(); }
    } else { root.scrollIntoView(); }
    window.scrollBy(0, -40);
  }
  function fromHash(){
    var m = decodeURIComponent(location.hash).match(/^#(.+)\/step=(\d+)$/);
    if (m && m[1] === root.id) { stop(); show(+m[2]); reveal(); return true; }
    return false;
  }
  if (options.hash) {
    window.addEventListener('hashchange', fromHash);
    root.addEventListener('hwl-reveal', reveal);    // a picker that showed it late asks again
  }
  if (!(options.hash && fromHash())) { show(options.start === undefined ? data.start : options.start); }
  return {show: function(i){ stop(); show(i); }, stop: stop, position: function(){ return +slider.value; }};
}
