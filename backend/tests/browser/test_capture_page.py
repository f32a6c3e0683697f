"""Issue 35 in a browser: an operator captures the lab's own MariaDB 10.11 from its target page and
lands on the capture's page, which follows the capture over its events until it succeeded and then
shows the configuration against the version's defaults (the lab's sandbox setting marked, an unset
one left default), the host facts, the accounts, the workload and its queries.sql; a check against
the lab's MariaDB 11.8 started there shows its findings by severity; the capture's events stream
(GET /api/captures/{id}/events) gives a finished capture its snapshot and ends."""

import re

import httpx
from playwright.sync_api import Page, expect

from tests.conftest import auth_headers
from tests.streaming.sse import events

TARGET = "mariadb-10.11"


def test_a_capture_started_from_the_target_page_shows_its_configuration(page: Page, api: str) -> None:
    page.goto(f"/targets/{TARGET}")
    page.get_by_test_id("capture-start").click()

    page.wait_for_url(re.compile(r"/captures/\d+$"))
    capture_id = int(page.url.rsplit("/", 1)[1])
    expect(page.get_by_test_id("capture-status")).to_have_text("succeeded", timeout=120_000)
    expect(page.get_by_test_id("capture-defaults-from")).to_contain_text("the same version")
    # shown by default: only what differs; the lab's sandbox writes local-infile=0 (default ON)
    expect(page.get_by_test_id("variable-local_infile")).to_contain_text("differs")
    expect(page.get_by_test_id("variable-max_connections")).to_have_count(0)
    page.get_by_test_id("configuration-shown").select_option("all")
    page.get_by_test_id("configuration-search").fill("max_connections")
    expect(page.get_by_test_id("variable-max_connections")).to_contain_text("151")
    expect(page.get_by_test_id("variable-max_connections")).to_contain_text("default")
    expect(page.get_by_test_id("capture-host")).to_contain_text("CPUs")
    expect(page.get_by_test_id("capture-account").first).to_be_visible()
    assert "authentication_string" not in page.content()
    href = page.get_by_test_id("capture-queries-sql").get_attribute("href")
    assert href == f"/api/captures/{capture_id}/queries.sql"
    expect(page.get_by_test_id("capture-cancel")).to_have_count(0)  # a finished capture cannot be
    # the lab's own server holds no database of a team's: the page says why there is no dataset
    expect(page.get_by_test_id("capture-dump-error")).to_contain_text("no database")

    page.get_by_test_id("check-target").select_option("mariadb-11.8")
    page.get_by_test_id("check-start").click()
    check = page.get_by_test_id("capture-check").first
    check_id = int((check.get_attribute("id") or "").removeprefix("check-"))
    expect(check.get_by_test_id("check-status")).to_have_text("succeeded", timeout=120_000)
    # the lab's own paths and ports are never tried on the new binary; the server's account plugin is kept
    expect(check.get_by_test_id("check-headline")).to_contain_text("not tried")
    expect(check.get_by_test_id("finding-port")).to_contain_text("network exposure")
    expect(check.get_by_test_id("account-finding-mysql_native_password")).to_contain_text("available")

    # the team's settings for a replay on 10.11 vs 11.8: 11.8's from that check, the port dropped
    page.get_by_test_id("team-new-target").select_option("mariadb-11.8")
    new = page.get_by_test_id("team-settings-mariadb-11.8")
    expect(new).to_contain_text(f"refusals from check #{check_id} dropped")
    new.get_by_test_id("team-dropped").locator("summary").click()
    expect(new.get_by_test_id("team-dropped")).to_contain_text("network exposure")
    expect(page.get_by_test_id("team-settings-mariadb-10.11")).to_contain_text("no check of this capture")

    # the target page lists it
    page.goto(f"/targets/{TARGET}")
    expect(page.get_by_test_id("capture-row").filter(has_text=f"#{capture_id}")).to_contain_text("succeeded")

    with httpx.Client(base_url=api, headers=auth_headers(), timeout=httpx.Timeout(30, read=30)) as client:
        with client.stream("GET", f"/api/captures/{capture_id}/events") as response:
            assert response.status_code == 200
            received = list(events(response))
        unknown = client.get("/api/captures/999999/events")
    assert [e.event for e in received] == ["snapshot"]
    assert received[0].json()["status"] == "succeeded"
    assert unknown.status_code == 404
