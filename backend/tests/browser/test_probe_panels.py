"""A user sets SET GLOBAL/SESSION in the form and sees the probe charts fill in on the run page."""

import re

import httpx
from playwright.sync_api import Page, expect

from tests.conftest import auth_headers


def test_probe_charts_show_points_for_a_run_with_variant_settings(page: Page, api: str) -> None:
    page.goto("/new")
    page.get_by_test_id("experiment-name").fill("browser: probes")
    page.get_by_test_id("iterations-input").fill("6")
    rows = page.get_by_test_id("variant-row")
    rows.nth(0).get_by_test_id("variant-target").select_option("mysql-9.7")
    rows.nth(0).get_by_test_id("variant-preset").select_option("default")
    rows.nth(0).get_by_test_id("variant-set-global").fill("innodb_flush_log_at_trx_commit=2")
    rows.nth(0).get_by_test_id("variant-set-session").fill("unique_checks=OFF")
    rows.nth(1).get_by_test_id("variant-target").select_option("mariadb-10.11")
    rows.nth(1).get_by_test_id("variant-preset").select_option("default")
    rows.nth(1).get_by_test_id("variant-options").fill("performance_schema=OFF")
    page.get_by_test_id("run-submit").click()

    page.wait_for_url(re.compile(r"/runs/\d+$"))
    run_id = page.url.rsplit("/", 1)[1]
    expect(page.get_by_test_id("run-status")).to_have_text("succeeded", timeout=300_000)
    hit_rate = page.get_by_test_id("hit-rate-chart")
    times = page.get_by_test_id("server-client-chart")
    # mysql: 6 server + 6 client points; mariadb without performance_schema: 6 client points only
    expect(times).to_have_attribute("data-points", "18")
    expect(times).to_have_attribute("data-server-points", "6")
    assert int(hit_rate.get_attribute("data-points") or 0) > 0
    assert page.locator("[data-testid=hit-rate-chart] .recharts-line").count() == 2
    # each line drawn as one path from its columns; mariadb's server line is there with no point (its
    # Recharts sample, for the legend and tooltip, is empty, so Recharts draws 3 of the 4)
    assert page.locator("[data-testid=server-client-chart] .recharts-line").count() == 3
    paths = page.locator("[data-testid=server-client-chart] path.series-path")
    expect(paths).to_have_count(4)
    assert [paths.nth(k).get_attribute("d") == "" for k in range(4)].count(True) == 1
    expect(page.get_by_test_id("mutex-wait-row").first).to_be_visible()
    expect(page.get_by_test_id("probe-unavailable")).to_contain_text(
        "mariadb-10.11 default: mutex waits unavailable (performance_schema is OFF on this server)"
    )
    with httpx.Client(base_url=api, headers=auth_headers()) as client:
        run = client.get(f"/api/runs/{run_id}").json()
        experiment = client.get(f"/api/experiments/{run['experiment_id']}").json()
    assert experiment["variants"][0]["set_global"] == {"innodb_flush_log_at_trx_commit": "2"}
    assert experiment["variants"][0]["set_session"] == {"unique_checks": "OFF"}
