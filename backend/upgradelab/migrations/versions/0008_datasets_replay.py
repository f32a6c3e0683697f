"""MariaDB 11.8 lab target (Debian trixie chroot) and datasets (SQL dumps stored under the state dir).

- target `mariadb-11.8`: local provisioner, root `{lab_dir}/chroots/mariadb-11.8` (infra/lab/install.sh),
  port 33118, disposable like the other lab targets. 10.11 -> 11.8 is MariaDB's LTS -> LTS upgrade.
- table `dataset`: name, file (under the state dir), sha256, size, compression, loads per target.
- table `replay_run`: a query source replayed on a dataset across variants, with its report.
- share_link.replay_id: a replay run shared read-only like runs and comparisons.

Revision ID: 0008
Revises: 0007
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

MARIADB_11_8 = {
    "name": "mariadb-11.8",
    "flavor": "mariadb",
    "provisioner": "local",
    "disposable": True,
    "settings": {
        "root": "{lab_dir}/chroots/mariadb-11.8",
        "mysqld": "/usr/sbin/mariadbd",
        "install_db": "/usr/bin/mariadb-install-db",
        "port": 33118,
        "base_options": {"innodb_buffer_pool_size": "128M"},
    },
}

target = sa.table(
    "target",
    sa.column("name", sa.String),
    sa.column("flavor", sa.String),
    sa.column("provisioner", sa.String),
    sa.column("settings", sa.JSON),
    sa.column("disposable", sa.Boolean),
    sa.column("created_at", sa.DateTime),
)


def upgrade() -> None:
    now = datetime.now(UTC).replace(tzinfo=None)
    op.bulk_insert(target, [{**MARIADB_11_8, "created_at": now}])
    op.create_table(
        "dataset",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("path", sa.String(1000), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("compression", sa.String(8), nullable=False),
        sa.Column("loads", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "replay_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column(
            "dataset_id", sa.Integer(), sa.ForeignKey("dataset.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("source_format", sa.String(16), nullable=False),
        sa.Column("variants", sa.JSON(), nullable=False),
        sa.Column("repeats", sa.Integer(), nullable=False),
        sa.Column("sample", sa.Integer(), nullable=False),
        sa.Column("allow_writes", sa.Boolean(), nullable=False),
        sa.Column("statements", sa.JSON(), nullable=False),
        sa.Column("skipped_writes", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("share_link") as batch:
        batch.add_column(sa.Column("replay_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_share_link_replay_id", "replay_run", ["replay_id"], ["id"], ondelete="CASCADE"
        )


def downgrade() -> None:
    with op.batch_alter_table("share_link") as batch:
        batch.drop_constraint("fk_share_link_replay_id", type_="foreignkey")
        batch.drop_column("replay_id")
    op.drop_table("replay_run")
    op.drop_table("dataset")
    op.execute(target.delete().where(target.c.name == MARIADB_11_8["name"]))
