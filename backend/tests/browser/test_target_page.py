"""An admin adds an existing server from the UI (the least-privileged MySQL 9.7 the tests start),
sees its capabilities on the target page, and the new-run form offers it warm only."""

import re

import httpx
from playwright.sync_api import Page, expect
from sqlalchemy import delete

from tests import ports
from tests.conftest import auth_headers
from tests.targets.existing_servers import ExistingServer, mysql_existing
from upgradelab.db import sync_session
from upgradelab.targets.models import Target

__all__ = ["mysql_existing"]  # fixture

NAME = f"existing-ui-t{ports.SESSION}"


def test_add_existing_server_and_see_what_it_allows(
    page: Page, api: str, mysql_existing: ExistingServer
) -> None:
    settings = mysql_existing.settings
    page.goto("/targets")
    page.get_by_test_id("existing-purpose-workloads").check()  # asked for: read-only is the default
    page.get_by_test_id("existing-name").fill(NAME)
    page.get_by_test_id("existing-host").fill(settings["host"])
    page.get_by_test_id("existing-port").fill(str(settings["port"]))
    page.get_by_test_id("existing-user").fill(settings["user"])
    page.get_by_test_id("existing-password").fill(settings["password"])
    page.get_by_test_id("existing-database").fill(settings["database"])
    page.get_by_test_id("existing-disposable").check()
    page.get_by_test_id("add-existing-submit").click()

    page.wait_for_url(re.compile(rf"/targets/{NAME}$"))
    expect(page.get_by_test_id("target-connection")).to_contain_text(
        f"labuser@127.0.0.1:{settings['port']}/labdb"
    )
    expect(page.get_by_test_id("server-facts")).to_contain_text("mysql 9.7")
    expect(page.get_by_test_id("capability-restart")).to_contain_text("no SHUTDOWN privilege")
    expect(page.get_by_test_id("capability-set_global")).to_contain_text("no")
    expect(page.get_by_test_id("capability-lab_database")).to_contain_text("yes")
    expect(page.get_by_test_id("warm-only-note")).to_contain_text("Warm only")
    assert "lab pass #1" not in page.content()

    page.goto("/targets")
    expect(page.get_by_test_id("target-row").filter(has_text=NAME)).to_contain_text("no restart")

    page.goto("/new")
    page.get_by_test_id("workload-select").select_option("count-star")
    page.get_by_test_id("variant-row").nth(0).get_by_test_id("variant-target").select_option(NAME)
    expect(page.get_by_test_id("warm-only-note")).to_contain_text(NAME)
    expect(page.get_by_test_id("policy-select")).to_have_value("warm")
    assert page.get_by_test_id("policy-select").locator("option").count() == 1

    # a run on it says that its variants share the one server
    body = {"workload": "insert-truncate", "iterations": 2, "policy": "warm", "variants": [{"target": NAME}]}
    experiment = httpx.post(f"{api}/api/experiments", json=body, headers=auth_headers()).json()
    run = httpx.post(f"{api}/api/experiments/{experiment['id']}/runs", headers=auth_headers()).json()
    page.goto(f"/runs/{run['id']}")
    expect(page.get_by_test_id("run-status")).to_have_text("succeeded", timeout=120_000)
    expect(page.get_by_test_id("shared-server-note")).to_contain_text(f"{NAME} is an existing server")


def test_add_a_team_server_to_capture_read_only_from_the_form(
    page: Page, api: str, mysql_existing: ExistingServer
) -> None:
    """Issue 49: the read-only purpose, preselected and each choice said in one line, needs no database,
    tries no write, says read-only."""
    del api
    name = f"{NAME}-ro"
    with sync_session() as session:  # a session that ran this file before left its row
        session.execute(delete(Target).where(Target.name == name))
        session.commit()
    settings = mysql_existing.settings
    page.goto("/targets")
    expect(page.get_by_test_id("existing-purpose-capture")).to_be_checked()  # the default
    expect(page.get_by_test_id("existing-purpose")).to_contain_text("the lab never writes there")
    expect(page.get_by_test_id("existing-purpose")).to_contain_text("tries a no-op SET GLOBAL")
    expect(page.get_by_test_id("existing-disposable")).to_be_disabled()
    page.get_by_test_id("existing-name").fill(name)
    page.get_by_test_id("existing-host").fill(settings["host"])
    page.get_by_test_id("existing-port").fill(str(settings["port"]))
    page.get_by_test_id("existing-user").fill(settings["user"])
    page.get_by_test_id("existing-password").fill(settings["password"])
    page.get_by_test_id("add-existing-submit").click()

    page.wait_for_url(re.compile(rf"/targets/{name}$"))
    expect(page.get_by_test_id("target-read-only")).to_contain_text("never written to")
    expect(page.get_by_test_id("target-connection")).to_contain_text(f"labuser@127.0.0.1:{settings['port']}/")
    for check in ("set_global", "lab_database", "restart"):
        expect(page.get_by_test_id(f"capability-{check}")).to_contain_text("purpose is capture")
