"""A dump with triggers, routines (DELIMITER), a view, a spatial column and ~3 MB of extended INSERTs
loads on MariaDB 10.11, MariaDB 11.8 and MySQL 9.7 through each server's own client; compressed dumps
load the same; a statement a server refuses fails the load naming the dump's line and the message."""

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
import zstandard

from tests import ports
from tests.conftest import STATE, lab_provisioner
from tests.datasets.shop import CUSTOMERS, ORDERS
from upgradelab.datasets.loader import LoadFailed, load_dump, table_stats
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.workloads.base import DatasetProgress, execute, scalar

SERVERS = ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"]


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest, database: None) -> Iterator[LocalProvisioner]:
    """The server, started once for the module: no test needs a fresh datadir, only an empty database
    of its own (a server start costs ~0.5-0.8 CPU-s; issue 31)."""
    one = lab_provisioner(request.param, ports.UNIT_TARGETS[request.param])
    one.start([])
    yield one
    one.stop()


def _fresh(provisioner: LocalProvisioner, database: str = "shop") -> None:
    """An empty `database` on the running server."""
    connection = provisioner.endpoint.connect()
    execute(connection, f"DROP DATABASE IF EXISTS {database}")
    execute(connection, f"CREATE DATABASE {database}")
    connection.close()


def test_dump_with_routines_triggers_view_and_spatial_column_loads(
    server: LocalProvisioner, shop_dump: Path
) -> None:
    assert shop_dump.stat().st_size >= 2 * 1024 * 1024
    assert b"DELIMITER ;;" in shop_dump.read_bytes()
    # mariadb-dump's sandbox line, which MySQL's client refuses: the loader drops it for MySQL
    assert shop_dump.read_bytes().startswith(b"/*M!999999\\- enable the sandbox mode */")
    _fresh(server)
    progress: list[DatasetProgress] = []
    result = load_dump(server.endpoint, server.flavor, shop_dump, "shop", progress.append)

    assert result.bytes_fed >= 2 * 1024 * 1024
    # every customer, order and place row was seen in the INSERTs (audit rows too: the trigger ran
    # when the data was made, and its rows are dumped like any other)
    assert result.rows_seen >= CUSTOMERS + ORDERS + CUSTOMERS
    last = progress[-1]
    assert last.bytes == last.rows_total == shop_dump.stat().st_size
    connection = server.endpoint.connect(database="shop")
    stats = {t.name: t for t in table_stats(connection, "shop")}
    assert stats["orders"].rows == ORDERS and stats["customers"].rows == CUSTOMERS
    assert stats["places"].rows == CUSTOMERS and stats["orders"].bytes > 0
    assert scalar(connection, "SELECT order_band(250)") == "mid"
    execute(connection, "CALL region_orders('east', @n)")
    assert scalar(connection, "SELECT @n") == scalar(
        connection,
        "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.region = 'east'",
    )
    assert scalar(connection, "SELECT SUM(orders) FROM customer_totals") == ORDERS
    assert scalar(connection, "SELECT ST_AsText(pt) FROM places WHERE id = 200") == "POINT(20 -55)"
    execute(
        connection,
        "INSERT INTO orders (id, customer_id, amount, status, created) VALUES (0, 1, 1, 'new', NOW())",
    )
    assert scalar(connection, "SELECT note FROM orders WHERE id = 0") == "order 0"  # the trigger came along
    connection.close()


@pytest.mark.parametrize("server", ["mariadb-10.11"], indirect=True)  # the module's MariaDB 10.11
@pytest.mark.parametrize("compression", ["gzip", "zstd"])
def test_compressed_dump_loads(compression: str, server: LocalProvisioner, shop_dump: Path) -> None:
    packed = STATE / f"shop.sql.{compression}"
    data = shop_dump.read_bytes()
    packed.write_bytes(gzip.compress(data) if compression == "gzip" else zstandard.compress(data))
    schema = f"shop_{compression}"
    _fresh(server, schema)
    progress: list[DatasetProgress] = []
    result = load_dump(server.endpoint, server.flavor, packed, schema, progress.append)
    assert result.bytes_fed == len(data)
    assert progress[-1].bytes == progress[-1].rows_total == len(data)  # decompressed bytes
    connection = server.endpoint.connect(database=schema)
    assert scalar(connection, "SELECT COUNT(*) FROM orders") == ORDERS
    connection.close()


def test_refused_statement_names_the_dump_line_and_the_server_message(server: LocalProvisioner) -> None:
    dump = STATE / "bad.sql"
    dump.write_text(
        "CREATE TABLE t (id INT PRIMARY KEY);\n"
        "INSERT INTO t VALUES (1),(2);\n"
        "DELIMITER ;;\n"
        "CREATE PROCEDURE p() BEGIN SELECT 1; END;;\n"
        "DELIMITER ;\n"
        "INSERT INTO missing_table VALUES (1);\n"
    )
    _fresh(server, "bad")
    with pytest.raises(LoadFailed) as failed:
        load_dump(server.endpoint, server.flavor, dump, "bad")
    assert failed.value.line == 6 and failed.value.code == 1146
    assert "at line 6 of the dump" in str(failed.value) and "missing_table" in str(failed.value)
