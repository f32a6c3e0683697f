"""Migration 0011 on a database at 0010 holding a replay: replay_run gains schedule and the lease
columns, the stored replay keeps its values (no schedule: it ran sequentially; no lease); the
downgrade removes the columns and keeps the replay."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.migrations import alembic_config

REVISION = "0011"


def test_0011_adds_schedule_and_lease_to_stored_replays(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0010")
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO dataset (id, name, path, sha256, size_bytes, compression, loads, created_at) "
                "VALUES (1, 'shop', '/x', 'ab', 10, 'none', '{}', '2026-11-01 00:00:00')"
            )
        )
        connection.execute(
            sa.text(
                "INSERT INTO replay_run (id, name, dataset_id, source_format, variants, repeats, sample, "
                "allow_writes, statements, skipped_writes, status, created_at) VALUES (7, 'old', 1, "
                "'sql', '[]', 5, 10, 0, '[]', '[]', 'succeeded', '2026-11-01 00:00:00')"
            )
        )
    command.upgrade(config, REVISION)
    with engine.connect() as connection:
        row = connection.execute(
            sa.text("SELECT repeats, passes, status, schedule, lease_owner, lease_expires_at FROM replay_run")
        ).one()
    assert tuple(row) == (5, 1, "succeeded", None, None, None)
    command.downgrade(config, "0010")
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("replay_run")}
        kept = connection.execute(sa.text("SELECT id, repeats FROM replay_run")).all()
    assert not {"schedule", "passes", "lease_owner", "lease_expires_at"} & columns
    assert [tuple(r) for r in kept] == [(7, 5)]
