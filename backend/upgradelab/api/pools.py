"""/api/pools: the worker pools, their live workers, queue depth and the jobs waiting in each."""

from typing import Annotated

from anyio import to_thread
from fastapi import APIRouter, HTTPException, Path, status
from redis.asyncio import Redis
from sqlalchemy import select

from upgradelab.db import SessionDep, sync_session
from upgradelab.job_kinds import JOB_KINDS, kind_named
from upgradelab.pools import status as pool_status
from upgradelab.pools.schemas import JobPool, PoolRead, WaitingJob
from upgradelab.settings import get_settings
from upgradelab.targets import service as targets
from upgradelab.targets.models import Target

router = APIRouter(prefix="/api/pools", tags=["pools"])


def _queued() -> list[tuple[WaitingJob, list[Target]]]:
    """Every queued job of every kind (job_kinds.py), oldest first, with its targets."""
    out = []
    for kind in JOB_KINDS:
        table = kind.lease.model
        with sync_session() as session:
            ids = session.scalars(
                select(table.id).where(table.status == kind.lease.queued).order_by(table.id)
            )
            queued = list(ids)
        out += [(WaitingJob(kind=kind.name, id=job_id), kind.targets_of(job_id)) for job_id in queued]
    return out


def _redis() -> Redis:
    return Redis.from_url(
        get_settings().redis_url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5
    )


@router.get("", response_model=list[PoolRead])
async def list_pools(session: SessionDep) -> list[PoolRead]:
    """Every pool a target, a live worker or the API's own UPGRADELAB_POOL names, by name: its Celery
    queue and depth (messages no worker took yet), live workers (heartbeat within 15 s: node, host,
    pid, version, Python, CPUs, MemTotal MiB, started/seen times), the targets it may run and the
    queued jobs of every kind routed to it (pools/routing.py), oldest first."""
    waiting = [(job, pool_status.waiting_pool(on)) for job, on in await to_thread.run_sync(_queued)]
    redis = _redis()
    try:
        return await pool_status.pools(
            redis, await targets.list_targets(session), waiting, get_settings().pool
        )
    finally:
        await redis.aclose()


@router.get("/jobs/{kind}/{job_id}", response_model=JobPool)
async def job_pool(
    kind: Annotated[str, Path(description="A job kind's name (job_kinds.py): run, replay, attribution, ...")],
    job_id: int,
) -> JobPool:
    """Where a job of any registered kind (job_kinds.py: run, replay, attribution, capture,
    capture_check, fixsearch) waits: its pool, that pool's live workers and, with none, the message
    "queued for pool X: no live worker" (the run page and the CLI show it). 422 naming `kind` for a
    name no kind has, 404 for an unknown job."""
    known = kind_named(kind)
    if known is None:
        names = ", ".join(k.name for k in JOB_KINDS)
        detail = f"kind: no job kind {kind!r} (one of {names})"
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_ENTITY, detail)

    def find() -> list[Target] | None:
        with sync_session() as session:
            if session.get(known.lease.model, job_id) is None:
                return None
        return known.targets_of(job_id)

    on = await to_thread.run_sync(find)
    if on is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no {kind} {job_id}")
    redis = _redis()
    try:
        return await pool_status.job_pool(redis, WaitingJob(kind=kind, id=job_id), on)
    finally:
        await redis.aclose()
