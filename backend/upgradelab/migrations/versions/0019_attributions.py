"""attributions: which changed settings explain a gap between two variants of a run (issue 21)

Revision ID: 0019_attributions
Revises: 0018_verdict_value
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_attributions"
down_revision: str | None = "0018_verdict_value"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

_STATUSES = ("queued", "running", "succeeded", "failed", "cancelled")


def upgrade() -> None:
    op.create_table(
        "attribution",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("run_id", sa.Integer(), sa.ForeignKey("run.id", ondelete="CASCADE"), nullable=False),
        sa.Column("variant", sa.String(200), nullable=False),
        sa.Column("baseline", sa.String(200), nullable=False),
        sa.Column(
            "status",
            sa.Enum(*_STATUSES, name="attributionstatus", native_enum=False, length=16),
            nullable=False,
        ),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("group", sa.String(200), nullable=False),
        sa.Column("metric", sa.String(64), nullable=False),
        sa.Column("gap", sa.JSON(), nullable=True),
        sa.Column("target_share", sa.Float(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("block", sa.Integer(), nullable=False),
        sa.Column("budget_runs", sa.Integer(), nullable=False),
        sa.Column("budget_minutes", sa.Float(), nullable=False),
        sa.Column("candidates", sa.JSON(), nullable=False),
        sa.Column("untestable", sa.JSON(), nullable=False),
        sa.Column("steps", sa.JSON(), nullable=False),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("share_token", sa.String(64), nullable=True, unique=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("lease_owner", sa.String(200), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_attribution_run_id", "attribution", ["run_id"])
    op.create_index("ix_attribution_status", "attribution", ["status"])


def downgrade() -> None:
    op.drop_index("ix_attribution_status", "attribution")
    op.drop_index("ix_attribution_run_id", "attribution")
    op.drop_table("attribution")
