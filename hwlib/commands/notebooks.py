"""``hwlib notebooks``: the package's notebooks copied into a folder (an installed hwlib has them in the package only).

A notebook already there is left as it is: the same file is skipped, another one with its name
stops the copy before anything is written.
"""

from __future__ import annotations

import argparse
import importlib.util


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", default="notebooks", help="the folder (default: %(default)s); an existing notebook "
                                                          "is never replaced")


def handle(args: argparse.Namespace) -> int:
    import shutil

    from ..util.files import OutputError, atomic_path, check_directory
    from ..util.paths import builtin_files, shown

    target = check_directory(args.to, "to")
    sources = builtin_files("notebooks")
    todo = []
    for source in sources.values():
        copy = target / source.name
        if not copy.exists():
            todo.append((source, copy))
        elif not copy.is_file() or copy.read_bytes() != source.read_bytes():
            raise OutputError(f"to: {shown(copy)} exists and is not hwlib's {source.name} (your own work is never "
                              "replaced); give another folder with --to")
    target.mkdir(parents=True, exist_ok=True)
    for source, copy in todo:
        with atomic_path(copy) as tmp:
            shutil.copyfile(source, tmp)
    kept = len(sources) - len(todo)
    print(f"{len(todo)} notebooks copied into {shown(target)}" + (f" ({kept} already there)" if kept else ""))
    if importlib.util.find_spec("jupyterlab") is not None:
        print(f"open them with: jupyter lab {shown(target)}")
    else:
        print(f"JupyterLab is not installed here: pip install 'hwlib[lab]' (make setup installs it), then "
              f"jupyter lab {shown(target)}")
    return 0
