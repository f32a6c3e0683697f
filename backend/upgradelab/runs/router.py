"""/api/runs"""

from fastapi import APIRouter, Query

from upgradelab.db import SessionDep
from upgradelab.runs import service
from upgradelab.runs.models import RunStatus
from upgradelab.runs.schemas import RunPage, RunRead

router = APIRouter(prefix="/api/runs", tags=["runs"])


@router.get("", response_model=RunPage)
async def list_runs(
    session: SessionDep,
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0),
    status: RunStatus | None = None,
) -> RunPage:
    """Runs, newest first, optionally of one status."""
    return await service.list_page(session, limit, offset, status)


@router.get("/{run_id}", response_model=RunRead)
async def get_run(run_id: int, session: SessionDep) -> RunRead:
    """One run with its progress; 404 for an unknown id."""
    [read] = await service.to_read(session, [await service.get_or_raise(session, run_id)])
    return read


@router.post("/{run_id}/cancel", response_model=RunRead)
async def cancel_run(run_id: int, session: SessionDep) -> RunRead:
    """Cancel: a queued run at once, a running one after its current iteration (results kept)."""
    run = await service.cancel(session, await service.get_or_raise(session, run_id))
    [read] = await service.to_read(session, [run])
    return read
