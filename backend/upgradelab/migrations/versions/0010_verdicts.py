"""verdicts: variant_summary per variant, group and primary metric, with round intervals and the A/A floor

The old rows (one per variant, ratios of iteration medians and p95s from a within-block bootstrap) are
derived data that the new verdicts must not inherit: they are dropped, and the comparison recomputes
a finished run's summary from its `iteration` rows on first read (results/views/comparison.py).

Revision ID: 0010
Revises: 0009
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def _kept() -> list[sa.Column[Any]]:
    """The columns both shapes have (new objects per call: a Column belongs to one Table)."""
    return [
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("variant_index", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=200), nullable=False),
        sa.Column("iterations", sa.Integer(), nullable=False),
        sa.Column("median_s", sa.Double(), nullable=True),
        sa.Column("p95_s", sa.Double(), nullable=True),
        sa.Column("mean_s", sa.Double(), nullable=True),
        sa.Column("total_s", sa.Double(), nullable=False),
    ]


def _create(columns: list[sa.Column[Any]], unique: tuple[str, ...]) -> None:
    op.create_table(
        "variant_summary",
        *_kept(),
        *columns,
        sa.Column("computed_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(*unique),
    )
    op.create_index("ix_variant_summary_run_id", "variant_summary", ["run_id"])


def _drop() -> None:
    op.drop_index("ix_variant_summary_run_id", "variant_summary")
    op.drop_table("variant_summary")


def upgrade() -> None:
    _drop()
    _create(
        [
            sa.Column("is_aa_control", sa.Boolean(), nullable=False, server_default="0"),
            sa.Column("group_name", sa.String(200), nullable=False, server_default=""),
            sa.Column("metric", sa.String(64), nullable=False, server_default="seconds"),
            sa.Column("unit", sa.String(16), nullable=False, server_default="s"),
            sa.Column("higher_is_better", sa.Boolean(), nullable=False, server_default="0"),
            sa.Column("rounds", sa.Integer(), nullable=False, server_default="0"),
            sa.Column("median", sa.Double(), nullable=True),
            sa.Column("p95", sa.Double(), nullable=True),
            sa.Column("ratio", sa.Double(), nullable=True),
            sa.Column("ratio_low", sa.Double(), nullable=True),
            sa.Column("ratio_high", sa.Double(), nullable=True),
            sa.Column("ratio_rounds", sa.Integer(), nullable=True),
            sa.Column("method", sa.String(32), nullable=True),
            sa.Column("verdict", sa.String(32), nullable=True),
            sa.Column("reason", sa.String(300), nullable=True),
            sa.Column("mde", sa.Double(), nullable=True),
            sa.Column("aa_ratio", sa.Double(), nullable=True),
            sa.Column("aa_low", sa.Double(), nullable=True),
            sa.Column("aa_high", sa.Double(), nullable=True),
            sa.Column("aa_rounds", sa.Integer(), nullable=True),
        ],
        ("run_id", "variant_index", "group_name", "metric"),
    )


def downgrade() -> None:
    _drop()
    _create(
        [
            sa.Column(f"{stat}_ratio{end}", sa.Double(), nullable=True)
            for stat in ("median", "p95")
            for end in ("", "_low", "_high")
        ],
        ("run_id", "variant_index"),
    )
