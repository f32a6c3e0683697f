"""Seed the lab's two targets: MySQL 9.7 (Debian sid chroot) and MariaDB 10.11 (bookworm host).

Both are local processes on 127.0.0.1 installed by infra/lab/install.sh. `{lab_dir}` in `root`
expands to the lab_dir setting at run time; versions are read from the servers when they first start.

Revision ID: 0002
Revises: 0001
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

LAB_TARGETS = [
    {
        "name": "mysql-9.7",
        "flavor": "mysql",
        "provisioner": "local",
        "settings": {
            "root": "{lab_dir}/chroots/mysql-9.7",
            "mysqld": "/usr/sbin/mysqld",
            "port": 33097,
            "base_options": {"innodb_buffer_pool_size": "128M"},
        },
    },
    {
        "name": "mariadb-10.11",
        "flavor": "mariadb",
        "provisioner": "local",
        "settings": {
            "root": "/",
            "mysqld": "/usr/sbin/mariadbd",
            "install_db": "/usr/bin/mariadb-install-db",
            "port": 33011,
            "base_options": {"innodb_buffer_pool_size": "128M"},
        },
    },
]

target = sa.table(
    "target",
    sa.column("name", sa.String),
    sa.column("flavor", sa.String),
    sa.column("provisioner", sa.String),
    sa.column("settings", sa.JSON),
    sa.column("created_at", sa.DateTime),
)


def upgrade() -> None:
    now = datetime.now(UTC).replace(tzinfo=None)
    op.bulk_insert(target, [{**row, "created_at": now} for row in LAB_TARGETS])


def downgrade() -> None:
    op.execute(target.delete().where(target.c.name.in_([row["name"] for row in LAB_TARGETS])))
