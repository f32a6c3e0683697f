"""assessments: a team's server checked, replayed and remedied against new versions, ended by one
report (issue 49, Deliver 1): the `assessment` table (its request, its children's ids, its report).

Revision ID: 0036_assessment
Revises: 0032_job_share
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0036_assessment"
down_revision: str | None = "0032_job_share"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

_STATUSES = ("queued", "provisioning", "running", "succeeded", "failed", "cancelled")


def upgrade() -> None:
    op.create_table(
        "assessment",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("target", sa.String(64), nullable=True),
        sa.Column("my_cnf", sa.Text(), nullable=True),
        sa.Column("versions", sa.JSON(), nullable=False),
        sa.Column("baseline", sa.String(64), nullable=True),
        sa.Column("dataset", sa.String(64), nullable=True),
        sa.Column("queries", sa.Text(), nullable=True),
        sa.Column("budget_min", sa.Float(), nullable=False),
        sa.Column(
            "status", sa.Enum(*_STATUSES, name="jobstatus", native_enum=False, length=16), nullable=False
        ),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("children", sa.JSON(), nullable=False),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column(
            "created_by", sa.Integer(), sa.ForeignKey("app_user.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("lease_owner", sa.String(200), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_assessment_status", "assessment", ["status"])


def downgrade() -> None:
    op.drop_table("assessment")
