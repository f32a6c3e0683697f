"""probe samples and unavailable probes

Revision ID: 0003
Revises: 0002
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "probe_sample",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("variant_index", sa.Integer(), nullable=False),
        sa.Column("iteration", sa.Integer(), nullable=False),
        sa.Column("probe", sa.String(length=32), nullable=False),
        sa.Column("metric", sa.String(length=32), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("value", sa.Double(), nullable=True),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("probe_sample", schema=None) as batch_op:
        batch_op.create_index(
            "ix_probe_sample_run_variant_iteration", ["run_id", "variant_index", "iteration"], unique=False
        )
    op.create_table(
        "probe_unavailable",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("variant_index", sa.Integer(), nullable=False),
        sa.Column("probe", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("probe_unavailable", schema=None) as batch_op:
        batch_op.create_index("ix_probe_unavailable_run", ["run_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("probe_unavailable", schema=None) as batch_op:
        batch_op.drop_index("ix_probe_unavailable_run")
    op.drop_table("probe_unavailable")
    with op.batch_alter_table("probe_sample", schema=None) as batch_op:
        batch_op.drop_index("ix_probe_sample_run_variant_iteration")
    op.drop_table("probe_sample")
