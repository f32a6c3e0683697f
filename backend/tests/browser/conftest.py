"""Playwright driving Debian's /usr/bin/chromium (no downloaded browser)."""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

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


@pytest.fixture(scope="session")
def signed_in_context(browser: Browser, api: str) -> Iterator[BrowserContext]:
    """One browser context for the session's `page`s, signed in as the admin, with a keeper page open
    on the API's origin: chromium then puts each test's new page in the keeper's renderer process
    instead of starting one (measured: ~0.6 CPU-s per test page instead of ~1.5 with a context or
    renderer of its own). The UI keeps nothing in storage, the admin's cookie is the same for every
    test, and the API's answers carry no caching headers, so a test page starts as a fresh context's."""
    context = signed_in(browser.new_context(base_url=api, viewport={"width": 1280, "height": 900}), api)
    keeper = context.new_page()
    keeper.goto("/api/health")  # same origin, no app running in it (no polling between tests)
    yield context
    context.close()


@pytest.fixture
def page(signed_in_context: BrowserContext) -> Iterator[Page]:
    """A new page on the test API, which serves the built UI, signed in as the admin; closed after the
    test (its listeners and open streams with it)."""
    one = signed_in_context.new_page()
    yield one
    one.close()
