"""A job queued under an id SQLite reused (the highest id deleted, the next row given it) starts with
an empty stream: the deleted job's events (kept STREAM_TTL_S after its end) are not read as its own
(CI: a lease test's reaped replay, deleted, left its final status first in the next replay's stream)."""

from typing import Any

import pytest
from redis import Redis

from upgradelab.execution import task
from upgradelab.replay.jobs import REPLAY_JOBS
from upgradelab.streaming.keys import stream_key
from upgradelab.streaming.publisher import publish_status
from upgradelab.worker import celery_app


def test_queueing_a_job_clears_the_stream_a_deleted_job_of_its_id_left(
    redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    job_id = 987_654_321
    key = stream_key(job_id, REPLAY_JOBS.name)
    publish_status(job_id, {"status": "failed", "error": "lease expired"}, final=True, kind="replay")
    redis = Redis.from_url(redis_server)
    assert redis.xlen(key) == 1  # the deleted job's final status
    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr(celery_app, "send_task", lambda *a, **k: sent.append((a, k)))
    task.send_job(REPLAY_JOBS, job_id, "upgradelab")
    assert not redis.exists(key)
    assert sent == [((REPLAY_JOBS.task_name,), {"args": [job_id], "queue": "upgradelab"})]
