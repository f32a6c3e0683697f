"""a replay sharded over a worker pool's hosts (issue 51, item 4): the column `replay_run.shards`
(the shards asked: 1 none, the default and every replay made before; 0 as many as the pool has live
workers) and the table `replay_shard`, one row per shard of a replay: its statements, the worker it
was sent to and the first instance slot it takes, its status, lease, progress and result
(replay/models.py ReplayShard).

Revision ID: 0038_replay_shard
Revises: 0037_concurrent_replay
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0038_replay_shard"
down_revision: str | None = "0037_concurrent_replay"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("replay_run") as batch:
        batch.add_column(sa.Column("shards", sa.Integer(), nullable=False, server_default="1"))
    op.create_table(
        "replay_shard",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("replay_id", sa.Integer(), nullable=False),
        sa.Column("shard", sa.Integer(), nullable=False),
        sa.Column("statements", sa.JSON(), nullable=False),
        sa.Column("worker", sa.String(length=200), nullable=False),
        sa.Column("first_slot", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column("result", sa.LargeBinary(), nullable=True),
        sa.Column("lease_owner", sa.String(length=200), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["replay_id"], ["replay_run.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("replay_id", "shard", name="uq_replay_shard_replay_shard"),
    )


def downgrade() -> None:
    op.drop_table("replay_shard")
    with op.batch_alter_table("replay_run") as batch:
        batch.drop_column("shards")
