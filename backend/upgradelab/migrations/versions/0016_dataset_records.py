"""Deleted datasets stay as records; replay reports outlive their dataset (issue 24).

- dataset: `deleted_at`, `deleted_by`, `copies_pending` (datasets/models.py); `live_name`, the name
  while live, NULL once deleted, takes the UNIQUE constraint `name` had (a name is reusable after a
  delete); existing rows are live: live_name = name. `name` keeps an index.
- replay_run.dataset_id: ON DELETE RESTRICT instead of CASCADE (a dataset row is never deleted; a
  delete that would take reports with it fails).

Downgrade: the deleted records become rows of the old schema under a unique name
`<name>-deleted-<id>` (their replays keep pointing at them), the columns go, the constraints are
put back as they were.

Constraint names: reflected where the database names them (MariaDB/MySQL: `name`,
`replay_run_ibfk_1`), the naming convention's on SQLite, whose unnamed constraints batch mode names
by it when it copies the table. SQLite's foreign keys are off during migrations (env.py's engine),
so copying `replay_run` does not cascade into `share_link`.

Revision ID: 0016_dataset_records
Revises: 0015_run_digests
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_dataset_records"
down_revision: str | None = "0015_run_digests"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

NAMING = {
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
}

dataset = sa.table(
    "dataset",
    sa.column("id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("live_name", sa.String),
    sa.column("deleted_at", sa.DateTime),
)


def _unique_name(table: str, column: str) -> str:
    for unique in sa.inspect(op.get_bind()).get_unique_constraints(table):
        if unique["column_names"] == [column] and unique["name"]:
            return str(unique["name"])
    return f"uq_{table}_{column}"


def _foreign_key_name(table: str, column: str, referred: str) -> str:
    for key in sa.inspect(op.get_bind()).get_foreign_keys(table):
        if key["constrained_columns"] == [column] and key["name"]:
            return str(key["name"])
    return f"fk_{table}_{column}_{referred}"


def _dataset_fk(ondelete: str) -> None:
    name = _foreign_key_name("replay_run", "dataset_id", "dataset")
    with op.batch_alter_table("replay_run", naming_convention=NAMING) as batch:
        batch.drop_constraint(name, type_="foreignkey")
        batch.create_foreign_key(
            "fk_replay_run_dataset_id_dataset", "dataset", ["dataset_id"], ["id"], ondelete=ondelete
        )


def upgrade() -> None:
    with op.batch_alter_table("dataset") as batch:
        batch.add_column(sa.Column("live_name", sa.String(64), nullable=True))
        batch.add_column(sa.Column("deleted_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("deleted_by", sa.String(64), nullable=True))
        batch.add_column(sa.Column("copies_pending", sa.JSON(), nullable=True))
    op.execute(dataset.update().values(live_name=dataset.c.name))
    unique = _unique_name("dataset", "name")
    with op.batch_alter_table("dataset", naming_convention=NAMING) as batch:
        batch.drop_constraint(unique, type_="unique")
        batch.create_unique_constraint("uq_dataset_live_name", ["live_name"])
        batch.create_index("ix_dataset_name", ["name"])
    _dataset_fk("RESTRICT")


def downgrade() -> None:
    _dataset_fk("CASCADE")
    connection = op.get_bind()
    deleted = connection.execute(
        sa.select(dataset.c.id, dataset.c.name).where(dataset.c.deleted_at.is_not(None))
    ).all()
    for row_id, name in deleted:
        renamed = f"{name[:40]}-deleted-{row_id}"
        op.execute(dataset.update().where(dataset.c.id == row_id).values(name=renamed))
    with op.batch_alter_table("dataset", naming_convention=NAMING) as batch:
        batch.drop_index("ix_dataset_name")
        batch.drop_constraint("uq_dataset_live_name", type_="unique")
        batch.create_unique_constraint("uq_dataset_name", ["name"])
        batch.drop_column("copies_pending")
        batch.drop_column("deleted_by")
        batch.drop_column("deleted_at")
        batch.drop_column("live_name")
