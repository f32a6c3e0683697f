"""General query logs written by the real servers (MariaDB 10.11, MariaDB 11.8, MySQL 9.7) parse:
each thread's default database is kept, multi-line statements stay whole, writes are skipped."""

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from upgradelab.replay.sources import parse_source
from upgradelab.workloads.base import execute

STATEMENTS = [
    "SELECT COUNT(*) FROM t WHERE id IN (1, 2, 3)",
    "SELECT id\nFROM t\nWHERE id > 1",
    "UPDATE t SET id = id WHERE id = 3",
]


@pytest.mark.parametrize("name", ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"])
def test_general_log_of_each_server_parses(name: str, database: None) -> None:
    provisioner = lab_provisioner(name, ports.UNIT_TARGETS[name], suffix="genlog")
    log_inner = f"{provisioner.inner_dir}/general.log"
    log_file = provisioner.root / log_inner.lstrip("/")
    try:
        endpoint = provisioner.start([])
        admin = endpoint.connect()
        execute(admin, "CREATE DATABASE shop", "CREATE TABLE shop.t (id INT PRIMARY KEY)")
        execute(admin, "INSERT INTO shop.t VALUES (1), (2), (3)")
        log_file.unlink(missing_ok=True)
        execute(admin, f"SET GLOBAL general_log_file = '{log_inner}'", "SET GLOBAL general_log = ON")
        app = endpoint.connect(database="shop")
        for sql in STATEMENTS:
            with app.cursor() as cursor:
                cursor.execute(sql)
        app.close()
        execute(admin, "SET GLOBAL general_log = OFF")
        admin.close()
        parsed = parse_source(log_file.read_text())
    finally:
        provisioner.stop()
    assert parsed.format == "general"
    replayed = [(s.database, s.sql) for s in parsed.statements if "from t" in s.fingerprint]
    assert replayed == [("shop", STATEMENTS[0]), ("shop", STATEMENTS[1])], parsed.statements
    assert "update t set id = id where id = ?" in [s.fingerprint for s in parsed.skipped_writes]
