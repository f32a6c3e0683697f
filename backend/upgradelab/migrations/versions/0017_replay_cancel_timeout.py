"""replay cancel and statement timeout: replay_run.cancel_requested (the user asked to cancel; the
worker's cancel watch ends the replay) and statement_timeout_s (every replayed statement's bound)

Replays stored before ran without a bound; they read 30 s, the default since.

Revision ID: 0017_replay_cancel_timeout
Revises: 0015_run_digests
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_replay_cancel_timeout"
down_revision: str | None = "0016_dataset_records"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("replay_run") as batch:
        batch.add_column(
            sa.Column("cancel_requested", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("statement_timeout_s", sa.Float(), nullable=False, server_default="30"))


def downgrade() -> None:
    with op.batch_alter_table("replay_run") as batch:
        batch.drop_column("statement_timeout_s")
        batch.drop_column("cancel_requested")
