"""A user submits the experiment form and watches the chart fill in from a real run."""

import re
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect

from tests.runs.helpers import wait_final


def test_form_submits_a_run_and_the_chart_gets_points_while_it_runs(page: Page) -> None:
    page.goto("/new")
    page.get_by_test_id("experiment-name").fill("browser: default vs redo-off")
    page.get_by_test_id("iterations-input").fill("20")
    rows = page.get_by_test_id("variant-row")
    expect(rows).to_have_count(2)
    rows.nth(0).get_by_test_id("variant-target").select_option("mysql-9.7")
    rows.nth(0).get_by_test_id("variant-preset").select_option("default")
    rows.nth(1).get_by_test_id("variant-target").select_option("mysql-9.7")
    rows.nth(1).get_by_test_id("variant-preset").select_option("redo-off")
    page.get_by_test_id("add-variant").click()
    expect(rows).to_have_count(3)
    rows.nth(2).get_by_test_id("variant-target").select_option("mariadb-10.11")
    rows.nth(2).get_by_test_id("variant-preset").select_option("default")
    page.get_by_test_id("run-submit").click()

    page.wait_for_url(re.compile(r"/runs/\d+$"))
    chart = page.get_by_test_id("iteration-chart")
    status = page.get_by_test_id("run-status")
    # Points arrive while the run is still running: the chart is live, not drawn at the end.
    page.wait_for_function(
        """() => {
            const chart = document.querySelector('[data-testid="iteration-chart"]');
            const status = document.querySelector('[data-testid="run-status"]');
            return chart && Number(chart.getAttribute('data-points')) > 0 && status.textContent === 'running';
        }""",
        timeout=120_000,
    )
    expect(status).to_have_text("succeeded", timeout=300_000)
    expect(chart).to_have_attribute("data-points", "60")
    summary = page.get_by_test_id("summary-row")
    expect(summary).to_have_count(3)
    expect(summary.nth(1)).to_contain_text("mysql-9.7 redo-off")
    expect(summary.nth(2)).to_contain_text("mariadb-10.11 default")
    assert page.locator("[data-testid=iteration-chart] .recharts-line").count() == 3
    expect(page.get_by_test_id("statement-table")).to_contain_text("TRUNCATE test5")

    page.goto("/runs")
    expect(page.get_by_test_id("runs-table")).to_contain_text("browser: default vs redo-off")


def test_form_shows_the_servers_refusal_and_keeps_the_input(page: Page) -> None:
    page.goto("/new")
    page.get_by_test_id("experiment-name").fill("kept")
    rows = page.get_by_test_id("variant-row")
    rows.nth(0).get_by_test_id("variant-target").select_option("mariadb-10.11")
    rows.nth(0).get_by_test_id("variant-preset").select_option("redo-off")
    page.get_by_test_id("run-submit").click()
    expect(page.get_by_test_id("form-error")).to_contain_text("variants.0.preset")
    expect(page.get_by_test_id("form-error")).to_contain_text("not supported by mariadb")
    expect(page.get_by_test_id("experiment-name")).to_have_value("kept")
    expect(rows.nth(0).get_by_test_id("variant-preset")).to_have_value("redo-off")


def test_form_sends_the_schedule_rounds_block_aa_control_and_extension(
    page: Page, client: httpx.Client
) -> None:
    page.goto("/new")
    page.get_by_test_id("schedule-select").select_option("sequential")
    expect(page.get_by_test_id("rounds-input")).to_have_count(0)  # rounds belong to interleaved runs
    page.get_by_test_id("schedule-select").select_option("interleaved")
    page.get_by_test_id("rounds-input").fill("5")
    page.get_by_test_id("block-input").fill("2")
    page.get_by_test_id("aa-control").check()
    page.get_by_test_id("max-rounds-input").fill("4")  # fewer than the rounds: refused in the form
    page.get_by_test_id("run-submit").click()
    expect(page.get_by_test_id("form-error")).to_contain_text("max_rounds: must be at least the rounds (5)")
    page.get_by_test_id("max-rounds-input").fill("15")
    page.get_by_test_id("max-minutes-input").fill("2.5")
    rows = page.get_by_test_id("variant-row")
    rows.nth(0).get_by_test_id("variant-target").select_option("mariadb-10.11")
    rows.nth(0).get_by_test_id("variant-preset").select_option("default")
    rows.nth(1).get_by_test_id("variant-target").select_option("mariadb-10.11")
    rows.nth(1).get_by_test_id("variant-preset").select_option("skip-log-bin")
    page.get_by_test_id("run-submit").click()

    page.wait_for_url(re.compile(r"/runs/\d+$"))
    run_id = int(page.url.rsplit("/", 1)[1])
    run = client.get(f"/api/runs/{run_id}").json()
    experiment = client.get(f"/api/experiments/{run['experiment_id']}").json()
    assert (experiment["schedule"], experiment["rounds"], experiment["block"]) == ("interleaved", 5, 2)
    assert experiment["aa_control"] is True and experiment["iterations"] == 10
    assert (experiment["max_rounds"], experiment["max_minutes"]) == (15, 2.5)
    assert [v["name"] for v in experiment["variants"]][-1] == "mariadb-10.11 default (A/A)"
    client.post(f"/api/runs/{run_id}/cancel")
    wait_final(client, run_id)


def test_the_schedule_select_shows_its_whole_choice_and_the_intro_says_what_it_does(
    page: Page, tmp_path: Path
) -> None:
    page.goto("/new")
    select = page.get_by_test_id("schedule-select")
    expect(select).to_have_value("interleaved")
    # the chosen option's text as the select draws it, against the room its box leaves beside the arrow
    room = select.evaluate(
        """(e) => {
          const style = getComputedStyle(e)
          const pen = document.createElement('canvas').getContext('2d')
          pen.font = style.font
          const text = pen.measureText(e.options[e.selectedIndex].text).width
          const inside = e.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
          return { text, inside }
        }"""
    )
    page.screenshot(path=str(tmp_path / "new-run-form.png"), full_page=True)  # to look at when it fails
    assert room["inside"] >= room["text"] + 16, room  # ~16 px: the drop-down arrow
    intro = page.get_by_test_id("new-run-intro")
    expect(intro).to_contain_text("interleaved")
    expect(intro).not_to_contain_text("one after the other")
