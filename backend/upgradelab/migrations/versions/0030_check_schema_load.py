"""the captured schema and statements tried on a check's new version: capture_check.load_findings
(the schema's statements it refuses), capture_check.parse_findings (the captured statements its
parser refuses) and capture_check.schema_load (what was asked and why not the rest) (issue 45,
Deliver 5: "the captured schema ... loaded on the check's scratch instance of the new version ...
every captured statement asked of the new version's parser")

None: not tried (every existing row).

Revision ID: 0030_check_schema_load
Revises: 0029_secrets
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0030_check_schema_load"
down_revision: str | None = "0029_secrets"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

COLUMNS = ("load_findings", "parse_findings", "schema_load")


def upgrade() -> None:
    with op.batch_alter_table("capture_check", schema=None) as batch_op:
        for name in COLUMNS:
            batch_op.add_column(sa.Column(name, sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("capture_check", schema=None) as batch_op:
        for name in reversed(COLUMNS):
            batch_op.drop_column(name)
