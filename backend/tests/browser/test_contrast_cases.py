"""The template pages of articles 000, 003 and 004: the article's own within-version ratio beside the
latest real run's contrast of the same name (ratio and interval), and the run page's contrasts."""

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.workloads.helpers import run_experiment

SMALL_RUNS = {
    "count-star": (
        {"rows": 40, "tables": ["test_short", "test_long"], "buffer_pool_size": "32M"}, "cold_first", 6,
    ),
    "parallel-read": ({"log2_rows": 12, "threads": [1, 2], "buffer_pool_size": "64M"}, "warm", 4),
    "lock-waits": ({"threads": 2, "rows": 5, "transactions": 5}, "warm", 2),
}  # fmt: skip
# a contrast each article states, and its ratio as the page prints it
ARTICLE = {
    "count-star": ("test_long first / later", "219.09x"),  # 72.30 s / 0.33 s
    "parallel-read": ("threads=2 / threads=1", "0.59x"),  # 19.65 s / 33.07 s
    "lock-waits": ("monitor=on / monitor=off", "16.30x"),  # 468.702 s / 28.763 s
}


@pytest.mark.timeout(600)
@pytest.mark.parametrize("slug", sorted(SMALL_RUNS))
def test_template_page_sets_the_articles_ratio_beside_the_measured_one(
    page: Page, client: httpx.Client, slug: str
) -> None:
    parameters, policy, iterations = SMALL_RUNS[slug]
    body = {
        "workload": slug, "parameters": parameters, "policy": policy, "iterations": iterations,
        "rounds": 2, "variants": [{"target": "mysql-9.7"}],
    }  # fmt: skip
    result = run_experiment(client, body, timeout_s=500)
    assert result["run"]["status"] == "succeeded", result["run"]["error"]
    name, article = ARTICLE[slug]
    page.goto(f"/workloads/{slug}")
    cases = page.get_by_test_id("contrast-cases")
    expect(cases).to_contain_text(f"#{result['run']['id']}")
    row = cases.get_by_test_id("contrast-case").filter(has_text=name).first
    expect(row.get_by_test_id("article-contrast")).to_contain_text(article)
    measured = row.get_by_test_id("measured-contrast")
    expect(measured).to_have_text(
        re.compile(r"^\d+\.\d{2}x \[\d+\.\d{2}, \d+\.\d{2}\] mysql-9\.7 default, 2 rounds")
    )
    # the run page draws the same contrasts: a table row per contrast and the chart
    page.goto(f"/runs/{result['run']['id']}")
    contrasts = page.get_by_test_id("run-contrasts")
    expect(contrasts.get_by_test_id("contrast-row").filter(has_text=name)).to_have_count(1)
    expect(contrasts.locator(".recharts-surface").first).to_be_visible()
