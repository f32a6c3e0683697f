"""Capture verbs: create (queued to its target's pool), get_or_raise, list, cancel, query_set."""

from anyio import to_thread
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.captures.digests import Workload, query_set
from upgradelab.captures.jobs import CAPTURE_JOBS
from upgradelab.captures.models import Capture
from upgradelab.captures.schemas import CaptureCreate
from upgradelab.errors import field_error, not_found
from upgradelab.execution.cancel_request import request_cancel
from upgradelab.pools import routing
from upgradelab.targets import service as targets
from upgradelab.worker import EXECUTE_CAPTURE, celery_app


async def create(session: AsyncSession, spec: CaptureCreate) -> Capture:
    """Store a queued capture of `spec.target` and send it to the worker of the target's pool
    (pools/routing.py). 422 naming `target` when there is no such target."""
    known = await targets.get_by_names(session, {spec.target})
    if spec.target not in known:
        raise field_error(["body", "target"], f"no target named {spec.target!r}")
    queue = await routing.route(session, {spec.target})
    row = Capture(
        target=spec.target,
        schema_only=spec.schema_only,
        data_limit_mb=spec.data_limit_mb,
        progress={"phase": "queued", "message": ""},
    )
    session.add(row)
    await session.commit()
    await to_thread.run_sync(lambda: celery_app.send_task(EXECUTE_CAPTURE, args=[row.id], queue=queue))
    return row


async def get_or_raise(session: AsyncSession, capture_id: int) -> Capture:
    """The capture, or 404."""
    row = await session.get(Capture, capture_id)
    if row is None:
        raise not_found("capture", capture_id)
    return row


async def list_captures(session: AsyncSession, target: str | None, limit: int) -> list[Capture]:
    """Newest first; only those of `target` when given."""
    query = select(Capture).order_by(Capture.id.desc()).limit(limit)
    if target is not None:
        query = query.where(Capture.target == target)
    return list(await session.scalars(query))


async def cancel(session: AsyncSession, row: Capture) -> Capture:
    """Cancel (execution/cancel_request.py): a queued one at once, a running one between its reads;
    409 when it already ended."""
    await request_cancel(session, CAPTURE_JOBS, row.id)
    await session.refresh(row)
    return row


def queries(row: Capture) -> str:
    """The captured workload as the plain SQL text a replay takes (captures/digests.py query_set);
    '' before the capture succeeded."""
    if row.workload is None:
        return ""
    return query_set(Workload.model_validate(row.workload))
