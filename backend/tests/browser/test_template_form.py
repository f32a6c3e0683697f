"""A user picks a template, fills its parameter fields (rendered from the JSON schema) and sees the
sweep charts, then the template page with the article's figures beside the measured ones."""

import re
import secrets

import httpx
from playwright.sync_api import Page, expect

from tests.conftest import auth_headers


def test_sysbench_sweep_from_the_form_charts_tps_and_latency_by_threads(page: Page) -> None:
    page.goto("/new")
    page.get_by_test_id("workload-select").select_option("charset-oltp")
    expect(page.get_by_test_id("param-threads")).to_have_value("1, 2, 4, 8, 16")
    page.get_by_test_id("param-script").select_option("oltp_point_select")
    page.get_by_test_id("param-tables").fill("1")
    page.get_by_test_id("param-table_size").fill("500")
    page.get_by_test_id("param-threads").fill("1, 2")
    page.get_by_test_id("param-duration_s").fill("1")
    page.get_by_test_id("iterations-input").fill("1")
    page.get_by_test_id("policy-select").select_option("warm")
    rows = page.get_by_test_id("variant-row")
    rows.nth(0).get_by_test_id("variant-target").select_option("mysql-9.7")
    rows.nth(1).get_by_test_id("variant-target").select_option("mysql-9.7")
    rows.nth(1).get_by_test_id("variant-preset").select_option("skip-log-bin")
    page.get_by_test_id("run-submit").click()

    page.wait_for_url(re.compile(r"/runs/\d+$"))
    expect(page.get_by_test_id("run-status")).to_have_text("succeeded", timeout=240_000)
    for metric in ("tps", "qps", "p50_ms", "p95_ms", "p99_ms"):
        expect(page.get_by_test_id(f"sweep-chart-{metric}")).to_have_attribute("data-points", "2")
    # a retrying assertion: a one-shot count once read 4 while the chart re-rendered on the final status
    expect(page.locator("[data-testid=sweep-chart-tps] .recharts-line")).to_have_count(2)
    expect(page.get_by_test_id("group-table")).to_contain_text("threads=2")

    page.goto("/workloads/charset-oltp")
    expect(page.get_by_test_id("article-setup")).to_contain_text("Xeon Gold 5120")
    expect(page.get_by_test_id("published-figures")).to_contain_text("8.0 utf8mb4_0900_ai_ci read_only tps")
    expect(page.get_by_test_id("measured-figures")).to_contain_text("mysql-9.7 skip-log-bin · threads=2")


def test_a_bad_parameter_is_shown_naming_the_field(page: Page) -> None:
    page.goto("/new")
    page.get_by_test_id("workload-select").select_option("count-star")
    expect(page.get_by_test_id("policy-select")).to_have_value("cold_first")
    page.get_by_test_id("param-rows").fill("3")
    page.get_by_test_id("run-submit").click()
    expect(page.get_by_test_id("form-error")).to_contain_text("parameters.rows")


def test_run_page_shows_dataset_preparation_progress(page: Page, api: str) -> None:
    # a row count no earlier run used: the servers' kept datadirs would otherwise reuse the dataset
    rows = 60_000 + secrets.randbelow(1_000)
    with httpx.Client(base_url=api, timeout=30, headers=auth_headers()) as client:
        body = {
            "workload": "count-star",
            "iterations": 1,
            "parameters": {"rows": rows, "tables": ["test_long"]},
            "variants": [{"target": "mariadb-10.11"}],
        }
        created = client.post("/api/experiments", json=body)
        assert created.status_code == 201, created.text
        run_id = client.post(f"/api/experiments/{created.json()['id']}/runs").json()["id"]
    page.goto(f"/runs/{run_id}")
    banner = page.get_by_test_id("preparing-banner")
    expect(banner).to_contain_text("Preparing dataset: test_long: INSERT ... SELECT doubling", timeout=60_000)
    expect(banner).to_contain_text(f"/ {rows:,} rows")
    expect(page.get_by_test_id("run-status")).to_have_text("succeeded", timeout=240_000)
    expect(banner).to_have_count(0)
