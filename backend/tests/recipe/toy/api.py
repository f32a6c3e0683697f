"""The toy kind's API (the recipe's step 4): its shapes, its create (queued to its pool's queue), and
its list, get, export, cancel and share as derived routes (api/job_routes.py: each a decorator on
a function giving one row's read shape or export body; no route body of its own); its events route
is derived by the app itself (api/streaming.py), its public share read by `shared_job`."""

from typing import Any

from anyio import to_thread
from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from tests.recipe.toy.jobs import TOY_JOBS
from tests.recipe.toy.models import Toy
from upgradelab.api.job_routes import (
    Format,
    cancel_route,
    export_route,
    get_route,
    list_route,
    share_route,
    shared_job,
)
from upgradelab.db import SessionDep
from upgradelab.execution.status import JobStatus
from upgradelab.execution.task import send_job
from upgradelab.settings import get_settings
from upgradelab.users.auth import CurrentUser, stamp_owner, token_for
from upgradelab.users.models import User
from upgradelab.worker import queue_of

router = APIRouter(prefix="/api/toys", tags=["toys"])
public_router = APIRouter(prefix="/api/public/toys", tags=["toys"])


class ToyCreate(BaseModel):
    """A toy job: `steps` steps of `step_s` seconds."""

    model_config = ConfigDict(extra="forbid")

    steps: int = Field(3, ge=1, le=1000)
    step_s: float = Field(0.2, ge=0, le=5)


class ToyRead(BaseModel):
    """A toy job as the API shows it."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    status: JobStatus
    error: str | None
    progress: dict[str, Any] | None
    steps: int
    done: int
    share_token: str | None = None


@router.post("", response_model=ToyRead, status_code=status.HTTP_201_CREATED)
async def create_toy(spec: ToyCreate, session: SessionDep, user: CurrentUser) -> ToyRead:
    """Queue a toy job (the caller's) on this API's pool's queue."""
    row = Toy(steps=spec.steps, step_s=spec.step_s)
    session.add(row)
    await session.commit()
    await stamp_owner(session, row, user)
    await to_thread.run_sync(send_job, TOY_JOBS, row.id, queue_of(get_settings().pool))
    return ToyRead.model_validate(row)


def _read(row: Toy, user: User | None) -> ToyRead:
    """The toy as `user` reads it (None: a share link's holder): share_token for whom sees it."""
    return token_for(ToyRead.model_validate(row), user)


@list_route(router, TOY_JOBS, ToyRead, by={"steps": int})
async def list_toys(_: AsyncSession, row: Toy, user: User) -> ToyRead:
    """Toy jobs, newest first; only those of `steps` steps when given."""
    return _read(row, user)


@get_route(router, TOY_JOBS, ToyRead)
async def get_toy(_: AsyncSession, row: Toy, user: User) -> ToyRead:
    """One toy job; 404 for an unknown id."""
    return _read(row, user)


@export_route(router, TOY_JOBS, "toy")
async def export_toy(_: AsyncSession, row: Toy, format: Format, user: User | None) -> str:
    """The toy as CSV (steps, done) or JSON (ToyRead)."""
    return f"steps,done\n{row.steps},{row.done}\n" if format == "csv" else _read(row, user).model_dump_json()


@cancel_route(router, TOY_JOBS, ToyRead)
async def cancel_toy(_: AsyncSession, row: Toy) -> ToyRead:
    """Cancel; 403 unless the caller started it or is an admin; 409 when it already ended."""
    return ToyRead.model_validate(row)


@share_route(router, TOY_JOBS, ToyRead)
async def share_toy(_: AsyncSession, row: Toy) -> ToyRead:
    """A new read-only share link (its token in this answer only)."""
    return ToyRead.model_validate(row)


@public_router.get("/{token}", response_model=ToyRead)
async def shared_toy(token: str, session: SessionDep) -> ToyRead:
    """A shared toy job without sign-in; 404 for an unknown token."""
    return _read(await shared_job(session, TOY_JOBS, token), None)
