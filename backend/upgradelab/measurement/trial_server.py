"""What the server says about one concurrent trial (issue 50 item 4), read on the lab's admin
connection beside the driver (session_driver.py): its lock waits and deadlocks, and the data at the
end, a checksum per table.

Locks, from the server's own counters, read before and after the trial (`lock_counters`, the
difference `LockCounters.since`): `Innodb_row_lock_waits` and `Innodb_row_lock_time` (milliseconds)
from SHOW GLOBAL STATUS on both flavors; deadlocks from `Innodb_deadlocks` (MariaDB) or
information_schema.INNODB_METRICS `lock_deadlocks` (MySQL; None where the counter is off); the last
deadlock's text from SHOW ENGINE INNODB STATUS ("LATEST DETECTED DEADLOCK", `last_deadlock`).
Waits as they happen, sampled every `interval_s` by `LockWaitSampler` on a connection of its own:
the rows of performance_schema.data_lock_waits (MySQL 8.0+) or information_schema.INNODB_LOCK_WAITS
(MariaDB), or `Innodb_row_lock_current_waits` where that table cannot be read (performance_schema
off): the peak and the mean of the waits seen at once, and how many samples saw one.

The server's clock per fingerprint (`digest_p95`), read once the sessions ended (before the
checksums), from performance_schema.events_statements_histogram_by_digest (MySQL 8.0.19+): the
digests of some of each fingerprint's statements (STATEMENT_DIGEST; pt-query-digest's fingerprint
is coarser than the server's digest: `sbtest1` and `sbtest2` are one fingerprint, two digests), their
latency histograms summed bucket by bucket (the same buckets for every digest), and the upper bound
of the bucket holding the 95th percentile (picoseconds, as the server's own QUANTILE_95), with the
count of those digests (failed statements counted there, not in the client's percentiles). The
trial's server started empty, so the table holds the trial's statements (and the lab's admin reads,
other digests). Where the server cannot say, `ServerP95.clock` says why ("server clock not
available: ..."): performance_schema off (MariaDB's default), or no histogram table (MariaDB's
performance_schema is MySQL 5.6's; its events_statements_history_long is a ring buffer of the last
statements, so no whole trial's percentiles either).

The data at the end (`table_checksums`): every base table of the dataset's databases read whole,
each row hashed as a result is (outcomes.py ResultDigest: the repr of the driver's Python values, so
two flavors' equal rows hash equal), summed order-insensitively: one sha256 per table. Rows are
streamed (an unbuffered cursor), never held; a cancel is read between tables and every
CANCEL_EVERY_ROWS rows.
"""

import re
import statistics
import threading
from collections.abc import Callable, Sequence

import pymysql
from pydantic import BaseModel, Field
from pymysql.cursors import SSCursor

from upgradelab.measurement.outcomes import ResultDigest
from upgradelab.targets.provisioners.base import ServerConnection

CANCEL_EVERY_ROWS = 10_000
DEADLOCK_CHARS = 4_000
_WAIT_TABLES = {
    "mysql": "SELECT COUNT(*) FROM performance_schema.data_lock_waits",
    "mariadb": "SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS",
}
_DEADLOCK = re.compile(r"LATEST DETECTED DEADLOCK\n-+\n(.*?)\n-{4,}\n[A-Z]", re.S)


class TrialReadCancelled(RuntimeError):
    """A read of the trial's server stopped by a cancel (the checksums not all made)."""


class LockCounters(BaseModel):
    """The server's lock counters (since its start, or over a trial: `since`): `row_lock_waits`
    (waits for a row lock), `row_lock_time_ms` (milliseconds spent in them), `deadlocks` (None: the
    server does not count them)."""

    row_lock_waits: int
    row_lock_time_ms: int
    deadlocks: int | None

    def since(self, before: "LockCounters") -> "LockCounters":
        """These counters less `before` (read at the trial's start): the trial's own."""
        deadlocks = (
            self.deadlocks - before.deadlocks
            if self.deadlocks is not None and before.deadlocks is not None
            else None
        )
        return LockCounters(
            row_lock_waits=self.row_lock_waits - before.row_lock_waits,
            row_lock_time_ms=self.row_lock_time_ms - before.row_lock_time_ms,
            deadlocks=deadlocks,
        )


class LockWaits(BaseModel):
    """Lock waits sampled during a trial (LockWaitSampler): `samples` taken, `waiting` how many saw
    a wait, `peak` and `mean` waits at once, and `source` the table or counter read."""

    samples: int
    waiting: int
    peak: int
    mean: float
    source: str


class ServerLocks(BaseModel):
    """A trial's locks as its server counted them: its `counters` (LockCounters over the trial), the
    `waits` sampled (None: not sampled) and the last deadlock's text from SHOW ENGINE INNODB STATUS
    (up to DEADLOCK_CHARS characters; None: none since the server started)."""

    counters: LockCounters
    waits: LockWaits | None
    last_deadlock: str | None


def _status(connection: ServerConnection, pattern: str) -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SHOW GLOBAL STATUS LIKE %s", (pattern,))
        return {str(name).lower(): int(value) for name, value in cursor.fetchall() if str(value).isdigit()}


def lock_counters(connection: ServerConnection, flavor: str) -> LockCounters:
    """The server's lock counters now (module docstring), on the lab's admin `connection`; `flavor`
    "mysql" | "mariadb" says where deadlocks are counted."""
    rows = _status(connection, "Innodb_row_lock%")
    deadlocks: int | None = None
    if flavor == "mariadb":
        deadlocks = _status(connection, "Innodb_deadlocks").get("innodb_deadlocks")
    else:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT COUNT, STATUS FROM information_schema.INNODB_METRICS WHERE NAME = 'lock_deadlocks'"
            )
            row = cursor.fetchone()
        deadlocks = int(row[0]) if row and str(row[1]).lower() == "enabled" else None
    return LockCounters(
        row_lock_waits=rows.get("innodb_row_lock_waits", 0),
        row_lock_time_ms=rows.get("innodb_row_lock_time", 0),
        deadlocks=deadlocks,
    )


def last_deadlock(connection: ServerConnection) -> str | None:
    """The LATEST DETECTED DEADLOCK section of SHOW ENGINE INNODB STATUS (the two transactions,
    their statements and locks; up to DEADLOCK_CHARS characters), None when the server saw none
    since it started."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW ENGINE INNODB STATUS")
        row = cursor.fetchone()
    found = _DEADLOCK.search(str(row[2])) if row else None
    return found[1].strip()[:DEADLOCK_CHARS] if found else None


class LockWaitSampler:
    """Samples the lock waits of a server every `interval_s` seconds on its own thread and
    connection (`connect()`: the lab's admin account), from `start()` to `stop()` (which joins the
    thread, closes the connection and returns the LockWaits; None when no sample was taken). A
    failed sample ends the sampling (what was sampled is kept): it never stops the trial."""

    def __init__(self, connect: Callable[[], ServerConnection], flavor: str, interval_s: float = 0.5) -> None:
        self.connect, self.flavor, self.interval_s = connect, flavor, interval_s
        self.counts: list[int] = []
        self.source = _WAIT_TABLES.get(flavor, _WAIT_TABLES["mysql"])
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="lock-wait-sampler", daemon=True)

    def _count(self, connection: ServerConnection) -> int:
        with connection.cursor() as cursor:
            try:
                cursor.execute(self.source)
            except pymysql.MySQLError:  # the table off (performance_schema=OFF): the server's counter
                self.source = "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'"
                cursor.execute(self.source)
                return int(cursor.fetchone()[1])
            return int(cursor.fetchone()[0])

    def _sample(self) -> None:
        try:
            connection = self.connect()
        except pymysql.MySQLError:
            return
        try:
            while not self._done.wait(self.interval_s):
                self.counts.append(self._count(connection))
        except pymysql.MySQLError:
            return
        finally:
            connection.close()

    def start(self) -> "LockWaitSampler":
        """Start sampling (returns itself)."""
        self._thread.start()
        return self

    def stop(self) -> LockWaits | None:
        """Stop sampling; what was sampled (None: no sample)."""
        self._done.set()
        self._thread.join()
        if not self.counts:
            return None
        return LockWaits(
            samples=len(self.counts),
            waiting=sum(1 for n in self.counts if n > 0),
            peak=max(self.counts),
            mean=statistics.fmean(self.counts),
            source=self.source,
        )


class ServerP95(BaseModel):
    """The server's p95 per fingerprint over one trial (`digest_p95`): `clock` the sentence saying
    where it was read or why not ("server clock not available: <why>"), `p95_s` class_id -> seconds,
    `statements` class_id -> the count of its digests (failed ones included); both empty when not
    available, and a fingerprint missing where none of its samples has a digest the server kept."""

    clock: str
    p95_s: dict[str, float] = Field(default_factory=dict)
    statements: dict[str, int] = Field(default_factory=dict)


DIGEST_SOURCE = (
    "performance_schema events_statements_histogram_by_digest (server clock: the upper bound of the "
    "p95 bucket over each fingerprint's digests)"
)
_HISTOGRAM_TABLE = (
    "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'performance_schema' "
    "AND TABLE_NAME = 'events_statements_histogram_by_digest'"
)
NO_HISTOGRAM = (
    "server clock not available: its performance_schema has no per-digest latency histogram "
    "(events_statements_histogram_by_digest, MySQL 8.0.19+; MariaDB's performance_schema is MySQL "
    "5.6's, and its events_statements_history_long keeps only the last statements, not a whole trial's)"
)


def _digests(
    connection: ServerConnection, samples: dict[str, list[tuple[str | None, str]]]
) -> dict[str, set[str]]:
    """class_id -> the digests of its samples (STATEMENT_DIGEST, each in its default database)."""
    out: dict[str, set[str]] = {}
    with connection.cursor() as cursor:
        for class_id, texts in samples.items():
            for database, sql in texts:
                try:
                    if database:
                        connection.select_db(database)
                    cursor.execute("SELECT STATEMENT_DIGEST(%s)", (sql,))
                except pymysql.MySQLError:  # a statement its parser refuses: no digest to read
                    continue
                found = cursor.fetchone()
                if found and found[0]:
                    out.setdefault(class_id, set()).add(str(found[0]))
    return out


def digest_p95(connection: ServerConnection, samples: dict[str, list[tuple[str | None, str]]]) -> ServerP95:
    """The server's p95 of each fingerprint (`samples`: class_id -> (default database, SQL) of some of
    its statements, as trial_summary.fingerprint_samples gives them) from the digest histograms
    (module docstring), on the lab's admin `connection` (its default database changed: each sample's
    digest is taken in its database); a ServerP95 saying why where the server cannot say. Server
    errors other than a sample STATEMENT_DIGEST cannot parse (that sample left out) are raised."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT @@performance_schema")
        row = cursor.fetchone()
        if not row or not int(row[0] or 0):
            return ServerP95(clock="server clock not available: performance_schema is OFF on this server")
        cursor.execute(_HISTOGRAM_TABLE)
        row = cursor.fetchone()
        if not row or not int(row[0] or 0):
            return ServerP95(clock=NO_HISTOGRAM)
    digests = _digests(connection, samples)
    out = ServerP95(clock=DIGEST_SOURCE)
    wanted = sorted({d for found in digests.values() for d in found})
    if not wanted:
        return out
    buckets: dict[str, dict[int, tuple[int, int]]] = {}  # digest -> bucket -> (timer high ps, count)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DIGEST, BUCKET_NUMBER, MAX(BUCKET_TIMER_HIGH), SUM(COUNT_BUCKET) FROM performance_schema."
            f"events_statements_histogram_by_digest WHERE DIGEST IN ({', '.join(['%s'] * len(wanted))}) "
            "AND COUNT_BUCKET > 0 GROUP BY DIGEST, BUCKET_NUMBER",
            tuple(wanted),
        )
        for digest, number, high, count in cursor.fetchall():
            buckets.setdefault(str(digest), {})[int(number)] = (int(high), int(count))
    for class_id, found in digests.items():
        merged: dict[int, tuple[int, int]] = {}
        for digest in found:
            for number, (high, count) in buckets.get(digest, {}).items():
                merged[number] = (high, merged.get(number, (high, 0))[1] + count)
        total = sum(count for _, count in merged.values())
        if not total:
            continue
        seen = 0
        for number in sorted(merged):
            high, count = merged[number]
            seen += count
            if seen >= 0.95 * total:
                out.p95_s[class_id], out.statements[class_id] = high / 1e12, total
                break
    return out


def _tables(connection: ServerConnection, databases: Sequence[str]) -> list[tuple[str, str]]:
    if not databases:
        return []
    marks = ", ".join(["%s"] * len(databases))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES "
            f"WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA IN ({marks}) "
            "ORDER BY TABLE_SCHEMA, TABLE_NAME",
            tuple(databases),
        )
        return [(str(schema), str(name)) for schema, name in cursor.fetchall()]


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def table_checksums(
    connection: ServerConnection, databases: Sequence[str], cancelled: Callable[[], bool] = lambda: False
) -> dict[str, str]:
    """ "database.table" -> the sha256 hex of its rows, order-insensitive (module docstring), for
    every base table of `databases`, on the lab's admin `connection` (its read timeout bounds each
    read). TrialReadCancelled when `cancelled()` answers True; pymysql errors as they come."""
    out: dict[str, str] = {}
    for schema, name in _tables(connection, databases):
        if cancelled():
            raise TrialReadCancelled(f"checksums stopped by a cancel before {schema}.{name}")
        digest = ResultDigest()
        with connection.cursor(SSCursor) as cursor:
            cursor.execute(f"SELECT * FROM {_quoted(schema)}.{_quoted(name)}")
            for row in cursor:
                digest.add(row)
                if digest.rows % CANCEL_EVERY_ROWS == 0 and cancelled():
                    raise TrialReadCancelled(f"checksums stopped by a cancel in {schema}.{name}")
        out[f"{schema}.{name}"] = digest.checksums()[1]
    return out
