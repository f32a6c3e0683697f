"""run digests: a finished run's statement summary, group medians and per-variant probe columns, computed
once at run end (runs finished before are read from their samples, iterations and probe rows as before)

Revision ID: 0015_run_digests
Revises: 0014_iteration_series
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision: str = "0015_run_digests"
down_revision: str | None = "0014_iteration_series"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

PACKED = sa.LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "run_digest",
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("run.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("body", sa.JSON(), nullable=False),
    )
    op.create_table(
        "probe_series",
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("run.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("variant_index", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("columns", sa.JSON(), nullable=False),
        sa.Column("iterations", PACKED, nullable=False),
        sa.Column("values", PACKED, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("probe_series")
    op.drop_table("run_digest")
