"""Prepared datasets: a marker table inside the server, and the doubling INSERT ... SELECT with progress.

A template that declares a dataset spec gets its data built once per datadir: after building, the
runner records `upgradelab_meta.datasets(spec_hash)`; a later variant started on the kept datadir
finds the hash and skips the preparation (see runs/blocks.py).
"""

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads.base import DatasetProgress, ServerSession, execute, scalar

META_DATABASE = "upgradelab_meta"


def spec_hash(slug: str, spec: dict[str, Any]) -> str:
    """sha256 hex of the workload slug and its canonical JSON spec."""
    canonical = json.dumps({"workload": slug, "spec": spec}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def is_prepared(connection: ServerConnection, digest: str) -> bool:
    """True when the server holds a dataset recorded under this hash."""
    exists = scalar(
        connection,
        "SELECT COUNT(*) FROM information_schema.TABLES "
        f"WHERE TABLE_SCHEMA = '{META_DATABASE}' AND TABLE_NAME = 'datasets'",
    )
    if not exists:
        return False
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {META_DATABASE}.datasets WHERE spec_hash = %s", (digest,))
        row = cursor.fetchone()
    return bool(row and row[0])


def mark_prepared(connection: ServerConnection, digest: str, slug: str, spec: dict[str, Any]) -> None:
    """Record the dataset; earlier records are dropped (a datadir holds one template's dataset)."""
    execute(
        connection,
        f"CREATE DATABASE IF NOT EXISTS {META_DATABASE}",
        f"CREATE TABLE IF NOT EXISTS {META_DATABASE}.datasets (spec_hash CHAR(64) PRIMARY KEY, "
        "workload VARCHAR(64) NOT NULL, spec JSON NOT NULL, prepared_at DATETIME NOT NULL)",
        f"DELETE FROM {META_DATABASE}.datasets",
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {META_DATABASE}.datasets VALUES (%s, %s, %s, NOW())",
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
