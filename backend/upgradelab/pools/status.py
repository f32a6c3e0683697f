"""What the pools look like now: live workers (their heartbeat keys, pools/heartbeat.py), each
queue's depth (the Celery Redis transport's lists) and which pool a queued job waits in."""

from collections.abc import Iterable, Sequence

from redis.asyncio import Redis

from upgradelab.pools.heartbeat import KEY_PREFIX, workers_of
from upgradelab.pools.routing import PoolsSpan, pool_of, pools_of
from upgradelab.pools.schemas import JobPool, PoolRead, WaitingJob, WorkerRead
from upgradelab.targets.models import Target
from upgradelab.worker import queue_of

# kombu's Redis transport keeps a queue's messages of priority p > 0 in `<queue>\x06\x16<p>`
_PRIORITY_SUFFIXES = ["", *(f"\x06\x16{p}" for p in (3, 6, 9))]


async def live_workers(redis: Redis) -> list[WorkerRead]:
    """Every worker whose heartbeat key has not expired, by pool then name."""
    told = [await redis.get(key) async for key in redis.scan_iter(match=f"{KEY_PREFIX}*", count=500)]
    return workers_of(told)


async def queue_depth(redis: Redis, queue: str) -> int:
    """Messages waiting in Celery queue `queue` (every priority), not yet taken by a worker."""
    depth = 0
    for suffix in _PRIORITY_SUFFIXES:
        depth += int(await redis.llen(queue + suffix))
    return depth


def waiting_pool(targets: Sequence[Target]) -> str | None:
    """The pool a queued job on `targets` waits in (pools/routing.pool_of), None if they span pools."""
    try:
        return pool_of(targets)
    except PoolsSpan:
        return None


async def pools(
    redis: Redis, targets: Sequence[Target], waiting: Iterable[tuple[WaitingJob, str | None]], own: str
) -> list[PoolRead]:
    """Every pool a target, a live worker or this process (`own`) names, with its workers, queue
    depth, targets and the `waiting` jobs (job, pool) routed to it; by name."""
    workers = await live_workers(redis)
    names = {own, *(w.pool for w in workers), *(p for t in targets for p in pools_of(t))}
    jobs = list(waiting)
    out = []
    for name in sorted(names):
        queue = queue_of(name)
        out.append(
            PoolRead(
                name=name,
                queue=queue,
                workers=[w for w in workers if w.pool == name],
                queue_depth=await queue_depth(redis, queue),
                waiting=[job for job, pool in jobs if pool == name],
                targets=sorted(t.name for t in targets if name in pools_of(t)),
            )
        )
    return out


async def job_pool(redis: Redis, job: WaitingJob, targets: Sequence[Target]) -> JobPool:
    """Where the queued `job` on `targets` waits and, when its pool has no live worker, the message
    saying so ("queued for pool X: no live worker")."""
    pool = waiting_pool(targets) or "?"
    live = sum(worker.pool == pool for worker in await live_workers(redis))
    message = None if live else f"queued for pool {pool}: no live worker"
    return JobPool(kind=job.kind, id=job.id, pool=pool, live_workers=live, message=message)
