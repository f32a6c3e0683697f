"""A team replays its general log's sessions together from the replay form ("Concurrent" chosen) on
MariaDB 10.11 and 11.8, lands on the concurrent replay's page with its answer per variant and every
trial, and shares it: the link opens the same answer signed out, read-only, with its exports and no
cancel, on the kind's own share page (not the API's JSON)."""

import re

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.concurrent_replay.test_concurrent_replay_api import DUMP
from tests.conftest import STATE, auth_headers
from tests.datasets.conftest import delete_dataset
from tests.replay.sessions.test_session_driver_on_servers import READ_THEN_WRITE

LOG = READ_THEN_WRITE.replace(" on shop using", " on browsercr using")


def test_choose_concurrent_read_its_answer_and_share_it(page: Page, browser: Browser, api: str) -> None:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        created = client.put("/api/datasets/browsercr", content=DUMP)
        assert created.status_code == 201, created.text
        try:
            log = STATE / "browser-concurrent.log"
            log.write_text(LOG)
            page.goto("/replays")
            replay = page.get_by_test_id("new-replay")
            replay.locator("select[name=dataset]").select_option("browsercr")
            replay.locator("input[name=queries-file]").set_input_files(str(log))
            rows = replay.get_by_test_id("variant-row")
            rows.nth(0).get_by_test_id("variant-target").select_option("mariadb-10.11")
            replay.get_by_test_id("add-variant").click()
            rows.nth(1).get_by_test_id("variant-target").select_option("mariadb-11.8")
            replay.locator("input[name=rounds]").fill("2")
            replay.locator("input[name=concurrent]").check()
            replay.locator("input[name=speed]").fill("2")
            replay.get_by_role("button", name="Replay").click()

            page.wait_for_url(re.compile(r"/concurrent-replays/\d+$"))
            expect(page.get_by_test_id("concurrent-status")).to_have_text("succeeded", timeout=300_000)
            answer = page.get_by_test_id("concurrent-answer")
            expect(answer).to_contain_text("mariadb-11.8: ")
            expect(answer).to_contain_text("against mariadb-10.11 over 2 trials")
            expect(page.locator("[data-testid=concurrent-trials] tbody tr")).to_have_count(4)
            expect(page.get_by_test_id("concurrent-trials")).to_contain_text("1020 x1")  # 11.8's, each trial
            expect(page.get_by_test_id("concurrent-clocks")).to_contain_text("server clock not available")

            page.get_by_test_id("concurrent-share-button").click()
            link = page.get_by_test_id("concurrent-share").get_attribute("href")
            assert link and link.startswith("/share/concurrent-replays/"), link
            anonymous = browser.new_context(base_url=api)  # no session cookie
            try:
                shared = anonymous.new_page()
                shared.goto(link)
                expect(shared.get_by_test_id("share-page")).to_contain_text("Shared read-only view")
                expect(shared.get_by_test_id("concurrent-answer")).to_contain_text("mariadb-11.8: ")
                expect(shared.get_by_test_id("concurrent-csv")).to_have_attribute(
                    "href", re.compile(r"^/api/public/concurrent-replays/.+/export\?format=csv$")
                )
                expect(shared.get_by_test_id("concurrent-cancel")).to_have_count(0)
                expect(shared.get_by_test_id("concurrent-share-button")).to_have_count(0)
            finally:
                anonymous.close()
        finally:
            delete_dataset(client, "browsercr")
