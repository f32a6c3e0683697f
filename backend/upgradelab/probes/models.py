"""What the probes stored: one row per value per iteration, and one row per probe a variant lacked."""

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, ModelJSON
from upgradelab.results.store.models import PACKED


class ProbeSample(Base):
    """Row of `probe_sample`: one probe value of one iteration of one variant.

    probe: "buffer_pool" | "mutex_waits" | "statement_time"; metric: e.g. "hit_rate", "bytes_read",
    "server_s", "count", "wait_ms"; subject: '' or the instrument (EVENT_NAME) for mutex waits;
    value: the delta across the iteration in the metric's unit, NULL when undefined (hit rate with no
    read requests).
    """

    __tablename__ = "probe_sample"
    __table_args__ = (Index("ix_probe_sample_run_variant_iteration", "run_id", "variant_index", "iteration"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"))
    variant_index: Mapped[int]
    iteration: Mapped[int]  # 1-based
    probe: Mapped[str] = mapped_column(String(32))
    metric: Mapped[str] = mapped_column(String(32))
    subject: Mapped[str] = mapped_column(String(200), default="")
    value: Mapped[float | None]


class ProbeUnavailableRecord(Base):
    """Row of `probe_unavailable`: a probe a variant's server could not give, and why."""

    __tablename__ = "probe_unavailable"
    __table_args__ = (Index("ix_probe_unavailable_run", "run_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"))
    variant_index: Mapped[int]
    probe: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(Text)


class ProbeSeries(Base):
    """Row of `probe_series`: one variant's per-iteration probe values of a finished run, packed once at
    run end (probes/series.py), so opening the run reads one row per variant, not every probe_sample.

    columns: the value names in `values`' order (ProbeIteration's fields, e.g. "hit_rate", "client_s");
    iterations: the iteration numbers ascending, int32 little-endian, `count` long; values: float64
    little-endian, one run of `count` per column (NaN: absent), in `columns` order.
    """

    __tablename__ = "probe_series"

    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), primary_key=True)
    variant_index: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    count: Mapped[int]
    columns: Mapped[list[str]] = mapped_column(ModelJSON(list[str]))
    iterations: Mapped[bytes] = mapped_column(PACKED)
    values: Mapped[bytes] = mapped_column(PACKED)
