"""The assessment's report page in a real browser (issue 49, Deliver 2 and 7): signed in, its first
screen (1,280 x 800) shows the version's verdict line and its to-do list's items, in order, each
with its action and evidence link, the page no wider than the window; below, each area's evidence
with its count. Its share link (made on the page) opens the same report signed out, read-only. The
report is the builder's from constructed children (tests/assessment/children.py): this test is the
page's, the real-server assessment is tests/assessment/test_assessment_on_servers.py's. The form
that starts one (a target's page) sends its fix tolerance, and names it when out of bounds (its
POST answered by the test: no assessment runs)."""

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.assessment.children import NEW, capture, fix_search, planted_check, planted_replay
from upgradelab.assessment.models import Assessment
from upgradelab.assessment.report import VersionEvidence, build_report
from upgradelab.assessment.schemas import AssessmentChildren, VersionChildren
from upgradelab.db import sync_session
from upgradelab.execution.status import JobStatus


@pytest.fixture(scope="module")
def assessment_id(api: str) -> Iterator[int]:
    """A succeeded assessment whose report has an item in every area but "not evaluated"."""
    searches = [fix_search(11, "c" * 32, "restored", "SELECT /*+ INDEX(orders day) */ ...")]
    evidence = VersionEvidence(NEW, check=planted_check(), replay=planted_replay(), fix_searches=searches)
    report = build_report(capture(), [evidence])
    children = AssessmentChildren(
        capture_id=3, versions=[VersionChildren(version=NEW, check_id=5, replay_id=7, fix_search_ids=[11])]
    )
    with sync_session() as session:
        row = Assessment(
            target="team", versions=[NEW], baseline="mariadb-10.11", status=JobStatus.succeeded,
            children=children, report=report,
        )  # fmt: skip
        session.add(row)
        session.commit()
        yield row.id
        session.delete(row)
        session.commit()


def test_the_first_screen_says_the_verdict_and_the_todo_list_in_order(page: Page, assessment_id: int) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"/assessments/{assessment_id}")
    verdict = page.get_by_test_id("assessment-verdict")
    expect(verdict).to_have_text(
        re.compile(r"^mariadb-11\.8: 3 blockers, 2 changes of results, 2 queries slower")
    )
    items = page.get_by_test_id("todo-item")
    expect(items).to_have_count(8)
    areas = [items.nth(n).get_attribute("data-area") for n in range(8)]
    assert areas == ["does_not_start", "locks_out", "does_not_load", "changes_results", "changes_results",
                     "slower", "slower", "changes_behaviour"]  # fmt: skip
    first = items.nth(0)
    expect(first).to_contain_text("Will not start: option innodb_file_format=Barracuda")
    expect(first.get_by_test_id("todo-action")).to_contain_text("remove `innodb_file_format=Barracuda`")
    expect(first.get_by_test_id("todo-evidence")).to_have_attribute("href", "/captures/3#check-5")
    for n in (0, 7):  # the first and the last item on the first screen
        box = items.nth(n).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 800, (n, box)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280, width
    expect(page.get_by_text("Slower (2)")).to_be_visible()
    expect(page.get_by_test_id("assessment-pdf")).to_have_attribute(
        "href", f"/api/assessments/{assessment_id}/report.pdf"
    )


def test_its_share_link_opens_the_report_signed_out(
    page: Page, browser: Browser, api: str, assessment_id: int
) -> None:
    page.goto(f"/assessments/{assessment_id}")
    page.get_by_test_id("assessment-share-button").click()
    link = page.get_by_test_id("assessment-share")
    expect(link).to_have_attribute("href", re.compile(r"/share/assessments/[A-Za-z0-9_-]{32}$"))
    href = link.get_attribute("href") or ""
    stranger = browser.new_context(base_url=api, viewport={"width": 1280, "height": 800})  # no cookie
    try:
        shared = stranger.new_page()
        shared.goto(href[href.index("/share/") :])
        expect(shared.get_by_test_id("share-page")).to_contain_text("Shared read-only view")
        expect(shared.get_by_test_id("assessment-verdict")).to_contain_text("mariadb-11.8: 3 blockers")
        expect(shared.get_by_test_id("todo-item")).to_have_count(8)
        expect(shared.get_by_test_id("assessment-cancel")).to_have_count(0)
        expect(shared.get_by_test_id("assessment-share-button")).to_have_count(0)
    finally:
        stranger.close()


def test_the_form_sends_its_fix_tolerance_and_names_it_out_of_bounds(page: Page, assessment_id: int) -> None:
    sent: list[Any] = []

    def answer(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        sent.append(route.request.post_data_json)
        route.fulfill(status=201, json={"id": assessment_id})

    page.route("**/api/assessments", answer)
    page.goto("/targets/mariadb-10.11")
    page.get_by_test_id("assess-button").click()
    form = page.get_by_test_id("assess-form")
    form.locator("[name=assess-versions]").fill("mariadb-11.8")
    tolerance = form.locator("[name=assess-fix-tolerance]")
    expect(tolerance).to_have_value("10")
    tolerance.fill("150")
    expect(page.get_by_test_id("assess-fix-tolerance-error")).to_have_text(
        "Fix tolerance (%) must be between 1 and 100 (per cent of the old version's time)"
    )
    expect(page.get_by_test_id("assess-start")).to_be_disabled()
    tolerance.fill("25")
    expect(page.get_by_test_id("assess-fix-tolerance-error")).to_have_count(0)
    page.get_by_test_id("assess-start").click()
    page.wait_for_url(re.compile(rf"/assessments/{assessment_id}$"))
    assert sent == [
        {"target": "mariadb-10.11", "versions": ["mariadb-11.8"], "baseline": None, "budget_min": 60,
         "fix_tolerance": 0.25}
    ]  # fmt: skip
