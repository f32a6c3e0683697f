"""Issue 49 item 5: every job page opens with its answer. At 1,280 x 800, the capture, check, replay,
run, attribution and fix search pages each show their summary and first finding on the first screen
(long tables, the schedule's rounds and the variables after them, collapsed with their counts), and
none is wider than the window (`document.documentElement.scrollWidth` <= 1,280: a wide table scrolls
in its own box).

The data are the other browser tests' at their largest: a real replay on MariaDB 11.8 (with a
variant slowed on purpose) and a fix search of it with issue 46's longest texts; a capture the size
of a team's (600 variables, 127 statements) with a check of 2 statements that no longer load and 48
changed defaults; a finished attribution whose steps are synthetic runs; a run of 30 interleaved
rounds whose variants differ in 594 variables. Each page's figures are printed (the report's before
and after)."""

from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.browser.test_attribution_page import _finished_attribution
from tests.browser.test_capture_page import _seeded
from tests.browser.test_fix_search_page import _wide_search, replay
from tests.results.synthetic import SyntheticVariant, insert_run
from upgradelab.db import sync_session

__all__ = ["replay"]  # the fixture: a real replay on MariaDB 11.8 and a variant of it slowed
WIDTH, HEIGHT = 1280, 800
# the variables of the run page: 594 differing between its variants
VARIABLES = 594


def _run() -> int:
    """A succeeded run of 30 interleaved rounds, a variant 30 % slower and an A/A control, whose
    variants' instances differ in VARIABLES global variables."""
    differing = [{f"var_{n:03}": str(value + n) for n in range(VARIABLES)} for value in range(3)]
    variants = [
        SyntheticVariant("mysql-9.7 default", variables=differing[0]),
        SyntheticVariant("mysql-9.7 tuned", shift=1.3, variables=differing[1]),
        SyntheticVariant("mysql-9.7 default (A/A)", is_aa_control=True, variables=differing[2]),
    ]
    with sync_session() as session:
        return insert_run(session, variants, rounds=30, block=2, seed=49, own_noise=0.01)


def _measure(page: Page, path: str, ready: str, answers: list[str]) -> dict[str, Any]:
    """Open `path` at 1,280 x 800 and wait for `ready` (a selector) and the page's reads to settle:
    the bottom y (px from the top of the page) of the first element of each of `answers` (None when
    the page has none) and the page's scrollWidth."""
    page.goto(path)
    expect(page.locator(ready).first).to_be_visible()
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)  # charts draw once their container is measured
    bottoms: dict[str, float | None] = {}
    for selector in answers:
        found = page.locator(selector)
        box = found.first.bounding_box() if found.count() else None
        bottoms[selector] = None if box is None else box["y"] + box["height"]
    width = page.evaluate("document.documentElement.scrollWidth")
    return {"path": path, "bottoms": bottoms, "width": width}


def test_every_job_page_opens_with_its_answer_and_fits_1280_px(
    page: Page, client: httpx.Client, replay: dict[str, Any]
) -> None:
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    capture_id, check_id = _seeded()
    shared = client.post(f"/api/captures/{capture_id}/checks/{check_id}/share")
    assert shared.status_code == 200, shared.text
    search_id = _wide_search(replay["id"])
    attribution_id, _, _ = _finished_attribution()
    run_id = _run()
    first_finding = "[data-testid=capture-check] [data-testid=finding-action]"
    pages = {
        "capture": (f"/captures/{capture_id}", "[data-testid=check-headline]",
                    ["[data-testid=capture-summary]", "[data-testid=check-headline]", first_finding]),
        "check": (f"/share/captures/checks/{shared.json()['share_token']}", "[data-testid=check-headline]",
                  ["[data-testid=check-headline]", "[data-testid=finding-action]"]),
        "replay": (f"/replays/{replay['id']}", "[data-testid=fingerprints]",
                   ["[data-testid=replay-verdicts]", "[data-testid=fingerprints] tbody tr[data-group]"]),
        "run": (f"/runs/{run_id}", "[data-testid=comparison-row]",
                ["[data-testid=run-verdicts] [data-testid=verdict]"]),
        "attribution": (f"/attributions/{attribution_id}", "[data-testid=attribution-outcome]",
                        ["[data-testid=attribution-outcome]", "[data-testid=contribution]"]),
        "fix search": (f"/fixsearches/{search_id}", "[data-testid=fix-outcome]",
                       ["[data-testid=fix-outcome]"]),
    }  # fmt: skip
    measured = {name: _measure(page, path, ready, answers) for name, (path, ready, answers) in pages.items()}
    for name, one in measured.items():
        print(f"{name:12} scrollWidth {one['width']:5}  answers' bottoms (px): {one['bottoms']}")

    late = {
        name: {selector: y for selector, y in one["bottoms"].items() if y is None or y > HEIGHT}
        for name, one in measured.items()
    }
    assert not any(late.values()), f"answers not on the first {HEIGHT} px: {late}"
    wide = {name: one["width"] for name, one in measured.items() if one["width"] > WIDTH}
    assert not wide, f"pages wider than {WIDTH} px: {wide}"
    # the long lists come collapsed, each with its count
    page.goto(f"/runs/{run_id}")
    expect(page.get_by_test_id("schedule-more")).to_have_text("Show all 30 (20 shown)")
    expect(page.get_by_test_id("schedule-order").locator("li")).to_have_count(20)
    expect(page.get_by_test_id("variables-diff-more")).to_have_text(f"Show all {VARIABLES} (20 shown)")
    page.get_by_test_id("variables-diff-more").click()
    expect(page.get_by_test_id("variables-diff-row")).to_have_count(VARIABLES)
