"""A team's server added to be captured (an existing target of purpose capture, issue 49): a real
MariaDB 10.11 whose lab account holds exactly the capture's grants (docs/jobs/capture.md) is added
without saying a purpose (read-only is the default, through the API and the CLI) and captured, and its
general log shows no write statement from that account; a run or a replay on it is refused naming the
target; a target of purpose workloads, asked for, still needs its database."""

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import delete
from typer.testing import CliRunner

from tests import ports
from tests.captures.team import sql, wait
from tests.conftest import auth_headers, lab_provisioner
from upgradelab.cli import app
from upgradelab.db import sync_session
from upgradelab.targets.capabilities import READ_ONLY_DETAIL
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner

TARGET = f"team-read-only-t{ports.SESSION}"
CAPTURED: list[str] = []  # the capture's dataset, replayed (refused) by the second test
READER, PASSWORD = "capture_only", "read only #49"
# the capture's grants, as docs/jobs/capture.md lists them, and nothing else
GRANTS = (
    f"GRANT SELECT ON performance_schema.* TO '{READER}'@'127.0.0.1'",
    f"GRANT SELECT ON mysql.user TO '{READER}'@'127.0.0.1'",
    f"GRANT SELECT, SHOW VIEW, TRIGGER, EVENT ON shop.* TO '{READER}'@'127.0.0.1'",
    f"GRANT SELECT ON mysql.proc TO '{READER}'@'127.0.0.1'",
)
# what a write looks like in the general log: data, schema, accounts, server state
WRITE = re.compile(
    r"^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|TRUNCATE|RENAME|GRANT|REVOKE|SET\s+GLOBAL|"
    r"SET\s+PASSWORD|FLUSH|LOCK\s+TABLES|RESTART|SHUTDOWN|KILL|INSTALL|UNINSTALL|LOAD|OPTIMIZE|ANALYZE|"
    r"REPAIR|PURGE|RESET|CHANGE|START\s+SLAVE|STOP\s+SLAVE|XA|CALL|DO)\b",
    re.IGNORECASE,
)

# a dump client's `/*!40100 SET ... */`: the statement inside is what the server runs
_VERSIONED = re.compile(r"^\s*/\*M?!\d*\s*")


@pytest.fixture(scope="module")
def team(database: None) -> Iterator[LocalProvisioner]:
    """The team's MariaDB 10.11: a schema with rows, a view, a trigger, a routine, the read-only
    account, and the general log on (to a table) once the setup is done."""
    server = lab_provisioner("mariadb-10.11", ports.READ_ONLY_TEAM, suffix="readonly")
    server.start(["performance_schema=ON", "log_output=TABLE"])
    try:
        sql(
            server,
            "CREATE DATABASE shop",
            "CREATE TABLE shop.orders (id INT PRIMARY KEY, total DECIMAL(10,2))",
            "INSERT INTO shop.orders VALUES (1, 10.5), (2, 20)",
            "CREATE VIEW shop.big AS SELECT id FROM shop.orders WHERE total > 15",
            "CREATE TRIGGER shop.keep BEFORE UPDATE ON shop.orders FOR EACH ROW SET NEW.total = NEW.total",
            "CREATE FUNCTION shop.one() RETURNS INT DETERMINISTIC RETURN 1",
            f"CREATE USER '{READER}'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'",
            *GRANTS,
            "SELECT total FROM shop.orders WHERE id = 2",
            "TRUNCATE mysql.general_log",
            "SET GLOBAL general_log = ON",
        )
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def http(api: str) -> Iterator[httpx.Client]:
    with sync_session() as session:  # a worker that ran this module before left its row
        session.execute(delete(Target).where(Target.name.in_([TARGET, f"{TARGET}-cli"])))
        session.commit()
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        yield client


def _settings(**extra: Any) -> dict[str, Any]:
    base = {"host": "127.0.0.1", "port": ports.READ_ONLY_TEAM, "user": READER, "password": PASSWORD}
    return base | extra


def test_a_read_only_target_is_added_and_captured_and_never_written_to(
    http: httpx.Client, team: LocalProvisioner
) -> None:
    body = {"name": TARGET, "flavor": "mariadb", "provisioner": "existing"}
    added = http.post("/api/targets", json=body | {"settings": _settings()})  # no purpose: read-only
    assert added.status_code == 201, added.text
    checks = {c["name"]: c for c in added.json()["capabilities"]["checks"]}
    for name in ("set_global", "alter_instance", "lab_database", "restart"):
        assert checks[name] == {"name": name, "available": False, "detail": READ_ONLY_DETAIL}
    assert checks["performance_schema"]["available"]  # the reads still happen
    page = http.get(f"/api/targets/{TARGET}").json()
    assert page["connection"]["purpose"] == "capture" and page["connection"]["database"] is None

    created = http.post("/api/captures", json={"target": TARGET})  # with its data: the dump too
    assert created.status_code == 201, created.text
    found = wait(http, created.json()["id"])
    assert found["status"] == "succeeded", found["error"]
    assert found["dataset_id"] is not None
    CAPTURED.append(f"capture-{found['id']}")

    logged = sql(
        team,
        "SELECT argument FROM mysql.general_log "
        f"WHERE user_host LIKE '{READER}[%' AND command_type IN ('Query', 'Execute')",
    )
    statements = [bytes(a).decode() if isinstance(a, bytes | bytearray) else str(a) for (a,) in logged]
    assert len(statements) > 20, statements  # the log saw the capture's reads
    writes = [s for s in statements if WRITE.match(_VERSIONED.sub("", s))]
    assert writes == [], writes
    # and the state the server shows: nothing of the lab's was made there
    [(tables,)] = sql(team, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'shop'")
    assert tables == 2  # orders and the view


def test_a_run_or_a_replay_on_a_read_only_target_is_refused_naming_it(
    http: httpx.Client, team: LocalProvisioner
) -> None:
    del team
    if not CAPTURED:
        pytest.skip("the target is added and captured by the test before")
    run = http.post(
        "/api/experiments",
        json={"workload": "count-star", "iterations": 1, "policy": "warm", "variants": [{"target": TARGET}]},
    )
    assert run.status_code == 422, run.text
    [error] = run.json()["detail"]
    assert error["loc"] == ["body", "variants", 0, "target"]
    assert f"target {TARGET} is read-only (purpose capture)" in error["msg"]

    replay = http.post(
        "/api/replays",
        json={"dataset": CAPTURED[0], "queries": "SELECT 1;", "variants": [{"target": TARGET}]},
    )
    assert replay.status_code == 422, replay.text
    [error] = replay.json()["detail"]
    assert error["loc"] == ["body", "variants", 0, "target"]
    assert f"target {TARGET} is read-only (purpose capture)" in error["msg"]


def test_the_cli_adds_read_only_by_default_and_workloads_when_asked_with_its_database(
    api: str, http: httpx.Client, team: LocalProvisioner
) -> None:
    where = ["--host", "127.0.0.1", "--port", str(ports.READ_ONLY_TEAM), "--user", READER, "--api", api]
    added = CliRunner().invoke(
        app,
        ["targets", "add", f"{TARGET}-cli", "--existing", *where],
        env={"UPGRADELAB_TARGET_PASSWORD": PASSWORD},
    )
    assert added.exit_code == 0, added.output
    rows = [line.split(None, 2) for line in added.output.splitlines() if line[:4] in ("yes ", "no  ")]
    assert {row[1]: row[2] for row in rows}["set_global"] == READ_ONLY_DETAIL
    assert http.get(f"/api/targets/{TARGET}-cli").json()["connection"]["purpose"] == "capture"
    workloads = CliRunner().invoke(
        app, ["targets", "add", f"{TARGET}-w", "--existing", "--purpose", "workloads", *where]
    )
    assert workloads.exit_code == 2 and "--purpose workloads needs --database" in workloads.output

    body = {"name": f"{TARGET}-w", "flavor": "mariadb", "provisioner": "existing"}
    refused = http.post("/api/targets", json=body | {"settings": _settings(purpose="workloads")})
    assert refused.status_code == 422, refused.text
    assert "database: a target of purpose workloads needs the lab's own database" in refused.text
    unknown = http.post("/api/targets", json=body | {"settings": _settings(purpose="backup", database="x")})
    assert unknown.status_code == 422 and "purpose" in unknown.text
