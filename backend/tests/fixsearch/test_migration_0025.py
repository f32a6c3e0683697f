"""Migration 0025 adds the fix search's global-remedy columns (existing rows read scope "statement")
and takes them away again."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config

REVISION = "0025_fix_global"
NEW = {"scope", "side_rounds", "side_minutes"}


def test_global_remedy_columns_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, REVISION)
    engine = sa.create_engine(url)
    columns = {c["name"]: c for c in sa.inspect(engine).get_columns("fix_search")}
    assert set(columns) >= NEW
    assert "statement" in str(columns["scope"]["default"])
    command.downgrade(config, previous)
    assert not NEW & {c["name"] for c in sa.inspect(engine).get_columns("fix_search")}
    engine.dispose()
