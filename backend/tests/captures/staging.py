"""A staging MariaDB 10.11 configured by hand as a team would leave it (issue 45): settings the newer
versions removed, ignore or spell otherwise, accounts of every kind (native password, ed25519, an
empty plugin, anonymous, roles), read as an existing target through the API and captured once for a
module (tests/captures/test_check_staging.py checks it against MariaDB 11.8 and MySQL 9.7, and against
its own version); a staging MySQL 9.7 the same way, with settings whose origin the server does not
keep (transaction_isolation) and a role."""

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
# character_set_server and collation_server set here show origin COMPILE-TIME (measured on 10.11.19)
CHARSET = ["character-set-server=utf8mb4", "collation-server=utf8mb4_unicode_ci"]
EMPTY_PLUGIN = "bare"  # an account whose plugin the server holds empty: its default
# the capture's read-only account and the lab's database on either server
READER_STATEMENTS = (
    "CREATE DATABASE labdb",
    f"CREATE USER '{READER}'@'127.0.0.1' IDENTIFIED BY '{READER_PASSWORD}'",
    f"GRANT SELECT ON performance_schema.* TO '{READER}'@'127.0.0.1'",
    f"GRANT SELECT ON mysql.user TO '{READER}'@'127.0.0.1'",
    f"GRANT SELECT ON labdb.* TO '{READER}'@'127.0.0.1'",
)
MYSQL_STAGING = f"staging-mysql-t{ports.SESSION}"
MYSQL_OPTIONS = [
    "transaction_isolation=READ-COMMITTED",  # shown as COMPILED by performance_schema.variables_info
    "innodb_flush_log_at_trx_commit=2",
    "sql_mode=ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES",
    "optimizer_switch=hash_join=off",
]


def start_staging() -> LocalProvisioner:
    """The staging server started with OPTIONS, its accounts made (module docstring)."""
    server = lab_provisioner("mariadb-10.11", ports.CHECK_STAGING, suffix="staging")
    server.start([*OPTIONS, *CHARSET])
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
        *READER_STATEMENTS,
    )
    return server


def start_mysql_staging() -> LocalProvisioner:
    """The staging MySQL 9.7 started with MYSQL_OPTIONS, a role, a locked account and the reader."""
    server = lab_provisioner("mysql-9.7", ports.CHECK_STAGING_MYSQL, suffix="staging")
    server.start(MYSQL_OPTIONS)
    sql(
        server,
        "CREATE ROLE app_reader",
        "CREATE USER 'app'@'%' IDENTIFIED BY 'a1'",
        "CREATE USER 'retired'@'%' IDENTIFIED BY 'r1' ACCOUNT LOCK",
        *READER_STATEMENTS,
    )
    return server


def capture_staging(
    api: str, name: str = STAGING, port: int = ports.CHECK_STAGING, flavor: str = "mariadb"
) -> dict[str, Any]:
    """A staging server (default: the MariaDB one) added as an existing target (its read-only account)
    and captured."""
    settings = {
        "host": "127.0.0.1",
        "port": port,
        "user": READER,
        "password": READER_PASSWORD,
        "database": "labdb",
    }
    with sync_session() as session:  # a worker that ran this module before left its row
        session.execute(delete(Target).where(Target.name == name))
        session.commit()
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        body = {"name": name, "flavor": flavor, "provisioner": "existing", "settings": settings}
        added = client.post("/api/targets", json=body)
        assert added.status_code == 201, added.text
        created = client.post("/api/captures", json={"target": name, "schema_only": True})
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
