"""The replay tests use the datasets tests' shop dump; `new_replay` makes bare replay rows (leases)."""

from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import select

from tests.datasets.conftest import shop_dump
from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session
from upgradelab.replay.models import ReplayRun

__all__ = ["shop_dump"]


@pytest.fixture
def new_replay(database: None, redis_server: str) -> Iterator[Callable[[str], int]]:
    """A queued replay on `target` (a made-up dataset row); its id. Rows removed afterwards."""
    made: list[int] = []

    def make(target: str) -> int:
        with sync_session() as session:
            dataset = session.scalar(select(Dataset).where(Dataset.name == "lease-h8"))
            if dataset is None:
                dataset = Dataset(
                    name="lease-h8", path="/nonexistent", sha256="0", size_bytes=0, compression="none"
                )
                session.add(dataset)
                session.flush()
            variants = [{"name": target, "target": target, "preset": "default", "options": []}]
            replay = ReplayRun(
                name="lease", dataset_id=dataset.id, source_format="sql", variants=variants, repeats=1,
                sample=1, statements=[], skipped_writes=[],
            )  # fmt: skip
            session.add(replay)
            session.commit()
            made.append(replay.id)
            return replay.id

    yield make
    with sync_session() as session:
        for replay_id in made:
            session.delete(session.get(ReplayRun, replay_id))
        dataset = session.scalar(select(Dataset).where(Dataset.name == "lease-h8"))
        if dataset is not None:
            session.delete(dataset)
        session.commit()
