"""Article 003, "SELECT COUNT(*) gets faster in 8.0.14": a sweep of innodb_parallel_read_threads.

Table `item` with 2^N rows of random values; for each thread setting, the server is restarted (the
first run is cold, dump/load off and O_DIRECT) and `SELECT COUNT(*) FROM item` runs `iterations`
times with `SET SESSION innodb_parallel_read_threads = n`. MariaDB has no such variable: the sweep
is refused up front there.
"""

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

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
    timed,
)
from upgradelab.workloads.count_star import COLD_START_OPTIONS, cold_start_options
from upgradelab.workloads.datasets import double_to

DATABASE = "parallel_read"
_CREATE = (
    "CREATE TABLE item (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(10), description VARCHAR(30), "
    "price INT UNSIGNED, created_at DATETIME)"
)
_RANDOM_ROW = (
    "LEFT(SHA2(RAND(), 256), 10), LEFT(SHA2(RAND(), 256), 30), FLOOR(RAND() * 100000), "
    "NOW() - INTERVAL FLOOR(RAND() * 31536000) SECOND"
)


class ParallelReadParameters(BaseModel):
    """2^log2_rows rows; the thread settings swept, in order."""

    model_config = ConfigDict(extra="forbid")

    log2_rows: int = Field(22, ge=4, le=26, description="item holds 2^log2_rows rows (article: 24).")
    threads: list[int] = Field(
        default_factory=lambda: [1, 2, 4, 8],
        min_length=1,
        max_length=16,
        description="innodb_parallel_read_threads values (article: 1, 2, 4, 8, 16, 32).",
    )
    buffer_pool_size: str | None = Field("1G", description="innodb_buffer_pool_size (data fits when warm).")


class ParallelRead(Workload):
    """One timed COUNT(*) per iteration under one innodb_parallel_read_threads setting per group."""

    Parameters: ClassVar[type[BaseModel]] = ParallelReadParameters
    info: ClassVar[WorkloadInfo] = WorkloadInfo(
        slug="parallel-read",
        title="Parallel clustered-index read sweep",
        article="003 - SELECT COUNT(*) gets faster in 8.0.14: innodb_parallel_read_threads",
        description=(
            "COUNT(*) over a 2^N-row table for each innodb_parallel_read_threads setting, cold after a "
            "restart then warm. The article: 33 s with 1 thread, 7.2 s with 32, on 2 vCPUs."
        ),
        default_iterations=3,
        server_options=COLD_START_OPTIONS,
        setup=(
            "VirtualBox guest, 2 vCPU, 2 GB RAM; MySQL 8.0.14 / 8.0.13 / 5.7.25. Table item, 2^24 = "
            "16,777,216 rows (1.9 GB .ibd); dump/load off, O_DIRECT; runs 1/2/3 after a restart."
        ),
        published=[
            PublishedFigure(
                "8.0.14, run 1 (cold) by innodb_parallel_read_threads",
                "s",
                ["1", "2", "4", "8", "16", "32"],
                [33.07, 19.65, 13.16, 8.81, 7.43, 7.16],
            ),
            PublishedFigure(
                "8.0.14, run 2 by innodb_parallel_read_threads",
                "s",
                ["1", "2", "4", "8", "16", "32"],
                [30.18, 18.67, 12.16, 8.12, 6.93, 6.88],
            ),
            PublishedFigure("8.0.13 (1 thread) runs 1/2/3", "s", ["1", "2", "3"], [36.79, 31.60, 30.28]),
            PublishedFigure("5.7.25 (1 thread) runs 1/2/3", "s", ["1", "2", "3"], [32.94, 33.16, 33.03]),
        ],
        default_policy="cold_each_group",
        sweep="threads",
        # The speed-up over one thread (8.0.14, run 1 after a restart, the first figure); on 5.7 there
        # is no such variable and nothing to speed up.
        contrast_cases=[
            ContrastCase(f"threads={n} / threads=1", "8.0.14 run 1", seconds, 33.07, "s")
            for n, seconds in ((2, 19.65), (4, 13.16), (8, 8.81), (16, 7.43), (32, 7.16))
        ],
    )

    @property
    def p(self) -> ParallelReadParameters:
        assert isinstance(self.parameters, ParallelReadParameters)
        return self.parameters

    def server_options(self, target: TargetFacts) -> dict[str, str | None]:
        """The cold-start trio (the sweep's first run is cold), plus innodb_buffer_pool_size if set."""
        return cold_start_options(self.p.buffer_pool_size)

    def refusal(self, target: TargetFacts) -> str | None:
        """The sweep needs innodb_parallel_read_threads (MySQL 8.0.14+)."""
        if target.flavor != "mysql":
            return (
                f"the innodb_parallel_read_threads sweep needs MySQL 8.0.14 or later; "
                f"{target.name} runs {target.flavor} {target.version}, which has no such variable"
            )
        return None

    def groups(self) -> list[str]:
        return [f"threads={n}" for n in self.p.threads]

    def contrasts(self) -> list[Contrast]:
        """threads=N / threads=1 for each other N of the sweep (below 1: N threads count faster); none
        when the sweep has no 1."""
        if 1 not in self.p.threads:
            return []
        return [
            Contrast(
                f"threads={n} / threads=1",
                Side(f"threads={n}"),
                Side("threads=1"),
                description=f"COUNT(*) seconds with {n} parallel read threads over 1",
            )
            for n in dict.fromkeys(self.p.threads)
            if n != 1
        ]

    def dataset_spec(self, server: ServerSession) -> dict[str, Any]:
        return {"log2_rows": self.p.log2_rows}

    def prepare(self, server: ServerSession) -> None:
        """One random row, then doubling INSERT ... SELECT to 2^log2_rows rows."""
        execute(
            server.connection,
            f"DROP DATABASE IF EXISTS {DATABASE}",
            f"CREATE DATABASE {DATABASE}",
            f"USE {DATABASE}",
            _CREATE,
            f"INSERT INTO item (name, description, price, created_at) SELECT {_RANDOM_ROW}",
        )

        def copy_sql(offset: int, limit: int) -> str:
            return (
                f"INSERT INTO item (name, description, price, created_at) SELECT {_RANDOM_ROW} "
                f"FROM item ORDER BY id LIMIT {limit}"
            )

        double_to(server, "item", 2**self.p.log2_rows, copy_sql, 80)

    def iteration(self, server: ServerSession, number: int, group: str) -> list[StatementTiming]:
        threads = int(group.removeprefix("threads="))
        server.connection.select_db(DATABASE)
        execute(server.connection, f"SET SESSION innodb_parallel_read_threads = {threads}")
        return [timed(server.connection, "SELECT COUNT(*) FROM item", "SELECT COUNT(*) FROM item")]
