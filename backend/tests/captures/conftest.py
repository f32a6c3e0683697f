"""The team's server and its capture, started once for the whole package (tests/captures/team.py):
every capture test module reads the same capture and checks it against the new versions."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import delete

from tests import ports
from tests.captures.team import (
    BIG_TABLE,
    HOSTILE_COMMENT,
    LEGACY_PASSWORD,
    QUOTED_HOSTILE_USER,
    QUOTED_ODD_TABLE,
    READER,
    READER_PASSWORD,
    RESERVED_COLUMN,
    RESERVED_ROUTINE,
    RESERVED_TABLE,
    TARGET,
    TEAM_OPTIONS,
    sql,
    wait,
)
from tests.conftest import auth_headers, lab_provisioner
from upgradelab.db import sync_session
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner


@pytest.fixture(scope="package")
def team_server(database: None) -> Iterator[LocalProvisioner]:
    """The team's MariaDB 10.11 with its settings, accounts, schema and a workload run against it."""
    provisioner = lab_provisioner("mariadb-10.11", ports.CAPTURE_SOURCE, suffix="team")
    provisioner.start(TEAM_OPTIONS)
    try:
        sql(
            provisioner,
            "CREATE DATABASE app",
            "CREATE DATABASE labdb",
            "CREATE TABLE app.orders (id INT PRIMARY KEY, total DECIMAL(10,2))",
            "INSERT INTO app.orders VALUES (1, 10.5), (2, 20), (3, 7.25)",
            f"CREATE TABLE app.{RESERVED_TABLE} (id INT PRIMARY KEY, {RESERVED_COLUMN} INT)",
            f"INSERT INTO app.{RESERVED_TABLE} VALUES (1, 2)",
            f"CREATE FUNCTION app.{RESERVED_ROUTINE}() RETURNS INT DETERMINISTIC RETURN 1",
            f"CREATE TABLE app.`{QUOTED_ODD_TABLE}` (a INT)",
            # ~3 MiB of rows: past a 1 MiB --data-limit (DATA_LENGTH read after ANALYZE)
            f"CREATE TABLE app.{BIG_TABLE} (id INT PRIMARY KEY, pad CHAR(255))",
            f"INSERT INTO app.{BIG_TABLE} SELECT seq, REPEAT('x', 255) FROM app.seq_1_to_10000",
            f"ANALYZE TABLE app.{BIG_TABLE}",
            "CREATE DATABASE `-evil`",  # the dump client would read it as an option: left out
            "CREATE USER 'legacy'@'%' IDENTIFIED VIA mysql_native_password "
            f"USING PASSWORD('{LEGACY_PASSWORD}')",
            f"CREATE USER '{QUOTED_HOSTILE_USER}'@'localhost'",
            f"CREATE USER '{READER}'@'127.0.0.1' IDENTIFIED BY '{READER_PASSWORD}'",
            f"GRANT SELECT ON performance_schema.* TO '{READER}'@'127.0.0.1'",
            f"GRANT SELECT ON mysql.user TO '{READER}'@'127.0.0.1'",
            f"GRANT SELECT ON labdb.* TO '{READER}'@'127.0.0.1'",
            # what a read-only dump needs: the rows, views, triggers, events and routines' text
            f"GRANT SELECT, SHOW VIEW, TRIGGER, EVENT ON app.* TO '{READER}'@'127.0.0.1'",
            f"GRANT SELECT ON mysql.proc TO '{READER}'@'127.0.0.1'",
            f"GRANT SELECT ON `-evil`.* TO '{READER}'@'127.0.0.1'",  # so the capture sees it
            "TRUNCATE performance_schema.events_statements_summary_by_digest",
        )
        workload = [("SELECT total FROM app.orders WHERE id = 2", 5), ("SELECT COUNT(*) FROM app.orders", 3)]
        for statement, times in workload:
            sql(provisioner, *([statement] * times))
        sql(provisioner, f"SELECT 7 AS hostile {HOSTILE_COMMENT}")
        yield provisioner
    finally:
        provisioner.stop()


@pytest.fixture(scope="package")
def capture(api: str, team_server: LocalProvisioner) -> dict[str, Any]:
    """The team's server added as an existing target (the read-only account), then captured."""
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        settings = {
            "host": "127.0.0.1",
            "port": ports.CAPTURE_SOURCE,
            "user": READER,
            "password": READER_PASSWORD,
            "database": "labdb",
        }
        body = {"name": TARGET, "flavor": "mariadb", "provisioner": "existing", "settings": settings}
        # a worker that ran this package's files apart makes the package's fixtures twice: the
        # target row of the first is still there (no DELETE route for targets)
        with sync_session() as session:
            session.execute(delete(Target).where(Target.name == TARGET))
            session.commit()
        added = client.post("/api/targets", json=body)
        assert added.status_code == 201, added.text
        created = client.post("/api/captures", json={"target": TARGET})
        assert created.status_code == 201, created.text
        capture_id = created.json()["id"]
        found = wait(client, capture_id)
        found["_text"] = client.get(f"/api/captures/{capture_id}").text
        found["_queries"] = client.get(f"/api/captures/{capture_id}/queries.sql").text
        found["_listed"] = client.get("/api/captures", params={"target": TARGET}).json()
    assert found["status"] == "succeeded", found["error"]
    return found
