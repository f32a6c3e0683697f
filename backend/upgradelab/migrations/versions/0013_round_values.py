"""round values: variant_summary.round_values, the per-round medians the rounds chart draws (nullable:
summaries stored before it are read as before, from every iteration)

Revision ID: 0013_round_values
Revises: 0012
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_round_values"
down_revision: str | None = "0012"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("variant_summary", schema=None) as batch_op:
        batch_op.add_column(sa.Column("round_values", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("variant_summary", schema=None) as batch_op:
        batch_op.drop_column("round_values")
