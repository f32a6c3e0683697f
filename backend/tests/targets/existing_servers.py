"""Servers for the existing-target tests: the lab's MySQL 9.7 and MariaDB 10.11 started by the tests
on 127.0.0.1 (ports.EXISTING), then reached only as an outsider would:

- MySQL 9.7: user `labuser` with privileges on its database `labdb` and SELECT on
  performance_schema, no RESTART/SHUTDOWN, SUPER or SYSTEM_VARIABLES_ADMIN;
- MariaDB 10.11 with performance_schema=OFF: the full lab user, database `labdb`.

Both are added for workloads (`purpose: workloads`, asked for: an existing target is read-only unless
it says so, issue 49).
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from upgradelab.targets.provisioners import LocalProvisioner

LIMITED_USER, LIMITED_PASSWORD, LAB_DATABASE = "labuser", "lab pass #1", "labdb"


@dataclass
class ExistingServer:
    """A server started for the tests and the settings of an existing target pointing at it."""

    flavor: str
    provisioner: LocalProvisioner
    settings: dict[str, Any]

    def admin_sql(self, *statements: str) -> list[tuple[Any, ...]]:
        """Run statements as the full lab user; the last one's rows."""
        connection = self.provisioner.endpoint.connect()
        rows: list[tuple[Any, ...]] = []
        try:
            with connection.cursor() as cursor:
                for sql in statements:
                    cursor.execute(sql)
                    rows = list(cursor.fetchall())
        finally:
            connection.close()
        return rows

    def lab_connections(self) -> int:
        """Connections of the existing target's user other than this query's own."""
        user = self.settings["user"]
        [(count,)] = self.admin_sql(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST "
            f"WHERE USER = '{user}' AND ID <> CONNECTION_ID()"
        )
        return int(count)


def _mysql_server() -> Iterator[ExistingServer]:
    provisioner = lab_provisioner("mysql-9.7", ports.EXISTING["mysql-9.7"], suffix="existing")
    provisioner.start([])
    server = ExistingServer(
        "mysql",
        provisioner,
        {
            "host": "127.0.0.1",
            "port": ports.EXISTING["mysql-9.7"],
            "user": LIMITED_USER,
            "password": LIMITED_PASSWORD,
            "database": LAB_DATABASE,
            "purpose": "workloads",  # the lab runs workloads there (the default is read-only)
        },
    )
    server.admin_sql(
        f"CREATE DATABASE {LAB_DATABASE}",
        f"CREATE USER '{LIMITED_USER}'@'127.0.0.1' IDENTIFIED BY '{LIMITED_PASSWORD}'",
        f"GRANT ALL PRIVILEGES ON {LAB_DATABASE}.* TO '{LIMITED_USER}'@'127.0.0.1'",
        f"GRANT SELECT ON performance_schema.* TO '{LIMITED_USER}'@'127.0.0.1'",
        f"GRANT PROCESS ON *.* TO '{LIMITED_USER}'@'127.0.0.1'",
    )
    yield server
    provisioner.stop()


def _mariadb_server() -> Iterator[ExistingServer]:
    provisioner = lab_provisioner("mariadb-10.11", ports.EXISTING["mariadb-10.11"], suffix="existing")
    provisioner.start(["performance_schema=OFF"])
    endpoint = provisioner.endpoint
    server = ExistingServer(
        "mariadb",
        provisioner,
        {
            "host": "127.0.0.1",
            "port": endpoint.port,
            "user": endpoint.user,
            "password": endpoint.password,
            "database": LAB_DATABASE,
            "purpose": "workloads",  # the lab runs workloads there (the default is read-only)
        },
    )
    server.admin_sql(f"CREATE DATABASE {LAB_DATABASE}")
    yield server
    provisioner.stop()


@pytest.fixture(scope="module")
def mysql_existing(database: None) -> Iterator[ExistingServer]:
    """MySQL 9.7 with a least-privileged lab user (module docstring)."""
    yield from _mysql_server()


@pytest.fixture(scope="module")
def mariadb_existing(database: None) -> Iterator[ExistingServer]:
    """MariaDB 10.11 with performance_schema OFF (module docstring)."""
    yield from _mariadb_server()
