"""concurrent replays (issue 50): the table `concurrent_replay`, a workload's sessions replayed
together on identical copies of a dataset across variants, trial after trial, with its trials'
measures and its decided report (concurrent_replay/models.py).

Revision ID: 0037_concurrent_replay
Revises: 0032_job_share
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0037_concurrent_replay"
down_revision: str | None = "0036_assessment"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "concurrent_replay",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("source_format", sa.String(length=16), nullable=False),
        sa.Column("variants", sa.JSON(), nullable=False),
        sa.Column("sessions", sa.JSON(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("speed", sa.Float(), nullable=False),
        sa.Column("statement_timeout_s", sa.Float(), nullable=False),
        sa.Column("max_trial_s", sa.Float(), nullable=False),
        sa.Column("max_sessions", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("schedule", sa.JSON(), nullable=True),
        sa.Column("trials", sa.JSON(), nullable=False),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("lease_owner", sa.String(length=200), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["dataset_id"], ["dataset.id"], ondelete="RESTRICT"),
        sa.ForeignKeyConstraint(["created_by"], ["app_user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_concurrent_replay_status", "concurrent_replay", ["status"])


def downgrade() -> None:
    op.drop_index("ix_concurrent_replay_status", table_name="concurrent_replay")
    op.drop_table("concurrent_replay")
