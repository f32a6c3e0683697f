"""Migration 0012 on a database made before it: existing experiments keep running without an
auto-extension (max_rounds and max_minutes NULL), and the downgrade drops both columns."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.migrations import alembic_config


def test_0012_adds_an_auto_extension_budget_that_is_off_for_existing_experiments(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0011")
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO experiment (id, name, workload, parameters, variants, iterations, created_at) "
                "VALUES (1, 'old', 'insert-truncate', '{}', '[]', 5, '2026-01-01')"
            )
        )
    command.upgrade(config, "0012")
    with engine.connect() as connection:
        row = connection.execute(sa.text("SELECT max_rounds, max_minutes FROM experiment")).one()
    assert tuple(row) == (None, None)
    command.downgrade(config, "0011")
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("experiment")}
    assert "max_rounds" not in columns and "rounds" in columns
