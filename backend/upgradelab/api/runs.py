"""/api/runs"""

from datetime import datetime
from typing import Literal

from fastapi import APIRouter, Query, status
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.api.job_routes import cancel_route, get_route
from upgradelab.db import SessionDep
from upgradelab.execution.status import JobStatus, JobStatuses
from upgradelab.runs import service
from upgradelab.runs.executor.jobs import RUN_JOBS
from upgradelab.runs.models import Run
from upgradelab.runs.schemas import (
    RunContext,
    RunFilter,
    RunPage,
    RunRead,
    RunSort,
    RunUpdate,
)
from upgradelab.users.auth import CurrentUser, require_owner, stamp_owner
from upgradelab.users.models import User

router = APIRouter(prefix="/api/runs", tags=["runs"])


@router.get("", response_model=RunPage)
async def list_runs(
    session: SessionDep,
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0),
    status: list[JobStatus] = Query([], description="Any of these statuses (repeat the parameter)."),
    workload: str | None = None,
    target: str | None = Query(None, description="Runs with a variant on this target (name, or part of it)."),
    created_from: datetime | None = None,
    created_to: datetime | None = None,
    q: str | None = Query(None, max_length=200, description="Free text in run name, experiment name, notes."),
    sort: RunSort = "created_at",
    order: Literal["asc", "desc"] = "desc",
) -> RunPage:
    """Runs matching every given filter, sorted (ties by id), one page with the total count."""
    where = RunFilter(
        workload=workload, target=target, status=status, created_from=created_from,
        created_to=created_to, q=q, sort=sort, order=order,
    )  # fmt: skip
    return await service.list_page(session, limit, offset, where)


@router.get("/statuses", response_model=JobStatuses)
async def run_statuses() -> JobStatuses:
    """Every job status and the final ones (succeeded, failed, cancelled), the same for runs, replays
    and attributions: a client stops polling or streaming at a final status. The same lists are the
    OpenAPI enums JobStatus and FinalJobStatus."""
    return JobStatuses()


@get_route(router, RUN_JOBS, RunRead)
async def get_run(session: AsyncSession, run: Run, _: User) -> RunRead:
    """One run with its progress; 404 for an unknown id."""
    [read] = await service.to_read(session, [run])
    return read


@router.get("/{run_id}/context", response_model=RunContext)
async def get_run_context(run_id: int, session: SessionDep) -> RunContext:
    """What the run ran on: its schedule (seed, order of every round), host facts, Upgrade Lab's
    version, and per variant its status and captured context (see RunContext); 404 for an unknown id."""
    return await service.context(session, await service.get_or_raise(session, run_id))


@router.patch("/{run_id}", response_model=RunRead)
async def update_run(run_id: int, change: RunUpdate, session: SessionDep, user: CurrentUser) -> RunRead:
    """Rename or annotate a run; 403 unless the caller started it or is an admin (as cancel)."""
    run = await service.get_or_raise(session, run_id)
    require_owner(user, run.created_by, f"run {run_id}", "edit")
    run = await service.update(session, run, change)
    [read] = await service.to_read(session, [run])
    return read


@router.post("/{run_id}/rerun", response_model=RunRead, status_code=status.HTTP_201_CREATED)
async def rerun(run_id: int, session: SessionDep, user: CurrentUser) -> RunRead:
    """Queue a new run with the same definition (experiment) as run `run_id`; the new run is the
    caller's (whoever made the first)."""
    run = await service.rerun(session, await service.get_or_raise(session, run_id))
    await stamp_owner(session, run, user)
    [read] = await service.to_read(session, [run])
    return read


@cancel_route(router, RUN_JOBS, RunRead)
async def cancel_run(session: AsyncSession, run: Run) -> RunRead:
    """Cancel: a queued run at once, a running one after its current iteration (results kept).
    403 unless the caller started the run or is an admin (the message says so)."""
    [read] = await service.to_read(session, [run])
    return read
