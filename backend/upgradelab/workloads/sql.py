"""The SQL helpers of workloads and dataset loaders: one statement timed (StatementTiming),
untimed statements, one value."""

import time
from dataclasses import dataclass, field
from typing import Any

from upgradelab.targets.provisioners.base import ServerConnection


@dataclass(frozen=True)
class StatementTiming:
    """One statement of an iteration: label ("TRUNCATE test3"), client-side seconds (perf_counter),
    and optional metrics measured with it (e.g. sysbench's {"tps", "qps", "p50_ms", ...})."""

    statement: str
    elapsed_s: float
    metrics: dict[str, float] = field(default_factory=dict)


def timed(connection: ServerConnection, label: str, sql: str, args: Any = None) -> StatementTiming:
    """Execute one statement and time it: seconds, float, perf_counter around execute + fetch."""
    with connection.cursor() as cursor:
        started = time.perf_counter()
        cursor.execute(sql, args)
        cursor.fetchall()
        return StatementTiming(label, time.perf_counter() - started)


def execute(connection: ServerConnection, *statements: str) -> None:
    """Execute untimed statements in order."""
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)


def scalar(connection: ServerConnection, sql: str, column: int = 0) -> Any:
    """One column of the first row (None when there is no row)."""
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    return row[column] if row else None
