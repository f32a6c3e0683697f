"""What one statement does on one server: error, warnings, rows (count and two checksums), the
optimizer's plan (EXPLAIN FORMAT=JSON, summarised) and its time.

Every replayed statement runs through a `Statements` runner: bounded in time
(targets/statement_timeout.py) and, unless the replay allows writes, read-only as the server sees
it: `SET SESSION TRANSACTION READ ONLY` before each statement, which then runs in autocommit as a
read-only transaction of its own (as the application ran it). The server refuses any write in it
(ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION), whatever the parser guessed: a write in a stored
function (`SELECT f()`) on InnoDB, MyISAM and MEMORY tables alike, and DDL, whose implicit commit
starts the next transaction with the session's read-only mode. Re-asserted before every statement,
so nothing a statement did to the session carries over; an explicit transaction left open is rolled
back first. A timed pass (timing.py) may assert it once for its runs of one statement
(timing.READ_ONLY_EVERY "pass"), only where the session can call no stored routine
(`routines_callable`): a procedure can make the session read-write on one call and write on the
next. What the transaction does not cover (a file written by `INTO OUTFILE`, `SET GLOBAL`) is
refused by the replay account's privileges; both kinds of refusal are the outcome kind "refused".

Checksums are sha256 over the rows as PyMySQL decodes them (so the wire format of a version does not
matter, the values do): each row's digest is the sha256 of its repr; `ordered` hashes the row digests
in the order the server sent them, `unordered` is the sha256 of their sum modulo 2^256 (an additive
multiset hash, Bellare-Micciancio's AdHash: equal for the same rows in any order, and computed as
the rows stream, without holding their digests). Equal `unordered` and different `ordered` =
"ordering only".

Results are streamed (an unbuffered cursor, pymysql SSCursor): each row is read off the wire, hashed
and dropped, so a statement's result is never held whole (a 1,000 x 1 MB result costs the worker one
row). `result_bytes` counts the bytes hashed (the rows' reprs); a result over the replay's result
bound (settings `replay_result_max_bytes`, 64 MiB) is said so in the outcome's note: it was compared
by its checksums and row count only, as every result is, and nothing of it was kept to show.

Warnings are the statement's own: SHOW WARNINGS is read only when the statement's OK or EOF packet
counted warnings. MariaDB does not clear the diagnostics area for a statement that touches no table
and raises nothing (`SELECT 1`), so SHOW WARNINGS after it lists the previous statement's.

One concept: what a statement does on one server, read as the replay's runner runs it (its
session made read-only, its database selected, its result streamed and hashed, its plan summarised).
"""

import hashlib
import json
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import pymysql
from pydantic import ConfigDict, with_config
from pymysql.constants import SERVER_STATUS
from pymysql.cursors import Cursor

from upgradelab.settings import get_settings
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.targets.statement_timeout import StatementBound, StatementTimedOut, timed_out_text

OutcomeKind = Literal["ran", "error", "refused", "timed out"]
REFUSED_TEXT = "refused: writes in a read-only replay"
# What the server answers a write in a read-only replay: the read-only transaction's refusal
# (1792), and what a read-only account is told: table or column privilege (1142, 1143), database
# (1044), FILE for INTO OUTFILE/DUMPFILE (1045), SUPER or a *_ADMIN privilege (1227), a routine
# (1370), --secure-file-priv or --read-only (1290), a table opened read-only (1036).
READ_ONLY_REFUSALS = frozenset({1792, 1142, 1143, 1044, 1045, 1227, 1370, 1290, 1036})
MIB = 1024 * 1024
# What prepare() sends the session (and ROLLBACK first where a transaction was left open): rows of the
# session's thread between a pass's runs that timing.py's pass read steps over
READ_ONLY_SET = "SET SESSION TRANSACTION READ ONLY"
_MODULUS = 1 << 256


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
    """One statement once on one server. error_code/error_message: None when it ran (the server's
    error otherwise, kept for a refusal and a timeout too); warnings: [(level, code, message)] of
    SHOW WARNINGS; row_count and checksums None after an error; plan: steps in join order ([] when
    EXPLAIN gave none) and plan_error when EXPLAIN itself failed. kind: "ran", "error", "refused"
    (the server refused a write in a read-only replay) or "timed out"; note: how the report says a
    refusal or a timeout ("refused: writes in a read-only replay", "timed out after 30 s") or a
    result over the bound ("result over 64 MiB: compared by checksum and row count"). result_bytes:
    the bytes of the result hashed (None after an error, and in reports stored before it);
    result_over_bound: the result was over the replay's result bound. Reports stored before `kind`
    read as "ran" with their error_code."""

    error_code: int | None
    error_message: str | None
    warnings: list[tuple[str, int, str]] = field(default_factory=list)
    row_count: int | None = None
    checksum_ordered: str | None = None
    checksum_unordered: str | None = None
    plan: list[PlanStep] = field(default_factory=list)
    plan_json: Any = None
    plan_error: str | None = None
    kind: OutcomeKind = "ran"
    note: str | None = None
    result_bytes: int | None = None
    result_over_bound: bool = False

    def __post_init__(self) -> None:
        if self.kind == "ran" and self.error_code is not None:  # made before kinds, or by the engine
            object.__setattr__(self, "kind", "error")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class ResultDigest:
    """A result's row count, bytes and checksums, fed one row at a time (module docstring); holds
    no row. `warning_count`: the statement's own, from its OK or EOF packet (None: unknown)."""

    def __init__(self) -> None:
        self.rows = 0
        self.bytes = 0
        self.warning_count: int | None = None
        self._ordered = hashlib.sha256()
        self._sum = 0

    def add(self, row: tuple[Any, ...]) -> None:
        # repr of Python values: Decimal('1.50'), b'..', datetime(...) stay distinct from their strings
        data = repr(row).encode()
        digest = hashlib.sha256(data).digest()
        self.rows += 1
        self.bytes += len(data)
        self._ordered.update(digest)
        self._sum = (self._sum + int.from_bytes(digest, "big")) % _MODULUS

    def feed(self, rows: Iterable[tuple[Any, ...]]) -> "ResultDigest":
        for row in rows:
            self.add(row)
        return self

    def checksums(self) -> tuple[str, str]:
        """(ordered, unordered) sha256 hex."""
        unordered = hashlib.sha256(self._sum.to_bytes(32, "big")).hexdigest()
        return self._ordered.hexdigest(), unordered


def checksums(rows: Iterable[tuple[Any, ...]]) -> tuple[str, str]:
    """(ordered, unordered) sha256 hex of a result set (see module docstring)."""
    return ResultDigest().feed(rows).checksums()


def _warning_count(cursor: Cursor) -> int | None:
    """The warning count of the statement `cursor` ran and read to its end, from its OK or EOF
    packet (pymysql keeps it on the cursor's result); None when pymysql does not say."""
    count = getattr(getattr(cursor, "_result", None), "warning_count", None)
    return int(count) if isinstance(count, int) else None


def _digest(cursor: Cursor) -> ResultDigest:
    """Stream the cursor's rows into a ResultDigest (an unbuffered cursor: one row held at a time)."""
    digest = ResultDigest().feed(cursor)
    digest.warning_count = _warning_count(cursor)
    return digest


def _drain(cursor: Cursor) -> int:
    """Read the cursor's rows to the end, dropping each (what a timed run does with its result)."""
    count = 0
    for _ in cursor:
        count += 1
    return count


def _warnings(connection: ServerConnection, count: int | None = None) -> list[tuple[str, int, str]]:
    """SHOW WARNINGS, unless the statement's own `count` says it had none (module docstring)."""
    if count == 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute("SHOW WARNINGS")
        return [(str(level), int(code), str(message)) for level, code, message in cursor.fetchall()]


def result_note(limit_bytes: int) -> str:
    """How the report says a result was over the bound."""
    return f"result over {limit_bytes / MIB:g} MiB: compared by checksum and row count"


def _steps(node: Any, out: list[PlanStep]) -> None:
    """Table accesses in document order, which is join order in both MySQL's and MariaDB's JSON:
    format 1 (MariaDB, MySQL up to 8.x: a "table" object per access) and format 2 (MySQL 8.3+ with
    explain_json_format_version=2, 9.x's default: iterator nodes naming "table_name" themselves,
    their access spelled as format 1's by `_v2_access`, so 8.0 against 9.x compares like with like)."""
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
        elif "table_name" in node and "operation" in node:  # format 2
            rows = node.get("estimated_rows")
            out.append(
                PlanStep(
                    str(node["table_name"]),
                    _v2_access(node),
                    node.get("index_name"),
                    float(rows) if isinstance(rows, int | float) else None,
                )
            )
        for value in node.values():
            _steps(value, out)
    elif isinstance(node, list):
        for value in node:
            _steps(value, out)


def _v2_access(node: dict[str, Any]) -> str | None:
    """A format-2 node's access in format 1's words (ALL, index, range, eq_ref, ref, const), from its
    access_type, index_access_type and operation ("Single-row index lookup on u using PRIMARY");
    another access as format 2 names it."""
    access, index_access = node.get("access_type"), node.get("index_access_type")
    operation = str(node.get("operation", ""))
    if access == "table":
        return "ALL"
    if index_access == "index_scan":
        return "index"
    if index_access == "index_range_scan":
        return "range"
    if index_access == "index_lookup":
        return "eq_ref" if operation.startswith("Single-row") else "ref"
    if access == "constant_row" or operation.startswith("Constant row"):
        return "const"
    return str(index_access or access) if (index_access or access) else None


def _error_text(error: pymysql.MySQLError) -> str:
    return f"{error.args[0]}: {error.args[1]}" if len(error.args) > 1 else str(error)


class Statements:
    """Runs user statements on one connection: each bounded by `bound` (its connection is the one
    used) and, when `read_only`, in a read-only transaction (module docstring). `routines`: whether
    the session may call a stored routine (`routines_callable`; True when not known): one can change
    the session's read-only mode between two runs of a pass (`SET SESSION TRANSACTION READ WRITE` in a
    procedure, then a write on its next call), so a pass made read-only once (timing.READ_ONLY_EVERY
    "pass") is made so before every run there (tests/replay/test_hostile_statements.py)."""

    def __init__(self, bound: StatementBound, read_only: bool = True, routines: bool = True) -> None:
        self.bound, self.read_only, self.routines = bound, read_only, routines
        self.connection = bound.connection
        # the default database passes.py selected last on the connection (None: not known)
        self.database: str | None = None

    def prepare(self) -> None:
        """The session read-only for the statements that follow (when the replay is read-only): one
        round trip; drain(prepared=True) runs after it without its own (timing.py's batched pass)."""
        self._prepare()

    def _prepare(self) -> None:
        if self.read_only:
            with self.connection.cursor() as cursor:
                cursor.execute(READ_ONLY_SET)
                status = int(getattr(self.connection, "server_status", 0) or 0)  # not in pymysql's stubs
                if status & SERVER_STATUS.SERVER_STATUS_IN_TRANS:
                    cursor.execute("ROLLBACK")  # a transaction left open would not be read-only

    def run(self, sql: str) -> tuple[list[tuple[Any, ...]], float]:
        """(rows, seconds around execute + fetch); StatementTimedOut, StatementInterrupted or the
        server's pymysql error (targets/statement_timeout.py StatementBound.run). For results the
        lab reads itself (EXPLAIN); a replayed statement's result goes through digest() or drain()."""
        self._prepare()
        return self.bound.run(sql)

    def digest(self, sql: str) -> tuple[ResultDigest, float]:
        """As run(), the rows streamed into a ResultDigest (never held)."""
        self._prepare()
        return self.bound.stream(sql, _digest)

    def drain(self, sql: str, prepared: bool = False) -> tuple[int, float]:
        """As run(), the rows streamed and dropped: (row count, seconds around execute + fetch).
        prepared: prepare() was called before this pass's runs (the session is still read-only)."""
        if not prepared:
            self._prepare()
        return self.bound.stream(sql, _drain)


def routines_callable(connection: ServerConnection) -> bool:
    """Whether the account of `connection` sees a stored function or procedure
    (information_schema.ROUTINES lists those it may execute or alter, or defined); True when the
    server will not say. A replay's reader sees the dataset's own (EXECUTE on its databases): a
    dataset without routines gives False, and a replayed statement then cannot change its session's
    read-only mode and write in one pass (a statement of its own: `SET SESSION TRANSACTION READ WRITE`
    runs alone in its pass; a pass's next statement is made read-only again)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT EXISTS (SELECT 1 FROM information_schema.ROUTINES)")
            row = cursor.fetchone()
    except pymysql.MySQLError:
        return True
    return not row or bool(int(row[0]))


def explain(statements: Statements, sql: str) -> tuple[list[PlanStep], Any, str | None]:
    """(steps, the full JSON, error) of EXPLAIN FORMAT=JSON, run as the statement itself is (bounded,
    read-only); statements EXPLAIN cannot take (SHOW) give ([], None, the server's message)."""
    try:
        rows, _ = statements.run(f"EXPLAIN FORMAT=JSON {sql}")
    except pymysql.MySQLError as error:
        return [], None, _error_text(error)
    except StatementTimedOut as error:
        return [], None, str(error)
    row = rows[0] if rows else None
    document = json.loads(row[0]) if row else None
    steps: list[PlanStep] = []
    _steps(document, steps)
    return steps, document, None


def _failed(statements: Statements, error: pymysql.MySQLError) -> Outcome:
    """The outcome of a statement the server ended with `error`: refused (a read-only replay's
    refusal) or an error."""
    code = int(error.args[0]) if error.args and isinstance(error.args[0], int) else None
    message = str(error.args[1]) if len(error.args) > 1 else str(error)
    warnings = _warnings(statements.connection)
    if statements.read_only and code in READ_ONLY_REFUSALS:
        return Outcome(code, message, warnings, kind="refused", note=REFUSED_TEXT)
    return Outcome(code, message, warnings, kind="error")


def timed_out(seconds: float) -> Outcome:
    """The outcome of a statement ended at its bound."""
    text = timed_out_text(seconds)
    return Outcome(None, None, kind="timed out", note=text)


def capture(statements: Statements, sql: str) -> Outcome:
    """Run `sql` once and record its outcome, then EXPLAIN it (untimed). StatementInterrupted
    passes through (the replay was cancelled)."""
    try:
        digest, _ = statements.digest(sql)
    except pymysql.MySQLError as error:
        return _failed(statements, error)
    except StatementTimedOut as error:
        return timed_out(error.seconds)
    warnings = _warnings(statements.connection, digest.warning_count)
    ordered, unordered = digest.checksums()
    steps, document, plan_error = explain(statements, sql)
    limit = get_settings().replay_result_max_bytes
    over = digest.bytes > limit
    return Outcome(
        None,
        None,
        warnings,
        digest.rows,
        ordered,
        unordered,
        steps,
        document,
        plan_error,
        note=result_note(limit) if over else None,
        result_bytes=digest.bytes,
        result_over_bound=over,
    )


def time_statement(statements: Statements, sql: str) -> float | None:
    """Seconds (perf_counter) around execute + fetch; None when the statement errors, math.inf when
    it timed out. StatementInterrupted passes through."""
    try:
        return statements.drain(sql)[1]
    except pymysql.MySQLError:
        return None
    except StatementTimedOut:
        return math.inf
