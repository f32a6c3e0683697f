"""A policy restart is cold on the lab's real servers (MariaDB 10.11, MySQL 9.7): the run's options
(runs/executor/preflight.py EMPTY_POOL_AT_START) keep the server from reading back the pages it dumped at the
clean shutdown. Without them, both flavors' defaults warm the restarted server: the contrast shows the
test can fail."""

import time

from upgradelab.runs.executor.preflight import EMPTY_POOL_AT_START
from upgradelab.targets.options import render_option
from upgradelab.targets.provisioners import LocalProvisioner

ROWS = 20_000


def _status(provisioner: LocalProvisioner, name: str) -> str:
    connection = provisioner.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW GLOBAL STATUS LIKE %s", (name,))
            row = cursor.fetchone()
    finally:
        connection.close()
    assert row is not None, name
    return str(row[1])


def _pages_read(provisioner: LocalProvisioner) -> int:
    """Pages read from disk into the buffer pool: one at a time (Innodb_buffer_pool_reads) and by
    read-ahead (Innodb_buffer_pool_read_ahead, counted apart)."""
    return sum(
        int(_status(provisioner, n)) for n in ("Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_ahead")
    )


def _physical_reads_of_a_scan_after_restart(provisioner: LocalProvisioner, options: list[str]) -> int:
    """Pages read from disk (_pages_read) by one full scan of a ~20,000-row table read
    once before a restart(), the load of any dump finished or given up after 30 s."""
    provisioner.start(options)
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("CREATE DATABASE cold")
        cursor.execute("CREATE TABLE cold.t (id INT PRIMARY KEY, pad CHAR(200) NOT NULL)")
        cursor.executemany("INSERT INTO cold.t VALUES (%s, %s)", [(n, "x" * 200) for n in range(ROWS)])
        connection.commit()
        cursor.execute("SELECT SUM(LENGTH(pad)) FROM cold.t")
    connection.close()
    provisioner.restart()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        load = _status(provisioner, "Innodb_buffer_pool_load_status")
        if "completed" in load or "not started" in load.lower() or not load:
            break
        time.sleep(0.2)
    before = _pages_read(provisioner)
    connection = provisioner.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute("SELECT SUM(LENGTH(pad)) FROM cold.t")
    connection.close()
    return _pages_read(provisioner) - before


def test_a_restart_starts_with_an_empty_buffer_pool_and_the_defaults_would_not(
    provisioner: LocalProvisioner,
) -> None:
    cold = _physical_reads_of_a_scan_after_restart(
        provisioner, [render_option(k, v) for k, v in EMPTY_POOL_AT_START.items()]
    )
    warm = _physical_reads_of_a_scan_after_restart(provisioner, [])
    # ~20,000 rows of ~210 bytes: ~300 pages of 16 KiB, every one read from disk when cold
    assert cold >= 200, (cold, warm)
    # the defaults dump the recently used pages and load them back: the scan finds most of them
    assert warm < cold / 2, (cold, warm)
