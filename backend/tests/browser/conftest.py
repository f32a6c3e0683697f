"""Playwright driving Debian's /usr/bin/chromium (no downloaded browser)."""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.conftest import FRONTEND_DIST, signed_in

CHROMIUM = "/usr/bin/chromium"
# Playwright's assertions retry until this many ms: 5 s (its default) is what a lazy page's chunk
# took to load once with both pytest workers busy on the 2-core host. A retrying assertion passes as
# soon as the page is right, so a longer bound costs only when a test is failing anyway.
expect.set_options(timeout=20_000)
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Debian chromium."""
    assert (FRONTEND_DIST / "index.html").exists(), "build the UI first: cd frontend && npm run build"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, api: str) -> Iterator[Page]:
    """A fresh browser context on the test API, which serves the built UI, signed in as the admin."""
    context = signed_in(browser.new_context(base_url=api, viewport={"width": 1280, "height": 900}), api)
    one = context.new_page()
    yield one
    context.close()
