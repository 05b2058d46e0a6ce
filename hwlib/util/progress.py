"""Progress of long work where the user looks: a tqdm bar on a terminal, plain lines in a log, a widget in a notebook.

``progress(total, desc, unit, mode, file)`` gives one object with ``update(n)``, ``note(text)``
(what the work is doing now) and ``close()`` whatever the mode:

- ``"bar"``: a tqdm bar on ``file`` (a terminal);
- ``"lines"``: a plain line at every tenth of the work and at the end (CI logs, a pipe: no
  carriage returns to garble them), and each note as a line;
- ``"notebook"``: tqdm's notebook bar (``tqdm.auto``) in the cell that runs;
- ``True``: ``"bar"`` if ``file`` is a terminal, else ``"lines"``; ``False`` / ``None``: silent.
"""

from __future__ import annotations

import sys
import time

MODES = ("bar", "lines", "notebook")


class _Lines:
    #: with no total, a note is written at most this often (seconds), besides the last one
    EVERY = 5.0

    def __init__(self, total: int | None, desc: str, unit: str, file) -> None:
        self.total, self.desc, self.file = total, desc, file
        self.unit = unit + ("es" if unit.endswith(("s", "ch", "sh", "x")) else "s")     # the plural
        self.done, self.shown, self.started = 0, 0, time.monotonic()
        self.said, self.pending = 0.0, ""

    def _say(self, text: str) -> None:
        print(text, file=self.file, flush=True)

    def update(self, n: int = 1) -> None:
        self.done += n
        if not self.total:
            return
        tenth = 10 * self.done // self.total
        if tenth > self.shown and tenth < 10:
            self.shown = tenth
            self._say(f"{self.desc}: {self.done:,} of {self.total:,} {self.unit} "
                      f"({self.done / self.total:.0%}, {time.monotonic() - self.started:.0f} s)")

    def note(self, text: str) -> None:
        now = time.monotonic()
        if self.total is None and now - self.said < self.EVERY and self.said:
            self.pending = text             # said at the next chance, or when done
            return
        self.said, self.pending = now, ""
        self._say(f"{self.desc}: {text}")

    def close(self) -> None:
        if self.shown == 10:
            return
        self.shown = 10
        elapsed = time.monotonic() - self.started
        if self.total is None:
            self._say(f"{self.desc}: {self.pending + '; ' if self.pending else ''}done in {elapsed:.0f} s")
        else:
            self._say(f"{self.desc}: {self.done:,} of {self.total:,} {self.unit} done in {elapsed:.0f} s")


class _Bar:
    def __init__(self, bar) -> None:
        self.bar = bar

    def update(self, n: int = 1) -> None:
        self.bar.update(n)

    def note(self, text: str) -> None:
        self.bar.set_postfix_str(text, refresh=True)

    def close(self) -> None:
        self.bar.close()


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def check_mode(mode, field: str = "progress"):
    """``mode`` if it is one (see the module's docstring), else a ValueError naming ``field``."""
    if mode is None or isinstance(mode, bool) or mode in MODES:
        return mode
    raise ValueError(f"{field}: must be one of {', '.join(MODES)}, true, false or null, got {mode!r}")


def progress(total: int | None, desc: str, unit: str = "item", mode: str | bool | None = True, file=None):
    """A progress display for ``total`` units of work (None: not known; notes say how far it
    got) - see the module's docstring."""
    file = file if file is not None else sys.stderr
    check_mode(mode)
    if mode is True:
        mode = "bar" if getattr(file, "isatty", lambda: False)() else "lines"
    if mode == "bar":
        from tqdm import tqdm

        return _Bar(tqdm(total=total, desc=desc, unit=unit, file=file, dynamic_ncols=True, smoothing=0.1))
    if mode == "notebook":
        from tqdm.auto import tqdm as auto

        return _Bar(auto(total=total, desc=desc, unit=unit))
    if mode == "lines":
        return _Lines(total, desc, unit, file)
    return _Silent()
