"""Existing servers as targets through the real API, Redis queue and Celery worker: the tests start
MySQL 9.7 (a least-privileged lab user) and MariaDB 10.11 (performance_schema OFF) on 127.0.0.1 and
add them as `existing` targets; warm runs beside a local variant, refusals by capability before the
first iteration, probes unavailable where the server cannot give them, one run per server at a time,
and no lab connection left behind."""

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from tests import ports
from tests.conftest import auth_headers
from tests.runs.helpers import wait_final, wait_status
from tests.targets.existing_servers import ExistingServer, mariadb_existing, mysql_existing
from upgradelab.cli import app
from upgradelab.db import sync_session
from upgradelab.targets.models import Target

__all__ = ["mariadb_existing", "mysql_existing"]  # fixtures

MYSQL = f"existing-mysql-t{ports.SESSION}"
MYSQL_ALIAS = f"existing-mysql-alias-t{ports.SESSION}"  # the same server under another name
MARIADB = f"existing-mariadb-t{ports.SESSION}"
KEPT = f"existing-mysql-kept-t{ports.SESSION}"  # not disposable: its data must stay


@pytest.fixture(scope="module")
def client(api: str) -> Iterator[httpx.Client]:
    """A signed-in client for the whole module (the targets are module-wide too)."""
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as http:
        yield http


@pytest.fixture(scope="module")
def existing_targets(
    client: httpx.Client, mysql_existing: ExistingServer, mariadb_existing: ExistingServer
) -> dict[str, ExistingServer]:
    """The existing targets, added through POST /api/targets (all disposable but KEPT)."""
    servers = {MYSQL: mysql_existing, MYSQL_ALIAS: mysql_existing, MARIADB: mariadb_existing}
    servers[KEPT] = mysql_existing
    for name, server in servers.items():
        body = {
            "name": name,
            "flavor": "mysql",  # detected: MariaDB's target ends up "mariadb"
            "provisioner": "existing",
            "settings": server.settings,
            "disposable": name != KEPT,
        }
        created = client.post("/api/targets", json=body)
        assert created.status_code == 201, created.text
        assert created.json()["flavor"] == server.flavor
    return servers


def _forget_capabilities(name: str) -> None:
    with sync_session() as session:
        session.scalars(select(Target).where(Target.name == name)).one().capabilities = None
        session.commit()


def _run(client: httpx.Client, body: dict[str, Any]) -> int:
    created = client.post("/api/experiments", json=body)
    assert created.status_code == 201, created.text
    queued = client.post(f"/api/experiments/{created.json()['id']}/runs")
    assert queued.status_code == 201, queued.text
    run_id: int = queued.json()["id"]
    return run_id


def _insert_truncate(*variants: dict[str, Any], iterations: int = 3, policy: str = "warm") -> dict[str, Any]:
    return {
        "workload": "insert-truncate",
        "iterations": iterations,
        "variants": list(variants),
        "policy": policy,
    }


def test_the_api_serves_capabilities_and_never_the_password(
    client: httpx.Client, existing_targets: dict[str, ExistingServer]
) -> None:
    listed = client.get("/api/targets")
    page = client.get(f"/api/targets/{MYSQL}")
    assert page.status_code == 200
    for text in (listed.text, page.text):
        # the auth plugins it accepts are named (caching_sha2_password ...); never a password field
        assert "lab pass #1" not in text and '"password"' not in text
    target = page.json()
    assert target["connection"] == {
        "host": "127.0.0.1",
        "port": ports.EXISTING["mysql-9.7"],
        "user": "labuser",
        "purpose": "workloads",  # issue 49: the default, with the write checks
        "database": "labdb",
        "ssl_ca": None,
        "ssl_verify_identity": False,
        # issue 44: the auth plugins the lab answers (never mysql_clear_password unless allowed)
        "auth_plugins": ["mysql_native_password", "caching_sha2_password", "client_ed25519", "parsec"],
        "allow_cleartext": False,
    }
    checks = {c["name"]: c["available"] for c in target["capabilities"]["checks"]}
    assert checks["restart"] is False and checks["set_global"] is False and checks["lab_database"] is True
    assert target["version"].startswith("9.7") and target["disposable"] is True
    again = client.post(f"/api/targets/{MYSQL}/capabilities", json={})
    assert again.status_code == 200
    assert again.json()["capabilities"]["detected_at"] > target["capabilities"]["detected_at"]


def test_hosts_outside_loopback_and_bad_credentials_are_refused_naming_the_field(
    client: httpx.Client, existing_targets: dict[str, ExistingServer]
) -> None:
    settings = existing_targets[MYSQL].settings
    body = {"name": "elsewhere", "flavor": "mysql", "provisioner": "existing"}
    refused = client.post("/api/targets", json={**body, "settings": {**settings, "host": "10.1.2.3"}})
    assert refused.status_code == 422
    [error] = refused.json()["detail"]
    assert error["loc"] == ["body", "settings", "host"] and "UPGRADELAB_EXISTING_HOSTS" in error["msg"]
    wrong = client.post("/api/targets", json={**body, "settings": {**settings, "password": "wrong"}})
    assert wrong.status_code == 422 and wrong.json()["detail"][0]["loc"] == ["body", "settings", "host"]
    assert "1045" in wrong.json()["detail"][0]["msg"] and "wrong" not in wrong.json()["detail"][0]["msg"]


def test_warm_article_001_beside_a_local_variant(
    client: httpx.Client, existing_targets: dict[str, ExistingServer]
) -> None:
    server = existing_targets[MYSQL]
    run_id = _run(client, _insert_truncate({"target": MYSQL}, {"target": "mariadb-10.11"}))
    run = wait_final(client, run_id, timeout_s=300)
    assert run["status"] == "succeeded", run["error"]
    series = {s["variant"]: s for s in client.get(f"/api/runs/{run_id}/results").json()["series"]}
    assert len(series[f"{MYSQL} default"]["iterations"]) == 3
    assert len(series["mariadb-10.11 default"]["iterations"]) == 3
    probes = {v["variant"]: v for v in client.get(f"/api/runs/{run_id}/probes").json()["variants"]}
    # the server was started without the mutex instruments: reported unavailable, never as zero
    mutex = {u["probe"]: u["reason"] for u in probes[f"{MYSQL} default"]["unavailable"]}
    assert "mutex_waits" in mutex and "enabled and timed" in mutex["mutex_waits"]
    # the lab's tables were made and dropped inside labdb only, and no lab connection stays open
    assert server.admin_sql(
        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'labdb'"
    ) == [(0,)]
    assert server.admin_sql("SHOW DATABASES LIKE 'upgradelab%'") == []
    assert server.lab_connections() == 0


def test_custom_sql_on_mariadb_without_performance_schema(
    client: httpx.Client, existing_targets: dict[str, ExistingServer]
) -> None:
    parameters = {
        "setup_sql": "CREATE TABLE lab_t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)",
        "iteration_sql": "INSERT INTO lab_t (v) VALUES (1); SELECT COUNT(*) FROM lab_t",
        "teardown_sql": "DROP TABLE lab_t",
        # no database: the local variant's workload user works in lab_custom, the existing one in its own
    }
    body = {
        "workload": "custom-sql",
        "iterations": 3,
        "parameters": parameters,
        "variants": [{"target": MARIADB}, {"target": "mariadb-10.11"}],
        "policy": "warm",
    }
    run = wait_final(client, _run(client, body), timeout_s=300)
    assert run["status"] == "succeeded", run["error"]
    probes = {v["variant"]: v for v in client.get(f"/api/runs/{run['id']}/probes").json()["variants"]}
    reasons = {u["probe"]: u["reason"] for u in probes[f"{MARIADB} default"]["unavailable"]}
    assert set(reasons) == {"mutex_waits", "statement_time"}  # buffer_pool: SHOW GLOBAL STATUS
    assert all("performance_schema is OFF" in reason for reason in reasons.values())
    assert probes["mariadb-10.11 default"]["unavailable"] == []
    assert existing_targets[MARIADB].lab_connections() == 0


@pytest.mark.parametrize(
    ("variant", "policy", "capability"),
    [
        ({"target": MYSQL}, "cold_first", "capability restart"),
        ({"target": MYSQL, "preset": "log-writer-threads-off"}, "warm", "capability startup_options"),
        ({"target": MYSQL, "preset": "redo-off"}, "warm", "capability alter_instance"),
        (
            {"target": MYSQL, "set_global": {"max_connections": "200"}},
            "warm",
            "capability set_global",
        ),
        ({"target": KEPT}, "warm", "not marked disposable"),
    ],
)
def test_refused_before_the_first_iteration_naming_the_capability(
    client: httpx.Client,
    existing_targets: dict[str, ExistingServer],
    variant: dict[str, Any],
    policy: str,
    capability: str,
) -> None:
    body = _insert_truncate({"target": "mariadb-10.11"}, variant, policy=policy)
    # with the capabilities stored when the target was added: refused at once, naming the variant
    refused = client.post("/api/experiments", json=body)
    assert refused.status_code == 422, refused.text
    [error] = refused.json()["detail"]
    assert error["loc"] == ["body", "variants", 1, "target"] and capability in error["msg"]
    # capabilities unknown when the experiment was made (e.g. privileges revoked since): the run's
    # pre-flight detects them again and refuses before the first iteration
    _forget_capabilities(variant["target"])
    run = wait_final(client, _run(client, body), timeout_s=120)
    assert run["status"] == "failed" and capability in run["error"], run["error"]
    assert existing_targets[MYSQL].lab_connections() == 0
    assert client.get(f"/api/targets/{variant['target']}").json()["capabilities"] is not None
    # the refused variant (index 1) ran no iteration; the local one beside it ran (a refusal fails
    # that variant only)
    series = {
        s["variant_index"]: s["iterations"]
        for s in client.get(f"/api/runs/{run['id']}/results").json()["series"]
    }
    assert not series.get(1)
    states = {v["variant_index"]: v["status"] for v in run["variant_states"]}
    assert states == {0: "succeeded", 1: "failed"}


def test_count_star_warm(client: httpx.Client, existing_targets: dict[str, ExistingServer]) -> None:
    body = {
        "workload": "count-star",
        "iterations": 2,
        "policy": "warm",
        "parameters": {"rows": 640, "tables": ["test_short", "test_long"], "str_max_bytes": 500},
        "variants": [{"target": MYSQL}],
    }
    run = wait_final(client, _run(client, body), timeout_s=300)
    assert run["status"] == "succeeded", run["error"]
    server = existing_targets[MYSQL]
    tables = server.admin_sql("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'labdb'")
    # the dataset and its marker stay in the lab's database (reused by the next run), nowhere else
    assert sorted(t for (t,) in tables) == ["test_long", "test_short", "upgradelab_datasets"]
    [(counted,)] = server.admin_sql("SELECT COUNT(*) FROM labdb.test_long")
    assert counted == 640
    server.admin_sql(
        "DROP TABLE labdb.test_long", "DROP TABLE labdb.test_short", "DROP TABLE labdb.upgradelab_datasets"
    )


def test_two_targets_naming_one_server_never_run_at_once(
    client: httpx.Client, existing_targets: dict[str, ExistingServer]
) -> None:
    # 60 iterations (several seconds here) keep the first run on the server while the second is queued
    # and the worker, with a free process, finds the server locked
    first = _run(client, _insert_truncate({"target": MYSQL}, iterations=60))
    wait_status(client, first, {"running"}, timeout_s=60)
    second = _run(client, _insert_truncate({"target": MYSQL_ALIAS}, iterations=3))
    held = client.get(f"/api/runs/{second}").json()
    assert held["status"] == "queued"  # the worker has a free process, but the server is locked
    done_first = wait_final(client, first, timeout_s=300)
    done_second = wait_final(client, second, timeout_s=300)
    assert done_first["status"] == done_second["status"] == "succeeded", (done_first, done_second)
    assert done_second["started_at"] >= done_first["finished_at"], json.dumps([done_first, done_second])


def test_cancelled_run_leaves_no_lab_connection(
    client: httpx.Client, existing_targets: dict[str, ExistingServer]
) -> None:
    server = existing_targets[MYSQL]
    run_id = _run(client, _insert_truncate({"target": MYSQL}, iterations=5000))
    wait_status(client, run_id, {"running"}, timeout_s=60)
    deadline = time.monotonic() + 60
    while server.lab_connections() < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert server.lab_connections() >= 2  # the workload's and the probes' connections
    assert client.post(f"/api/runs/{run_id}/cancel").status_code == 200
    assert wait_final(client, run_id, timeout_s=120)["status"] == "cancelled"
    assert server.lab_connections() == 0


def test_cli_adds_an_existing_server_and_prints_its_capabilities(
    api: str, client: httpx.Client, mariadb_existing: ExistingServer
) -> None:
    settings = mariadb_existing.settings
    name = f"existing-cli-t{ports.SESSION}"
    where = ["--host", settings["host"], "--port", str(settings["port"]), "--user", settings["user"]]
    where += ["--purpose", "workloads"]  # the lab runs workloads there: its write checks
    added = CliRunner().invoke(
        app,
        ["targets", "add", name, "--existing", *where, "--database", settings["database"], "--api", api],
        env={"UPGRADELAB_TARGET_PASSWORD": settings["password"]},
    )
    assert added.exit_code == 0, added.output
    assert "mariadb 10.11" in added.output
    rows = [line.split() for line in added.output.splitlines() if line[:4] in ("yes ", "no  ")]
    answers = {row[1]: row[0] for row in rows}
    assert answers["restart"] == answers["performance_schema"] == "no" and answers["set_global"] == "yes"
    assert client.get(f"/api/targets/{name}").json()["disposable"] is False
