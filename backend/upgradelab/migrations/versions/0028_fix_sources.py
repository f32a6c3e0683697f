"""fix searches' candidate sources: fix_search.sources, the sources a search tries (plan, differs,
lever, statistics: fixsearch/candidates.py SOURCES; issue 31, a search asked for some only)

Existing searches tried all four.

Revision ID: 0028_fix_sources
Revises: 0027_capture_host
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028_fix_sources"
down_revision: str | None = "0027_capture_host"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

ALL = '["plan", "differs", "lever", "statistics"]'


def upgrade() -> None:
    with op.batch_alter_table("fix_search", schema=None) as batch_op:
        batch_op.add_column(sa.Column("sources", sa.JSON(), nullable=False, server_default=ALL))


def downgrade() -> None:
    with op.batch_alter_table("fix_search", schema=None) as batch_op:
        batch_op.drop_column("sources")
