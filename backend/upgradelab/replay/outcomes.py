"""What one statement does on one server: error, warnings, rows (count and two checksums), the
optimizer's plan (EXPLAIN FORMAT=JSON, summarised) and its time.

Checksums are sha256 over the rows as PyMySQL decodes them (so the wire format of a version does not
matter, the values do): `ordered` hashes the rows in the order the server sent them, `unordered`
hashes the sorted per-row digests. Equal `unordered` and different `ordered` = "ordering only".
"""

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import pymysql
from pydantic import ConfigDict, with_config

from upgradelab.targets.provisioners.base import ServerConnection


@dataclass(frozen=True)
class PlanStep:
    """One table access in join order: table (alias), access type (ALL, ref, range, eq_ref, index,
    const, ...), chosen key (None: no index), rows estimate (rows_examined_per_scan / rows)."""

    table: str
    access_type: str | None
    key: str | None
    rows: float | None


# with_config: the API sends every field, defaults included (the generated client's types say so)
@with_config(ConfigDict(json_schema_serialization_defaults_required=True))
@dataclass(frozen=True)
class Outcome:
    """One statement once on one server. error_code/error_message: None when it ran; warnings:
    [(level, code, message)] of SHOW WARNINGS; row_count and checksums None after an error; plan:
    steps in join order ([] when EXPLAIN gave none) and plan_error when EXPLAIN itself failed."""

    error_code: int | None
    error_message: str | None
    warnings: list[tuple[str, int, str]] = field(default_factory=list)
    row_count: int | None = None
    checksum_ordered: str | None = None
    checksum_unordered: str | None = None
    plan: list[PlanStep] = field(default_factory=list)
    plan_json: Any = None
    plan_error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _row_digest(row: tuple[Any, ...]) -> bytes:
    # repr of Python values: Decimal('1.50'), b'..', datetime(...) stay distinct from their strings
    return hashlib.sha256(repr(row).encode()).digest()


def checksums(rows: list[tuple[Any, ...]]) -> tuple[str, str]:
    """(ordered, unordered) sha256 hex of a result set (see module docstring)."""
    digests = [_row_digest(row) for row in rows]
    ordered = hashlib.sha256(b"".join(digests)).hexdigest()
    unordered = hashlib.sha256(b"".join(sorted(digests))).hexdigest()
    return ordered, unordered


def _warnings(connection: ServerConnection) -> list[tuple[str, int, str]]:
    with connection.cursor() as cursor:
        cursor.execute("SHOW WARNINGS")
        return [(str(level), int(code), str(message)) for level, code, message in cursor.fetchall()]


def _steps(node: Any, out: list[PlanStep]) -> None:
    """Table accesses in document order, which is join order in both MySQL's and MariaDB's JSON."""
    if isinstance(node, dict):
        table = node.get("table")
        if isinstance(table, dict) and "table_name" in table:
            rows = table.get("rows_examined_per_scan", table.get("rows"))
            out.append(
                PlanStep(
                    str(table["table_name"]),
                    table.get("access_type"),
                    table.get("key"),
                    float(rows) if isinstance(rows, int | float) else None,
                )
            )
        for value in node.values():
            _steps(value, out)
    elif isinstance(node, list):
        for value in node:
            _steps(value, out)


def explain(connection: ServerConnection, sql: str) -> tuple[list[PlanStep], Any, str | None]:
    """(steps, the full JSON, error) of EXPLAIN FORMAT=JSON; statements EXPLAIN cannot take (SHOW)
    give ([], None, the server's message)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN FORMAT=JSON {sql}")
            row = cursor.fetchone()
    except pymysql.MySQLError as error:
        return [], None, f"{error.args[0]}: {error.args[1]}" if len(error.args) > 1 else str(error)
    document = json.loads(row[0]) if row else None
    steps: list[PlanStep] = []
    _steps(document, steps)
    return steps, document, None


def capture(connection: ServerConnection, sql: str) -> Outcome:
    """Run `sql` once and record its outcome, then EXPLAIN it (untimed)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            rows = list(cursor.fetchall())
    except pymysql.MySQLError as error:
        code = int(error.args[0]) if error.args and isinstance(error.args[0], int) else None
        message = str(error.args[1]) if len(error.args) > 1 else str(error)
        return Outcome(code, message, _warnings(connection))
    warnings = _warnings(connection)
    ordered, unordered = checksums(rows)
    steps, document, plan_error = explain(connection, sql)
    return Outcome(None, None, warnings, len(rows), ordered, unordered, steps, document, plan_error)


def time_statement(connection: ServerConnection, sql: str) -> float | None:
    """Seconds (perf_counter) around execute + fetch; None when the statement errors."""
    try:
        with connection.cursor() as cursor:
            started = time.perf_counter()
            cursor.execute(sql)
            cursor.fetchall()
            return time.perf_counter() - started
    except pymysql.MySQLError:
        return None
