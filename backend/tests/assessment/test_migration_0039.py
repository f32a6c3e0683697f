"""Migration 0039 adds assessment.fix_tolerance (an assessment stored before it searched with the
fix search's default, 0.10) and takes it away again."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from upgradelab.migrations import alembic_config

REVISION = "0039_assessment_fix_tolerance"


def test_fix_tolerance_up_with_the_fix_searchs_default_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'meta.db'}"
    config = alembic_config(url)
    previous = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(previous, str)
    command.upgrade(config, previous)
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO assessment (versions, budget_min, status, cancel_requested, children, "
                "created_at) VALUES ('[]', 60, 'succeeded', 0, '{}', '2026-12-06 09:00:00')"
            )
        )
    command.upgrade(config, REVISION)
    with engine.connect() as connection:
        assert connection.execute(sa.text("SELECT fix_tolerance FROM assessment")).scalar_one() == 0.1
    command.downgrade(config, previous)
    assert "fix_tolerance" not in {c["name"] for c in sa.inspect(engine).get_columns("assessment")}
    engine.dispose()
