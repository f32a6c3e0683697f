"""Migration 0036 adds the assessment table (its request, children, report and the columns every job
kind has) and takes it away again."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config

REVISION = "0036_assessment"


def test_assessment_table_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, previous)
    engine = sa.create_engine(url)
    assert "assessment" not in sa.inspect(engine).get_table_names()
    command.upgrade(config, REVISION)
    columns = {c["name"]: c for c in sa.inspect(engine).get_columns("assessment")}
    for name in ("status", "cancel_requested", "lease_owner", "lease_expires_at", "progress", "created_by"):
        assert name in columns, name
    assert not columns["children"]["nullable"] and columns["report"]["nullable"]
    assert {"ix_assessment_status"} <= {i["name"] for i in sa.inspect(engine).get_indexes("assessment")}
    command.downgrade(config, previous)
    assert "assessment" not in sa.inspect(engine).get_table_names()
    engine.dispose()
