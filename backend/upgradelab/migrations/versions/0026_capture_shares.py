"""share links of captures and their checks: capture.share_token, capture_check.share_token (issue 35,
Deliver 2: "the check's page, --json, CSV export and a share link")

None: not shared (every existing row); a token opens its record read-only at /api/public/captures/.

Revision ID: 0026_capture_shares
Revises: 0025_fix_global
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026_capture_shares"
down_revision: str | None = "0025_fix_global"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    for table in ("capture", "capture_check"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("share_token", sa.String(64), nullable=True))
            batch_op.create_unique_constraint(f"uq_{table}_share_token", ["share_token"])


def downgrade() -> None:
    for table in ("capture", "capture_check"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_constraint(f"uq_{table}_share_token", type_="unique")
            batch_op.drop_column("share_token")
