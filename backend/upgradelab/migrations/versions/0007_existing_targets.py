"""Existing servers as targets: target.capabilities, what the lab may do on a server it does not own.

- target.capabilities: JSON of targets.capabilities.Capabilities (detected_at, flavor, version,
  version_comment, managed_service, read_only, log_bin, ..., checks: [{name, available, detail}]),
  NULL for the lab's own targets (every capability of a server the lab runs itself).

Revision ID: 0007
Revises: 0006
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("target") as batch:
        batch.add_column(sa.Column("capabilities", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("target") as batch:
        batch.drop_column("capabilities")
