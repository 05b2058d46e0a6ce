"""Headless Chromium for page checks: the system browser driven by playwright, network off.

Skips when Chromium or playwright is missing, unless HWLIB_REQUIRE_BROWSER is set (CI sets
it), in which case it fails. Screenshots go to reports/test-artifacts/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "reports" / "test-artifacts"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def launch():
    """Yields a playwright Browser (or skips / fails as described above)."""
    required = os.environ.get("HWLIB_REQUIRE_BROWSER")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if required:
            pytest.fail("HWLIB_REQUIRE_BROWSER is set but playwright is not installed")
        pytest.skip("playwright is not installed")
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        if required:
            pytest.fail("HWLIB_REQUIRE_BROWSER is set but no chromium is on PATH (apt-get install chromium)")
        pytest.skip("no chromium on PATH")
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=executable, args=FLAGS)
        yield instance
        instance.close()


def offline_page(browser, url: str):
    """Opens ``url`` with every non-file request aborted (and recorded in
    ``page.requests_outside``); page errors are collected in ``page.errors``."""
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.requests_outside = []
    page.errors = []

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            page.requests_outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    return page
