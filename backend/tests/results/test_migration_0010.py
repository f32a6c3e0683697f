"""Migration 0010 on a database made before it: the old per-variant summary rows are dropped (they
were a within-block bootstrap), the table takes one row per variant, group and metric."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.migrations import alembic_config


def test_0010_drops_old_summaries_and_reshapes_variant_summary(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0009")
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO experiment (id, name, workload, parameters, variants, iterations, created_at) "
                "VALUES (1, 'old', 'insert-truncate', '{}', '[]', 5, '2026-01-01')"
            )
        )
        connection.execute(
            sa.text(
                "INSERT INTO run (id, experiment_id, status, cancel_requested, created_at) "
                "VALUES (1, 1, 'succeeded', 0, '2026-01-01')"
            )
        )
        connection.execute(
            sa.text(
                "INSERT INTO variant_summary (run_id, variant_index, variant, iterations, total_s, "
                "median_ratio, computed_at) VALUES (1, 0, 'v', 5, 1.0, 2.29, '2026-01-01')"
            )
        )
    command.upgrade(config, "0010")
    with engine.connect() as connection:
        assert connection.execute(sa.text("SELECT COUNT(*) FROM variant_summary")).scalar() == 0
        columns = {c["name"] for c in sa.inspect(connection).get_columns("variant_summary")}
    assert {"group_name", "metric", "ratio_low", "verdict", "mde", "aa_low", "rounds"} <= columns
    assert "median_ratio" not in columns
    command.downgrade(config, "0009")
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("variant_summary")}
    assert "median_ratio" in columns and "verdict" not in columns
