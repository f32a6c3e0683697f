"""Migration 0020 on SQLite: every target stored before it is put in the default pool ["local"];
the downgrade removes the column and keeps the targets."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config

REVISION = "0020_pools"


def test_0020_puts_every_stored_target_in_the_local_pool_and_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    before = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(before, str)
    command.upgrade(config, before)
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO target (name, flavor, provisioner, settings, disposable, created_at) "
                "VALUES ('old-docker', 'mysql', 'docker', '{}', 0, '2026-11-01 00:00:00')"
            )
        )
        names = [name for (name,) in connection.execute(sa.text("SELECT name FROM target ORDER BY name"))]
    command.upgrade(config, REVISION)
    with engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT name, pools FROM target ORDER BY name")).all()
        nullable = {c["name"]: c["nullable"] for c in sa.inspect(connection).get_columns("target")}
    assert [(name, pools) for name, pools in rows] == [(name, '["local"]') for name in names]
    assert nullable["pools"] is False
    command.downgrade(config, before)
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("target")}
        kept = [name for (name,) in connection.execute(sa.text("SELECT name FROM target ORDER BY name"))]
    assert "pools" not in columns and kept == names
