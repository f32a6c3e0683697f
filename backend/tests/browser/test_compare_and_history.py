"""The lab's MySQL 9.7 default against redo-off: ratio with interval and a verdict, on the run page and
the compare page; the runs list finds a run by its notes."""

import re

import httpx
from playwright.sync_api import Page, expect

from tests.runs.helpers import submit, wait_final

RATIO = re.compile(r"^\d+\.\d{2}x \[\d+\.\d{2}, \d+\.\d{2}\]$")  # components/Ratio.tsx
VERDICT = re.compile(r"^(regression|improvement|no significant difference|inconclusive|insufficient rounds)$")


def test_default_against_redo_off_shows_ratio_interval_and_verdict(page: Page, client: httpx.Client) -> None:
    run_id = submit(client, [{"target": "mysql-9.7"}, {"target": "mysql-9.7", "preset": "redo-off"}], 10)
    assert wait_final(client, run_id)["status"] == "succeeded"
    page.goto(f"/runs/{run_id}")
    verdicts = page.get_by_test_id("run-verdicts")
    rows = verdicts.get_by_test_id("comparison-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(1)).to_contain_text("mysql-9.7 redo-off")
    expect(rows.nth(1).get_by_test_id("ratio")).to_have_text(RATIO)
    expect(rows.nth(1).get_by_test_id("verdict")).to_have_text(VERDICT)

    page.goto(f"/compare?runs={run_id}")
    rows = page.get_by_test_id("comparison-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(1).get_by_test_id("ratio")).to_have_text(RATIO)
    page.get_by_test_id("warmup-input").fill("2")
    expect(page.get_by_test_id("comparison-note")).to_contain_text("Computed for these settings")
    expect(rows.nth(0).locator("td").nth(2)).to_have_text("8")  # variant, metric, iterations
    with page.expect_download() as download:
        page.get_by_test_id("chart-png").click()
    assert download.value.suggested_filename == f"compare-{run_id}.png"


def test_runs_list_filters_by_free_text_in_notes_and_compares_the_ticked_run(
    page: Page, client: httpx.Client
) -> None:
    run_id = submit(client, [{"target": "mariadb-10.11"}], iterations=1)
    wait_final(client, run_id)
    client.patch(f"/api/runs/{run_id}", json={"notes": "zebra-crossing upgrade rehearsal"})
    page.goto("/runs")
    page.get_by_test_id("filter-q").fill("zebra-crossing")
    page.get_by_test_id("filter-apply").click()
    expect(page.get_by_test_id("run-row")).to_have_count(1)
    expect(page.get_by_test_id("run-row")).to_have_attribute("data-run-id", str(run_id))
    expect(page).to_have_url(re.compile(r"q=zebra-crossing"))
    page.get_by_test_id("run-select").check()
    page.get_by_test_id("compare-selected").click()
    expect(page).to_have_url(re.compile(rf"/compare\?runs={run_id}$"))
    expect(page.get_by_test_id("comparison-row")).to_have_count(1)
