"""Migration 0037 makes the concurrent replay's table (its columns, its status index) and takes it
away again."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config

REVISION = "0037_concurrent_replay"


def test_concurrent_replay_table_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, previous)
    engine = sa.create_engine(url)
    assert "concurrent_replay" not in sa.inspect(engine).get_table_names()
    command.upgrade(config, REVISION)
    inspector = sa.inspect(engine)
    columns = {c["name"]: c for c in inspector.get_columns("concurrent_replay")}
    assert {"sessions", "trials", "report", "schedule", "speed", "rounds", "cancel_requested"} <= set(columns)
    assert not columns["sessions"]["nullable"] and columns["report"]["nullable"]
    assert [i["column_names"] for i in inspector.get_indexes("concurrent_replay")] == [["status"]]
    foreign = {
        f["referred_table"]: f["options"].get("ondelete")
        for f in inspector.get_foreign_keys("concurrent_replay")
    }
    assert foreign == {"dataset": "RESTRICT", "app_user": "SET NULL"}
    command.downgrade(config, previous)
    assert "concurrent_replay" not in sa.inspect(engine).get_table_names()
    engine.dispose()
