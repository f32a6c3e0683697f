"""interleaved rounds: experiment schedule fields, one row per iteration, per-variant status and context

Revision ID: 0006
Revises: 0005
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("experiment") as batch:
        batch.add_column(sa.Column("schedule", sa.String(16), nullable=False, server_default="sequential"))
        batch.add_column(sa.Column("rounds", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("block", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("aa_control", sa.Boolean(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("seed", sa.Integer(), nullable=True))
    with op.batch_alter_table("run") as batch:
        batch.add_column(sa.Column("schedule", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("context", sa.JSON(), nullable=True))
    op.create_table(
        "iteration",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("variant_index", sa.Integer(), nullable=False),
        sa.Column("iteration", sa.Integer(), nullable=False),
        sa.Column("group_name", sa.String(200), nullable=False, server_default=""),
        sa.Column("round", sa.Integer(), nullable=False, server_default="1"),
        sa.Column("block", sa.Integer(), nullable=False, server_default="1"),
        sa.Column("position", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("elapsed_s", sa.Double(), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=True),
        sa.Column("ended_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("iteration") as batch:
        batch.create_index(
            "ix_iteration_run_variant_iteration", ["run_id", "variant_index", "iteration"], unique=True
        )
    # Existing runs: one row per stored iteration, summed from its samples (round 1, block = variant + 1).
    op.execute(
        "INSERT INTO iteration (run_id, variant_index, iteration, group_name, round, block, position, "
        "elapsed_s, ended_at) SELECT run_id, variant_index, iteration, MIN(label), 1, variant_index + 1, 0, "
        "SUM(elapsed_s), CURRENT_TIMESTAMP FROM sample GROUP BY run_id, variant_index, iteration"
    )
    op.create_table(
        "run_variant",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("variant_index", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("target", sa.String(64), nullable=False, server_default=""),
        sa.Column("status", sa.String(16), nullable=False, server_default="pending"),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("is_aa_control", sa.Boolean(), nullable=False, server_default="0"),
        sa.Column("provisioner", sa.String(32), nullable=True),
        sa.Column("image_or_binary", sa.String(500), nullable=True),
        sa.Column("version", sa.String(200), nullable=True),
        sa.Column("version_comment", sa.String(500), nullable=True),
        sa.Column("option_file", sa.Text(), nullable=True),
        sa.Column("variables", sa.JSON(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("run_variant") as batch:
        batch.create_index("ix_run_variant_run_index", ["run_id", "variant_index"], unique=True)


def downgrade() -> None:
    op.drop_table("run_variant")
    op.drop_table("iteration")
    with op.batch_alter_table("run") as batch:
        batch.drop_column("context")
        batch.drop_column("schedule")
    with op.batch_alter_table("experiment") as batch:
        for column in ("seed", "aa_control", "block", "rounds", "schedule"):
            batch.drop_column(column)
