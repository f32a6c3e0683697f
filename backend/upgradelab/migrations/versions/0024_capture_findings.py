"""capture findings: a capture's dump as a dataset and its schema's identifiers; a check's findings
on identifiers, sql_mode, character sets and changed defaults (issue 35)

Revision ID: 0024_capture_findings
Revises: 0023_fix_searches
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0024_capture_findings"
down_revision: str | None = "0023_fix_searches"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

# capture.dataset_id has no foreign key: a dataset row is never deleted (datasets/models.py keeps it
# as a record), and a plain column adds on SQLite without rebuilding the table.
_CAPTURE: list[sa.Column[Any]] = [
    sa.Column("dataset_id", sa.Integer(), nullable=True),
    sa.Column("dump", sa.JSON(), nullable=True),
    sa.Column("identifiers", sa.JSON(), nullable=True),
]
_CHECK: list[sa.Column[Any]] = [
    sa.Column("identifier_findings", sa.JSON(), nullable=True),
    sa.Column("sql_mode_findings", sa.JSON(), nullable=True),
    sa.Column("charset_findings", sa.JSON(), nullable=True),
    sa.Column("default_findings", sa.JSON(), nullable=True),
]


def upgrade() -> None:
    for column in _CAPTURE:
        op.add_column("capture", column)
    for column in _CHECK:
        op.add_column("capture_check", column)


def downgrade() -> None:
    with op.batch_alter_table("capture_check") as batch:
        for column in _CHECK:
            batch.drop_column(column.name)
    with op.batch_alter_table("capture") as batch:
        for column in _CAPTURE:
            batch.drop_column(column.name)
