"""Celery task: a sharded replay's shard (replay/jobs.py REPLAY_SHARD_JOBS, shard_runner.py), the one
generic task of execution/task.py for a kind that is not among job_kinds.JOB_KINDS (it has no API
routes of its own: its replay's are its)."""

from upgradelab.execution.task import job_task
from upgradelab.replay.jobs import REPLAY_SHARD_JOBS

execute_shard = job_task(REPLAY_SHARD_JOBS)
