"""The run page of an interleaved run with an A/A control (rows inserted, no server run): the rounds
chart, the verdict table with interval, A/A floor and smallest detectable change, the context panel
with the schedule and the variables diff, and the same for a charset-oltp run per thread count."""

import re

from playwright.sync_api import Locator, Page, Response, expect

from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session

RATIO = re.compile(r"^\d+\.\d{2}x \[\d+\.\d{2}, \d+\.\d{2}\]$")  # components/Ratio.tsx
# Twice in CI (2 cores shared with the other worker's servers) a verdict table had no rows after the
# default 5 s: the first wait on the API's answers gets longer, and says what the API answered.
LOADED_S = 30


def expect_rows(rows: Locator, count: int, answers: list[str]) -> None:
    """Wait up to LOADED_S for `count` rows; on failure, name the API answers the page got."""
    try:
        expect(rows).to_have_count(count, timeout=LOADED_S * 1000)
    except AssertionError as failed:
        raise AssertionError(f"{failed}\nAPI answers: {answers}") from failed


def api_answers(page: Page) -> list[str]:
    """'<status> <url>' of every /api/ response the page gets from now on."""
    answers: list[str] = []

    def seen(response: Response) -> None:
        if "/api/" in response.url:
            answers.append(f"{response.status} {response.url}")

    page.on("response", seen)
    return answers


def test_run_page_shows_rounds_verdicts_floor_and_context(page: Page) -> None:
    variants = [
        SyntheticVariant("mysql-9.7 default", variables={"innodb_redo_log_enabled": "ON"}),
        SyntheticVariant("mysql-9.7 redo-off", shift=0.7, variables={"innodb_redo_log_enabled": "OFF"}),
        SyntheticVariant(
            "mysql-9.7 default (A/A)", is_aa_control=True, variables={"innodb_redo_log_enabled": "ON"}
        ),
    ]
    with sync_session() as session:
        # own noise 1 %: the A/A interval fits inside the 5 % threshold (the trimmed interval is wide at 7)
        run_id = insert_run(session, variants, rounds=7, block=2, seed=21, own_noise=0.01)
    answers = api_answers(page)
    page.goto(f"/runs/{run_id}")
    verdicts = page.get_by_test_id("run-verdicts")
    rows = verdicts.get_by_test_id("comparison-row")
    expect_rows(rows, 3, answers)
    expect(verdicts.get_by_test_id("rounds-chart")).to_have_attribute("data-rounds", "7")
    # Recharts draws its lines once ResponsiveContainer has measured its width: wait for them
    expect(page.locator("[data-testid=rounds-chart] .recharts-line")).to_have_count(3)
    redo = rows.nth(1)
    expect(redo.get_by_test_id("ratio")).to_have_text(RATIO)
    expect(redo.get_by_test_id("verdict")).to_have_text("improvement")
    expect(redo.get_by_test_id("aa-floor")).to_have_text(RATIO)
    expect(redo.get_by_test_id("mde")).to_have_text(re.compile(r"^±\d+\.\d%$"))
    expect(rows.nth(2)).to_contain_text("(A/A control)")
    expect(rows.nth(2).get_by_test_id("verdict")).to_have_text("no significant difference")

    context = page.get_by_test_id("run-context")
    expect(context.get_by_test_id("context-variant")).to_have_count(3)
    expect(context.get_by_test_id("context-variant").first).to_contain_text("9.7.0")
    expect(context.get_by_test_id("schedule-order").locator("li")).to_have_count(7)
    expect(context.get_by_test_id("context-schedule")).to_contain_text("seed 21")
    diff = context.get_by_test_id("variables-diff-row")
    expect(diff).to_have_count(1)  # innodb_buffer_pool_size is the same in all three: not shown
    expect(diff.first).to_have_attribute("data-name", "innodb_redo_log_enabled")
    expect(diff.first).to_contain_text("OFF")


def test_charset_oltp_verdicts_are_per_thread_count_on_tps_and_p95(page: Page) -> None:
    variants = [SyntheticVariant("latin1"), SyntheticVariant("utf8mb4_general_ci", shift=614 / 459)]
    with sync_session() as session:
        run_id = insert_run(
            session, variants, rounds=5, workload="charset-oltp", groups=("threads=1", "threads=2"), seed=8
        )
    answers = api_answers(page)
    page.goto(f"/runs/{run_id}")
    rows = page.get_by_test_id("run-verdicts").get_by_test_id("comparison-row")
    expect_rows(rows, 8, answers)  # 2 variants x 2 thread counts x (tps, p95_ms)
    tps = page.locator(
        "[data-testid=comparison-row][data-key$=':1'][data-group='threads=2'][data-metric=tps]"
    )
    expect(tps.get_by_test_id("verdict")).to_have_text("regression")
    expect(tps).to_contain_text("higher is better")
    page.get_by_test_id("rounds-select").select_option("threads=2|tps")
    expect(page.get_by_test_id("rounds-chart")).to_contain_text("tps")
