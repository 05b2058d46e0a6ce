"""What JupyterLab loads and saves of hwlib's own notebooks: the source as committed, never outputs, opened unmodified.

``make setup`` names ``NotebookFiles`` as the Jupyter server's contents manager in the project's
virtualenv (``.venv/etc/jupyter/jupyter_server_config.py``). It acts only on a notebook whose
metadata says ``"hwlib": {"save_outputs": false}`` - the ones under ``notebooks/`` - and
leaves every other file as Jupyter's own manager loads and saves it:

- **saved** (``strip_before_save``, registered as a pre-save hook): outputs, execution counts,
  widget state and the Python patch version are dropped before the file is written, so running
  such a notebook and saving it leaves it byte for byte as committed; a run worth keeping is
  exported to HTML (README, "Notebooks").
- **loaded** (``with_running_python``): the language version the committed file leaves out is
  filled in with this Python's - what the kernel (this virtualenv's ``python3``) reports when it
  starts. JupyterLab writes the kernel's language info into an open notebook's metadata and
  marks the notebook modified when it differs, so without it every notebook showed as
  modified the moment it opened. The version is never written back (the hook drops it).
"""

from __future__ import annotations

import sys
from typing import Any

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager


def _asks_to_be_stripped(model: dict) -> bool:
    """A notebook model whose metadata says ``"hwlib": {"save_outputs": false}``."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return False
    return not model["content"].get("metadata", {}).get("hwlib", {}).get("save_outputs", True)


def strip_before_save(model: dict, **kwargs) -> None:
    """Jupyter's pre-save hook (``model=..., path=..., contents_manager=...``): strips, in place,
    a notebook model that asks for it (see the module's docstring)."""
    if not _asks_to_be_stripped(model):
        return
    nb = model["content"]
    metadata = nb.get("metadata", {})
    metadata.pop("widgets", None)
    metadata.get("language_info", {}).pop("version", None)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)


def with_running_python(model: dict) -> dict:
    """A loaded notebook model that asks to be stripped, its language info given this Python's
    version as the kernel reports it (``ipykernel``: ``sys.version.split()[0]``); any other model
    as it is."""
    if _asks_to_be_stripped(model):
        info = model["content"].get("metadata", {}).get("language_info")
        if isinstance(info, dict) and info.get("name") == "python" and "version" not in info:
            info["version"] = sys.version.split()[0]
    return model


class NotebookFiles(AsyncLargeFileManager):
    """Jupyter server's default contents manager, loading and saving hwlib's notebooks as the
    module's docstring says."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.register_pre_save_hook(strip_before_save)

    async def get(self, path: str, content: bool = True, type: str | None = None, format: str | None = None,
                  require_hash: bool = False) -> dict:
        model = await super().get(path, content=content, type=type, format=format, require_hash=require_hash)
        return with_running_python(model) if content else model
