"""run leases: the worker holding a run and until when (runs/leases.py, runs/reaper.py)

Revision ID: 0009
Revises: 0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    # No data to move: runs already final need no lease, and a run left provisioning/running by a
    # worker before this migration has none, so the reaper ends it as "worker lost" at once.
    with op.batch_alter_table("run") as batch:
        batch.add_column(sa.Column("lease_owner", sa.String(200), nullable=True))
        batch.add_column(sa.Column("lease_expires_at", sa.DateTime(), nullable=True))
        batch.create_index("ix_run_status_lease", ["status", "lease_expires_at"])


def downgrade() -> None:
    with op.batch_alter_table("run") as batch:
        batch.drop_index("ix_run_status_lease")
        batch.drop_column("lease_expires_at")
        batch.drop_column("lease_owner")
