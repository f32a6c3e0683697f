"""fix searches' global remedies: fix_search.scope, side_rounds and side_minutes (issue 34, Deliver 4)

Existing searches read as scope "statement" (they checked no global remedy), 5 rounds and 10 minutes.

Revision ID: 0025_fix_global
Revises: 0024_capture_findings
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025_fix_global"
down_revision: str | None = "0024_capture_findings"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("fix_search", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scope", sa.String(20), nullable=False, server_default="statement"))
        batch_op.add_column(sa.Column("side_rounds", sa.Integer(), nullable=False, server_default="5"))
        batch_op.add_column(sa.Column("side_minutes", sa.Float(), nullable=False, server_default="10"))


def downgrade() -> None:
    with op.batch_alter_table("fix_search", schema=None) as batch_op:
        batch_op.drop_column("side_minutes")
        batch_op.drop_column("side_rounds")
        batch_op.drop_column("scope")
