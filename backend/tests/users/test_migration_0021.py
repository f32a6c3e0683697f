"""Migration 0021 records owners: `created_by` on run, replay_run, attribution and dataset (NULL for
the rows that were there: only an admin may cancel or delete those), and takes them away again."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine.interfaces import ReflectedForeignKeyConstraint

from upgradelab.migrations import alembic_config

REVISION = "0021_owners"
TABLES = ("run", "replay_run", "attribution", "dataset")
EXPERIMENT = (
    "INSERT INTO experiment (name, workload, parameters, variants, iterations, policy, schedule, rounds, "
    "block, aa_control, created_at) VALUES ('e', 'insert-truncate', '{}', '[]', 1, 'warm', 'sequential', "
    "1, 1, 0, '2026-01-01')"
)
RUN = (
    "INSERT INTO run (experiment_id, status, cancel_requested, created_at, targets) "
    "VALUES (1, 'queued', 0, '2026-01-01', '')"
)


def _owner_keys(engine: sa.Engine, table: str) -> list[ReflectedForeignKeyConstraint]:
    return [
        key
        for key in sa.inspect(engine).get_foreign_keys(table)
        if key["constrained_columns"] == ["created_by"]
    ]


def test_owner_columns_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0020_pools")
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text(EXPERIMENT))
        connection.execute(sa.text(RUN))
    command.upgrade(config, REVISION)
    for table in TABLES:
        assert "created_by" in {c["name"] for c in sa.inspect(engine).get_columns(table)}, table
        [key] = _owner_keys(engine, table)
        assert key["referred_table"] == "app_user", table
        assert key.get("options", {}).get("ondelete") == "SET NULL", table
    with engine.connect() as connection:
        assert connection.execute(sa.text("SELECT created_by FROM run")).scalar_one() is None
    command.downgrade(config, "0020_pools")
    for table in TABLES:
        assert "created_by" not in {c["name"] for c in sa.inspect(engine).get_columns(table)}, table
    engine.dispose()
