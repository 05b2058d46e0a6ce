"""Notebooks headless: execute (nbclient / papermill, widget state kept) and export to HTML that
works offline - hwlib's views are self-contained, and nothing is loaded from a CDN."""

from __future__ import annotations

import copy
from pathlib import Path

from ..util.files import atomic_path

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
TEMPLATE = "hwlib_offline"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: the kernel's own log at errors only: ipykernel's "Kernel is running over TCP without
#: encryption" (a local kernel on loopback) stays out of the user's terminal
QUIET_KERNEL = ["--IPKernelApp.log_level=ERROR"]


def execute(path, out=None, timeout: int = 600, cwd=None):
    """Run every cell (a fresh kernel) and return the executed notebook; written to ``out``
    if given. Widget state is stored in the notebook, as JupyterLab would."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                            extra_arguments=QUIET_KERNEL,
                            resources={"metadata": {"path": str(cwd or Path(path).parent)}})
    client.execute()
    if out is not None:
        with atomic_path(out) as tmp:
            nbformat.write(nb, str(tmp))
    return nb


def offline_copy(nb, drop_stderr: bool = False):
    """The notebook without live-only widget outputs: a widget view is replaced by its
    ``text/html`` fallback (hwlib's explorer provides one) or dropped; widget state removed;
    papermill's record of the run (the paths of the machine that ran it) left out.
    ``drop_stderr``: also drop stderr streams (Spark's JVM chatter in a report)."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("papermill", None)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            if drop_stderr and output.get("output_type") == "stream" and output.get("name") == "stderr":
                continue
            data = output.get("data")
            if data is not None and WIDGET_VIEW in data:
                data.pop(WIDGET_VIEW)
                if "text/html" not in data:
                    continue      # a bare widget has no offline form: its text repr would only confuse
                data.pop("text/plain", None)
            kept.append(output)
        cell.outputs = kept
    return nb


def first_heading(nb) -> str | None:
    """The text of the notebook's first Markdown heading, if any."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return None


def export_html(nb, out, hide_code: bool = False, title: str | None = None) -> Path:
    """Write ``nb`` (a notebook node or a path) as offline HTML; returns the path. With
    ``hide_code`` (a report) the code, prompts and stderr streams are left out. The page's
    ``<title>`` is ``title``, else the notebook's first heading, else its file name."""
    import nbformat
    from nbconvert import HTMLExporter

    if not hasattr(nb, "cells"):
        nb = nbformat.read(str(nb), as_version=4)
    nb = offline_copy(nb, drop_stderr=hide_code)
    title = title or first_heading(nb)
    if title:
        nb.metadata["title"] = title
    exporter = HTMLExporter(template_name=TEMPLATE, extra_template_basedirs=[str(TEMPLATE_DIR)],
                            exclude_input=hide_code, exclude_input_prompt=hide_code,
                            exclude_output_prompt=hide_code)
    body, _ = exporter.from_notebook_node(nb)
    with atomic_path(out) as tmp:
        tmp.write_text(body, encoding="utf-8")
    return Path(out)
