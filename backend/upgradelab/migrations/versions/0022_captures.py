"""captures: a team's server read once (configuration, accounts, statement digests) and its checks
against a new version's binary (capture_check), issue 35

Revision ID: 0022_captures
Revises: 0021_owners
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022_captures"
down_revision: str | None = "0021_owners"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

_STATUSES = ("queued", "running", "succeeded", "failed", "cancelled")


def upgrade() -> None:
    op.create_table(
        "capture",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column(
            "status",
            sa.Enum(*_STATUSES, name="capturestatus", native_enum=False, length=16),
            nullable=False,
        ),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("schema_only", sa.Boolean(), nullable=False),
        sa.Column("data_limit_mb", sa.Integer(), nullable=True),
        sa.Column("flavor", sa.String(16), nullable=True),
        sa.Column("version", sa.String(200), nullable=True),
        sa.Column("configuration", sa.JSON(), nullable=True),
        sa.Column("accounts", sa.JSON(), nullable=True),
        sa.Column("accounts_error", sa.Text(), nullable=True),
        sa.Column("workload", sa.JSON(), nullable=True),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column(
            "created_by",
            sa.Integer(),
            sa.ForeignKey("app_user.id", name="fk_capture_created_by_app_user", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("lease_owner", sa.String(200), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_capture_target", "capture", ["target"])
    op.create_index("ix_capture_status", "capture", ["status"])
    op.create_table(
        "capture_check",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "capture_id",
            sa.Integer(),
            sa.ForeignKey("capture.id", name="fk_capture_check_capture_id_capture", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column(
            "status",
            sa.Enum(*_STATUSES, name="capturecheckstatus", native_enum=False, length=16),
            nullable=False,
        ),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("server", sa.String(200), nullable=True),
        sa.Column("findings", sa.JSON(), nullable=True),
        sa.Column("account_findings", sa.JSON(), nullable=True),
        sa.Column(
            "created_by",
            sa.Integer(),
            sa.ForeignKey("app_user.id", name="fk_capture_check_created_by_app_user", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("lease_owner", sa.String(200), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_capture_check_capture_id", "capture_check", ["capture_id"])
    op.create_index("ix_capture_check_status", "capture_check", ["status"])


def downgrade() -> None:
    # each table's indexes go with it (MariaDB refuses to drop the index its foreign key needs first)
    op.drop_table("capture_check")
    op.drop_table("capture")
