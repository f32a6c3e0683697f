"""Pool API shapes (GET /api/pools, GET /api/pools/jobs/{kind}/{job_id})."""

from datetime import datetime

from pydantic import BaseModel, Field


class WorkerRead(BaseModel):
    """One live worker, as its last heartbeat told (pools/heartbeat.py)."""

    name: str = Field(description="Celery's node name, e.g. celery@bench-2.")
    pool: str
    queues: list[str] = Field(
        description="The Celery queues it consumes for its pool (jobs routed to the pool)."
    )
    direct_queue: str | None = Field(
        default=None,
        description="Its own queue (Celery's worker_direct '<name>.dq2'), which it consumes too: the "
        "shards of a sharded replay are sent to the worker that runs them there (replay/sharding.py); "
        "None: it told none.",
    )
    host: str
    pid: int
    version: str = Field(description="Upgrade Lab's version on that worker.")
    python: str
    cpus: int
    memory_mb: int = Field(description="MemTotal of its host, MiB.")
    started_at: datetime
    seen_at: datetime = Field(description="Its last heartbeat; a worker silent for 15 s is not listed.")


class WaitingJob(BaseModel):
    """A queued job (of any kind) waiting in a pool's queue."""

    kind: str = Field(description="Its job kind's name (job_kinds.py: run, replay, capture, ...).")
    id: int


class PoolRead(BaseModel):
    """A pool: its live workers, the messages in its Celery queue and the jobs waiting in it."""

    name: str
    queue: str = Field(description="Its Celery queue (the default pool keeps the queue 'upgradelab').")
    workers: list[WorkerRead]
    queue_depth: int = Field(description="Messages in its Celery queue not yet taken by a worker.")
    waiting: list[WaitingJob] = Field(description="Queued jobs routed to it, oldest first.")
    targets: list[str] = Field(description="Targets it may run.")


class JobPool(BaseModel):
    """Where a queued job waits: its pool, how many live workers that pool has and, when it has
    none, the message the run page and the CLI show."""

    kind: str
    id: int
    pool: str
    live_workers: int
    message: str | None = Field(description='"queued for pool X: no live worker", or null.')
