"""Two browsers watch one live run; one drops its connection and still shows every iteration once.
A share link opens in a fresh browser without signing in and stops working when revoked."""

import time
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests import ports
from tests.browser.stream_recorder import record_streams, stream_log
from tests.conftest import ADMIN_PASSWORD, ADMIN_USER, auth_headers, signed_in
from tests.runs.helpers import queue, submit, wait_final, wait_status
from tests.targets.existing_servers import ExistingServer, mariadb_existing

__all__ = ["mariadb_existing"]  # fixtures

# The run is held by the test, not raced against the browsers' start (a paced 9 s run ended before
# two loaded pages got their fifth iteration once in CI): each iteration takes the user lock
# `live-<iterations done>` (MariaDB GET_LOCK, no privilege needed), and the test holds `live-5` and
# `live-10` on the existing server it started. So the run stops after iteration 5 until the drop, runs
# iterations 6-10 while the browser is offline, stops again until it is back, then ends.
LIVE_ITERATIONS, FIRST_HOLD, SECOND_HOLD = 20, 5, 10
LIVE_TARGET = f"existing-live-t{ports.SESSION}"
TICK_SQL = "INSERT INTO live_ticks (got) SELECT GET_LOCK(CONCAT('live-', COUNT(*)), 60) FROM live_ticks"


@pytest.fixture(scope="module")
def live_target(api: str, mariadb_existing: ExistingServer) -> Iterator[ExistingServer]:
    """The test's MariaDB 10.11, added as the disposable existing target LIVE_TARGET."""
    body = {
        "name": LIVE_TARGET,
        "flavor": "mariadb",
        "provisioner": "existing",
        "settings": mariadb_existing.settings,
        "disposable": True,
    }
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        created = client.post("/api/targets", json=body)
        assert created.status_code == 201, created.text
        yield mariadb_existing
        client.delete(f"/api/targets/{LIVE_TARGET}")


def _held_run(client: httpx.Client) -> int:
    """A custom-sql run on LIVE_TARGET whose iterations wait on the user locks (TICK_SQL); its id."""
    body = {
        "workload": "custom-sql",
        "iterations": LIVE_ITERATIONS,
        "name": "live twice",
        "parameters": {
            "setup_sql": "CREATE TABLE live_ticks (got INT)",
            "iteration_sql": TICK_SQL,
            "teardown_sql": "DROP TABLE live_ticks",
            "statement_timeout_s": 120,
        },
        "variants": [{"target": LIVE_TARGET}],
    }
    return queue(client, body)


def _wait_ticks(server: ExistingServer, count: int, timeout_s: float = 120) -> None:
    """Until the run's table holds `count` rows: iterations done on the server."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.admin_sql("SELECT COUNT(*) FROM labdb.live_ticks") == [(count,)]:
            return
        time.sleep(0.1)
    raise TimeoutError(f"the run never did {count} iterations")


def _wait_received(page: Page, at_least: int, timeout_ms: float = 120_000) -> None:
    page.wait_for_function(
        f"() => (window.__streamRecorder?.received.length ?? 0) >= {at_least}", timeout=timeout_ms
    )


def test_two_browsers_see_every_iteration_once_even_after_a_dropped_connection(
    browser: Browser, api: str, client: httpx.Client, live_target: ExistingServer
) -> None:
    holder = live_target.provisioner.endpoint.connect()
    contexts = [record_streams(signed_in(browser.new_context(base_url=api), api)) for _ in range(2)]
    try:
        with holder.cursor() as cursor:
            for count in (FIRST_HOLD, SECOND_HOLD):
                cursor.execute(f"SELECT GET_LOCK('live-{count}', 0)")
                assert cursor.fetchall() == ((1,),)
        run_id = _held_run(client)
        wait_status(client, run_id, {"running"})
        steady, dropping = (context.new_page() for context in contexts)
        for page in (steady, dropping):
            page.goto(f"/runs/{run_id}")
            expect(page.get_by_test_id("run-page")).to_have_attribute("data-live", "true")
            _wait_received(page, FIRST_HOLD)
        assert len(stream_log(dropping)["received"]) == FIRST_HOLD  # held at iteration 6
        # The drop: the network goes away and the stream is cut; five iterations happen meanwhile.
        dropping.context.set_offline(True)
        dropping.evaluate("() => window.__dropStream()")
        with holder.cursor() as cursor:
            cursor.execute(f"DO RELEASE_LOCK('live-{FIRST_HOLD}')")
        _wait_ticks(live_target, SECOND_HOLD)
        _wait_received(steady, SECOND_HOLD)
        assert len(stream_log(dropping)["received"]) == FIRST_HOLD  # nothing reached it offline
        dropping.context.set_offline(False)
        with holder.cursor() as cursor:
            cursor.execute(f"DO RELEASE_LOCK('live-{SECOND_HOLD}')")
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
        holder.close()
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
