"""hwlib as a user installs it: the sdist and the wheel built from it, in fresh venvs outside the checkout.

``python -m build`` makes the sdist and builds the wheel from it (as a package index would);
each venv installs that wheel - with every extra, with the core alone, with one extra - and the
commands run in a temporary directory with no checkout above it and an empty user cache (no
compiled engine: the interpreted one runs, as on a machine that never built it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hwlib.util.extras import EXTRAS
from hwlib.util.paths import BUILTIN, builtin_files

#: the venvs: name -> the extras installed with the wheel
VENVS = {"core": (), "spark": ("spark",), "report": ("report",), "lab": ("lab",), "all": ("spark", "report", "lab")}

#: modules (and packages, with everything in them) that import only with an extra installed;
#: every other module imports with the core alone (the report's modules too: they import an
#: extra where they use it, so ``hwlib check --sweep`` reconciles on the core)
NEEDS = {"hwlib.views.explorer": "lab", "hwlib.views.stepper_widget": "lab", "hwlib.views.notebook_files": "lab"}

#: run inside a venv: import every module of the installed package, print those that failed
#: and the module each missed (hwlib.__main__ is the command itself)
IMPORT_ALL = """
import importlib, json, pathlib, hwlib
root = pathlib.Path(hwlib.__file__).parent
names = sorted(".".join(("hwlib", *p.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
               for p in root.rglob("*.py") if p.name != "__main__.py")
failed = {}
for name in names:
    try:
        importlib.import_module(name)
    except ImportError as exc:
        failed[name] = exc.name or str(exc)
print(json.dumps({"modules": len(names), "failed": failed}))
"""


def _quiet_env(home: Path) -> dict[str, str]:
    """The environment of a user's shell here: no hwlib setting of this checkout's tests, an
    empty cache for the compiled engine."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWLIB_") and k != "PYTHONPATH"}
    env["XDG_CACHE_HOME"] = str(home / "cache")
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory, repo) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(repo)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,), (sdist,) = out.glob("*.whl"), out.glob("*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="module")
def venvs(tmp_path_factory, dist) -> dict[str, Path]:
    """Each venv of ``VENVS`` with the wheel installed (two at a time)."""
    root = tmp_path_factory.mktemp("venvs")

    def make(name: str) -> Path:
        path = root / name
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        extras = VENVS[name]
        target = f"{dist['wheel']}[{','.join(extras)}]" if extras else str(dist["wheel"])
        done = subprocess.run([str(path / "bin" / "python"), "-m", "pip", "install", "--quiet",
                               "--disable-pip-version-check", target], capture_output=True, text=True)
        assert done.returncode == 0, f"pip install {target}: {done.stderr[-3000:]}"
        return path

    with ThreadPoolExecutor(2) as pool:
        return dict(zip(VENVS, pool.map(make, VENVS), strict=True))


def _in(venv: Path, home: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """A command of the venv run from ``home``, a folder outside the checkout."""
    home.mkdir(parents=True, exist_ok=True)
    command = [str(venv / "bin" / args[0]), *args[1:]]
    return subprocess.run(command, cwd=home, env=_quiet_env(home), capture_output=True, text=True, timeout=timeout)


def test_the_wheel_and_the_sdist_carry_the_checkouts_builtin_files(dist):
    """One source of truth: the checkout's data/ and notebooks/; the wheel's hwlib/builtin/ holds
    byte-identical copies of exactly those files, and the sdist the files the wheel is built from."""
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        packaged = {n: wheel.read(n) for n in wheel.namelist() if n.startswith("hwlib/builtin/")}
    expected = {f"hwlib/builtin/{kind}/{path.name}": path.read_bytes()
                for kind in BUILTIN for path in builtin_files(kind).values()}
    assert {"hwlib/builtin/scenarios/data-loss.yaml", "hwlib/builtin/notebooks/10_fault_sweep_report.ipynb",
            "hwlib/builtin/specs/default.yaml", "hwlib/builtin/profiles/power-loss.yaml",
            "hwlib/builtin/incidents/follower-exit-0.10.2.server-1002.log"} <= set(expected)
    assert packaged == expected
    import tarfile

    with tarfile.open(dist["sdist"]) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert {pattern.replace("*", path.stem) for kind, pattern in BUILTIN.items()
            for path in builtin_files(kind).values()} <= names


@pytest.mark.slow
def test_with_every_extra_a_user_outside_the_checkout_runs_each_command(venvs, tmp_path):
    venv, home = venvs["all"], tmp_path / "user"
    listed = _in(venv, home, "hwlib", "scenarios")
    assert listed.returncode == 0, listed.stderr
    names = {line.split()[0] for line in listed.stdout.splitlines() if line and not line[0].isspace()}
    assert names == set(builtin_files("scenarios"))
    run = _in(venv, home, "hwlib", "run", "data-loss", "--protocol", "hw")
    assert run.returncode == 0 and "lost-write: m2 was acknowledged" in run.stdout, run.stderr
    version = _in(venv, home, "python", "-m", "hwlib", "--version")
    assert version.returncode == 0 and version.stdout.startswith("hwlib ")
    assert "interpreted engine (no compiled build (python -m hwlib.build_engine builds one" in version.stdout
    check = _in(venv, home, "hwlib", "check", "--protocol", "hw", "--json")
    assert check.returncode == 0, check.stderr
    (verdict,) = [json.loads(line) for line in check.stdout.splitlines()]
    assert verdict["protocol"] == "hw" and "lost-write" in verdict["violations"]
    report = _in(venv, home, "hwlib", "report", "--quiet", "--out", "r/tiny.html", "--param", "runs=2",
                 "--param", "grid={release: ['0.10.2', '0.11'], profile: [kip101-data-loss]}")
    assert report.returncode == 0, report.stderr
    html = (home / "r" / "tiny.html").read_text()
    assert "Kafka replication under faults" in html and "Kafka 0.10.2" in html
    assert (home / "data" / "sweeps" / "report-default" / "manifest.json").is_file()
    example = _in(venv, home, "python", "-c", "from hwlib.util.paths import builtin_files; "
                  "print('\\n'.join(map(str, builtin_files('incidents').values())))")
    logs = example.stdout.split()
    assert example.returncode == 0 and len(logs) == 2 and all("/hwlib/builtin/incidents/" in p for p in logs)
    explained = _in(venv, home, "hwlib", "explain", *logs, "--release", "0.10.2", "--quiet", "--time-limit", "30",
                    "--html", "incident.html")
    assert explained.returncode == 0 and explained.stdout.startswith("orders-3: EXPLAINED"), explained.stderr
    assert 'class="hwl-stepper"' in (home / "incident.html").read_text()
    copied = _in(venv, home, "hwlib", "notebooks")
    assert copied.returncode == 0 and copied.stdout.startswith("5 notebooks copied into "), copied.stderr
    assert sorted(p.name for p in (home / "notebooks").iterdir()) == sorted(
        p.name for p in builtin_files("notebooks").values())


@pytest.mark.slow
def test_the_core_alone_runs_and_checks_and_names_the_extra_a_command_needs(venvs, tmp_path):
    venv, home = venvs["core"], tmp_path / "user"
    run = _in(venv, home, "hwlib", "run", "data-loss", "--protocol", "kip101")
    assert run.returncode == 0 and "ANOMALY" not in run.stdout, run.stderr
    check = _in(venv, home, "hwlib", "check", "--protocol", "hw", "--quiet", "--out", "check")
    assert check.returncode == 0 and (home / "check" / "matrix.parquet").is_file(), check.stderr
    for args, line in [(("sweep", "default", "--out", "s"), "hwlib sweep: needs pyspark: pip install 'hwlib[spark]'"),
                       (("report", "--out", "r.html"), "hwlib report: needs papermill: pip install 'hwlib[report]'"),
                       (("compare", "data-loss", "--out", "c"),
                        "hwlib compare --out: needs matplotlib: pip install 'hwlib[report]'")]:
        done = _in(venv, home, "hwlib", *args)
        assert (done.returncode, done.stderr) == (2, line + "\n"), args
    assert sorted(p.name for p in home.iterdir()) == ["check"]       # the refused commands wrote nothing


@pytest.mark.slow
@pytest.mark.parametrize("name", list(VENVS))
def test_every_module_imports_with_the_extras_it_declares(venvs, tmp_path, name):
    """With the core and one extra (or all), every module imports but those that need another
    extra, and each of those misses a module of that extra (``hwlib.util.extras.EXTRAS``, the
    table the one-line errors use); each installed extra brings every module that table names."""
    venv, extras = venvs[name], VENVS[name]
    done = _in(venv, tmp_path, "python", "-c", IMPORT_ALL)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["modules"] > 80

    def needs(module: str) -> str | None:
        return next((extra for prefix, extra in NEEDS.items() if module == prefix
                     or module.startswith(prefix + ".")), None)

    expected = {m for m in _module_names() if needs(m) is not None and needs(m) not in extras}
    assert set(result["failed"]) == expected
    for module, missed in result["failed"].items():
        assert missed.split(".")[0] in {m.split(".")[0] for m in EXTRAS[needs(module)]}, (module, missed)
    probe = f"from hwlib.util.extras import missing; print([missing(e) for e in {list(extras)!r}])"
    found = _in(venv, tmp_path, "python", "-c", probe)
    assert found.stdout.strip() == repr([None] * len(extras)), found.stderr


def _module_names() -> list[str]:
    root = Path(__file__).resolve().parent.parent / "hwlib"
    return sorted(".".join(("hwlib", *p.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
                  for p in root.rglob("*.py") if p.name != "__main__.py")
