"""The template page compares like with like: the article's ratio per case beside the latest run's."""

import re

import httpx
from playwright.sync_api import Page, expect

from tests.runs.helpers import submit, wait_final


def test_article_001_cases_show_the_articles_ratio_beside_the_measured_one(
    page: Page, client: httpx.Client
) -> None:
    variants = [
        {"target": "mysql-9.7", "preset": "default"},
        {"target": "mysql-9.7", "preset": "skip-log-bin"},
        {"target": "mariadb-10.11", "preset": "default"},
    ]
    run_id = submit(client, variants, iterations=3, name="like with like")
    assert wait_final(client, run_id)["status"] == "succeeded"
    page.goto("/workloads/insert-truncate")
    ratios = page.get_by_test_id("article-ratios")
    expect(ratios).to_contain_text("of mysql-9.7 default")
    skip = page.get_by_test_id("article-case-8.0 skip-log-bin")
    expect(skip).to_contain_text("0.85x")  # the article: 6.71 s / 7.93 s
    expect(skip.get_by_test_id("measured-ratio")).to_contain_text("mysql-9.7 skip-log-bin")
    expect(skip.get_by_test_id("measured-ratio")).to_have_text(re.compile(r"^\d+\.\d\dx"))
    other = page.get_by_test_id("article-case-5.7").get_by_test_id("measured-ratio")
    expect(other).to_contain_text("mariadb-10.11 default")
    redo = page.get_by_test_id("article-case-8.0 redo off").get_by_test_id("measured-ratio")
    expect(redo).to_have_text("not in the latest run")
