"""Article 004, "sys.innodb_lock_waits performance improved in 8.0.40": lock waits under contention.

N threads update the same rows of `test.test (id int, value int)` (no index: every UPDATE locks
every row it scans), each committing `transactions` times; with the monitor on, one more connection
polls `SELECT * FROM sys.innodb_lock_waits` every `monitor_interval_s` while they run. Before 8.0.40
the poll scanned all locks under a global mutex and slowed the whole server (28.8 s -> 468.7 s).

MariaDB 10.11 ships the sys schema (since 10.6) with its own innodb_lock_waits view over
information_schema.INNODB_LOCK_WAITS, so both groups run there too; its performance_schema is
off by default, so the template switches it on for the mutex wait deltas.

The mutex wait deltas (the article's second figure) are the mutex_waits probe's
(probes/mutex_waits.py): it reads events_waits_summary_global_by_event_name around every iteration
of every template and stores count and wait_ms per instrument once (probe samples), which the run
page's top-mutex table and GET /api/runs/{id}/probes show. The template adds nothing of its own.
"""

import threading
import time
from typing import ClassVar, Literal

import pymysql
from pydantic import BaseModel, ConfigDict, Field

from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads.base import (
    Contrast,
    ContrastCase,
    PublishedFigure,
    ServerSession,
    Side,
    StatementTiming,
    TargetFacts,
    Workload,
    WorkloadInfo,
    execute,
)

DATABASE = "test"
MONITOR_COST = "monitor=on / monitor=off"


class LockWaitsParameters(BaseModel):
    """Contention size and the monitor."""

    model_config = ConfigDict(extra="forbid")

    threads: int = Field(8, ge=2, le=256, description="Contending client threads.")
    rows: int = Field(100, ge=1, le=100_000, description="Rows in test.test, all contended.")
    transactions: int = Field(50, ge=1, le=100_000, description="UPDATE + COMMIT per thread.")
    monitor: Literal["both", "off", "on"] = Field(
        "both", description="Groups: without the sys.innodb_lock_waits monitor, with it, or both."
    )
    monitor_interval_s: float = Field(0.01, ge=0.0, le=10.0, description="Pause between monitor polls.")


class LockWaits(Workload):
    """One iteration = the whole contention script; per-thread seconds and commits as metrics (the
    mutex wait deltas are the mutex_waits probe's)."""

    Parameters: ClassVar[type[BaseModel]] = LockWaitsParameters
    info: ClassVar[WorkloadInfo] = WorkloadInfo(
        slug="lock-waits",
        title="Lock waits under contention, with and without a monitor",
        article="004 - sys.innodb_lock_waits performance improved in 8.0.40",
        description=(
            "N threads update the same rows; a monitor polls sys.innodb_lock_waits meanwhile. The "
            "article: 8.0.32 28.8 s without the monitor, 468.7 s with it; 8.0.40 26.3 s / 26.9 s."
        ),
        default_iterations=1,
        setup=(
            "performance-schema-instrument='wait/synch/mutex/innodb/%=ON'; "
            "table test.test (id int, value int); "
            "events_waits consumers on; a multi-threaded lock-contention script with and without a monitor "
            "polling SELECT * FROM sys.innodb_lock_waits; mutex wait deltas from "
            "events_waits_summary_global_by_event_name (the mutex_waits probe), top 5 by SUM_TIMER_WAIT."
        ),
        published=[
            PublishedFigure(
                "workload seconds without / with monitor",
                "s",
                ["8.0.32 off", "8.0.32 on", "8.0.40 off", "8.0.40 on"],
                [28.763, 468.702, 26.322, 26.922],
            ),
            PublishedFigure(
                "8.0.32 with monitor: top mutex wait ms",
                "ms",
                ["trx_sys_mutex", "trx_mutex", "lock_sys_page_mutex", "lock_wait_mutex"],
                [18888, 1402, 826, 490],
            ),
        ],
        default_policy="warm",
        contrast_cases=[
            ContrastCase(MONITOR_COST, "8.0.32", 468.702, 28.763, "s", "workload seconds with / without"),
            ContrastCase(MONITOR_COST, "8.0.40", 26.922, 26.322, "s", "the fix: the monitor costs ~2 %"),
        ],
    )

    @property
    def p(self) -> LockWaitsParameters:
        assert isinstance(self.parameters, LockWaitsParameters)
        return self.parameters

    def server_options(self, target: TargetFacts) -> dict[str, str | None]:
        return {
            "performance_schema": "ON",
            "performance-schema-instrument": "wait/synch/mutex/innodb/%=ON",
            "max_connections": str(max(200, self.p.threads + 20)),
        }

    def groups(self) -> list[str]:
        return {"both": ["monitor=off", "monitor=on"], "off": ["monitor=off"], "on": ["monitor=on"]}[
            self.p.monitor
        ]

    def contrasts(self) -> list[Contrast]:
        """What the monitor costs inside one version (the article's 16.3x on 8.0.32, 1.02x on 8.0.40);
        only when both groups run."""
        if self.p.monitor != "both":
            return []
        return [
            Contrast(
                MONITOR_COST,
                Side("monitor=on"),
                Side("monitor=off"),
                description="workload seconds with the sys.innodb_lock_waits monitor over without",
            )
        ]

    def setup(self, server: ServerSession) -> None:
        """test.test with `rows` rows; events_waits consumers on (as the article does)."""
        execute(
            server.connection,
            f"DROP DATABASE IF EXISTS {DATABASE}",
            f"CREATE DATABASE {DATABASE}",
            f"CREATE TABLE {DATABASE}.test (id int, value int)",
            "UPDATE performance_schema.setup_consumers SET enabled = 'YES' WHERE name LIKE 'events_waits%'",
        )
        with server.connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {DATABASE}.test VALUES (%s, 0)", [(n,) for n in range(1, self.p.rows + 1)]
            )

    def iteration(self, server: ServerSession, number: int, group: str) -> list[StatementTiming]:
        """Run the contention; elapsed_s = wall seconds until the last thread commits. Metrics:
        thread_<n>_s (seconds), thread_<n>_trx (commits) and monitor_polls."""
        monitor_on = group == "monitor=on"
        connections = [server.endpoint.connect(database=DATABASE) for _ in range(self.p.threads)]
        monitor = server.endpoint.connect() if monitor_on else None
        done = threading.Event()
        seconds = [0.0] * self.p.threads
        commits = [0] * self.p.threads
        errors: list[str] = []
        polls = 0

        def contend(index: int, connection: ServerConnection) -> None:
            started = time.perf_counter()
            try:
                with connection.cursor() as cursor:
                    for n in range(self.p.transactions):
                        cursor.execute("BEGIN")
                        cursor.execute(
                            "UPDATE test SET value = value + 1 WHERE id = %s",
                            ((n + index) % self.p.rows + 1,),
                        )
                        cursor.execute("COMMIT")
                        commits[index] += 1
            except pymysql.MySQLError as error:
                errors.append(f"thread {index + 1}: {error}")
            seconds[index] = time.perf_counter() - started

        def watch(connection: ServerConnection) -> None:
            nonlocal polls
            with connection.cursor() as cursor:
                while not done.is_set():
                    cursor.execute("SELECT * FROM sys.innodb_lock_waits")
                    cursor.fetchall()
                    polls += 1
                    if self.p.monitor_interval_s:
                        done.wait(self.p.monitor_interval_s)

        workers = [threading.Thread(target=contend, args=(i, c)) for i, c in enumerate(connections)]
        watcher = threading.Thread(target=watch, args=(monitor,)) if monitor is not None else None
        try:
            if watcher is not None:
                watcher.start()
            started = time.perf_counter()
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            elapsed = time.perf_counter() - started
        finally:
            done.set()
            if watcher is not None:
                watcher.join()
            for connection in [*connections, *([monitor] if monitor else [])]:
                connection.close()
        if errors:
            raise pymysql.OperationalError(0, "; ".join(errors[:3]))
        metrics: dict[str, float] = {"monitor_polls": float(polls)}
        for index in range(self.p.threads):
            metrics[f"thread_{index + 1}_s"] = seconds[index]
            metrics[f"thread_{index + 1}_trx"] = float(commits[index])
        return [StatementTiming(f"contention ({group})", elapsed, metrics)]

    def teardown(self, server: ServerSession) -> None:
        execute(server.connection, f"DROP DATABASE IF EXISTS {DATABASE}")
