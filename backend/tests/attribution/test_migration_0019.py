"""Migration 0019 adds the attribution table and takes it away again, from whatever revision it follows."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config

REVISION = "0019_attributions"


def test_attribution_table_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, REVISION)
    engine = sa.create_engine(url)
    columns = {c["name"] for c in sa.inspect(engine).get_columns("attribution")}
    assert {"run_id", "variant", "candidates", "steps", "result", "lease_owner", "share_token"} <= columns
    command.downgrade(config, previous)
    assert "attribution" not in sa.inspect(engine).get_table_names()
    engine.dispose()
