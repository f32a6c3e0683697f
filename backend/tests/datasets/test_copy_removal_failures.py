"""A deleted dataset's copy whose removal fails is tried again, then reported failed (issue 44, item
7): a removal that failed twice ("Address already in use") was reported as done, and its slot's
record still named the deleted dataset. Here the instance's start is what fails (discard_copy
replaced: no server starts), so the test decides how many tries fail."""

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from redis import Redis
from sqlalchemy import delete, select

from tests import ports
from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session, utcnow
from upgradelab.measurement.dataset_records import DatasetRecord, read_record, write_record
from upgradelab.replay import dataset_copies
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import provisioner_for

SHA = "c0" * 32


@pytest.fixture
def deleted(database: None, redis_server: str) -> Iterator[tuple[int, Target]]:
    """A deleted dataset with one copy pending on a target of its own (never started here), whose
    slot 0 has a record naming the dump."""
    name = f"copies-t{ports.SESSION}"
    with sync_session() as session:
        lab = session.scalars(select(Target).where(Target.name == "mariadb-10.11")).one()
        settings = {**lab.settings.stored(), "port": ports.H3_TARGET + 8}
        target = Target(name=name, flavor="mariadb", provisioner="local", settings=settings)
        dataset = Dataset(
            name=f"gone-{uuid.uuid4().hex[:6]}", path="/nowhere", sha256=SHA, size_bytes=1,
            compression="none", deleted_at=utcnow(), copies_pending=[name],
        )  # fmt: skip
        session.add_all([target, dataset])
        session.commit()
        session.expunge(target)
        dataset_id = dataset.id
    write_record(provisioner_for(target, get_settings()), DatasetRecord(SHA, ["gone"], "t" * 32))
    yield dataset_id, target
    with sync_session() as session:
        session.execute(delete(Dataset).where(Dataset.id == dataset_id))
        session.execute(delete(Target).where(Target.name == name))
        session.commit()


def _remove(dataset_id: int, monkeypatch: pytest.MonkeyPatch, failing: int) -> list[int]:
    tries: list[int] = []

    def discard(provisioner: Any, options: list[str], sha256: str) -> bool:
        tries.append(provisioner.slot)
        if len(tries) <= failing:
            raise OSError("Address already in use")
        return True

    monkeypatch.setattr(dataset_copies, "discard_copy", discard)
    monkeypatch.setattr(dataset_copies, "COPY_RETRY_S", 0.01)
    redis = Redis.from_url(get_settings().redis_url)
    try:
        assert dataset_copies.remove_copies(dataset_id, redis, get_settings()) == []
    finally:
        redis.close()
    return tries


def test_a_copy_whose_removal_keeps_failing_is_reported_failed_with_its_record_kept(
    deleted: tuple[int, Target], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset_id, target = deleted
    tries = _remove(dataset_id, monkeypatch, failing=99)
    assert tries == [0] * dataset_copies.COPY_REMOVAL_TRIES
    with sync_session() as session:
        dataset = session.get_one(Dataset, dataset_id)
        assert dataset.copies_pending == []
        assert dataset.copies_failed == {target.name: ["slot 0: Address already in use"]}
    record = read_record(provisioner_for(target, get_settings()))
    assert record is not None and record.sha256 == SHA  # true: the datadir may still hold it


def test_a_removal_that_fails_twice_then_succeeds_forgets_the_slots_record(
    deleted: tuple[int, Target], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset_id, target = deleted
    assert _remove(dataset_id, monkeypatch, failing=2) == [0, 0, 0]
    with sync_session() as session:
        dataset = session.get_one(Dataset, dataset_id)
        assert dataset.copies_pending == [] and not dataset.copies_failed
    assert read_record(provisioner_for(target, get_settings())) is None
