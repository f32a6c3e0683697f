"""An experiment: a workload x variants x iterations definition that runs are made from."""

from datetime import datetime
from typing import Any

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, utcnow


class Experiment(Base):
    """Row of `experiment`. `variants` is a list of VariantSpec dicts, `parameters` the workload's."""

    __tablename__ = "experiment"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    workload: Mapped[str] = mapped_column(String(64), index=True)
    parameters: Mapped[dict[str, Any]] = mapped_column(default=dict)
    variants: Mapped[list[Any]] = mapped_column(default=list)
    iterations: Mapped[int]
    policy: Mapped[str] = mapped_column(String(16), default="warm")  # workloads.base.POLICIES
    # Schedule (issue 12): `interleaved` runs `rounds` rounds, each variant one block of `block`
    # iterations per group per round in an order shuffled from `seed`; `sequential` runs every
    # variant's iterations one variant after another. aa_control adds a second instance of the baseline.
    schedule: Mapped[str] = mapped_column(String(16), default="interleaved", server_default="sequential")
    rounds: Mapped[int] = mapped_column(default=1, server_default="1")
    block: Mapped[int] = mapped_column(default=1, server_default="1")
    aa_control: Mapped[bool] = mapped_column(default=False, server_default="0")
    seed: Mapped[int | None] = mapped_column(default=None)
    # Auto-extension (interleaved only, None = off): after the planned rounds the runner adds rounds
    # while a verdict is inconclusive, up to max_rounds rounds in all and max_minutes since the first block.
    max_rounds: Mapped[int | None] = mapped_column(default=None)
    max_minutes: Mapped[float | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
