"""Migration 0017 on a database at 0016 holding a replay: replay_run gains cancel_requested (false)
and statement_timeout_s (30, the default since), the stored replay keeps its values; the downgrade
removes both columns and keeps the replay."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.migrations import alembic_config

REVISION, BEFORE = "0017_replay_cancel_timeout", "0016_dataset_records"


def test_0017_adds_cancel_and_statement_timeout_to_stored_replays(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, BEFORE)
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO dataset (id, name, live_name, path, sha256, size_bytes, compression, loads, "
                "created_at) VALUES (1, 'shop', 'shop', '/x', 'ab', 10, 'none', '{}', '2026-11-01 00:00:00')"
            )
        )
        connection.execute(
            sa.text(
                "INSERT INTO replay_run (id, name, dataset_id, source_format, variants, repeats, sample, "
                "allow_writes, statements, skipped_writes, status, created_at) VALUES (7, 'old', 1, "
                "'sql', '[]', 5, 10, 0, '[]', '[]', 'running', '2026-11-01 00:00:00')"
            )
        )
    command.upgrade(config, REVISION)
    with engine.connect() as connection:
        row = connection.execute(
            sa.text("SELECT repeats, status, cancel_requested, statement_timeout_s FROM replay_run")
        ).one()
    assert tuple(row) == (5, "running", 0, 30.0)
    command.downgrade(config, BEFORE)
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("replay_run")}
        kept = connection.execute(sa.text("SELECT id, repeats, status FROM replay_run")).all()
    assert not {"cancel_requested", "statement_timeout_s"} & columns
    assert [tuple(r) for r in kept] == [(7, 5, "running")]
