"""Stored verdict table of a finished run (computed once when the run ends): table `variant_summary`."""

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.results.stats.verdicts import VerdictRead


class VariantSummary(Base):
    """Row of `variant_summary`: one variant x group x primary metric of a run, all iterations (no
    warm-up cut), against the run's first variant (the default baseline). See results/store/verdict_table.py.

    *_s: iteration seconds of the group; median/p95: the metric's values in `unit`. verdict_value:
    variant / baseline of the metric from the rounds with its interval, rounds, method, smallest
    detectable change, verdict and reason at the default threshold (results/stats/verdicts.py
    VerdictRead; the comparison re-decides at the user's). floor_value: the A/A control's against
    variant 0 in the same shape, NULL without an A/A control. round_values: per round, the median of
    the metric's values (JSON keys are the round numbers as text).
    """

    __tablename__ = "variant_summary"
    __table_args__ = (UniqueConstraint("run_id", "variant_index", "group_name", "metric"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), index=True)
    variant_index: Mapped[int]
    variant: Mapped[str] = mapped_column(String(200))
    is_aa_control: Mapped[bool] = mapped_column(default=False)
    group: Mapped[str] = mapped_column("group_name", String(200), default="")
    metric: Mapped[str] = mapped_column(String(64), default="seconds")
    unit: Mapped[str] = mapped_column(String(16), default="s")
    higher_is_better: Mapped[bool] = mapped_column(default=False)
    iterations: Mapped[int]
    rounds: Mapped[int] = mapped_column(default=0)
    median_s: Mapped[float | None]
    p95_s: Mapped[float | None]
    mean_s: Mapped[float | None]
    total_s: Mapped[float]
    median: Mapped[float | None] = mapped_column(default=None)
    p95: Mapped[float | None] = mapped_column(default=None)
    # the variant against the baseline and the A/A control against variant 0 (this run's noise floor),
    # each one VerdictRead, stored as its JSON and validated on read (db.ModelJSON), NULL without an interval
    verdict_value: Mapped[VerdictRead | None] = mapped_column(ModelJSON(VerdictRead), default=None)
    floor_value: Mapped[VerdictRead | None] = mapped_column(ModelJSON(VerdictRead), default=None)
    # round -> median of the round's values: the rounds chart without reading every iteration again
    # (stored as JSON, its keys the round numbers as text; read back as ints, db.ModelJSON)
    round_values: Mapped[dict[int, float] | None] = mapped_column(ModelJSON(dict[int, float]), default=None)
    computed_at: Mapped[datetime] = mapped_column(default=utcnow)
