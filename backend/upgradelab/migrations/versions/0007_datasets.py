"""MariaDB 11.8 lab target (Debian trixie chroot), for replaying datasets across MariaDB LTS versions.

- target `mariadb-11.8`: local provisioner, root `{lab_dir}/chroots/mariadb-11.8` (infra/lab/install.sh),
  port 33118, disposable like the other lab targets. 10.11 -> 11.8 is MariaDB's LTS -> LTS upgrade.

Revision ID: 0007_datasets
Revises: 0006
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0007_datasets"
down_revision: str | None = "0006"
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


def downgrade() -> None:
    op.execute(target.delete().where(target.c.name == MARIADB_11_8["name"]))
