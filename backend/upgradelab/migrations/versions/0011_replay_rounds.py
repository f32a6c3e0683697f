"""replay rounds: replay_run.schedule (the interleaved schedule a replay ran, runs/plan.py's shape),
passes (per block) and its lease (lease_owner, lease_expires_at: replay/leases.py)

Replays run in rounds now (measurement/engine.py); `repeats` keeps its column and means the number of
rounds. Replays stored before have no schedule (NULL) and one pass: they ran sequentially, one pass
per repeat. A replay left "running" by an older worker has no lease: the replay reaper ends it as
"worker lost".

Revision ID: 0011
Revises: 0010
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("replay_run") as batch:
        batch.add_column(sa.Column("schedule", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("passes", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("lease_owner", sa.String(200), nullable=True))
        batch.add_column(sa.Column("lease_expires_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("replay_run") as batch:
        batch.drop_column("lease_expires_at")
        batch.drop_column("lease_owner")
        batch.drop_column("passes")
        batch.drop_column("schedule")
