"""The wheel carries hwlib's built-in files: the build copies data/ scenarios, profiles, specs and notebooks/ in.

The checkout's ``data/`` and ``notebooks/`` are the one source of truth (a reader of the
repository finds them where the README says); an installed package reads its copies under
``hwlib/builtin/`` (``hwlib.util.paths.builtin_dir``). An editable install reads the checkout's
own files and copies nothing. Everything else about the package is in pyproject.toml.
"""

import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _builtin_table() -> dict[str, str]:
    """hwlib.util.paths.BUILTIN (folder in the package -> files in the checkout), read from that
    module alone: the build does not import the package."""
    spec = importlib.util.spec_from_file_location("_hwlib_paths", ROOT / "hwlib" / "util" / "paths.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.BUILTIN


class BuildWithBuiltins(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        builtin = Path(self.build_lib) / "hwlib" / "builtin"
        shutil.rmtree(builtin, ignore_errors=True)      # this step's own output of an earlier build: no stale copy
        for folder, pattern in _builtin_table().items():
            target = builtin / folder
            target.mkdir(parents=True, exist_ok=True)
            sources = sorted(ROOT.glob(pattern))
            if not sources:
                raise SystemExit(f"setup.py: no {pattern} in {ROOT}: the source tree lacks the built-in files")
            for source in sources:
                self.copy_file(str(source), str(target / source.name))


setup(cmdclass={"build_py": BuildWithBuiltins})
