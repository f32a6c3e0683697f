"""fix searches: statement-level remedies for a replay fingerprint slower on a variant (issue 34)

Revision ID: 0023_fix_searches
Revises: 0022_captures
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023_fix_searches"
down_revision: str | None = "0022_captures"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

_STATUSES = ("queued", "provisioning", "running", "succeeded", "failed", "cancelled")


def upgrade() -> None:
    op.create_table(
        "fix_search",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "replay_id", sa.Integer(), sa.ForeignKey("replay_run.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("fingerprint_id", sa.String(64), nullable=False),
        sa.Column("fingerprint", sa.Text(), nullable=False),
        sa.Column("variant", sa.String(200), nullable=False),
        sa.Column("baseline", sa.String(200), nullable=False),
        sa.Column(
            "status", sa.Enum(*_STATUSES, name="jobstatus", native_enum=False, length=16), nullable=False
        ),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("variants", sa.JSON(), nullable=False),
        sa.Column("statements", sa.JSON(), nullable=False),
        sa.Column(
            "dataset_id", sa.Integer(), sa.ForeignKey("dataset.id", ondelete="RESTRICT"), nullable=False
        ),
        sa.Column("statement_timeout_s", sa.Float(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("passes", sa.Integer(), nullable=False),
        sa.Column("budget_rounds", sa.Integer(), nullable=False),
        sa.Column("budget_minutes", sa.Float(), nullable=False),
        sa.Column("try_all", sa.Boolean(), nullable=False),
        sa.Column("tolerance", sa.Float(), nullable=False),
        sa.Column("candidates", sa.JSON(), nullable=False),
        sa.Column("tried", sa.JSON(), nullable=False),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("share_token", sa.String(64), nullable=True, unique=True),
        sa.Column(
            "created_by", sa.Integer(), sa.ForeignKey("app_user.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("lease_owner", sa.String(200), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_fix_search_replay_id", "fix_search", ["replay_id"])
    op.create_index("ix_fix_search_status", "fix_search", ["status"])


def downgrade() -> None:
    # the table's indexes go with it (MariaDB refuses to drop the index its foreign key needs first)
    op.drop_table("fix_search")
