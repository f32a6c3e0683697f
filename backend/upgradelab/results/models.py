"""Samples: what one statement of one iteration took, as the client measured it."""

from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base


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
    metrics: Mapped[dict[str, Any] | None] = mapped_column(default=None)  # e.g. {"tps": ..}
