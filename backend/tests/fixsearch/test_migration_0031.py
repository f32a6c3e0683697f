"""Migration 0031 adds the fix search's budget_scaled flag (existing rows: false, they were given a
budget) and takes the column away again."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config

REVISION = "0031_fix_budget"


def test_budget_scaled_column_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, previous)
    engine = sa.create_engine(url)
    assert "budget_scaled" not in {c["name"] for c in sa.inspect(engine).get_columns("fix_search")}
    command.upgrade(config, REVISION)
    columns = {c["name"]: c for c in sa.inspect(engine).get_columns("fix_search")}
    assert not columns["budget_scaled"]["nullable"]
    assert str(columns["budget_scaled"]["default"]).strip("'") in ("0", "false")
    command.downgrade(config, previous)
    assert "budget_scaled" not in {c["name"] for c in sa.inspect(engine).get_columns("fix_search")}
    engine.dispose()
