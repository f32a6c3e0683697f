"""Migration 0030 adds a check's schema trial (capture_check.load_findings, parse_findings and
schema_load: None on every check made before, which still reads) as the model declares them, and
takes them away again."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.captures.models import CaptureCheck
from upgradelab.captures.schemas import CheckRead
from upgradelab.migrations import alembic_config

REVISION = "0030_check_schema_load"
ADDED = {"load_findings", "parse_findings", "schema_load"}


def test_the_schema_trial_columns_up_as_the_model_declares_them_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, REVISION)
    engine = sa.create_engine(url)
    columns = {c["name"]: c["nullable"] for c in sa.inspect(engine).get_columns("capture_check")}
    declared = {c.name: c.nullable for c in CaptureCheck.__table__.columns}
    assert (
        {name: columns[name] for name in ADDED}
        == {name: declared[name] for name in ADDED}
        == {name: True for name in ADDED}
    )
    command.downgrade(config, previous)
    assert not ADDED & {c["name"] for c in sa.inspect(engine).get_columns("capture_check")}
    engine.dispose()


def test_a_check_stored_before_the_trial_still_reads_with_none_of_it() -> None:
    stored = {
        "id": 1, "capture_id": 1, "target": "mysql-9.7", "status": "succeeded", "error": None,
        "server": "mysqld 9.7.4", "findings": [], "account_findings": [], "identifier_findings": [],
        "sql_mode_findings": [], "charset_findings": [], "default_findings": [],
        "created_at": "2026-11-01T00:00:00", "started_at": None, "finished_at": None,
    }  # fmt: skip
    read = CheckRead.model_validate(stored)
    assert (read.load_findings, read.parse_findings, read.schema_load, read.ordered) == (None, None, None, [])
