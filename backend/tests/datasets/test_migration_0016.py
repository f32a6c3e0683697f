"""Migration 0016 on a database at 0015 holding datasets, replay reports and their share links:
nothing is lost going up (every dataset live under its name, replay_run.dataset_id RESTRICT, names
unique among live datasets only) nor going back down (a deleted record renamed, CASCADE back)."""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.exc import IntegrityError

from upgradelab.migrations import alembic_config

DATASETS = [
    {"id": 1, "name": "shop", "sha256": "a" * 64, "loads": '{"mariadb-10.11": {"version": "10.11"}}'},
    {"id": 2, "name": "empty", "sha256": "b" * 64, "loads": "{}"},
]
REPLAYS = [(1, 1, '{"baseline": "mariadb-10.11"}'), (2, 1, None), (3, 2, '{"baseline": "mysql-9.7"}')]
SHARES = [(1, "token-one", 1), (2, "token-three", 3)]


def _fill(connection: sa.Connection) -> None:
    for row in DATASETS:
        connection.execute(
            sa.text(
                "INSERT INTO dataset (id, name, path, sha256, size_bytes, compression, loads, created_at) "
                "VALUES (:id, :name, :path, :sha256, 10, 'none', :loads, '2025-01-01')"
            ),
            {**row, "path": f"/x/{row['name']}.dump"},
        )
    for replay_id, dataset_id, report in REPLAYS:
        connection.execute(
            sa.text(
                "INSERT INTO replay_run (id, name, dataset_id, source_format, variants, repeats, sample, "
                "allow_writes, statements, skipped_writes, status, report, created_at, passes) VALUES "
                "(:id, 'r', :dataset, 'sql', '[]', 1, 1, 0, '[]', '[]', 'succeeded', :report, "
                "'2025-01-01', 1)"
            ),
            {"id": replay_id, "dataset": dataset_id, "report": report},
        )
    for share_id, token, replay_id in SHARES:
        connection.execute(
            sa.text(
                "INSERT INTO share_link (id, token, kind, replay_id, created_at) "
                "VALUES (:id, :token, 'replay', :replay, '2025-01-01')"
            ),
            {"id": share_id, "token": token, "replay": replay_id},
        )


def _rows(connection: sa.Connection) -> dict[str, Sequence[Any]]:
    return {
        "replays": connection.execute(
            sa.text("SELECT id, dataset_id, report FROM replay_run ORDER BY id")
        ).all(),
        "shares": connection.execute(
            sa.text("SELECT id, token, replay_id FROM share_link ORDER BY id")
        ).all(),
        "datasets": connection.execute(
            sa.text("SELECT id, name, sha256, loads FROM dataset ORDER BY id")
        ).all(),
    }


def _dataset_fk(connection: sa.Connection) -> str | None:
    keys = sa.inspect(connection).get_foreign_keys("replay_run")
    return next(k["options"].get("ondelete") for k in keys if k["constrained_columns"] == ["dataset_id"])


def test_0016_keeps_every_dataset_replay_and_share_link_up_and_down(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'before.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0015_run_digests")
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        _fill(connection)
        before = _rows(connection)
        assert _dataset_fk(connection) == "CASCADE"

    command.upgrade(config, "0016_dataset_records")
    with engine.begin() as connection:
        assert _rows(connection) == before
        live = connection.execute(sa.text("SELECT live_name, deleted_at FROM dataset ORDER BY id")).all()
        assert [tuple(r) for r in live] == [("shop", None), ("empty", None)]
        assert _dataset_fk(connection) == "RESTRICT"
        # delete "shop" the new way, then reuse its name: unique among live datasets only
        connection.execute(
            sa.text(
                "UPDATE dataset SET live_name = NULL, deleted_at = '2025-02-01', deleted_by = 'ann' "
                "WHERE id = 1"
            )
        )
        connection.execute(
            sa.text(
                "INSERT INTO dataset (id, name, live_name, path, sha256, size_bytes, compression, loads, "
                "created_at) VALUES (3, 'shop', 'shop', '/x/shop.dump', :sha, 10, 'none', '{}', '2025-03-01')"
            ),
            {"sha": "a" * 64},
        )
    with engine.begin() as connection, pytest.raises(IntegrityError):
        connection.execute(
            sa.text(
                "INSERT INTO dataset (id, name, live_name, path, sha256, size_bytes, compression, loads, "
                "created_at) VALUES (4, 'shop', 'shop', '/x/shop.dump', 'c', 1, 'none', '{}', '2025-03-02')"
            )
        )

    command.downgrade(config, "0015_run_digests")
    with engine.begin() as connection:
        after = _rows(connection)
        assert after["replays"] == before["replays"] and after["shares"] == before["shares"]
        names = [tuple(r[:2]) for r in after["datasets"]]
        assert names == [(1, "shop-deleted-1"), (2, "empty"), (3, "shop")]  # the record kept, renamed
        assert _dataset_fk(connection) == "CASCADE"
        columns = {c["name"] for c in sa.inspect(connection).get_columns("dataset")}
        assert not {"live_name", "deleted_at", "deleted_by", "copies_pending"} & columns
    with engine.begin() as connection, pytest.raises(IntegrityError):  # `name` is unique again
        connection.execute(
            sa.text(
                "INSERT INTO dataset (name, path, sha256, size_bytes, compression, loads, created_at) "
                "VALUES ('shop', '/x', 'c', 1, 'none', '{}', '2025-03-02')"
            )
        )
