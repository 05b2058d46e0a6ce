"""Progress where the user looks: plain lines in a log (no carriage returns), a bar on a terminal."""

from __future__ import annotations

import io

import pytest

from hwlib.util.progress import check_mode, progress


def test_plain_lines_say_every_tenth_and_the_end_without_carriage_returns():
    log = io.StringIO()
    bar = progress(1000, "sweep default", "run", "lines", log)
    for _ in range(100):
        bar.update(10)
    bar.note("summarizing")
    bar.close()
    bar.close()                                     # closing twice says nothing more
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue() and len(lines) == 9 + 1 + 1
    assert lines[0].startswith("sweep default: 100 of 1,000 runs (10%, ")
    assert lines[-2] == "sweep default: summarizing"
    assert lines[-1].startswith("sweep default: 1,000 of 1,000 runs done in ")
    searches = io.StringIO()
    bar = progress(3, "model check", "search", "lines", searches)
    bar.update(3)
    bar.close()
    assert searches.getvalue().startswith("model check: 3 of 3 searches done in ")


def test_work_of_unknown_size_says_where_it_got_at_most_every_few_seconds_and_at_the_end():
    log = io.StringIO()
    bar = progress(None, "kip320", "level", "lines", log)
    for depth in range(1, 21):
        bar.update(1)
        bar.note(f"depth {depth}")
    bar.close()
    lines = log.getvalue().splitlines()
    assert lines[0] == "kip320: depth 1" and len(lines) == 2
    assert lines[1].startswith("kip320: depth 20; done in ")


def test_true_is_a_bar_on_a_terminal_and_lines_elsewhere_and_false_is_silent():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term, pipe, quiet = Terminal(), io.StringIO(), io.StringIO()
    for file in (term, pipe):
        bar = progress(4, "sweep", "run", True, file)
        bar.update(4)
        bar.close()
    assert "\r" in term.getvalue() and "4/4" in term.getvalue()
    assert pipe.getvalue().startswith("sweep: 4 of 4 runs done in ") and "\r" not in pipe.getvalue()
    bar = progress(4, "sweep", "run", False, quiet)
    bar.update(4)
    bar.close()
    assert quiet.getvalue() == ""
    with pytest.raises(ValueError, match="progress: must be one of bar, lines, notebook"):
        check_mode("loud")
