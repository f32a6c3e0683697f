"""Migration 0038 adds `replay_run.shards` (1 for every replay made before) and the table
`replay_shard`, and takes both away again."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config

REVISION = "0038_replay_shard"


def test_replay_shard_table_and_shards_column_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, previous)
    engine = sa.create_engine(url)
    command.upgrade(config, REVISION)
    inspector = sa.inspect(engine)
    columns = {c["name"]: c for c in inspector.get_columns("replay_shard")}
    assert {"replay_id", "shard", "statements", "worker", "status", "progress", "result"} <= set(columns)
    assert {"lease_owner", "lease_expires_at"} <= set(columns) and columns["result"]["nullable"]
    foreign = {
        f["referred_table"]: f["options"].get("ondelete") for f in inspector.get_foreign_keys("replay_shard")
    }
    assert foreign == {"replay_run": "CASCADE"}
    shards = {c["name"]: c for c in inspector.get_columns("replay_run")}["shards"]
    assert not shards["nullable"] and str(shards["default"]).strip("'\"") == "1"  # every replay before
    command.downgrade(config, previous)
    inspector = sa.inspect(engine)
    assert "replay_shard" not in inspector.get_table_names()
    assert "shards" not in {c["name"] for c in inspector.get_columns("replay_run")}
    engine.dispose()
