"""A cancel ends a run on an existing server within 5 s without stopping that server (issue 30,
Deliver 5): the lab does not run it, so the cancel kills the lab account's statements there (KILL
QUERY, ExistingProvisioner.interrupt) instead; the 60 s statement being measured ends, the run ends
`cancelled`, the server still answers and no lab connection is left on it."""

import time
from collections.abc import Iterator

import httpx
import pytest

from tests import ports
from tests.conftest import auth_headers
from tests.execution.cancel_helpers import CANCEL_WITHIN_S
from tests.runs.helpers import wait_final, wait_status
from tests.targets.existing_servers import ExistingServer, mariadb_existing

__all__ = ["mariadb_existing"]  # fixtures

pytestmark = pytest.mark.timeout(300)

NAME = f"existing-cancel-t{ports.SESSION}"


@pytest.fixture(scope="module")
def client(api: str, mariadb_existing: ExistingServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as http:
        body = {
            "name": NAME,
            "flavor": "mariadb",
            "provisioner": "existing",
            "settings": mariadb_existing.settings,
            "disposable": True,
        }
        created = http.post("/api/targets", json=body)
        assert created.status_code == 201, created.text
        yield http
        http.delete(f"/api/targets/{NAME}")


def test_a_run_on_an_existing_server_is_cancelled_inside_a_statement(
    client: httpx.Client, mariadb_existing: ExistingServer
) -> None:
    body = {
        "workload": "custom-sql",
        "iterations": 3,
        "parameters": {"iteration_sql": "SELECT SLEEP(60)", "statement_timeout_s": 120},
        "variants": [{"target": NAME}],
    }
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    run_id = client.post(f"/api/experiments/{created.json()['id']}/runs").json()["id"]
    wait_status(client, run_id, {"running"}, timeout_s=60)
    time.sleep(1.0)  # inside the first iteration's 60 s statement
    user = mariadb_existing.settings["user"]
    [(sleeping,)] = mariadb_existing.admin_sql(
        "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
        f"WHERE USER = '{user}' AND INFO = 'SELECT SLEEP(60)'"
    )
    assert sleeping == 1
    asked = time.monotonic()
    assert client.post(f"/api/runs/{run_id}/cancel").status_code == 200
    run = wait_final(client, run_id, timeout_s=60)
    took = time.monotonic() - asked
    print(f"cancel on an existing server: {took:.1f} s")
    assert run["status"] == "cancelled" and run["error"] is None, run
    assert took < CANCEL_WITHIN_S, took
    assert mariadb_existing.provisioner.pid() is not None  # never the lab's to stop
    deadline = time.monotonic() + 10
    while mariadb_existing.lab_connections() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = mariadb_existing.admin_sql(
        "SELECT ID, COMMAND, TIME, STATE, INFO FROM information_schema.PROCESSLIST "
        f"WHERE USER = '{user}' AND ID <> CONNECTION_ID()"
    )
    assert left == [], left
