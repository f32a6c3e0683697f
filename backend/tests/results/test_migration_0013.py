"""Migration 0013 on a database made before it: variant_summary gains round_values (NULL for the rows
stored before, which the comparison then reads from the iterations), and loses it on downgrade."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.migrations import alembic_config


def _columns(engine: sa.Engine) -> set[str]:
    with engine.connect() as connection:
        return {c["name"] for c in sa.inspect(connection).get_columns("variant_summary")}


def test_0013_adds_round_values_to_variant_summary(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0012")
    engine = sa.create_engine(url)
    assert "round_values" not in _columns(engine)
    command.upgrade(config, "0013_round_values")
    assert "round_values" in _columns(engine)
    command.downgrade(config, "0012")
    assert "round_values" not in _columns(engine)
