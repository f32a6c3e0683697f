"""Article 001, "Tests got very slow after moving from MySQL 5.7 to 8.0": the INSERT/TRUNCATE loop.

Five identical tables test1..test5 in utf8mb4 / utf8mb4_general_ci; each iteration inserts one row
into each table, then truncates each (the shape of a test suite resetting its fixtures). 8.0's
redo-log changes made TRUNCATE costlier and binary logging is on by default, so the loop is where
an upgrade's CI slowdown shows.
"""

from typing import ClassVar

from upgradelab.workloads.base import (
    ArticleCase,
    PublishedFigure,
    ServerSession,
    StatementTiming,
    Workload,
    WorkloadInfo,
    timed,
)

DATABASE = "upgradelab_insert_truncate"
TABLES = tuple(f"test{n}" for n in range(1, 6))

_CREATE = """CREATE TABLE {table} (
  id int unsigned NOT NULL AUTO_INCREMENT,
  name varchar(128) DEFAULT NULL,
  email varchar(128) DEFAULT NULL,
  test_type tinyint unsigned DEFAULT NULL,
  created_at datetime DEFAULT NULL,
  updated_at datetime DEFAULT NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"""

_INSERT = (
    "INSERT INTO {table} (name, email, test_type, created_at, updated_at) "
    "VALUES ('upgrade-lab', 'lab@example.com', 1, NOW(), NOW())"
)


def _database(server: ServerSession) -> str:
    """The lab's database on an existing server, else the template's own (recreated per variant)."""
    return server.endpoint.database or DATABASE


class InsertTruncate(Workload):
    """One INSERT into each of test1..test5, then TRUNCATE of each: ten timed statements per iteration."""

    uses_lab_database: ClassVar[bool] = True

    info: ClassVar[WorkloadInfo] = WorkloadInfo(
        slug="insert-truncate",
        title="INSERT/TRUNCATE loop",
        article="001 - Tests got very slow after moving from MySQL 5.7 to 8.0",
        description=(
            "Five tables test1..test5 (utf8mb4_general_ci). Each iteration inserts one row into each "
            "table, then truncates each. The article: 5.7 took 2.9 s for 100 iterations, 8.0 7.9 s; "
            "skip-log-bin 6.7 s, redo log disabled 2.8 s, both 2.3 s, innodb_log_writer_threads=OFF 4.5 s."
        ),
        default_iterations=100,
        server_options={"character-set-server": "utf8mb4", "collation-server": "utf8mb4_general_ci"},
        setup=(
            "M2 MacBook Pro, MySQL 5.7 and 8.0 built from source; five tables test1..test5 "
            "(utf8mb4_general_ci); 100 iterations of INSERT into each then TRUNCATE each; 3 runs per case."
        ),
        published=[
            PublishedFigure(
                "total seconds for 100 iterations (mean of 3 runs)",
                "s",
                [
                    "5.7",
                    "8.0",
                    "8.0 skip-log-bin",
                    "8.0 redo off",
                    "8.0 both off",
                    "8.0 log writer threads off",
                ],
                [2.91, 7.93, 6.71, 2.82, 2.32, 4.45],
            )
        ],
        baseline_point="8.0",
        cases=[
            ArticleCase("8.0 skip-log-bin", preset="skip-log-bin"),
            ArticleCase("8.0 redo off", preset="redo-off"),
            ArticleCase("8.0 both off", preset="redo-off+skip-log-bin"),
            ArticleCase("8.0 log writer threads off", preset="log-writer-threads-off"),
            ArticleCase("5.7", other_target=True),
        ],
    )

    def setup(self, server: ServerSession) -> None:
        """Recreate the database and the five tables (in the lab's database: the tables only)."""
        with server.connection.cursor() as cursor:
            if server.endpoint.database is None:
                cursor.execute(f"DROP DATABASE IF EXISTS {DATABASE}")
                cursor.execute(
                    f"CREATE DATABASE {DATABASE} DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
                )
            cursor.execute(f"USE `{_database(server)}`")
            for table in TABLES:
                cursor.execute(f"DROP TABLE IF EXISTS {table}")
                cursor.execute(_CREATE.format(table=table))

    def iteration(self, server: ServerSession, number: int, group: str = "") -> list[StatementTiming]:
        """INSERT test1..test5, then TRUNCATE test1..test5; ten (label, seconds) timings."""
        connection = server.connection
        connection.select_db(_database(server))
        timings = [timed(connection, f"INSERT {table}", _INSERT.format(table=table)) for table in TABLES]
        timings += [timed(connection, f"TRUNCATE {table}", f"TRUNCATE TABLE {table}") for table in TABLES]
        return timings

    def teardown(self, server: ServerSession) -> None:
        """Drop the workload's database (in the lab's database: its five tables)."""
        with server.connection.cursor() as cursor:
            if server.endpoint.database is None:
                cursor.execute(f"DROP DATABASE IF EXISTS {DATABASE}")
                return
            cursor.execute(f"USE `{server.endpoint.database}`")
            for table in TABLES:
                cursor.execute(f"DROP TABLE IF EXISTS {table}")
