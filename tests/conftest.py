"""Test-wide: the repository's path, a headless browser, hypothesis profiles, the deselected count on two processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Deterministic examples on CI (same schedules every run); random exploration locally.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("dev")
settings.load_profile("ci" if os.environ.get("CI") else "dev")

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium with the network off (see tests/browser.py)."""
    from .helpers.browser import launch

    yield from launch()


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


# ------------------------------------------------------------------ deselected, on two processes
# pytest-xdist's summary has no "N deselected": each test process counts the tests it left out
# (the same count in each: each collects the whole suite) and hands it back, and the summary says it.
_deselected = [0]
_counted_by_workers: list[int] = []


def pytest_deselected(items) -> None:
    _deselected[0] += len(items)


def pytest_sessionfinish(session) -> None:
    if hasattr(session.config, "workeroutput"):         # a test process of pytest-xdist
        session.config.workeroutput["deselected"] = _deselected[0]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    _counted_by_workers.append(getattr(node, "workeroutput", {}).get("deselected", 0))


def pytest_terminal_summary(terminalreporter) -> None:
    if _counted_by_workers and max(_counted_by_workers):
        terminalreporter.write_line(f"{max(_counted_by_workers)} deselected (make test leaves out the tests marked "
                                    "slow; make test-all runs them)")
