"""Migration 0028 adds the fix search's candidate sources (existing rows read all four there were then)
and takes the column away again."""

import json
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.fixsearch.candidates import SOURCES
from upgradelab.migrations import alembic_config

REVISION = "0028_fix_sources"


def test_candidate_sources_column_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, REVISION)
    engine = sa.create_engine(url)
    columns = {c["name"]: c for c in sa.inspect(engine).get_columns("fix_search")}
    # the four sources there were then (later ones, issue 46's view and index, are new searches' only)
    assert json.loads(str(columns["sources"]["default"]).strip("'")) == [
        "plan",
        "differs",
        "lever",
        "statistics",
    ]
    assert set(SOURCES) >= {"plan", "differs", "lever", "statistics"}
    command.downgrade(config, previous)
    assert "sources" not in {c["name"] for c in sa.inspect(engine).get_columns("fix_search")}
    engine.dispose()
