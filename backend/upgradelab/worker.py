"""The Celery app (Redis broker). Start a worker with `celery -A upgradelab.worker worker`."""

from celery import Celery

from upgradelab.settings import get_settings

celery_app = Celery(
    "upgradelab",
    broker=get_settings().redis_url,
    include=["upgradelab.runs.tasks", "upgradelab.replay.tasks"],
)
celery_app.conf.update(
    task_ignore_result=True,
    task_acks_late=True,  # a run whose worker died is redelivered; the runner skips runs no longer queued
    worker_prefetch_multiplier=1,
    broker_connection_retry_on_startup=True,
    task_default_queue="upgradelab",
)

EXECUTE_RUN = "upgradelab.runs.execute"
EXECUTE_REPLAY = "upgradelab.replay.execute"
