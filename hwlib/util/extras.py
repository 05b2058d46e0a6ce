"""What a command needs beyond hwlib's core, and the one-line error naming the extra that brings it.

The core (``pip install hwlib``) runs the engine, scenarios, ``hwlib run`` and ``hwlib check``;
the extras are pyproject's optional dependencies: ``spark`` (sweeps), ``report`` (the fault-sweep
report), ``lab`` (the notebooks in JupyterLab), ``all``. A missing one is found before any work
starts: ``hwlib sweep: needs pyspark: pip install 'hwlib[spark]'``.
"""

from __future__ import annotations

import importlib.util

from ..errors import HwlibError

#: extra -> the modules it brings that hwlib imports (a test holds these to pyproject.toml)
EXTRAS = {
    "spark": ("pyspark", "pyspark.sql"),
    "report": ("papermill", "nbclient", "nbconvert", "nbformat", "mistune", "ipykernel", "matplotlib", "statsmodels"),
    "lab": ("jupyterlab", "jupyter_server", "ipykernel", "ipywidgets", "traitlets", "anywidget", "matplotlib"),
}


class MissingExtraError(HwlibError, ImportError):
    """A command needs a module that only one of hwlib's extras installs."""


def missing(extra: str, modules: tuple[str, ...] | None = None) -> str | None:
    """The first module of ``extra`` (or of ``modules``, the part of it a caller needs) that
    cannot be imported here, or None."""
    for module in modules or EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module)
        except ModuleNotFoundError:         # its parent package is missing
            found = None
        if found is None:
            return module
    return None


def require(extra: str, who: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise the one-line error for ``who`` (e.g. ``hwlib sweep``) if ``extra`` - or the part of
    it ``modules`` names - is not installed."""
    module = missing(extra, modules)
    if module is not None:
        raise MissingExtraError(f"{who}: needs {module}: pip install 'hwlib[{extra}]'")
