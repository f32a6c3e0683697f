"""Issue 35 in a browser: an operator captures the lab's own MariaDB 10.11 from its target page and
lands on the capture's page, which follows the capture over its events until it succeeded and then
shows the configuration against the version's defaults (the lab's sandbox setting marked, an unset
one left default), the host facts, the accounts, the workload and its queries.sql; a check against
the lab's MariaDB 11.8 started there shows its findings by severity; the capture's events stream
(GET /api/captures/{id}/events) gives a finished capture its snapshot and ends. Issue 45: a capture
the size of a team's opens, at 1,280 x 800, with its check's findings and what to do about each, the
variables and statements below them collapsed past 20 rows."""

import re

import httpx
from playwright.sync_api import Page, expect

from tests.conftest import auth_headers
from tests.streaming.sse import events

TARGET = "mariadb-10.11"


def test_a_capture_started_from_the_target_page_shows_its_configuration(page: Page, api: str) -> None:
    page.goto(f"/targets/{TARGET}")
    page.get_by_test_id("capture-start").click()

    page.wait_for_url(re.compile(r"/captures/\d+$"))
    capture_id = int(page.url.rsplit("/", 1)[1])
    expect(page.get_by_test_id("capture-status")).to_have_text("succeeded", timeout=120_000)
    expect(page.get_by_test_id("capture-defaults-from")).to_contain_text("the same version")
    # shown by default: only what differs; the lab's sandbox writes local-infile=0 (default ON)
    expect(page.get_by_test_id("variable-local_infile")).to_contain_text("differs")
    expect(page.get_by_test_id("variable-max_connections")).to_have_count(0)
    page.get_by_test_id("configuration-shown").select_option("all")
    page.get_by_test_id("configuration-search").fill("max_connections")
    expect(page.get_by_test_id("variable-max_connections")).to_contain_text("151")
    expect(page.get_by_test_id("variable-max_connections")).to_contain_text("default")
    expect(page.get_by_test_id("capture-host")).to_contain_text("CPUs")
    expect(page.get_by_test_id("capture-account").first).to_be_visible()
    assert "authentication_string" not in page.content()
    href = page.get_by_test_id("capture-queries-sql").get_attribute("href")
    assert href == f"/api/captures/{capture_id}/queries.sql"
    expect(page.get_by_test_id("capture-cancel")).to_have_count(0)  # a finished capture cannot be
    # the lab's own server holds no database of a team's: the page says why there is no dataset
    expect(page.get_by_test_id("capture-dump-error")).to_contain_text("no database")

    page.get_by_test_id("check-target").select_option("mariadb-11.8")
    page.get_by_test_id("check-start").click()
    check = page.get_by_test_id("capture-check").first
    check_id = int((check.get_attribute("id") or "").removeprefix("check-"))
    expect(check.get_by_test_id("check-status")).to_have_text("succeeded", timeout=120_000)
    # the lab's own paths and ports are never tried on the new binary; the server's account plugin is kept
    expect(check.get_by_test_id("check-headline")).to_contain_text("not tried")
    expect(check.get_by_test_id("finding-port")).to_contain_text("network exposure")
    expect(check.get_by_test_id("account-finding-mysql_native_password")).to_contain_text("available")

    # the team's settings for a replay on 10.11 vs 11.8: 11.8's from that check, the port dropped
    page.get_by_test_id("team-new-target").select_option("mariadb-11.8")
    new = page.get_by_test_id("team-settings-mariadb-11.8")
    expect(new).to_contain_text(f"refusals from check #{check_id} dropped")
    new.get_by_test_id("team-dropped").locator("summary").click()
    expect(new.get_by_test_id("team-dropped")).to_contain_text("network exposure")
    expect(page.get_by_test_id("team-settings-mariadb-10.11")).to_contain_text("no check of this capture")

    # the target page lists it
    page.goto(f"/targets/{TARGET}")
    expect(page.get_by_test_id("capture-row").filter(has_text=f"#{capture_id}")).to_contain_text("succeeded")

    with httpx.Client(base_url=api, headers=auth_headers(), timeout=httpx.Timeout(30, read=30)) as client:
        with client.stream("GET", f"/api/captures/{capture_id}/events") as response:
            assert response.status_code == 200
            received = list(events(response))
        unknown = client.get("/api/captures/999999/events")
    assert [e.event for e in received] == ["snapshot"]
    assert received[0].json()["status"] == "succeeded"
    assert unknown.status_code == 404


def _seeded() -> tuple[int, int]:
    """A succeeded capture the size of the issue's (600 variables, 40 set; 127 statements; 9
    accounts) and a check of it with 2 statements that no longer load, an account locked out and 48
    changed defaults, stored as the runners store them: the page's layout, not the check, is tested."""
    from upgradelab.captures.configuration import Configuration, HostFacts, Variable
    from upgradelab.captures.digests import Digest, Workload
    from upgradelab.captures.models import Capture, CaptureCheck
    from upgradelab.db import sync_session
    from upgradelab.execution.status import JobStatus

    variables = [
        Variable(
            name=f"var_{i:03}",
            value=str(1 + (i < 40)),
            default="1",
            comparison="differs" if i < 40 else "default",
        )
        for i in range(600)
    ]
    host = HostFacts(hostname="staging", os=None, machine=None, buffer_pool_mib=128, cpus=2, cpus_from="-")
    config = Configuration(
        version="10.11.19-MariaDB", version_comment="", flavor="mariadb", defaults_from=None,
        variables=variables, host=host, differs=40,
    )  # fmt: skip
    timing = {"total_s": 1.0, "avg_s": 0.001, "max_s": 0.01, "p95_s": None, "p99_s": None}
    digests = [
        Digest(
            digest=f"{i:032x}",
            schema_name="shop",
            text=f"SELECT c{i} FROM shop.t WHERE id = {i}",
            text_source="history",
            digest_text=None,
            executions=400,
            weight=1 / 127,
            rows_sent=1,
            rows_examined=1,
            **timing,
        )
        for i in range(127)
    ]
    workload = Workload(digests=digests, executions=50_800, quantiles=False, samples=False, limit=1000)
    refused = {
        "kind": "sequence", "name": "shop.order_seq", "outcome": "no_longer_loads", "line": 32,
        "statement": "CREATE SEQUENCE order_seq", "words": "ERROR 1064: near 'SEQUENCE'",
        "action": "mysql-9.7 has no sequences: replace it",
    }  # fmt: skip
    quote = "quote `qualify` in these 2 places (lines 3, 4 of the statement) in procedure shop.best_score"
    body = {
        **refused,
        "kind": "procedure",
        "name": "shop.best_score",
        "outcome": "no_longer_parses",
        "action": quote,
    }
    changed = [
        {"name": f"var_{i:03}", "old_default": "1", "new_default": "2", "lab_host_value": "2"}
        | {"host_dependent": False, "affects": "performance"}
        for i in range(100, 148)
    ]
    locked = {
        "plugin": "mysql_native_password",
        "accounts": ["'u1'@'%'"],
        "outcome": "missing",
        "words": "gone",
    }
    with sync_session() as session:
        capture = Capture(
            target="staging", status=JobStatus.succeeded, flavor="mariadb", version=config.version,
            configuration=config.model_dump(mode="json"), workload=workload.model_dump(mode="json"),
            accounts=[{"user": f"u{i}", "host": "%", "plugin": "mysql_native_password"} for i in range(9)],
            identifiers=[],
        )  # fmt: skip
        session.add(capture)
        session.flush()
        check = CaptureCheck(
            capture_id=capture.id, target="mysql-9.7", status=JobStatus.succeeded, server="mysqld 9.7.4",
            findings=[], identifier_findings=[], sql_mode_findings=[], charset_findings=[],
            account_findings=[locked], default_findings=changed, load_findings=[refused, body],
        )  # fmt: skip
        session.add(check)
        session.commit()
        return capture.id, check.id


def test_the_capture_page_opens_with_its_checks_findings_and_long_tables_collapsed(page: Page) -> None:
    capture_id, check_id = _seeded()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"/captures/{capture_id}")
    check = page.get_by_test_id("capture-check").first
    expect(check.get_by_test_id("check-headline")).to_contain_text("Does not load: 2")
    # the first screen (1,280 x 800) shows the check's headline and its first findings with what to do
    first = check.get_by_test_id("check-severity-does_not_load").get_by_test_id("finding-action").first
    expect(first).to_contain_text("has no sequences")
    box = first.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800, box
    expect(check.get_by_test_id("check-csv")).to_have_attribute(
        "href", f"/api/captures/{capture_id}/checks/{check_id}/findings.csv"
    )
    # the variables and statements come after the checks, each collapsed past 20 rows with its count
    tops = [
        page.get_by_test_id(name).bounding_box()
        for name in ("capture-checks", "capture-configuration", "capture-workload")
    ]
    assert [one is not None for one in tops] == [True] * 3
    assert tops[0]["y"] < tops[1]["y"] < tops[2]["y"]  # type: ignore[index]
    expect(page.get_by_test_id("capture-digest")).to_have_count(20)
    expect(page.get_by_test_id("workload-more")).to_have_text("Show all 127 (20 shown)")
    expect(check.get_by_test_id("check-more-changes_performance")).to_have_text("Show all 48 (20 shown)")
    page.get_by_test_id("configuration-shown").select_option("all")
    expect(page.get_by_test_id("configuration-more")).to_have_text("Show all 600 (20 shown)")
    height = page.evaluate("document.documentElement.scrollHeight")
    print(
        f"capture page height at 1280 x 800: {height} px (the issue's page: ~17,700 px, findings at ~12,000)"
    )
    page.get_by_test_id("workload-more").click()
    expect(page.get_by_test_id("capture-digest")).to_have_count(127)
