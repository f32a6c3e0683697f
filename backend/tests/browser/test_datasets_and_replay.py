"""A team uploads its dump from the browser (with a progress bar), replays its queries on MariaDB
10.11 and 11.8 and reads the report: the plan change is there with both plans, a search finds a
statement, the opened row shows where its time went by stage on both servers, and a share link opens
the report without signing in. A replay stuck in a long statement is cancelled from its page."""

import re
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.conftest import STATE, auth_headers
from tests.datasets.conftest import shop_dump

__all__ = ["shop_dump"]  # the fixture, made on its own MariaDB 10.11 (tests/datasets/shop.py)

QUERIES = """SELECT c.region, SUM(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id
  WHERE c.created > '2024-01-01' GROUP BY c.region ORDER BY c.region;
SELECT COUNT(*) FROM orders WHERE amount > 900;
DELETE FROM orders WHERE id = 1;
"""


def test_upload_a_dump_replay_and_read_the_plan_change(
    page: Page, browser: Browser, api: str, shop_dump: Path
) -> None:
    page.goto("/datasets")
    form = page.get_by_test_id("dataset-upload")
    form.locator("input[name=dataset-name]").fill("browser-shop")
    form.locator("input[name=dataset-file]").set_input_files(str(shop_dump))
    form.get_by_role("button", name="Upload").click()
    expect(page.get_by_test_id("dataset-browser-shop")).to_contain_text("MB", timeout=60_000)

    queries = STATE / "browser-queries.sql"
    queries.write_text(QUERIES)
    page.goto("/replays")
    replay = page.get_by_test_id("new-replay")
    replay.locator("select[name=dataset]").select_option("browser-shop")
    replay.locator("input[name=queries-file]").set_input_files(str(queries))
    rows = replay.get_by_test_id("variant-row")  # the run form's variant rows, the first the baseline
    rows.nth(0).get_by_test_id("variant-target").select_option("mariadb-10.11")
    replay.get_by_test_id("add-variant").click()
    rows.nth(1).get_by_test_id("variant-target").select_option("mariadb-11.8")
    rows.nth(1).get_by_test_id("variant-set-session").fill("div_precision_increment=6")
    replay.locator("input[name=rounds]").fill("5")
    replay.locator("input[name=passes]").fill("1")
    replay.get_by_role("button", name="Replay").click()

    page.wait_for_url(re.compile(r"/replays/\d+$"))
    expect(page.get_by_test_id("replay-status")).to_have_text("succeeded", timeout=300_000)
    expect(page.get_by_test_id("skipped-writes")).to_contain_text("1 writes skipped")
    expect(page.get_by_test_id("variant-settings")).to_have_text(
        "mariadb-11.8: SET SESSION div_precision_increment=6"
    )
    expect(page.get_by_test_id("summary-mariadb-11.8")).to_be_visible()  # the summary on top
    page.locator("input[name=search]").fill("c.region")
    rows = page.locator("[data-testid=fingerprints] tbody tr[data-group]")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("select c.region")
    # "plan changed", or "slower, plan changed" / "faster, plan changed" when the rounds decide it
    expect(rows.first).to_have_attribute("data-group", re.compile(r"plan changed$"))
    rows.first.locator("button[aria-expanded]").click()  # the row's detail toggle
    detail = page.locator("tr.statement-detail")
    expect(detail).to_contain_text("mariadb-11.8: plan changed")
    expect(detail.locator("table.plan")).to_have_count(2)  # both plans, side by side
    stages = page.locator("table[data-testid^=stages-]")  # where its time went, on both servers (issue 46)
    expect(stages).to_contain_text("time by stage per execution")
    expect(stages).to_contain_text("mariadb-11.8 (")
    expect(stages).to_contain_text("sending data")
    expect(page.get_by_test_id("replay-stages")).to_contain_text("Time by stage per execution")
    page.get_by_role("button", name=re.compile(r"^all")).click()
    page.locator("input[name=search]").fill("amount > ?")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("count(*) from orders")

    page.get_by_role("button", name="Share").click()
    link = page.get_by_test_id("replay-share-link").get_attribute("href")
    assert link and link.startswith("/share/")
    anonymous = browser.new_context(base_url=api)  # no session cookie
    shared = anonymous.new_page()
    shared.goto(link)
    expect(shared.get_by_test_id("summary-mariadb-11.8")).to_contain_text("mariadb-11.8")
    expect(shared.get_by_test_id("fingerprints").locator("tr[data-group$='plan changed']")).to_have_count(1)
    anonymous.close()

    page.goto("/datasets")
    page.get_by_test_id("dataset-browser-shop").get_by_role("button", name=re.compile("browser-shop")).click()
    expect(page.get_by_test_id("dataset-load-mariadb-11.8")).to_contain_text("orders")


def test_cancel_a_running_replay_from_its_page(page: Page, api: str) -> None:
    """The Cancel button ends a replay stuck in a long statement within seconds; its page then shows
    the partial report of what it measured, with the write the server refused apart."""
    headers = auth_headers()
    dump = (
        b"CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1);\nDELIMITER ;;\n"
        b"CREATE FUNCTION f() RETURNS INT DETERMINISTIC MODIFIES SQL DATA\n"
        b"BEGIN INSERT INTO t VALUES (2); RETURN 1; END ;;\nDELIMITER ;\n"
    )
    assert httpx.put(f"{api}/api/datasets/cancel-me", content=dump, headers=headers).status_code == 201
    try:
        # 0 s when captured and in the warm-up pass (its first two runs on the connection), 100 s in rounds
        sleeper = "SELECT SLEEP(IF((@runs := COALESCE(@runs, 0) + 1) > 2, 100, 0))"
        queries = f"SELECT id FROM t;\nSELECT f();\n{sleeper};\n"
        body = {"dataset": "cancel-me", "queries": queries, "variants": ["mariadb-10.11"], "rounds": 2,
                "passes": 1, "statement_timeout_s": 120}  # fmt: skip
        replay = httpx.post(f"{api}/api/replays", json=body, headers=headers).json()
        page.goto(f"/replays/{replay['id']}")
        expect(page.get_by_test_id("replay-progress")).to_contain_text("round 1 of 2", timeout=120_000)
        page.get_by_test_id("replay-cancel").click()
        expect(page.get_by_test_id("replay-status")).to_have_text("cancelled", timeout=15_000)
        expect(page.get_by_test_id("replay-cancel")).to_have_count(0)
        expect(page.get_by_test_id("replay-partial")).to_contain_text("3 statements captured")
        expect(page.locator("[data-testid=fingerprints] tbody tr[data-group]")).to_have_count(3)
        page.get_by_test_id("group-refused").click()
        refused = page.locator("[data-testid=fingerprints] tbody tr[data-group]")
        expect(refused).to_have_count(1)
        refused.first.locator("button[aria-expanded]").click()
        note = page.get_by_test_id(
            "outcome-note"
        )  # the kind as the report says it, the server's words beside
        expect(note).to_contain_text("refused: writes in a read-only replay")
        expect(note).to_contain_text("ERROR 1792")
    finally:
        httpx.delete(f"{api}/api/datasets/cancel-me", headers=headers)
