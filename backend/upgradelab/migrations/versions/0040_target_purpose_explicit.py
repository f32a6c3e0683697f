"""an existing target's purpose written out (issue 49, item 1: a server added to be captured or
assessed is read-only by default, the lab's write checks only for a target added for workloads).

Before, an existing target without `purpose` in its settings was of purpose workloads (write-checked
on adding, runs and replays allowed). The default is now `capture` (read-only: never written to), and
a row without a purpose reads as that default (targets/stored_settings.py), so every existing target
stored without one is stamped `purpose: "workloads"`: what it was added as, and what it still does.
The ids stamped are kept in `target_purpose_stamped` so that the downgrade removes only what this
migration wrote (a purpose a user chose stays); the downgrade drops that table.

Revision ID: 0040_target_purpose_explicit
Revises: 0039_assessment_fix_tolerance
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0040_target_purpose_explicit"
down_revision: str | None = "0039_assessment_fix_tolerance"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

STAMPED = "target_purpose_stamped"
_TARGET = sa.table(
    "target",
    sa.column("id", sa.Integer),
    sa.column("provisioner", sa.String),
    sa.column("settings", sa.JSON),
)


def upgrade() -> None:
    stamped = op.create_table(STAMPED, sa.Column("target_id", sa.Integer(), primary_key=True))
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(_TARGET.c.id, _TARGET.c.settings).where(_TARGET.c.provisioner == "existing")
    ).all()
    for target_id, settings in rows:
        if "purpose" in (settings or {}):
            continue
        written = {**(settings or {}), "purpose": "workloads"}
        connection.execute(_TARGET.update().where(_TARGET.c.id == target_id).values(settings=written))
        connection.execute(sa.insert(stamped).values(target_id=target_id))


def downgrade() -> None:
    connection = op.get_bind()
    stamped = sa.table(STAMPED, sa.column("target_id", sa.Integer))
    ids = {target_id for (target_id,) in connection.execute(sa.select(stamped.c.target_id))}
    rows = connection.execute(sa.select(_TARGET.c.id, _TARGET.c.settings).where(_TARGET.c.id.in_(ids))).all()
    for target_id, settings in rows:
        if (settings or {}).get("purpose") == "workloads":
            kept = {key: value for key, value in settings.items() if key != "purpose"}
            connection.execute(_TARGET.update().where(_TARGET.c.id == target_id).values(settings=kept))
    op.drop_table(STAMPED)
