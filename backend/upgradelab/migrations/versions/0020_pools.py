"""worker pools: target.pools, the worker pools that may run a target (JSON list of names)

Every existing target is put in the default pool, ["local"]: before pools, one queue served every
worker, which is the "local" pool's (worker.queue_of). The column is added nullable, filled, then made
NOT NULL, so that MariaDB/MySQL (no literal default on a JSON column) and SQLite take the same steps.

Revision ID: 0020_pools
Revises: 0018_verdict_value
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_pools"
down_revision: str | None = "0019_attributions"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("target", sa.Column("pools", sa.JSON(), nullable=True))
    op.execute(sa.text("UPDATE target SET pools = '[\"local\"]'"))
    with op.batch_alter_table("target") as batch:
        batch.alter_column("pools", existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("target") as batch:
        batch.drop_column("pools")
