"""Shared fixtures: the repository's path and a headless browser; hypothesis profiles (derandomized on CI)."""

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
