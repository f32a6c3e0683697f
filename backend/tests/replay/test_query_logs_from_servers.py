"""General and slow query logs written by the real servers (MariaDB 10.11, MariaDB 11.8, MySQL 9.7)
parse: each statement's default database is kept, multi-line statements stay whole, writes are
skipped."""

import pytest

from tests import ports
from tests.conftest import lab_provisioner
from upgradelab.measurement.sources import parse_source
from upgradelab.workloads.base import execute

STATEMENTS = [
    "SELECT COUNT(*) FROM t WHERE id IN (1, 2, 3)",
    "SELECT id\nFROM t\nWHERE id > 1",
    "UPDATE t SET id = id WHERE id = 3",
]


@pytest.mark.parametrize("kind", ["general", "slow"])
@pytest.mark.parametrize("name", ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"])
def test_query_logs_of_each_server_parse(name: str, kind: str, database: None) -> None:
    provisioner = lab_provisioner(name, ports.UNIT_TARGETS[name], suffix="querylog")
    log_inner = f"{provisioner.inner_dir}/{kind}.log"
    log_file = provisioner.root / log_inner.lstrip("/")
    switch = "general_log" if kind == "general" else "slow_query_log"
    try:
        endpoint = provisioner.start([])
        admin = endpoint.connect()
        execute(admin, "CREATE DATABASE shop", "CREATE TABLE shop.t (id INT PRIMARY KEY)")
        execute(admin, "INSERT INTO shop.t VALUES (1), (2), (3)", "SET GLOBAL long_query_time = 0")
        log_file.unlink(missing_ok=True)
        execute(admin, f"SET GLOBAL {switch}_file = '{log_inner}'", f"SET GLOBAL {switch} = ON")
        app = endpoint.connect(database="shop")  # a new session: long_query_time = 0
        for sql in STATEMENTS:
            with app.cursor() as cursor:
                cursor.execute(sql)
        # A statement's slow-log entry is written after its OK reaches the client; the session's next
        # statement starts only once it is written, so this one makes the last entry sure before the
        # log is switched off (under load the UPDATE's entry was missing once).
        with app.cursor() as cursor:
            cursor.execute("SELECT 1")
        app.close()
        execute(admin, f"SET GLOBAL {switch} = OFF")
        admin.close()
        parsed = parse_source(log_file.read_text())
    finally:
        provisioner.stop()
    assert parsed.format == kind
    replayed = [(s.database, s.sql) for s in parsed.statements if "from t" in s.fingerprint]
    assert replayed == [("shop", STATEMENTS[0]), ("shop", STATEMENTS[1])], parsed.statements
    assert "update t set id = id where id = ?" in [s.fingerprint for s in parsed.skipped_writes]
