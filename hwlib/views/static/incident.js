// An explain answer's browser side: each section's lines tied to its stepper (hwlStepper) - a click on a matched line shows its step, the step shown lights its lines (hwlib/views/incident.py reads it).
function hwlIncidents(page){
  page.querySelectorAll('.hwl-incident').forEach(function(section){
    var root = section.querySelector('.hwl-stepper');
    var lines = section.querySelectorAll('li.line');
    var list = section.querySelector('ol.lines');
    if (!root) { return; }
    function mark(i){
      var first = null;
      lines.forEach(function(line){
        var on = line.hasAttribute('data-step') && +line.getAttribute('data-step') === i;
        line.classList.toggle('now', on);
        if (on && !first) { first = line; }
      });
      if (first && list) {
        var top = first.offsetTop - list.offsetTop;
        if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 24) { list.scrollTop = Math.max(0, top - 40); }
      }
    }
    hwlFrames(root).then(function(data){
      var stepper = hwlStepper(root, {hash: true, onStep: mark}, data);
      lines.forEach(function(line){
        if (!line.hasAttribute('data-step')) { return; }
        line.onclick = function(){ stepper.show(+line.getAttribute('data-step')); };
      });
    });
  });
}
