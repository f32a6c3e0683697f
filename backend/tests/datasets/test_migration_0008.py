"""Migration 0008 on a database at 0007: the mariadb-11.8 lab target seeded beside the other two,
the dataset and replay_run tables made, share_link.replay_id added; its downgrade removes them."""

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from upgradelab.migrations import alembic_config


def test_0008_seeds_mariadb_118_and_makes_the_dataset_tables(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0007")
    engine = sa.create_engine(url)
    command.upgrade(config, "0008")
    with engine.connect() as connection:
        targets = connection.execute(
            sa.text("SELECT name, flavor, disposable FROM target ORDER BY name")
        ).all()
        settings = str(
            connection.execute(sa.text("SELECT settings FROM target WHERE name = 'mariadb-11.8'")).scalar()
        )
        tables = set(sa.inspect(connection).get_table_names())
    assert [tuple(t) for t in targets] == [
        ("mariadb-10.11", "mariadb", 1),
        ("mariadb-11.8", "mariadb", 1),
        ("mysql-9.7", "mysql", 1),
    ]
    assert '"root": "{lab_dir}/chroots/mariadb-11.8"' in settings and '"port": 33118' in settings
    assert {"dataset", "replay_run"} <= tables
    with engine.connect() as connection:
        share_columns = {c["name"] for c in sa.inspect(connection).get_columns("share_link")}
    assert "replay_id" in share_columns
    command.downgrade(config, "0007")
    with engine.connect() as connection:
        names = connection.execute(sa.text("SELECT name FROM target")).scalars().all()
        tables = set(sa.inspect(connection).get_table_names())
        share_columns = {c["name"] for c in sa.inspect(connection).get_columns("share_link")}
    assert "mariadb-11.8" not in names and not {"dataset", "replay_run"} & tables
    assert "replay_id" not in share_columns
