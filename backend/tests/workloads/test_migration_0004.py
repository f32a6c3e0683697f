"""Migration 0004 on a database made before it: lab targets disposable, old parameters cleared."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.migrations import alembic_config


def test_0004_marks_lab_targets_disposable_and_clears_old_insert_truncate_parameters(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0002")
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO experiment (name, workload, parameters, variants, iterations, created_at) "
                "VALUES ('old', 'insert-truncate', '{\"iterations\": 5}', '[]', 5, '2026-01-01')"
            )
        )
    command.upgrade(config, "0004")
    with engine.connect() as connection:
        targets = connection.execute(sa.text("SELECT name, disposable FROM target ORDER BY name")).all()
        experiment = connection.execute(sa.text("SELECT parameters, policy FROM experiment")).one()
        columns = {c["name"] for c in sa.inspect(connection).get_columns("sample")}
    assert targets == [("mariadb-10.11", 1), ("mysql-9.7", 1)]
    assert tuple(experiment) == ("{}", "warm")
    assert {"label", "metrics"} <= columns
    command.downgrade(config, "0002")
