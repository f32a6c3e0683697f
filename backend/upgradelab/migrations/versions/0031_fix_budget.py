"""fix searches' scaled rounds budget: fix_search.budget_scaled (issue 46, Deliver 8): a search
created without a rounds budget gets one scaled to its candidates when it builds them
(fixsearch/search.py scaled_budget), written into budget_rounds then; budget_scaled says so.

Existing searches were given their budget (60 by default): not scaled.

Revision ID: 0031_fix_budget
Revises: 0030_check_schema_load
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0031_fix_budget"
down_revision: str | None = "0030_check_schema_load"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("fix_search", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("budget_scaled", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("fix_search", schema=None) as batch_op:
        batch_op.drop_column("budget_scaled")
