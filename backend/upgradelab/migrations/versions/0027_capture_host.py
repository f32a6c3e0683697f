"""the team's host of a capture check: capture_check.team_host (its CPUs and memory as given) and
capture_check.hosts (the team's and the lab's host the defaults were resolved for) (issue 35,
Deliver 2: "resolved for the team's server's CPUs and memory ... and for the lab host, both shown")

None: not given / not resolved (every existing row).

Revision ID: 0027_capture_host
Revises: 0026_capture_shares
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027_capture_host"
down_revision: str | None = "0026_capture_shares"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

COLUMNS = ("team_host", "hosts")


def upgrade() -> None:
    with op.batch_alter_table("capture_check", schema=None) as batch_op:
        for name in COLUMNS:
            batch_op.add_column(sa.Column(name, sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("capture_check", schema=None) as batch_op:
        for name in reversed(COLUMNS):
            batch_op.drop_column(name)
