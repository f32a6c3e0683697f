"""Issue 24 in the browser: the Datasets page asks before deleting, saying how many replay reports
are kept; the deleted dataset is listed apart with its sha256; the replay page says the dataset is
gone and how to upload it again; the report's share link still opens without signing in."""

import hashlib
import time
from collections.abc import Callable
from typing import Any

import httpx
from playwright.sync_api import Browser, Dialog, Page, expect

NAME = "browser-kept"
DUMP = b"CREATE TABLE kept (id INT PRIMARY KEY, v INT);\nINSERT INTO kept VALUES (1, 10), (2, 20);\n"
SHA256 = hashlib.sha256(DUMP).hexdigest()


def _replayed(client: httpx.Client) -> dict[str, Any]:
    assert client.put(f"/api/datasets/{NAME}", content=DUMP).status_code == 201
    body = {"dataset": NAME, "queries": "SELECT SUM(v) FROM kept;", "variants": ["mariadb-10.11"]}
    created = client.post("/api/replays", json={**body, "rounds": 1, "passes": 1}).json()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        replay: dict[str, Any] = client.get(f"/api/replays/{created['id']}").json()
        if replay["status"] in ("succeeded", "failed"):
            assert replay["status"] == "succeeded", replay["error"]
            return replay
        time.sleep(0.5)
    raise TimeoutError("the replay did not end")


def test_delete_asks_first_and_the_shared_report_still_opens(
    page: Page, browser: Browser, api: str, client: httpx.Client
) -> None:
    replay = _replayed(client)
    link = client.post("/api/shares", json={"kind": "replay", "replay_id": replay["id"]}).json()
    questions: list[str] = []

    def answer(accept: bool) -> Callable[[Dialog], None]:
        def handle(dialog: Dialog) -> None:
            questions.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        return handle

    page.goto("/datasets")
    row = page.get_by_test_id(f"dataset-{NAME}")
    expect(page.get_by_test_id(f"dataset-reports-{NAME}")).to_have_text("1")
    page.once("dialog", answer(False))
    row.get_by_role("button", name="Delete").click()
    expect(row).to_be_visible()  # dismissed: nothing deleted
    assert "1 replay report measured on it is kept" in questions[0]
    assert client.get(f"/api/datasets/{NAME}").status_code == 200

    page.once("dialog", answer(True))
    row.get_by_role("button", name="Delete").click()
    expect(row).to_have_count(0)
    deleted = page.get_by_test_id("deleted-datasets")
    expect(deleted).to_contain_text(NAME)
    expect(deleted).to_contain_text(SHA256)

    page.goto(f"/replays/{replay['id']}")
    note = page.get_by_test_id("dataset-deleted")
    expect(note).to_contain_text(f"Dataset {NAME} was deleted")
    expect(note).to_contain_text(SHA256)
    expect(page.get_by_test_id("group-same")).to_contain_text("same (1)")

    anonymous = browser.new_context(base_url=api)  # no session cookie
    shared = anonymous.new_page()
    shared.goto(link["path"])
    expect(shared.get_by_test_id("group-same")).to_contain_text("same (1)")
    anonymous.close()
    # the copies on the target are removed by the worker meanwhile
    page.goto("/datasets")
    record = page.get_by_test_id("deleted-datasets").locator("tr", has_text=NAME)
    expect(record.locator("td").last).to_have_text("removed", timeout=120_000)  # not "being removed"
    expect(record).to_contain_text("by test-admin")
