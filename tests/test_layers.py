"""The package's layers, from its source: imports point down, no import cycle, every facade offers its ``__all__``.

The order: errors/util < engine < anomalies < run, trace, ... < model < check, sweep, explain <
report, views < commands < cli, facade. No import cycle, typing-only imports included; no engine
part but the cluster and the clock holds the cluster.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "hwlib"

#: layer of each top-level name in the package (a subpackage's modules share its layer)
LAYERS = {"errors": 0, "version": 0, "compiled": 0, "build_engine": 0, "util": 0,
          "engine": 1, "anomalies": 2,
          "run": 3, "trace": 3, "scenario": 3, "profiles": 3, "faults": 3, "shrink": 3, "model": 4,
          "check": 5, "sweep": 5, "explain": 5, "report": 6, "views": 6, "commands": 7, "cli": 8, "__main__": 9,
          "": 8}
FACADES = ("hwlib", "hwlib.engine", "hwlib.anomalies", "hwlib.model", "hwlib.check", "hwlib.sweep", "hwlib.explain",
           "hwlib.report", "hwlib.views", "hwlib.util")


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS[parts[1] if len(parts) > 1 else ""]


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or \
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def imports(module: str, path: Path, known: dict[str, Path], typing: bool = False) -> set[str]:
    """The hwlib modules ``module`` imports when it runs (module level or inside functions;
    under ``if TYPE_CHECKING`` too where ``typing``)."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node) and not typing:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "hwlib":
                return
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in known else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "hwlib")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    found.discard(module)
    return found


def graph(typing: bool = False) -> dict[str, set[str]]:
    known = modules()
    return {m: {t for t in imports(m, p, known, typing) if t in known} for m, p in known.items()}


def test_imports_point_down_the_layers():
    upward = sorted(f"{m} -> {t}" for m, targets in graph().items() for t in targets if layer(t) > layer(m))
    assert not upward, "imports that point up the layer order:\n" + "\n".join(upward)


@pytest.mark.parametrize("typing", [False, True], ids=["runtime", "typing-only-included"])
def test_no_import_cycle(typing):
    """No module imports itself through others - counting, the second time, the imports made
    only for type checking (the engine's parts and the state key's context: ``state_key`` asks
    its questions with values and imports no part)."""
    edges = graph(typing)
    cycles, state = [], {}

    def walk(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                cycles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                walk(target, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            walk(node, [])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_layer_test_sees_a_violation_when_there_is_one(tmp_path):
    """The rule is not vacuous: an engine module that imports the report is caught."""
    fake = tmp_path / "cluster.py"
    fake.write_text("from ..report import findings\nfrom .steps import Step\n")
    known = modules()
    found = imports("hwlib.engine.cluster", fake, known)
    assert found == {"hwlib.report.findings", "hwlib.engine.steps"}
    assert layer("hwlib.report.findings") > layer("hwlib.engine.cluster")
    assert {"hwlib.engine.cluster", "hwlib.check.search", "hwlib.views.stepper"} <= set(graph())
    # an import made only for type checking counts where typing-only imports are included
    typed = tmp_path / "state_key.py"
    typed.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .cluster import Cluster\n")
    assert imports("hwlib.engine.state_key", typed, known) == set()
    assert imports("hwlib.engine.state_key", typed, known, typing=True) == {"hwlib.engine.cluster"}


@pytest.mark.parametrize("name", FACADES)
def test_each_facade_offers_exactly_its_all(name):
    """Every name in ``__all__`` is there (a module of the package for ``util``), once; every
    public name the facade holds, other than its submodules, is in ``__all__``."""
    import types

    facade = importlib.import_module(name)
    assert len(set(facade.__all__)) == len(facade.__all__)
    for public in facade.__all__:
        assert hasattr(facade, public) or importlib.util.find_spec(f"{name}.{public}") is not None, public
    held = {n for n, v in vars(facade).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)
            and n != "annotations"}
    assert held <= set(facade.__all__), sorted(held - set(facade.__all__))


def test_no_engine_part_holds_the_whole_cluster():
    """Each part was given the collaborators it calls (Kafka's shape): no object refers to the
    cluster - not the clock, the fetcher, the replica manager, the partition, the channel, the
    purgatories or the clients. A probe that does hold it is found, so the search can fail."""
    import gc
    import types

    import hwlib

    cluster = hwlib.Cluster(hwlib.ClusterConfig(replicas=("A", "B", "C"), protocol="kip320"))
    for step in hwlib.parse_steps([{"produce": "m1"}, {"fetch_request": "B"}, {"fetch": "C"}, {"tick": 45001}]):
        cluster.apply(step)
    frames_and_cells = (types.FrameType, types.CellType)

    def holders() -> list:
        return [o for o in gc.get_referrers(cluster) if not isinstance(o, frames_and_cells)]

    assert holders() == []
    probe = {"held": cluster}
    assert [id(o) for o in holders()] == [id(probe)]
