"""auto-extension: experiment.max_rounds and max_minutes (nullable: off for every existing experiment)

Revision ID: 0012
Revises: 0011
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("experiment", schema=None) as batch_op:
        batch_op.add_column(sa.Column("max_rounds", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("max_minutes", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("experiment", schema=None) as batch_op:
        batch_op.drop_column("max_minutes")
        batch_op.drop_column("max_rounds")
