"""An assessment's evidence links open the row they name (issue 49): `/replays/N#fp-<fingerprint_id>`
and `/captures/N#check-M` (assessment/report.py's shapes). Opened in a real browser at 1,280 x 800,
the replay's page opens its fingerprint table (collapsed past 20 rows) when the named row is hidden,
opens that row's statements, scrolls it into the window and marks it; the capture's page scrolls to
the named check, the older one under a newer one, and marks it; nothing else is marked.

The replay is real: 24 statements of distinct fingerprints (one table each) on the session's
MariaDB 11.8 and a variant of it (one round: only its report is read). The capture is the capture
page test's, the size of a team's (600 variables, 127 statements), with a second check made after
the first."""

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.test_capture_page import _seeded
from tests.conftest import auth_headers
from tests.fixsearch.planted import planted_replay
from upgradelab.captures.models import CaptureCheck
from upgradelab.db import sync_session

DATASET = "evidence-anchors"
TARGET = "mariadb-11.8"
STATEMENTS = 24  # past the 20 rows the fingerprint table shows collapsed
ROWS = ", ".join(f"({n}, {n * 3})" for n in range(1, 41))
TABLES = [f"t_{chr(ord('a') + n)}" for n in range(STATEMENTS)]  # no digit: a fingerprint makes it `?`
DUMP = "".join(
    f"CREATE TABLE {table} (id INT PRIMARY KEY, k INT NOT NULL);\nINSERT INTO {table} VALUES {ROWS};\n"
    for table in TABLES
).encode()
# a table's name is part of a fingerprint (a literal is not): one fingerprint per statement
QUERIES = "".join(f"SELECT id, k FROM {table} WHERE id < 5;\n" for table in TABLES)
WIDTH, HEIGHT = 1280, 800


@pytest.fixture(scope="module")
def replay(api: str) -> Iterator[dict[str, Any]]:
    """A succeeded replay of QUERIES on TARGET and a variant of it, one round."""
    variants = [
        TARGET,
        {"target": TARGET, "name": "small sort buffer", "options": {"sort_buffer_size": "65536"}},
    ]
    with (
        httpx.Client(base_url=api, timeout=120, headers=auth_headers()) as http,
        planted_replay(http, DATASET, DUMP, QUERIES, variants) as found,
    ):
        yield found


def _in_window(page: Page, element: Locator) -> None:
    """`element` is marked and lies wholly inside the 1,280 x 800 window as the page is scrolled now
    (a pixel's fraction above its top allowed: the browser's own jump to a loaded page's hash puts the
    row's top there)."""
    expect(element).to_have_class(re.compile(r"\bhash-target\b"))
    box = element.bounding_box()  # relative to the window (the page's scroll taken off)
    assert box is not None and box["y"] > -1 and box["y"] + min(box["height"], HEIGHT) <= HEIGHT, box
    assert page.evaluate("window.scrollY") > 0  # it was scrolled to, not there already
    expect(page.locator(".hash-target")).to_have_count(1)


def test_a_fingerprint_link_opens_the_collapsed_table_at_its_row(page: Page, replay: dict[str, Any]) -> None:
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    fingerprints = {f["fingerprint_id"] for f in replay["report"]["fingerprints"]}
    assert len(fingerprints) == STATEMENTS, fingerprints
    page.goto(f"/replays/{replay['id']}")
    rows = page.locator("[data-testid=fingerprints] tbody tr[data-group]")
    expect(rows).to_have_count(20)  # collapsed: the named row must be one of those hidden
    shown = {(rows.nth(n).get_attribute("data-testid") or "").removeprefix("fingerprint-") for n in range(20)}
    hidden = sorted(fingerprints - shown)
    assert len(hidden) == STATEMENTS - 20, hidden

    for named, how in ((hidden[-1], "opened from another page"), (hidden[0], "followed on the page")):
        if how == "opened from another page":
            page.goto("/replays")
        page.goto(f"/replays/{replay['id']}#fp-{named}")  # from the same page: only the hash changes
        row = page.locator(f"#fp-{named}")
        expect(row).to_be_visible()
        expect(rows).to_have_count(STATEMENTS)  # the table opened
        expect(row.locator("button[aria-expanded=true]")).to_be_visible()  # and the row with its statements
        _in_window(page, row)


def test_a_check_link_scrolls_to_the_check_it_names(page: Page) -> None:
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    capture_id, older = _seeded()
    with sync_session() as session:  # a newer check of the same capture, listed first
        first = session.get_one(CaptureCheck, older)
        newer = CaptureCheck(
            capture_id=capture_id, target=first.target, status=first.status, server=first.server,
            findings=[], identifier_findings=[], sql_mode_findings=[], charset_findings=[],
            account_findings=first.account_findings, default_findings=first.default_findings,
            load_findings=first.load_findings,
        )  # fmt: skip
        session.add(newer)
        session.commit()
    page.goto(f"/captures/{capture_id}#check-{older}")
    checks = page.get_by_test_id("capture-check")
    expect(checks).to_have_count(2)
    assert checks.nth(1).get_attribute("id") == f"check-{older}"
    expect(checks.nth(1)).to_be_visible()
    page.wait_for_timeout(300)  # the check's own reads settle (its events, the targets)
    # a check's card is taller than the window: its top (headline, first findings) is what is shown
    box = checks.nth(1).bounding_box()
    assert box is not None and -1 < box["y"] < HEIGHT / 2, box
    expect(checks.nth(1)).to_have_class("card hash-target")
    assert page.evaluate("window.scrollY") > 0
    expect(page.locator(".hash-target")).to_have_count(1)
