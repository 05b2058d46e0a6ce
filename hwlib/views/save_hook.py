"""What JupyterLab saves of hwlib's own notebooks: their source, never their outputs, so the checkout stays clean.

``make setup`` installs ``strip_before_save`` as the Jupyter server's ``pre_save_hook`` in the
project's virtualenv (``.venv/etc/jupyter/jupyter_server_config.py``). It acts only on a
notebook whose metadata says ``"hwlib": {"save_outputs": false}`` - the four under
``notebooks/`` - and leaves every other notebook as JupyterLab saves it. Outputs, execution
counts, widget state and the Python patch version are dropped before the file is written, so
running such a notebook and saving it leaves it byte for byte as committed; a run worth
keeping is exported to HTML (README, "Notebooks").
"""

from __future__ import annotations


def strip_before_save(model: dict, **kwargs) -> None:
    """Jupyter's ``pre_save_hook(model=..., path=..., contents_manager=...)``: strips, in
    place, a notebook model that asks for it (see the module's docstring)."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    nb = model["content"]
    metadata = nb.get("metadata", {})
    if metadata.get("hwlib", {}).get("save_outputs", True):
        return
    metadata.pop("widgets", None)
    metadata.get("language_info", {}).pop("version", None)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
