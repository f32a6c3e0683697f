"""Samples: what one statement of one iteration took, as the client measured it; iterations: one row
per iteration, written when it ends (its total, its round and its place in the schedule)."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import ForeignKey, Index, LargeBinary, Select, String, select
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, ModelJSON, utcnow


class Sample(Base):
    """Row of `sample`: elapsed_s is seconds, float, client-side (time.perf_counter around the call)."""

    __tablename__ = "sample"
    __table_args__ = (Index("ix_sample_run_variant_iteration", "run_id", "variant_index", "iteration"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"))
    variant_index: Mapped[int]
    variant: Mapped[str] = mapped_column(String(200))
    iteration: Mapped[int]  # 1-based
    statement: Mapped[str] = mapped_column(String(200))  # label, e.g. "TRUNCATE test3"
    elapsed_s: Mapped[float]
    label: Mapped[str] = mapped_column(String(200), default="")  # iteration group, "threads=16"
    # e.g. {"tps": ..}: numbers by metric name (db.ModelJSON validates them)
    metrics: Mapped[dict[str, float] | None] = mapped_column(ModelJSON(dict[str, float]), default=None)


class Iteration(Base):
    """Row of `iteration`: one iteration of one variant, stored once when it ends.

    elapsed_s: seconds, float, the sum of its statements' client-side times (sample.elapsed_s);
    metrics: the statements' numeric metrics summed (sysbench tps, qps, p95_ms ...), or NULL.
    round: 1-based round of the schedule (sequential runs: 1); block: 1-based number of the block
    within the run (every variant's blocks counted together, in execution order); position: 0-based
    place of this variant in its round's shuffled order. group: the template's iteration group
    ("table=test_long", "threads=16"; '' for one group).
    """

    __tablename__ = "iteration"
    __table_args__ = (
        Index("ix_iteration_run_variant_iteration", "run_id", "variant_index", "iteration", unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"))
    variant_index: Mapped[int]
    iteration: Mapped[int]  # 1-based over the variant
    group: Mapped[str] = mapped_column("group_name", String(200), default="")
    round: Mapped[int] = mapped_column(default=1)
    block: Mapped[int] = mapped_column(default=1)
    position: Mapped[int] = mapped_column(default=0)
    elapsed_s: Mapped[float]
    metrics: Mapped[dict[str, float] | None] = mapped_column(ModelJSON(dict[str, float]), default=None)
    ended_at: Mapped[datetime] = mapped_column(default=utcnow)


# MySQL/MariaDB's BLOB holds 64 KiB: 10,000 iterations of float64 are 80 KB
PACKED = LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")


class IterationSeries(Base):
    """Row of `iteration_series`: one variant's iterations of a finished run, stored once at run end with
    its verdict table (results/store/series_store.py), so opening the run reads one row per variant.

    iterations: the iteration numbers ascending, int32 little-endian; elapsed_s: their seconds (iteration.
    elapsed_s), float64 little-endian; both `count` long.
    """

    __tablename__ = "iteration_series"

    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), primary_key=True)
    variant_index: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    count: Mapped[int]
    iterations: Mapped[bytes] = mapped_column(PACKED)
    elapsed_s: Mapped[bytes] = mapped_column(PACKED)


class StatementRow(BaseModel):
    """Per variant and statement label: how many times it ran and its median/p95/total seconds."""

    variant: str
    variant_index: int
    statement: str
    count: int
    median_s: float | None
    p95_s: float | None
    total_s: float


class GroupPoint(BaseModel):
    """Per variant and group: iterations, median seconds and the median of every metric."""

    variant_index: int
    variant: str
    group: str
    iterations: int
    median_s: float | None
    metrics: dict[str, float]


class RunDigest(Base):
    """Row of `run_digest`: one answer of a finished run's page, computed once at run end beside its verdict
    table (results/store/digests.py), so opening the run does not read every sample or iteration again.

    name: what the body is ("statements": list of StatementRow; "group_medians": list of GroupPoint);
    body: that answer, typed (db.ModelJSON): the two rows' fields differ, so a stored list reads as
    the one it was written as.
    """

    __tablename__ = "run_digest"

    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    body: Mapped[list[StatementRow] | list[GroupPoint]] = mapped_column(
        ModelJSON(list[StatementRow] | list[GroupPoint])  # type: ignore[arg-type]
    )


def iteration_columns(
    run_id: int, after: int = 0
) -> Select[int, int, int, str, float, dict[str, Any] | None]:
    """The run's iterations as columns (variant_index, iteration, round, group, elapsed_s seconds,
    metrics), by variant then iteration, those numbered above `after` (a warm-up cut). Columns, not
    ORM objects: a 10,000 x 8 run is 80,000 rows, and an object per row was most of the time."""
    return (
        select(
            Iteration.variant_index,
            Iteration.iteration,
            Iteration.round,
            Iteration.group,
            Iteration.elapsed_s,
            Iteration.metrics,
        )
        .where(Iteration.run_id == run_id, Iteration.iteration > after)
        .order_by(Iteration.variant_index, Iteration.iteration)
    )
