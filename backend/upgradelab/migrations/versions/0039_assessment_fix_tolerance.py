"""an assessment's fix tolerance: assessment.fix_tolerance (issue 49): how much slower than the old
version a remedy its fix searches find may be and still restore (fixsearch's `tolerance`).

Existing assessments searched with the fix search's default, 0.10.

Revision ID: 0039_assessment_fix_tolerance
Revises: 0038_replay_shard
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0039_assessment_fix_tolerance"
down_revision: str | None = "0038_replay_shard"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("assessment", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fix_tolerance", sa.Float(), nullable=False, server_default="0.1"))


def downgrade() -> None:
    with op.batch_alter_table("assessment", schema=None) as batch_op:
        batch_op.drop_column("fix_tolerance")
