"""owners: `created_by` (app_user.id, ON DELETE SET NULL) on run, replay_run, attribution and dataset

Operators cancel, delete and revoke only what they created, admins anything (issue 30, finding 8;
users/auth.py require_owner); share_link has carried created_by since 0005. Existing rows get NULL:
nobody recorded who made them, so only an admin may cancel or delete them.

Constraint names follow the naming convention below on every database (SQLite's batch mode copies
the table and needs a name to drop the key again on downgrade).

Revision ID: 0021_owners
Revises: 0020_pools
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021_owners"
down_revision: str | None = "0020_pools"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

TABLES = ("run", "replay_run", "attribution", "dataset")


def _key(table: str) -> str:
    return f"fk_{table}_created_by_app_user"


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("created_by", sa.Integer(), nullable=True))
            batch.create_foreign_key(_key(table), "app_user", ["created_by"], ["id"], ondelete="SET NULL")


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(_key(table), type_="foreignkey")
            batch.drop_column("created_by")
