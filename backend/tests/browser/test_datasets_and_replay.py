"""A team uploads its dump from the browser (with a progress bar), replays its queries on MariaDB
10.11 and 11.8 and reads the report: the plan change is there with both plans, a search finds a
statement, and a share link opens the report without signing in."""

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.conftest import STATE
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
    replay.locator("input[name=variant-mariadb-10\\.11]").check()
    replay.locator("input[name=variant-mariadb-11\\.8]").check()
    replay.locator("input[name=rounds]").fill("5")
    replay.locator("input[name=passes]").fill("1")
    replay.get_by_role("button", name="Replay").click()

    page.wait_for_url(re.compile(r"/replays/\d+$"))
    expect(page.get_by_test_id("replay-status")).to_have_text("succeeded", timeout=300_000)
    expect(page.get_by_test_id("skipped-writes")).to_contain_text("1 writes skipped")
    page.get_by_test_id("group-plan changes").click()
    rows = page.locator("[data-testid=fingerprints] tbody tr[data-group]")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("select c.region")
    rows.first.get_by_role("button").click()
    detail = page.locator("tr.statement-detail")
    expect(detail).to_contain_text("mariadb-11.8: plan changed")
    expect(detail.locator("table.plan")).to_have_count(2)  # both plans, side by side
    page.get_by_role("button", name=re.compile(r"^all")).click()
    page.locator("input[name=search]").fill("amount > ?")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("count (*) from orders")

    page.get_by_role("button", name="Share").click()
    link = page.get_by_test_id("replay-share-link").get_attribute("href")
    assert link and link.startswith("/share/")
    anonymous = browser.new_context(base_url=api)  # no session cookie
    shared = anonymous.new_page()
    shared.goto(link)
    expect(shared.get_by_test_id("group-plan changes")).to_contain_text("plan changes (1)")
    anonymous.close()

    page.goto("/datasets")
    page.get_by_test_id("dataset-browser-shop").get_by_role("button", name=re.compile("browser-shop")).click()
    expect(page.get_by_test_id("dataset-load-mariadb-11.8")).to_contain_text("orders")
