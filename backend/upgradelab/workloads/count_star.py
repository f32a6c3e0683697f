"""Article 000, "SELECT COUNT(*) stalls on MySQL 8.0": COUNT(*) over a buffer-pool cliff.

Tables test_short, test_long (str1 TEXT of 100..10000 bytes) and test_long_uk (UNIQUE(val1)) in
database count_test, grown by the article's doubling INSERT ... SELECT. After a restart (empty
buffer pool; dump/load off, O_DIRECT so the OS page cache cannot hide the cold read) each table is
counted `iterations` times, one table after the other. When the data fits the buffer pool only the
first count is slow; when it does not, the counts never warm up.
"""

from dataclasses import replace
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from upgradelab.targets.options import OptionError, validate_option
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
    scalar,
    timed,
)
from upgradelab.workloads.datasets import double_to

DATABASE = "count_test"
TableName = Literal["test_short", "test_long", "test_long_uk"]
TABLES: tuple[str, ...] = ("test_short", "test_long", "test_long_uk")

COLD_START_OPTIONS: dict[str, str | None] = {
    "innodb_buffer_pool_dump_at_shutdown": "OFF",
    "innodb_buffer_pool_load_at_startup": "OFF",
    "innodb_flush_method": "O_DIRECT",
}


def cold_start_options(buffer_pool_size: str | None) -> dict[str, str | None]:
    """COLD_START_OPTIONS (a restart empties the buffer pool: no dump/load, O_DIRECT bypasses the OS
    page cache), plus innodb_buffer_pool_size when a template's parameters set it (e.g. "64M")."""
    options = dict(COLD_START_OPTIONS)
    if buffer_pool_size:
        options["innodb_buffer_pool_size"] = buffer_pool_size
    return options


_CREATE = {
    "test_short": "CREATE TABLE test_short (id INT PRIMARY KEY, val1 INT NOT NULL, val2 INT NOT NULL)",
    "test_long": "CREATE TABLE test_long (id INT PRIMARY KEY, val1 INT NOT NULL, val2 INT NOT NULL, "
    "str1 TEXT)",
    "test_long_uk": "CREATE TABLE test_long_uk (id INT PRIMARY KEY, val1 INT NOT NULL, val2 INT NOT NULL, "
    "str1 TEXT, UNIQUE (val1))",
}


def _case_1_order() -> list[TableName]:
    return ["test_short", "test_long", "test_long_uk"]


class CountStarParameters(BaseModel):
    """The article's knobs, sized for a 2-core, 24 GiB machine by default."""

    model_config = ConfigDict(extra="forbid")

    rows: int = Field(81_920, ge=10, le=10_000_000, description="Rows per table (article: 2,621,440).")
    tables: list[TableName] = Field(
        default_factory=_case_1_order,
        min_length=1,
        max_length=3,
        description="Tables in the order they are counted (case 2: test_short, test_long_uk, test_long).",
    )
    str_min_bytes: int = Field(100, ge=0, le=60_000, description="Shortest str1 of test_long*, bytes.")
    str_max_bytes: int = Field(10_000, ge=0, le=60_000, description="Longest str1 of test_long*, bytes.")
    where_id: bool = Field(False, description="Case 4: COUNT(*) ... WHERE id > 0 (not a parallel scan).")
    parallel_read_threads: int | None = Field(
        None, ge=1, le=256, description="Case 3: SET SESSION innodb_parallel_read_threads (MySQL 8.0.14+)."
    )
    # 81,920 rows make a ~700 MB test_long (.ibd): several times a 64M pool, so by default the counts
    # never warm up (case 1); 2G holds it (case 5).
    buffer_pool_size: str | None = Field(
        "64M",
        description="innodb_buffer_pool_size for every variant (None: the target's; a variant's own "
        "innodb_buffer_pool_size wins). Case 5: larger than the data, e.g. 2G.",
    )

    @field_validator("tables")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("each table at most once")
        return value

    @field_validator("buffer_pool_size")
    @classmethod
    def _option_value(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                validate_option("innodb_buffer_pool_size", value)
            except OptionError as error:
                raise ValueError(str(error)) from error
        return value


def _database(server: ServerSession) -> str:
    """The lab's database on an existing server, else the template's own count_test."""
    return server.endpoint.database or DATABASE


def buffer_pool_reads(connection: ServerConnection) -> int:
    """Innodb_buffer_pool_reads: reads the buffer pool could not satisfy (pages read from disk)."""
    return int(scalar(connection, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_reads'", column=1))


class CountStar(Workload):
    """`SELECT COUNT(*) FROM t` repeated per table: one timed statement per iteration."""

    Parameters: ClassVar[type[BaseModel]] = CountStarParameters
    uses_lab_database: ClassVar[bool] = True
    info: ClassVar[WorkloadInfo] = WorkloadInfo(
        slug="count-star",
        title="COUNT(*) over a buffer-pool cliff",
        article="000 - SELECT COUNT(*) stalls on MySQL 8.0",
        description=(
            "Restart, then SELECT COUNT(*) 10+ times on each table in turn. Once the tables outgrow the "
            "buffer pool, the long tables never become cached (72 s then 0.33 s when they fit; 40-60 s "
            "every time when they do not)."
        ),
        default_iterations=10,
        server_options=COLD_START_OPTIONS,
        setup=(
            "RDS for MySQL 8.0.28, db.r6g.large (2 vCPU, 16 GiB), gp2. Tables test_short, test_long "
            "(str1 TEXT 100..10000 bytes), test_long_uk (UNIQUE(val1)), 2,621,440 rows each by doubling "
            "INSERT ... SELECT; 16-17 GiB of data, larger than the buffer pool. "
            "Restart, then 10 counts per table."
        ),
        published=[
            PublishedFigure("case 1: test_long (8.0.28)", "s", ["1", "2"], [72.30, 0.33]),
            PublishedFigure(
                "case 1: test_long_uk (8.0.28), never cached",
                "s",
                [str(n) for n in range(1, 11)],
                [62.56, 45.13, 46.65, 52.16, 43.03, 40.14, 42.18, 43.05, 42.12, 39.24],
            ),
            PublishedFigure(
                "case 3: test_long_uk, innodb_parallel_read_threads=1",
                "s",
                [str(n) for n in range(1, 11)],
                [36.10, 77.66, 73.98, 17.55, 10.92, 10.23, 8.96, 1.32, 1.01, 1.00],
            ),
            PublishedFigure("case 5: test_long, data < buffer pool", "s", ["1", "2"], [66.37, 0.17]),
            PublishedFigure("MySQL 5.7.37: test_long", "s", ["1", "2"], [368.93, 0.83]),
        ],
        default_policy="cold_first",
        # First scan after the restart over the median of the later ones (article's case 1 on 8.0.28
        # unless said): about 1 for a table that never becomes cached, far above 1 for one that does.
        contrast_cases=[
            ContrastCase("test_short first / later", "8.0.28 case 1", 0.93, 0.08, "s"),
            ContrastCase("test_long first / later", "8.0.28 case 1", 72.30, 0.33, "s"),
            ContrastCase(
                "test_long_uk first / later",
                "8.0.28 case 1",
                62.56,
                43.03,
                "s",
                "never cached: the later scans are 0.69x of the first (median of runs 2-10)",
            ),
            ContrastCase("test_long first / later", "8.0.28 case 5, data < buffer pool", 66.37, 0.17, "s"),
            ContrastCase("test_long first / later", "5.7.37", 368.93, 0.83, "s"),
            ContrastCase("test_long / test_short", "8.0.28 case 1, warm scans", 0.33, 0.08, "s"),
        ],
    )

    @property
    def p(self) -> CountStarParameters:
        assert isinstance(self.parameters, CountStarParameters)
        return self.parameters

    def server_options(self, target: TargetFacts) -> dict[str, str | None]:
        """The cold-start trio, plus innodb_buffer_pool_size when the parameters set it."""
        return cold_start_options(self.p.buffer_pool_size)

    def refusal(self, target: TargetFacts) -> str | None:
        """innodb_parallel_read_threads exists on MySQL 8.0.14+ only."""
        if self.p.parallel_read_threads is not None and target.flavor != "mysql":
            return f"innodb_parallel_read_threads is a MySQL 8.0.14+ variable; {target.flavor} has none"
        if self.p.str_min_bytes > self.p.str_max_bytes:
            return "str_min_bytes is larger than str_max_bytes"
        return None

    def groups(self) -> list[str]:
        return [f"table={table}" for table in self.p.tables]

    def contrasts(self) -> list[Contrast]:
        """Per table, the round's first count over the median of its later counts; and test_long /
        test_short (every count) when both are counted. The first count is cold where the policy
        restarted before it: cold_first and cold_each_group restart once per instance (and group), so
        in an interleaved run only round 1's first count is cold; the article's shape is a sequential
        run (one round: an interval from its iterations, never a verdict)."""
        found = [
            Contrast(
                f"{table} first / later",
                Side(f"table={table}", "first"),
                Side(f"table={table}", "later"),
                description=f"the round's first COUNT(*) of {table} over the median of its later ones",
            )
            for table in self.p.tables
        ]
        if {"test_long", "test_short"} <= set(self.p.tables):
            found.append(
                Contrast(
                    "test_long / test_short",
                    Side("table=test_long"),
                    Side("table=test_short"),
                    description="COUNT(*) seconds of the long table over the short one",
                )
            )
        return found

    def dataset_spec(self, server: ServerSession) -> dict[str, Any]:
        return {
            "rows": self.p.rows,
            "tables": sorted(self.p.tables),
            "str_bytes": [self.p.str_min_bytes, self.p.str_max_bytes],
        }

    def prepare(self, server: ServerSession) -> None:
        """Seed 10 rows per table, then double to `rows` with the article's INSERT ... SELECT."""
        if server.endpoint.database is None:
            execute(server.connection, f"DROP DATABASE IF EXISTS {DATABASE}", f"CREATE DATABASE {DATABASE}")
        server.connection.select_db(_database(server))
        execute(server.connection, *(f"DROP TABLE IF EXISTS {table}" for table in TABLES))
        low, span = self.p.str_min_bytes, self.p.str_max_bytes - self.p.str_min_bytes + 1
        for table in sorted(self.p.tables):
            execute(server.connection, _CREATE[table])
            long = table != "test_short"
            for n in range(1, 11):
                str1 = f", REPEAT('a', FLOOR({low} + RAND() * {span}))" if long else ""
                execute(
                    server.connection,
                    f"INSERT INTO {table} VALUES ({n}, {n}, FLOOR(RAND() * 10){str1})",
                )
            columns = "id + {o}, val1 + {o}, val2" + (", str1" if long else "")
            width = 12 + ((self.p.str_min_bytes + self.p.str_max_bytes) / 2 if long else 0)

            def copy_sql(offset: int, limit: int, table: str = table, columns: str = columns) -> str:
                return (
                    f"INSERT INTO {table} SELECT {columns.format(o=offset)} FROM {table} "
                    f"WHERE id <= {limit} ORDER BY id"
                )

            double_to(server, table, self.p.rows, copy_sql, width)

    def setup(self, server: ServerSession) -> None:
        server.connection.select_db(_database(server))

    def iteration(self, server: ServerSession, number: int, group: str) -> list[StatementTiming]:
        """SET SESSION innodb_parallel_read_threads (case 3), then one timed COUNT(*); metric
        buffer_pool_reads = Innodb_buffer_pool_reads delta around it (pages read from disk)."""
        table = group.removeprefix("table=")
        connection = server.connection
        connection.select_db(_database(server))
        if self.p.parallel_read_threads is not None:
            execute(connection, f"SET SESSION innodb_parallel_read_threads = {self.p.parallel_read_threads}")
        where = " WHERE id > 0" if self.p.where_id else ""
        sql = f"SELECT COUNT(*) FROM {table}{where}"
        reads = buffer_pool_reads(connection)
        timing = timed(connection, sql, sql)
        # The article's evidence: pages read from storage (the buffer pool missed), per iteration.
        return [replace(timing, metrics={"buffer_pool_reads": float(buffer_pool_reads(connection) - reads)})]

    def teardown(self, server: ServerSession) -> None:
        """Nothing: the tables are the prepared dataset, kept for the next variant."""
