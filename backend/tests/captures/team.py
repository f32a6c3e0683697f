"""The team's server the capture tests read (tests/captures/conftest.py starts it once for the
package): MariaDB 10.11 beside the lab with a configuration of its own, accounts, a small schema with
names reserved on the new versions and hostile names, a workload; its names, and the helpers."""

import time
from pathlib import Path
from typing import Any

import httpx

from tests import ports
from upgradelab.targets.provisioners import LocalProvisioner

TARGET = f"team-mariadb-t{ports.SESSION}"
READER, READER_PASSWORD = "capturer", "read only #1"
LEGACY_PASSWORD = "legacy pass"
# an account and a statement a hostile team (or a compromised server) could hold: data, never run
PWNED = Path(f"/tmp/ul-pwned-{ports.SESSION}")
HOSTILE_USER = f"x'; DROP TABLE app.orders; -- $(touch {PWNED})"
QUOTED_HOSTILE_USER = HOSTILE_USER.replace("'", "''")
HOSTILE_COMMENT = f"/* `touch {PWNED}`; DROP DATABASE app */"
TEAM_OPTIONS = [
    "performance_schema=ON",
    # the statement history (MariaDB keeps no sample text per digest): current, then history_long
    "performance-schema-consumer-events-statements-current=ON",
    "performance-schema-consumer-events-statements-history-long=ON",
    "max_connections=77",
    "innodb_change_buffering=all",  # MariaDB 11.8 starts with it and warns "was removed"
    "innodb_change_buffer_max_size=30",  # MariaDB 11.8 does not start: "unknown variable"
    # TIME_ROUND_FRACTIONAL is MariaDB's alone: MySQL 9.7 refuses it (ERROR 1231, measured)
    "sql_mode=STRICT_TRANS_TABLES,TIME_ROUND_FRACTIONAL,NO_ENGINE_SUBSTITUTION",
]
# Names that parse unquoted on MariaDB 10.11 and not on the new version, measured on the lab's binaries
# (captures/identifiers.py probes): `qualify` as a table and `library` as a routine fail on MySQL 9.7
# (reserved since 8.4 / 9.x) and parse on MariaDB 11.8; `vector` as a column fails on MariaDB 11.8.
RESERVED_TABLE, RESERVED_COLUMN, RESERVED_ROUTINE = "qualify", "vector", "library"
ODD_TABLE = "odd name`; DROP TABLE app.orders; --"  # a name needing backticks: never sent unquoted
QUOTED_ODD_TABLE = ODD_TABLE.replace("`", "``")
BIG_TABLE = "history"  # its rows pass a 1 MiB data limit


def sql(provisioner: LocalProvisioner, *statements: str) -> list[tuple[Any, ...]]:
    """The last statement's rows of `statements` run as the server's admin."""
    connection = provisioner.endpoint.connect()
    rows: list[tuple[Any, ...]] = []
    try:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
                rows = list(cursor.fetchall())
    finally:
        connection.close()
    return rows


def wait(client: httpx.Client, capture_id: int, path: str = "") -> dict[str, Any]:
    """The capture (or its check at `path`, e.g. "/checks/3") once it ended (or after 120 s)."""
    deadline = time.monotonic() + 120
    while True:
        read = client.get(f"/api/captures/{capture_id}{path}")
        assert read.status_code == 200, read.text
        found: dict[str, Any] = read.json()
        if found["status"] in ("succeeded", "failed", "cancelled") or time.monotonic() > deadline:
            return found
        time.sleep(0.3)


def variables_of(capture: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in capture["configuration"]["variables"]}
