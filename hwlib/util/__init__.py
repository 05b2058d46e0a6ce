"""Helpers below every layer, one module each: canonical bytes, copy on write, files, paths, YAML, cores, RSS, names.

The facade names the modules rather than importing them, so the compiled hot path (which
needs ``canonical`` and ``shared`` only) does not load YAML or file handling it never uses.
"""

from .. import compiled

compiled.extend(__path__, __name__)     # util.canonical and util.shared are compiled

__all__ = ["canonical", "cores", "files", "names", "paths", "resident", "shared", "yamlfile"]
