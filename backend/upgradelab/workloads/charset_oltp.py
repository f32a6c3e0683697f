"""Article 002, "Charset and collation impact on MySQL performance": sysbench OLTP per thread count.

Real sysbench (Debian's 1.0.20 with its bundled oltp_read_only.lua / oltp_point_select.lua) is driven,
not reimplemented. sysbench 1.0.20 has no option for the table charset (its `mysql_table_options` is
a Lua global, not a command-line option), so the tables take the charset and collation of their
database, created with the server's character_set_server / collation_server: the template sets them
as server options and a variant may override them (e.g. `character-set-server=latin1`).
"""

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from upgradelab.targets.options import OptionError, validate_option
from upgradelab.workloads import sysbench
from upgradelab.workloads.base import (
    Contrast,
    ContrastCase,
    PrimaryMetric,
    PublishedFigure,
    ServerSession,
    Side,
    StatementTiming,
    TargetFacts,
    Workload,
    WorkloadInfo,
    execute,
    scalar,
)
from upgradelab.workloads.datasets import ProgressMeter

DATABASE = "sbtest"
TPS = PrimaryMetric("tps", "tps", higher_is_better=True)
# The article's read_only tps at 4 / 24 / 64 threads, per version and charset (its sample table).
_ARTICLE_TPS = {
    "5.7 latin1": (4578, 21385, 39629),
    "5.7 utf8mb4_general_ci": (2958, 13793, 24517),
    "8.0 latin1": (4107, 19473, 35586),
    "8.0 utf8mb4_0900_ai_ci": (3969, 18446, 32776),
}


class CharsetOltpParameters(BaseModel):
    """sysbench's knobs: script, tables x table_size, the thread sweep, seconds per run."""

    model_config = ConfigDict(extra="forbid")

    script: Literal["oltp_read_only", "oltp_point_select"] = Field(
        "oltp_read_only", description="sysbench's bundled Lua script."
    )
    tables: int = Field(4, ge=1, le=64, description="sbtest tables (article: 10).")
    table_size: int = Field(100_000, ge=10, le=100_000_000, description="Rows per table (article: 10M).")
    threads: list[int] = Field(
        default_factory=lambda: [1, 2, 4, 8, 16],
        min_length=1,
        max_length=16,
        description="Thread counts swept, in order (article: 1 .. 256).",
    )
    duration_s: int = Field(30, ge=1, le=3600, description="--time of each run, seconds (article: 300).")
    character_set: str = Field("utf8mb4", description="character-set-server unless the variant sets one.")
    collation: str | None = Field(
        None, description="collation-server unless the variant sets one (None: the charset's default)."
    )

    @field_validator("character_set", "collation")
    @classmethod
    def _option_value(cls, value: str | None) -> str | None:
        if value is not None:
            if not value.replace("_", "").isalnum():
                raise ValueError("letters, digits and _ only")
            try:
                validate_option("character-set-server", value)
            except OptionError as error:
                raise ValueError(str(error)) from error
        return value

    @field_validator("threads")
    @classmethod
    def _positive(cls, value: list[int]) -> list[int]:
        if any(n < 1 or n > 1024 for n in value):
            raise ValueError("thread counts between 1 and 1024")
        return value


class CharsetOltp(Workload):
    """One `sysbench <script> run` per iteration at the group's thread count."""

    Parameters: ClassVar[type[BaseModel]] = CharsetOltpParameters
    # sysbench runs for a fixed duration: its seconds say nothing; throughput and latency do.
    primary_metrics: ClassVar[tuple[PrimaryMetric, ...]] = (
        TPS,
        PrimaryMetric("p95_ms", "ms"),
    )
    info: ClassVar[WorkloadInfo] = WorkloadInfo(
        slug="charset-oltp",
        title="Charset and collation OLTP (sysbench)",
        article="002 - Charset and collation impact on MySQL performance",
        description=(
            "sysbench oltp_read_only / oltp_point_select over a thread sweep, tables in the variant's "
            "charset and collation. The article: 5.7 utf8mb4 is 55-60% slower than latin1, 8.0 only 3-11%."
        ),
        default_iterations=1,
        setup=(
            "2 x Xeon Gold 5120 (56 threads), 376 GB RAM; sysbench --tables=10 --table-size=10000000 "
            "--time=300, threads 1..256; MySQL 5.7.25 and 8.0.15, latin1 vs utf8mb4, CPU-bound in memory."
        ),
        published=[
            PublishedFigure(
                "5.7 latin1 read_only tps", "tps", ["4", "24", "64", "128"], [4578, 21385, 39629, 38448]
            ),
            PublishedFigure(
                "5.7 utf8mb4_general_ci read_only tps",
                "tps",
                ["4", "24", "64", "128"],
                [2958, 13793, 24517, 23977],
            ),
            PublishedFigure(
                "8.0 latin1 read_only tps", "tps", ["4", "24", "64", "128"], [4107, 19473, 35586, 34718]
            ),
            PublishedFigure(
                "8.0 utf8mb4_0900_ai_ci read_only tps",
                "tps",
                ["4", "24", "64", "128"],
                [3969, 18446, 32776, 31302],
            ),
        ],
        default_policy="warm",
        sweep="threads",
        # Inside one version and charset the article's sweep says how read_only throughput scales with
        # threads (tps at N threads over tps at 4); a run whose sweep starts at 4 measures the same.
        contrast_cases=[
            ContrastCase(f"threads={n} / threads=4", label, tps[k], tps[0], "tps")
            for label, tps in _ARTICLE_TPS.items()
            for k, n in ((1, 24), (2, 64))
        ],
    )

    @property
    def p(self) -> CharsetOltpParameters:
        assert isinstance(self.parameters, CharsetOltpParameters)
        return self.parameters

    def server_options(self, target: TargetFacts) -> dict[str, str | None]:
        options: dict[str, str | None] = {"character-set-server": self.p.character_set}
        if self.p.collation:
            options["collation-server"] = self.p.collation
        # sysbench opens up to max(threads) connections; the default max_connections (151) suffices
        # only for the article's smaller sweeps.
        options["max_connections"] = str(max(200, max(self.p.threads) + 20))
        return options

    def groups(self) -> list[str]:
        return [f"threads={n}" for n in self.p.threads]

    def contrasts(self) -> list[Contrast]:
        """Throughput scaling inside the variant: tps at each other thread count of the sweep over tps
        at its first (above 1: more throughput)."""
        first = self.p.threads[0]
        return [
            Contrast(
                f"threads={n} / threads={first}",
                Side(f"threads={n}"),
                Side(f"threads={first}"),
                TPS,
                f"sysbench tps with {n} threads over {first}",
            )
            for n in dict.fromkeys(self.p.threads)
            if n != first
        ]

    def _charset(self, server: ServerSession) -> tuple[str, str]:
        charset = str(scalar(server.connection, "SELECT @@character_set_server"))
        collation = str(scalar(server.connection, "SELECT @@collation_server"))
        return charset, collation

    def dataset_spec(self, server: ServerSession) -> dict[str, Any]:
        charset, collation = self._charset(server)
        return {
            "tables": self.p.tables,
            "table_size": self.p.table_size,
            "charset": charset,
            "collation": collation,
        }

    def prepare(self, server: ServerSession) -> None:
        """CREATE DATABASE sbtest in the server's charset/collation, then `sysbench prepare`."""
        charset, collation = self._charset(server)
        execute(
            server.connection,
            f"DROP DATABASE IF EXISTS {DATABASE}",
            f"CREATE DATABASE {DATABASE} CHARACTER SET {charset} COLLATE {collation}",
        )
        rows_total = self.p.tables * self.p.table_size
        meter = ProgressMeter(server, "sysbench prepare", rows_total, interval_s=0.0)
        meter.update(0, 0, force=True)
        args = sysbench.command(
            self.p.script,
            server.endpoint,
            DATABASE,
            "prepare",
            {"tables": self.p.tables, "table-size": self.p.table_size},
        )
        sysbench.run(args, timeout_s=max(600.0, rows_total / 2_000), auth=server.endpoint.auth)
        meter.update(rows_total, rows_total * 190, force=True)

    def iteration(self, server: ServerSession, number: int, group: str) -> list[StatementTiming]:
        """`sysbench <script> run --threads=n --time=duration_s --histogram=on`: one timing with
        tps/qps/p50/p95/p99 as metrics; elapsed_s is sysbench's own total time, seconds."""
        threads = int(group.removeprefix("threads="))
        args = sysbench.command(
            self.p.script,
            server.endpoint,
            DATABASE,
            "run",
            {
                "tables": self.p.tables,
                "table-size": self.p.table_size,
                "threads": threads,
                "time": self.p.duration_s,
                "histogram": "on",
                "percentile": 99,
                "db-ps-mode": "auto",
            },
        )
        report = sysbench.parse_report(
            sysbench.run(args, timeout_s=self.p.duration_s + 120, auth=server.endpoint.auth)
        )
        return [StatementTiming(f"sysbench {self.p.script}", report.total_time_s, report.metrics())]
