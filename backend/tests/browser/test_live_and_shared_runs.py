"""Two browsers watch one live run; one drops its connection and still shows every iteration once.
A share link opens in a fresh browser without signing in and stops working when revoked."""

import time

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.browser.stream_recorder import record_streams, stream_log
from tests.conftest import ADMIN_PASSWORD, ADMIN_USER, signed_in
from tests.runs.helpers import queue, submit, wait_final, wait_status

# The run must outlast the 3 s drop: 60 iterations of a 0.15 s statement, about 9 s whatever the load
# (was 600 insert-truncate iterations: each one an event both browsers drew, 84 CPU-s for the test).
LIVE_ITERATIONS, PACE_S = 60, 0.15


def _paced_run(client: httpx.Client) -> int:
    """A custom-sql run on MariaDB 10.11 whose iterations each take PACE_S seconds; its id."""
    body = {
        "workload": "custom-sql",
        "iterations": LIVE_ITERATIONS,
        "name": "live twice",
        "parameters": {"iteration_sql": f"DO SLEEP({PACE_S})"},
        "variants": [{"target": "mariadb-10.11"}],
    }
    return queue(client, body)


def _wait_received(page: Page, at_least: int, timeout_ms: float = 120_000) -> None:
    page.wait_for_function(
        f"() => (window.__streamRecorder?.received.length ?? 0) >= {at_least}", timeout=timeout_ms
    )


def test_two_browsers_see_every_iteration_once_even_after_a_dropped_connection(
    browser: Browser, api: str, client: httpx.Client
) -> None:
    run_id = _paced_run(client)
    wait_status(client, run_id, {"running"})
    contexts = [record_streams(signed_in(browser.new_context(base_url=api), api)) for _ in range(2)]
    try:
        steady, dropping = (context.new_page() for context in contexts)
        for page in (steady, dropping):
            page.goto(f"/runs/{run_id}")
            expect(page.get_by_test_id("run-page")).to_have_attribute("data-live", "true")
        _wait_received(dropping, 5)
        # The drop: the network goes away and the stream is cut; it comes back 3 s later.
        dropping.context.set_offline(True)
        dropping.evaluate("() => window.__dropStream()")
        time.sleep(3)
        assert wait_status(client, run_id, {"running"}), (
            "the run ended during the drop: raise LIVE_ITERATIONS or PACE_S"
        )
        dropping.context.set_offline(False)
        for page in (steady, dropping):
            expect(page.get_by_test_id("run-status")).to_have_text("succeeded", timeout=300_000)
        expected = [f"0:{i}" for i in range(1, LIVE_ITERATIONS + 1)]
        for page in (steady, dropping):
            # the server sent every iteration once over all connections (snapshot, then resumed)
            log = stream_log(page)
            assert sorted(log["received"], key=lambda k: int(k.split(":")[1])) == expected
            assert len(log["received"]) == len(set(log["received"]))
            # and the page holds each once
            run_page = page.get_by_test_id("run-page")
            expect(run_page).to_have_attribute("data-stream-received", str(LIVE_ITERATIONS))
            expect(run_page).to_have_attribute("data-stream-duplicates", "0")
        assert stream_log(dropping)["connections"] >= 2, "the dropping browser reconnected"
        expect(dropping.get_by_test_id("run-page")).not_to_have_attribute("data-stream-connections", "1")
        expect(dropping.get_by_test_id("iteration-chart")).to_have_attribute(
            "data-points", str(LIVE_ITERATIONS)
        )
    finally:
        for context in contexts:
            context.close()


def test_a_share_link_opens_in_a_fresh_browser_and_stops_when_revoked(
    browser: Browser, api: str, client: httpx.Client, page: Page
) -> None:
    run_id = submit(client, [{"target": "mariadb-10.11"}], iterations=3, name="shared with the upgrade lead")
    wait_final(client, run_id)
    page.goto(f"/runs/{run_id}")
    page.get_by_test_id("share-create").click()
    url = page.get_by_test_id("share-url").first.input_value()
    assert "/share/" in url
    stranger = browser.new_context()  # no cookie: not signed in
    try:
        shared = stranger.new_page()
        shared.goto(url)
        expect(shared.get_by_test_id("run-name")).to_have_text("shared with the upgrade lead")
        expect(shared.get_by_test_id("iteration-chart")).to_have_attribute("data-points", "3")
        expect(shared.get_by_test_id("run-cancel")).to_have_count(0)
        page.get_by_test_id("share-revoke").first.click()
        expect(page.get_by_test_id("share-list")).to_have_count(0)
        shared.reload()
        expect(shared.get_by_test_id("share-error")).to_contain_text("not found")
    finally:
        stranger.close()


def test_a_visitor_signs_in_before_seeing_runs(browser: Browser, api: str) -> None:
    context = browser.new_context(base_url=api)
    try:
        visitor = context.new_page()
        visitor.goto("/runs")
        expect(visitor.get_by_test_id("login-page")).to_be_visible()
        visitor.get_by_test_id("login-username").fill(ADMIN_USER)
        visitor.get_by_test_id("login-password").fill("wrong password")
        visitor.get_by_test_id("login-submit").click()
        expect(visitor.get_by_test_id("login-error")).to_contain_text("wrong username or password")
        visitor.get_by_test_id("login-password").fill(ADMIN_PASSWORD)
        visitor.get_by_test_id("login-submit").click()
        expect(visitor.get_by_test_id("runs-table")).to_be_visible()
        expect(visitor.get_by_test_id("signed-in-user")).to_contain_text(f"{ADMIN_USER} (admin)")
    finally:
        context.close()
