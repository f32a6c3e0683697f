"""A user's cancel of any job (a run, a replay, an attribution), on the API side: one function, so
every kind answers the same for the same state.

    queued        -> cancelled at once, in one conditional UPDATE (status = queued in its WHERE: a
                     worker's claim and this cancel cannot both win); its `published` hook told
    started       -> `cancel_requested` set; the worker holding its lease ends it (its cancel watch,
                     execution/cancel.py) within seconds; a started job whose lease expired (worker
                     gone) is ended at once through the reaper's path (reaper.end_abandoned)
    final         -> 409 naming its final status: nothing was changed (`AlreadyEnded`)

Every write is conditional on the job not being final, so a cancel racing the job's own end never
overwrites a final status (the worker's `leases.finish` is conditional on its lease the same way).
"""

from typing import Any

from anyio import to_thread
from fastapi import HTTPException, status
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.errors import not_found
from upgradelab.execution import reaper
from upgradelab.execution.kinds import Ending, JobKind
from upgradelab.execution.status import FINAL_STATUSES, JobStatus


class AlreadyEnded(HTTPException):
    """409: the job is final (its status in the message); a caller cancelling on behalf of another
    job (an attribution's step run) may catch it."""

    def __init__(self, what: str, final: str) -> None:
        super().__init__(status.HTTP_409_CONFLICT, f"{what} already ended ({final})")


async def request_cancel(session: AsyncSession, kind: JobKind, job_id: int) -> str:
    """Cancel job `job_id` of `kind` (module docstring); the status it has after the request:
    `cancelled` (ended now) or its started status (its worker ends it). 404 when there is no such job,
    409 (AlreadyEnded) when it is final. Commits."""
    model: Any = kind.lease.model
    what = f"{kind.name} {job_id}"
    current = await session.scalar(select(model.status).where(model.id == job_id))
    if current is None:
        raise not_found(kind.name, job_id)
    if current in FINAL_STATUSES:
        raise AlreadyEnded(what, current)
    fields = kind.final_fields(Ending(JobStatus.cancelled))
    queued = await session.execute(
        update(model)
        .where(model.id == job_id, model.status == kind.lease.queued)
        .values(cancel_requested=True, **fields)
    )
    if queued.rowcount:  # type: ignore[attr-defined]
        await session.commit()
        await to_thread.run_sync(kind.publish_end, job_id, fields)
        return JobStatus.cancelled
    flagged = await session.execute(
        update(model)
        .where(model.id == job_id, model.status.not_in(tuple(FINAL_STATUSES)))
        .values(cancel_requested=True)
    )
    await session.commit()
    if not flagged.rowcount:  # type: ignore[attr-defined]  # it ended between the read and the write
        final = await session.scalar(select(model.status).where(model.id == job_id))
        raise AlreadyEnded(what, str(final))
    if await to_thread.run_sync(reaper.end_abandoned, kind, job_id, JobStatus.cancelled, None):
        return JobStatus.cancelled
    return str(await session.scalar(select(model.status).where(model.id == job_id)))
