"""Small helpers below every layer, one module each: canonical bytes, output files, paths, YAML, cores, name lists.

The facade names the modules rather than importing them, so the compiled hot path (which
needs ``canonical`` only) does not load YAML or file handling it never uses.
"""

from .. import compiled

compiled.extend(__path__, __name__)     # util.canonical is compiled

__all__ = ["canonical", "cores", "files", "names", "paths", "yamlfile"]
