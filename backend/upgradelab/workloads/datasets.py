"""Prepared datasets: a marker table inside the server, and the doubling INSERT ... SELECT with progress.

A template that declares a dataset spec gets its data built once per datadir: after building, the
runner records `upgradelab_meta.datasets(spec_hash)`; a later variant started on the kept datadir
finds the hash and skips the preparation (see runs/executor/blocks.py). A replay's dump is marked the same
way (its sha256, with a token), but that marker is trusted only beside the worker's own record of
the load (measurement/dataset_records.py): no dataset account may touch `upgradelab_meta`
(datasets/reserved.py), and the record is what proves the load succeeded.
"""

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads.session import DatasetProgress, ServerSession
from upgradelab.workloads.sql import execute, scalar

META_DATABASE = "upgradelab_meta"


def spec_hash(slug: str, spec: dict[str, Any]) -> str:
    """sha256 hex of the workload slug and its canonical JSON spec."""
    canonical = json.dumps({"workload": slug, "spec": spec}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _marker(database: str | None) -> tuple[str, str]:
    """(schema, table) of the dataset marker: upgradelab_meta.datasets on the lab's own servers, the
    table upgradelab_datasets inside the lab's database on an existing server (the lab may create
    objects there only)."""
    return (META_DATABASE, "datasets") if database is None else (database, "upgradelab_datasets")


def is_prepared(connection: ServerConnection, digest: str, database: str | None = None) -> bool:
    """True when the server holds a dataset recorded under this hash (`database`: see _marker)."""
    schema, table = _marker(database)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s",
            (schema, table),
        )
        exists = cursor.fetchone()
    if not exists or not exists[0]:
        return False
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM `{schema}`.{table} WHERE spec_hash = %s", (digest,))
        row = cursor.fetchone()
    return bool(row and row[0])


def prepared_spec(
    connection: ServerConnection, digest: str, database: str | None = None
) -> dict[str, Any] | None:
    """The spec recorded under this hash (`database`: see _marker); None when there is none, or
    when it is not a JSON object."""
    if not is_prepared(connection, digest, database):
        return None
    schema, table = _marker(database)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT spec FROM `{schema}`.{table} WHERE spec_hash = %s", (digest,))
        row = cursor.fetchone()
    try:
        spec = json.loads(row[0]) if row else None
    except ValueError:
        return None
    return spec if isinstance(spec, dict) else None


def mark_prepared(
    connection: ServerConnection, digest: str, slug: str, spec: dict[str, Any], database: str | None = None
) -> None:
    """Record the dataset; earlier records are dropped (a datadir holds one template's dataset)."""
    schema, table = _marker(database)
    if database is None:
        execute(connection, f"CREATE DATABASE IF NOT EXISTS {META_DATABASE}")
    execute(
        connection,
        f"CREATE TABLE IF NOT EXISTS `{schema}`.{table} (spec_hash CHAR(64) PRIMARY KEY, "
        "workload VARCHAR(64) NOT NULL, spec JSON NOT NULL, prepared_at DATETIME NOT NULL)",
        f"DELETE FROM `{schema}`.{table}",
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO `{schema}`.{table} VALUES (%s, %s, %s, NOW())",
            (digest, slug, json.dumps(spec, sort_keys=True)),
        )


def forget_datasets(connection: ServerConnection) -> None:
    """Drop the marker (before a template changes the data it describes)."""
    execute(connection, f"DROP DATABASE IF EXISTS {META_DATABASE}")


class ProgressMeter:
    """Reports DatasetProgress through server.report at most every `interval_s` (and at the end)."""

    def __init__(self, server: ServerSession, phase: str, rows_total: int, interval_s: float = 1.0) -> None:
        self.server, self.phase, self.rows_total, self.interval_s = server, phase, rows_total, interval_s
        self.started = time.monotonic()
        self.last = 0.0

    def update(self, rows: int, bytes_written: int, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.interval_s:
            return
        self.last = now
        elapsed = now - self.started
        estimate = elapsed * self.rows_total / rows if rows else None
        self.server.report(
            DatasetProgress(self.phase, rows, self.rows_total, bytes_written, elapsed, estimate)
        )


def double_to(
    server: ServerSession,
    table: str,
    rows_total: int,
    copy_sql: Callable[[int, int], str],
    bytes_per_row: float,
) -> int:
    """Double `table` with INSERT ... SELECT until it holds `rows_total` rows; rows reached.

    `copy_sql(offset, limit)` is the article's `INSERT INTO t SELECT id + offset, ... FROM t ORDER BY id`
    copying only the first `limit` rows (ids are 1..n) so the last step stops at exactly rows_total.
    Progress is reported per step; bytes are estimated as rows x bytes_per_row.
    """
    connection = server.connection
    rows = int(scalar(connection, f"SELECT COUNT(*) FROM {table}") or 0)
    meter = ProgressMeter(server, f"{table}: INSERT ... SELECT doubling", rows_total, interval_s=0.0)
    meter.update(rows, int(rows * bytes_per_row), force=True)
    while 0 < rows < rows_total:
        step = min(rows, rows_total - rows)
        execute(connection, copy_sql(rows, step))
        rows += step
        meter.update(rows, int(rows * bytes_per_row), force=True)
    return rows
