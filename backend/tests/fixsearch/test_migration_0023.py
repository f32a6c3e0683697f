"""Migration 0023 adds the fix_search table and takes it away again, from whatever revision it follows."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config

REVISION = "0023_fix_searches"


def test_fix_search_table_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, REVISION)
    engine = sa.create_engine(url)
    columns = {c["name"] for c in sa.inspect(engine).get_columns("fix_search")}
    assert {"replay_id", "fingerprint_id", "variant", "candidates", "tried", "result", "lease_owner",
            "cancel_requested", "share_token", "created_by"} <= columns  # fmt: skip
    command.downgrade(config, previous)
    assert "fix_search" not in sa.inspect(engine).get_table_names()
    engine.dispose()
