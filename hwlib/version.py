"""The package's version (one place: the facade, the sweep manifest and ``hwlib --version`` read it)."""

__version__ = "0.2.0"
