"""iteration series: a finished run's per-variant iterations packed in one row each (written at run end
with the verdict table; runs finished before are read from the iteration table as before)

Revision ID: 0014_iteration_series
Revises: 0013_round_values
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision: str = "0014_iteration_series"
down_revision: str | None = "0013_round_values"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

PACKED = sa.LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "iteration_series",
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("run.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("variant_index", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("iterations", PACKED, nullable=False),
        sa.Column("elapsed_s", PACKED, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("iteration_series")
