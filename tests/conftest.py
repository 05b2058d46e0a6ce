"""Shared fixtures: paths to the repo and to ../shared (SPEC, seeds)."""

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
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium with the network off (see tests/browser.py)."""
    from .browser import launch

    yield from launch()


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def seeds() -> Path:
    folder = SHARED / "seeds"
    assert folder.is_dir(), f"the seeds are golden data and must be beside the repo: {folder}"
    return folder
