"""``python -m hwlib``: the same command line as the ``hwlib`` script."""

from .cli import main

raise SystemExit(main())
