"""A staging MariaDB 10.11 configured by hand as a team would leave it (issue 45): settings the newer
versions removed, ignore or spell otherwise, accounts of every kind (native password, ed25519, an
empty plugin, anonymous, roles), read as an existing target through the API and captured once for a
module (tests/captures/test_check_staging.py checks it against MariaDB 11.8 and MySQL 9.7)."""

from collections.abc import Iterator
from typing import Any

import httpx
from sqlalchemy import delete

from tests import ports
from tests.captures.team import sql, wait
from tests.conftest import auth_headers, lab_provisioner
from upgradelab.db import sync_session
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner

STAGING = f"staging-mariadb-t{ports.SESSION}"
READER, READER_PASSWORD = "reader", "staging read #2"
OPTIONS = [
    "performance_schema=ON",
    "innodb_defragment=1",  # removed: 11.8 takes it and does nothing, 9.7 refuses it
    "old_alter_table=1",  # shown as COPY (an alias of alter_algorithm); MySQL's is a flag
    "innodb_change_buffering=all",  # removed in 11.8: does nothing there
    "optimizer_adjust_secondary_key_costs=fix_reuse_range_for_ref",  # 11.8's help: "Unused."
    "sql_mode=STRICT_TRANS_TABLES,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",  # 9.7 refuses one value
    "max_connections=200",
]
EMPTY_PLUGIN = "bare"  # an account whose plugin the server holds empty: its default


def start_staging() -> LocalProvisioner:
    """The staging server started with OPTIONS, its accounts made (module docstring)."""
    server = lab_provisioner("mariadb-10.11", ports.CHECK_STAGING, suffix="staging")
    server.start(OPTIONS)
    sql(
        server,
        "INSTALL SONAME 'auth_ed25519'",
        "CREATE USER 'native'@'%' IDENTIFIED VIA mysql_native_password USING PASSWORD('n1')",
        "CREATE USER 'edu'@'%' IDENTIFIED VIA ed25519 USING PASSWORD('e1')",
        f"CREATE USER '{EMPTY_PLUGIN}'@'%' IDENTIFIED BY 'b1'",
        # as mysql_install_db of old made them and a mysql.user upgraded from 5.x holds them
        f"UPDATE mysql.global_priv SET Priv = JSON_REMOVE(Priv, '$.plugin') WHERE User = '{EMPTY_PLUGIN}'",
        "FLUSH PRIVILEGES",
        "CREATE USER ''@'localhost'",
        "CREATE USER ''@'%'",
        "CREATE ROLE app_reader",
        "GRANT SELECT ON mysql.user TO PUBLIC",  # makes the PUBLIC role's row
        "CREATE DATABASE labdb",
        f"CREATE USER '{READER}'@'127.0.0.1' IDENTIFIED BY '{READER_PASSWORD}'",
        f"GRANT SELECT ON performance_schema.* TO '{READER}'@'127.0.0.1'",
        f"GRANT SELECT ON mysql.user TO '{READER}'@'127.0.0.1'",
        f"GRANT SELECT ON labdb.* TO '{READER}'@'127.0.0.1'",
    )
    return server


def capture_staging(api: str) -> dict[str, Any]:
    """The staging server added as an existing target (its read-only account) and captured."""
    settings = {
        "host": "127.0.0.1",
        "port": ports.CHECK_STAGING,
        "user": READER,
        "password": READER_PASSWORD,
        "database": "labdb",
    }
    with sync_session() as session:  # a worker that ran this module before left its row
        session.execute(delete(Target).where(Target.name == STAGING))
        session.commit()
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        body = {"name": STAGING, "flavor": "mariadb", "provisioner": "existing", "settings": settings}
        added = client.post("/api/targets", json=body)
        assert added.status_code == 201, added.text
        created = client.post("/api/captures", json={"target": STAGING, "schema_only": True})
        assert created.status_code == 201, created.text
        found = wait(client, created.json()["id"])
    assert found["status"] == "succeeded", found["error"]
    return found


def check(api: str, capture_id: int, target: str, team_host: dict[str, int] | None = None) -> dict[str, Any]:
    """Capture `capture_id` checked against lab target `target` (the team's host as given), and the
    variant its settings make on that target."""
    body: dict[str, Any] = {"target": target, **({"team_host": team_host} if team_host else {})}
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        created = client.post(f"/api/captures/{capture_id}/checks", json=body)
        assert created.status_code == 201, created.text
        found = wait(client, capture_id, f"/checks/{created.json()['id']}")
        variant = client.get(f"/api/captures/{capture_id}/variant", params={"target": target})
    assert found["status"] == "succeeded", found["error"]
    assert variant.status_code == 200, variant.text
    found["_variant"] = variant.json()
    return found


def staging(api: str) -> Iterator[dict[str, Any]]:
    """The staging server's capture while the server runs (stopped afterwards)."""
    server = start_staging()
    try:
        yield capture_staging(api)
    finally:
        server.stop()
