"""Issue 24: deleting a dataset removes its dump and its loaded copies on the targets and keeps every
replay report measured on it, with its share links and exports; the dataset stays as a record and
its name can be used again. Real API, worker, Redis and MariaDB 10.11."""

import hashlib
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis import Redis
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from tests.conftest import ADMIN_USER, STATE
from tests.datasets.conftest import delete_dataset
from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session
from upgradelab.execution.locks import TargetLocks
from upgradelab.replay.models import ReplayRun
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner, provisioner_for

TARGET = "mariadb-10.11"
NAME = "outlived"  # default database `outlived`
DUMP = b"CREATE TABLE kept (id INT PRIMARY KEY, v INT);\nINSERT INTO kept VALUES (1, 10), (2, 20), (3, 30);\n"
SHA256 = hashlib.sha256(DUMP).hexdigest()
REPLAY = {
    "dataset": NAME,
    "queries": "SELECT SUM(v) FROM kept;\nSELECT COUNT(*) FROM kept WHERE v > 15;\n",
    "variants": [TARGET],
    "rounds": 1,
    "passes": 1,
}


def _until(what: str, check: Any, timeout_s: float = 300) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise TimeoutError(what)


def _record(client: httpx.Client, dataset_id: int) -> dict[str, Any]:
    records = client.get("/api/datasets", params={"deleted": True}).json()
    return next(r for r in records if r["id"] == dataset_id)


def _slot_zero() -> LocalProvisioner:
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == TARGET)).one()
    provisioner = provisioner_for(target)
    assert isinstance(provisioner, LocalProvisioner)
    return provisioner


@pytest.fixture
def replayed(client: httpx.Client) -> Iterator[dict[str, Any]]:
    """The dataset uploaded and replayed once on slot 0 of mariadb-10.11 (report stored)."""
    assert client.put(f"/api/datasets/{NAME}", content=DUMP).status_code == 201
    created = client.post("/api/replays", json=REPLAY)
    assert created.status_code == 201, created.text

    def ended() -> dict[str, Any] | None:
        replay: dict[str, Any] = client.get(f"/api/replays/{created.json()['id']}").json()
        return replay if replay["status"] in ("succeeded", "failed") else None

    replay = _until("the replay ended", ended)
    assert replay["status"] == "succeeded", replay["error"]
    yield replay
    delete_dataset(client, NAME)  # the live one the test made again (or left half-way)


def test_a_shared_replay_outlives_its_dataset_whose_copies_go_once_the_target_is_free(
    client: httpx.Client, api: str, replayed: dict[str, Any]
) -> None:
    replay_id = replayed["id"]
    link = client.post("/api/shares", json={"kind": "replay", "replay_id": replay_id}).json()
    provisioner = _slot_zero()
    datadir = provisioner.root / provisioner.inner_dir.lstrip("/") / "data"
    assert (datadir / NAME).is_dir() and (datadir / "upgradelab_meta").is_dir()  # the kept copy
    preview = client.get(f"/api/datasets/{NAME}").json()
    assert preview["replay_count"] == 1 and preview["deleted_at"] is None

    redis = Redis.from_url(get_settings().redis_url)
    busy = TargetLocks(redis, [TARGET], 90, 999_999)  # a run holds the target
    assert busy.acquire()
    log_before = (STATE / "worker.log").read_text()
    try:
        deleted = client.delete(f"/api/datasets/{NAME}")
        assert deleted.status_code == 200, deleted.text
        record = deleted.json()
        assert record["deleted_by"] == ADMIN_USER and record["deleted_at"] is not None
        assert record["copies_pending"] == [TARGET] and record["replay_count"] == 1
        assert not (STATE / "datasets" / f"{NAME}.dump").exists()  # the dump went at once
        # the clean-up found the target busy and will retry; meanwhile nothing ran on it
        _until(
            "the clean-up retried",
            lambda: (
                "upgradelab.datasets.remove_copies" in (STATE / "worker.log").read_text()[len(log_before) :]
                and "retry" in (STATE / "worker.log").read_text()[len(log_before) :]
            ),
            timeout_s=30,
        )
        assert _record(client, record["id"])["copies_pending"] == [TARGET]
        assert (datadir / NAME).is_dir() and provisioner.pid() is None
    finally:
        busy.release()
        redis.close()
    _until("the copies were removed", lambda: _record(client, record["id"])["copies_pending"] == [], 120)
    assert not (datadir / NAME).exists() and not (datadir / "upgradelab_meta").exists()
    assert (datadir / "mysql").is_dir() and provisioner.pid() is None  # a template copy, stopped

    # the report, its share link and its exports outlive the dataset
    report = client.get(f"/api/replays/{replay_id}").json()
    assert report["report"] == replayed["report"] and report["dataset"] == NAME
    assert report["dataset_sha256"] == SHA256 and report["dataset_deleted_at"] is not None
    assert replay_id in [r["id"] for r in client.get("/api/replays").json()]
    shared = httpx.get(f"{api}/api/public/shares/{link['token']}")
    assert shared.status_code == 200 and shared.json()["replay"]["report"] == replayed["report"]
    again = client.post("/api/shares", json={"kind": "replay", "replay_id": replay_id})
    assert again.status_code == 201
    for fmt in ("csv", "json"):
        export = client.get(f"/api/replays/{replay_id}/export", params={"format": fmt})
        assert export.status_code == 200 and export.content
    # a new replay on it says the dataset is gone and how to upload it again
    gone = client.post("/api/replays", json=REPLAY)
    assert gone.status_code == 410
    assert "was deleted" in gone.text and "upload the dump again" in gone.text and SHA256 in gone.text

    # the record: what the report ran on
    kept = _record(client, record["id"])
    assert (kept["name"], kept["sha256"], kept["size_bytes"]) == (NAME, SHA256, len(DUMP))
    assert [(t["name"], t["rows"]) for t in kept["loads"][TARGET]["tables"]] == [("kept", 3)]
    assert NAME not in [d["name"] for d in client.get("/api/datasets").json()]
    # the name is free again; the sha256 tells it is the same dump
    reused = client.put(f"/api/datasets/{NAME}", content=DUMP)
    assert reused.status_code == 201 and reused.json()["sha256"] == kept["sha256"]
    assert reused.json()["id"] != kept["id"] and reused.json()["replay_count"] == 0


def test_a_dataset_with_a_replay_not_ended_is_not_deleted(client: httpx.Client) -> None:
    assert client.put("/api/datasets/busy-dataset", content=DUMP).status_code == 201
    with sync_session() as session:
        dataset = session.scalars(select(Dataset).where(Dataset.live_name == "busy-dataset")).one()
        variants = [{"name": "gone-target", "target": "gone-target", "preset": "default", "options": []}]
        replay = ReplayRun(
            name="queued", dataset_id=dataset.id, source_format="sql", variants=variants, repeats=1,
            sample=1, statements=[], skipped_writes=[], status="queued",
        )  # fmt: skip
        session.add(replay)
        session.commit()
        replay_id = replay.id
    try:
        refused = client.delete("/api/datasets/busy-dataset")
        assert refused.status_code == 409 and f"replays {replay_id} on dataset" in refused.text
        with sync_session() as session:
            session.get_one(ReplayRun, replay_id).status = "failed"
            session.commit()
        deleted = client.delete("/api/datasets/busy-dataset")
        assert deleted.status_code == 200 and deleted.json()["replay_count"] == 1
        # a target that no longer exists holds no copy: nothing stays pending
        _until("nothing pending", lambda: _record(client, deleted.json()["id"])["copies_pending"] == [], 60)
        assert client.delete("/api/datasets/busy-dataset").status_code == 410
        assert client.delete("/api/datasets/never-was").status_code == 404
    finally:
        with sync_session() as session:  # the replay row outlives the dataset: still there
            assert session.get(ReplayRun, replay_id) is not None


def test_a_row_delete_of_a_dataset_with_reports_fails_instead_of_cascading(client: httpx.Client) -> None:
    """The database itself keeps reports: replay_run.dataset_id is ON DELETE RESTRICT."""
    assert client.put("/api/datasets/restricted", content=DUMP).status_code == 201
    with sync_session() as session:
        dataset = session.scalars(select(Dataset).where(Dataset.live_name == "restricted")).one()
        replay = ReplayRun(
            name="kept", dataset_id=dataset.id, source_format="sql", variants=[], repeats=1,
            sample=1, statements=[], skipped_writes=[], status="failed",
        )  # fmt: skip
        session.add(replay)
        session.commit()
        replay_id = replay.id
    with sync_session() as session, pytest.raises(IntegrityError):
        session.execute(delete(Dataset).where(Dataset.id == dataset.id))
        session.commit()
    with sync_session() as session:
        assert session.get(ReplayRun, replay_id) is not None
    assert client.delete("/api/datasets/restricted").status_code == 200
    assert not (STATE / "datasets" / "restricted.dump").exists()
