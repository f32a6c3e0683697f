"""Stored per-variant summary of a finished run (computed once when the run ends)."""

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, utcnow


class VariantSummary(Base):
    """Row of `variant_summary`: per-iteration seconds of one variant, all iterations (no warm-up cut).

    ratio_* compare to the run's first variant (the default baseline): ratio of medians and of p95s,
    each with a seeded bootstrap 95% interval (results/comparison.py).
    """

    __tablename__ = "variant_summary"
    __table_args__ = (UniqueConstraint("run_id", "variant_index"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), index=True)
    variant_index: Mapped[int]
    variant: Mapped[str] = mapped_column(String(200))
    iterations: Mapped[int]
    median_s: Mapped[float | None]
    p95_s: Mapped[float | None]
    mean_s: Mapped[float | None]
    total_s: Mapped[float]
    median_ratio: Mapped[float | None]
    median_ratio_low: Mapped[float | None]
    median_ratio_high: Mapped[float | None]
    p95_ratio: Mapped[float | None]
    p95_ratio_low: Mapped[float | None]
    p95_ratio_high: Mapped[float | None]
    computed_at: Mapped[datetime] = mapped_column(default=utcnow)
