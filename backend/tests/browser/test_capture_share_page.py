"""Issue 35 in a browser: an operator shares a capture and its check from the capture's page; the
links open read-only in a signed-out browser (the capture's settings; the check's findings by
severity and their CSV, with no cancel or share there), and once revoked on the page they stop at
once. The capture is an uploaded option file (no team server needed); its check runs on the lab's
MariaDB 11.8 binary (a scratch instance, seconds)."""

import re

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.captures.team import wait
from tests.conftest import auth_headers

MY_CNF = "[mysqld]\nmax_connections = 61\ninnodb_change_buffer_max_size = 30\ndatadir = /var/lib/mysql\n"
LINK = r"^https?://[^/]+/share/captures/{}[A-Za-z0-9_-]{{32}}$"


def test_a_capture_and_its_check_are_shared_read_only_until_revoked(
    browser: Browser, page: Page, api: str
) -> None:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        uploaded = client.post("/api/captures/my-cnf", json={"name": "shared-ui.cnf", "text": MY_CNF})
        assert uploaded.status_code == 201, uploaded.text
        capture_id = uploaded.json()["id"]
        created = client.post(f"/api/captures/{capture_id}/checks", json={"target": "mariadb-11.8"})
        assert created.status_code == 201, created.text
        check_id = created.json()["id"]
        assert wait(client, capture_id, f"/checks/{check_id}")["status"] == "succeeded"

    page.goto(f"/captures/{capture_id}")
    expect(page.get_by_test_id("capture-status")).to_have_text("succeeded")
    page.get_by_test_id("capture-share-create").click()
    capture_url = page.get_by_test_id("capture-share-url")
    expect(capture_url).to_have_value(re.compile(LINK.format("")))
    check = page.locator(f"#check-{check_id}")
    check.get_by_test_id("check-share-create").click()
    check_url = check.get_by_test_id("check-share-url")
    expect(check_url).to_have_value(re.compile(LINK.format("checks/")))
    capture_link, check_link = capture_url.input_value(), check_url.input_value()
    assert capture_link.rsplit("/", 1)[1] != check_link.rsplit("/", 1)[1]

    stranger = browser.new_context(base_url=api)  # no cookie: not signed in
    try:
        shared = stranger.new_page()
        assert shared.request.get(f"/api/captures/{capture_id}").status == 401
        shared.goto(capture_link)
        expect(shared.get_by_test_id("share-page")).to_contain_text("Shared read-only view")
        expect(shared.get_by_test_id("login-page")).to_have_count(0)
        expect(shared.get_by_role("heading", level=1)).to_have_text(f"Capture #{capture_id} of my.cnf")
        expect(shared.get_by_test_id("variable-max_connections")).to_contain_text("61")
        expect(shared.get_by_test_id("capture-share-create")).to_have_count(0)

        shared.goto(check_link)
        expect(shared.get_by_test_id("share-page")).to_contain_text("Shared read-only view")
        expect(shared.get_by_test_id("check-status")).to_have_text("succeeded")
        # the removed option first (the server would not start), in its own words; datadir not tried
        expect(shared.get_by_test_id("check-severity-does_not_start")).to_contain_text(
            "innodb-change-buffer-max-size"
        )
        expect(shared.get_by_test_id("finding-datadir")).to_contain_text("the lab sets datadir itself")
        expect(shared.get_by_test_id("check-cancel")).to_have_count(0)
        expect(shared.get_by_test_id("check-share-create")).to_have_count(0)
        table = shared.request.get(shared.get_by_test_id("check-csv").get_attribute("href") or "")
        assert table.status == 200 and "innodb-change-buffer-max-size=30" in table.text()

        # revoked on the page: each link stops at once, and the page offers a new one
        page.get_by_test_id("capture-share-revoke").click()
        expect(page.get_by_test_id("capture-share-create")).to_be_visible()
        check.get_by_test_id("check-share-revoke").click()
        expect(check.get_by_test_id("check-share-create")).to_be_visible()
        shared.goto(capture_link)
        expect(shared.get_by_test_id("share-error")).to_be_visible()
        shared.goto(check_link)
        expect(shared.get_by_test_id("share-error")).to_be_visible()
        assert shared.request.get(shared_csv(check_link)).status == 404
    finally:
        stranger.close()


def shared_csv(link: str) -> str:
    """The public CSV path of a check's share link (its token after /share/captures/checks/)."""
    return f"/api/public/captures/checks/{link.rsplit('/', 1)[1]}/findings.csv"
