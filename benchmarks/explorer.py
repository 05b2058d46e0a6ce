"""Explorer responsiveness: a scenario switch's time, in the kernel and as the user sees it in JupyterLab.

Kernel side: each built-in scenario is loaded in turn into one ``Explorer`` (two generations
side by side, as notebook 01 opens it), best of ``--repeat``, in a fresh process.
With ``--browser``: the whole switch as the user sees it - JupyterLab from this venv serving
notebook 01, Chromium picks each scenario in the explorer's dropdown and the clock stops when
the new scenario's frames are on screen (kernel, transport and the browser's drawing), best of
``--repeat``. The goal for the whole switch is <= 300 ms on this machine.
``--baseline-ref REF`` also times git REF's explorer on its own tree (a temporary worktree)
in the same run and prints the ratio. Printed, not asserted.

    python benchmarks/explorer.py [--repeat 3] [--browser] [--baseline-ref 494ac97]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from baseline import REPO, checkout, in_tree  # beside this script (its folder is on sys.path)


def child(repeat: int) -> dict[str, float]:
    """Seconds per switch, by scenario (best of ``repeat``), in this process."""
    import ipywidgets  # noqa: F401  (imported before timing: the first import is not a switch)

    from hwlib import builtin_scenarios, load_scenario

    try:
        from hwlib.views.explorer import Explorer
    except ImportError:                     # a tree from before the layered package
        from hwlib.explorer import Explorer  # type: ignore[no-redef]

    explorer = Explorer("data-loss", ["hw", "kip101"])
    out = {}
    for name in builtin_scenarios():
        scenario = load_scenario(name)
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            explorer._load(scenario)
            best = min(best, time.perf_counter() - start)
        out[name] = best
    return out


def measure(source: Path, repeat: int, browser: bool = False) -> dict[str, float]:
    if browser:
        return browser_switches(source, repeat)
    return json.loads(in_tree(__file__, source, "--child", str(repeat)).splitlines()[-1])


#: picks a scenario in the first explorer's dropdown; resolves, in ms, once every visible frame
#: is the new scenario's (one frame per generation) and the browser has drawn it
_SWITCH = """async (name) => {
  const explorer = document.querySelector('.hwl-explorer') || document.querySelector('.hwl-stepper');
  const select = Array.from(explorer.querySelectorAll('.widget-dropdown'))
      .find(d => d.textContent.includes('scenario')).querySelector('select');
  const start = performance.now();
  select.value = name;
  select.dispatchEvent(new Event('change', {bubbles: true}));
  await new Promise(done => {
    const shown = () => {
      const heads = Array.from(explorer.querySelectorAll('.frame .fhead')).filter(h => h.offsetParent !== null);
      if (heads.length >= 2 && heads.every(h => h.textContent.startsWith(name + ' \u00b7'))) { done(); }
      else { requestAnimationFrame(shown); }
    };
    shown();
  });
  await new Promise(done => requestAnimationFrame(() => done()));
  return performance.now() - start;
}"""


def browser_switches(source: Path, repeat: int) -> dict[str, float]:
    """Seconds per switch as JupyterLab in Chromium shows it, by scenario (best of ``repeat``),
    with the kernel importing ``source``'s hwlib."""
    import os
    import shutil
    import socket
    import subprocess
    import sys
    import tempfile
    import urllib.request

    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="hwlib-bench-lab-"))
    (root / "notebooks").mkdir()
    shutil.copy(source / "notebooks" / "01_explore_rounds.ipynb", root / "notebooks")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    lab = subprocess.Popen([sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.token=",
                            "--ServerApp.password=", "--allow-root", "--ip", "127.0.0.1", "--port", str(port),
                            f"--ServerApp.root_dir={root}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           cwd=root, env=dict(os.environ, PYTHONPATH=str(source)))
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5).close()
                break
            except OSError:
                if lab.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("jupyter lab did not come up") from None
                time.sleep(0.5)
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=os.environ.get("HWLIB_CHROMIUM", "/usr/bin/chromium"))
            page = chromium.new_page(viewport={"width": 1400, "height": 1100})
            page.goto(f"http://127.0.0.1:{port}/lab/tree/notebooks/01_explore_rounds.ipynb")
            page.get_by_text("Python 3 (ipykernel) | Idle").first.wait_for(timeout=90000)
            page.locator(".jp-Notebook .jp-Cell").first.click()
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
            page.wait_for_selector(".frame .fhead", timeout=120000)
            page.get_by_text("Python 3 (ipykernel) | Idle").first.wait_for(timeout=120000)
            names = page.evaluate("""() => {
                const explorer = document.querySelector('.hwl-explorer') || document.querySelector('.hwl-stepper');
                const select = Array.from(explorer.querySelectorAll('.widget-dropdown'))
                    .find(d => d.textContent.includes('scenario')).querySelector('select');
                return Array.from(select.options).map(o => o.value).filter(v => v);
            }""")
            out: dict[str, float] = {}
            for _ in range(repeat):
                for name in [n for n in names if n != "data-loss"] + ["data-loss"]:
                    out[name] = min(out.get(name, float("inf")), page.evaluate(_SWITCH, name) / 1e3)
            chromium.close()
        return out
    finally:
        lab.terminate()
        lab.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="switches per scenario (best kept)")
    parser.add_argument("--baseline-ref", help="also time this git ref's explorer, in the same run")
    parser.add_argument("--browser", action="store_true",
                        help="time the switch in JupyterLab in Chromium (kernel + browser), not the kernel alone")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    runs: dict[str, dict[str, float]] = {}
    if args.baseline_ref:
        with checkout(args.baseline_ref) as tree:
            for label, source in ((args.baseline_ref, tree), ("this tree", REPO)):
                runs[label] = measure(source, args.repeat, args.browser)
    else:
        runs["this tree"] = measure(REPO, args.repeat, args.browser)
    labels = list(runs)
    where = "JupyterLab in Chromium, until drawn" if args.browser else "kernel side"
    print(f"scenario switch in the explorer (two generations; {where}), ms, best of", args.repeat)
    print(f"  {'scenario':<40}" + "".join(f"{label:>12}" for label in labels))
    for name in runs["this tree"]:
        print(f"  {name:<40}" + "".join(f"{runs[label].get(name, float('nan')) * 1e3:>12.0f}" for label in labels))
    for label in labels:
        values = sorted(runs[label].values())
        print(f"  {label}: median {values[len(values) // 2] * 1e3:.0f} ms, worst {values[-1] * 1e3:.0f} ms "
              f"(goal <= 300 ms)")
    if len(labels) == 2:
        common = [n for n in runs[labels[1]] if n in runs[labels[0]]]
        ratio = sum(runs[labels[0]][n] for n in common) / sum(runs[labels[1]][n] for n in common)
        print(f"  speed vs {labels[0]}: {ratio:.2f}x (total over the {len(common)} scenarios both have)")


if __name__ == "__main__":
    main()
