"""A dataset's stored JSON read typed (db.ModelJSON, issue 48): `loads` as the worker wrote them
(DatasetLoad's JSON per target), and a deleted dataset's `copies_pending` / `copies_failed`, read back
as their types; a shape the model refuses fails naming the field."""

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError
from sqlalchemy import text
from sqlalchemy.exc import StatementError

from tests.stored_json import write_raw
from upgradelab.datasets.models import Dataset
from upgradelab.datasets.schemas import DatasetLoad
from upgradelab.db import sync_session

# as replay/runner.py _record_load stored it through datasets.service.record_load (model_dump(mode="json"))
OLD_LOAD = {
    "version": "10.11.9-MariaDB", "loaded_at": "2026-11-30T10:00:00", "reused": False, "elapsed_s": 1.25,
    "rows_seen": 3, "tables": [{"schema": "shop", "name": "orders", "rows": 3, "bytes": 16384}],
}  # fmt: skip


@pytest.fixture
def old_dataset(database: None) -> Iterator[int]:
    """A deleted dataset whose JSON columns hold what the code before wrote."""
    with sync_session() as session:
        row = Dataset(name="old-json", path="/nonexistent", sha256="0", size_bytes=0, compression="none")
        session.add(row)
        session.commit()
        dataset_id = row.id
    write_raw(
        "dataset",
        dataset_id,
        loads={"mariadb-10.11": OLD_LOAD, "mysql-9.7": {**OLD_LOAD, "reused": True, "elapsed_s": None}},
        copies_pending=["mysql-9.7"],
        copies_failed={"mariadb-10.11": ["slot 0: permission denied"]},
    )
    yield dataset_id
    with sync_session() as session:
        session.delete(session.get_one(Dataset, dataset_id))
        session.commit()


def test_a_datasets_loads_and_copies_read_back_typed(old_dataset: int) -> None:
    with sync_session() as session:
        row = session.get_one(Dataset, old_dataset)
        load = row.loads["mariadb-10.11"]
        assert isinstance(load, DatasetLoad) and load.tables[0].rows == 3
        assert load.loaded_at == datetime(2026, 11, 30, 10, 0) and load.elapsed_s == 1.25
        assert row.loads["mysql-9.7"].reused and row.loads["mysql-9.7"].elapsed_s is None
        assert row.copies_pending == ["mysql-9.7"]
        assert row.copies_failed == {"mariadb-10.11": ["slot 0: permission denied"]}


def test_a_load_is_stored_as_its_json_and_a_broken_one_is_refused_naming_the_field(old_dataset: int) -> None:
    with sync_session() as session:
        row = session.get_one(Dataset, old_dataset)
        fresh = DatasetLoad.model_validate({**OLD_LOAD, "loaded_at": datetime(2026, 12, 1, tzinfo=UTC)})
        row.loads = {**row.loads, "mariadb-11.8": fresh}
        session.commit()
        query = text("SELECT loads FROM dataset WHERE id = :id")
        stored = session.execute(query, {"id": old_dataset}).scalar_one()
        assert json.loads(stored)["mariadb-10.11"] == OLD_LOAD  # what was there keeps its JSON
        row.loads = {"mariadb-11.8": {**OLD_LOAD, "tables": [{"schema": "shop"}]}}  # type: ignore[dict-item]
        with pytest.raises(StatementError, match=r"mariadb-11\.8`\.tables\.0\.name") as refused:
            session.commit()
        assert isinstance(refused.value.orig, ValidationError)
