"""/api/concurrent-replays (signed in) and /api/public/concurrent-replays/{token} (a share link,
read-only): a workload's sessions replayed together on identical copies of a dataset
(concurrent_replay/). Viewers read them without their share_token; only the owner or an admin may
cancel or share one (require_owner, in the derived routes)."""

from typing import Literal

from fastapi import APIRouter, status
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.api.job_routes import (
    Format,
    cancel_route,
    export_route,
    get_route,
    list_route,
    share_route,
    shared_job,
)
from upgradelab.concurrent_replay import service
from upgradelab.concurrent_replay.export import report_csv
from upgradelab.concurrent_replay.jobs import CONCURRENT_REPLAY_JOBS
from upgradelab.concurrent_replay.models import ConcurrentReplay
from upgradelab.concurrent_replay.schemas import ConcurrentReplayCreate, ConcurrentReplayRead
from upgradelab.db import SessionDep
from upgradelab.users.auth import CurrentUser, stamp_owner, token_for
from upgradelab.users.models import User

router = APIRouter(prefix="/api/concurrent-replays", tags=["concurrent replays"])
public_router = APIRouter(prefix="/api/public/concurrent-replays", tags=["concurrent replays"])


@router.post("", response_model=ConcurrentReplayRead, status_code=status.HTTP_201_CREATED)
async def create_concurrent_replay(
    spec: ConcurrentReplayCreate, session: SessionDep, user: CurrentUser
) -> ConcurrentReplayRead:
    """Queue a concurrent replay (the caller's): the log's sessions replayed together, writes
    included, on disposable lab targets. 404 unknown dataset; 409 targets across pools; 422 naming
    the field: the log (unreadable, past a bound, no session), a variant's target (unknown, not
    disposable or not a lab instance), a refused option."""
    row = await service.create(session, spec)
    await stamp_owner(session, row, user)
    return service.to_read(row)


def _read(row: ConcurrentReplay, user: User | None) -> ConcurrentReplayRead:
    """The API shape for `user` (None: a share link's holder): share_token for whom sees it."""
    return token_for(service.to_read(row), user)


@list_route(router, CONCURRENT_REPLAY_JOBS, ConcurrentReplayRead, by={"dataset_id": int})
async def list_concurrent_replays(_: AsyncSession, row: ConcurrentReplay, user: User) -> ConcurrentReplayRead:
    """Concurrent replays, newest first; only those of `dataset_id` when given."""
    return _read(row, user)


@get_route(router, CONCURRENT_REPLAY_JOBS, ConcurrentReplayRead)
async def get_concurrent_replay(_: AsyncSession, row: ConcurrentReplay, user: User) -> ConcurrentReplayRead:
    """One concurrent replay with its trials and report; 404 for an unknown id."""
    return _read(row, user)


@cancel_route(router, CONCURRENT_REPLAY_JOBS, ConcurrentReplayRead)
async def cancel_concurrent_replay(_: AsyncSession, row: ConcurrentReplay) -> ConcurrentReplayRead:
    """Cancel in whatever phase it is; 403 unless the caller started it or is an admin; 409 when it
    already ended."""
    return service.to_read(row)


@share_route(router, CONCURRENT_REPLAY_JOBS, ConcurrentReplayRead)
async def share_concurrent_replay(_: AsyncSession, row: ConcurrentReplay) -> ConcurrentReplayRead:
    """A new read-only share link (its token in this answer only; an earlier link stops working);
    403 unless the caller started it or is an admin."""
    return service.to_read(row)


@export_route(router, CONCURRENT_REPLAY_JOBS, "concurrent-replay")
async def export_concurrent_replay(
    _: AsyncSession, row: ConcurrentReplay, format: Format, user: User | None
) -> str | Response:
    """Its report as CSV (concurrent_replay/export.py: a row per finding) or the whole replay as
    JSON (ConcurrentReplayRead, every trial's record), an attachment concurrent-replay-<id>."""
    read = _read(row, user)
    return report_csv(read.report) if format == "csv" else read.model_dump_json(indent=2)


@public_router.get("/{token}", response_model=ConcurrentReplayRead)
async def shared_concurrent_replay(token: str, session: SessionDep) -> ConcurrentReplayRead:
    """A shared concurrent replay, read-only, without sign-in; 404 for an unknown token."""
    return _read(await shared_job(session, CONCURRENT_REPLAY_JOBS, token), None)


@public_router.get("/{token}/export")
async def export_shared_concurrent_replay(
    token: str, session: SessionDep, format: Literal["csv", "json"] = "json"
) -> Response:
    """A shared concurrent replay's export without sign-in (as its export route); 404 for an
    unknown token."""
    row = await shared_job(session, CONCURRENT_REPLAY_JOBS, token)
    return await export_concurrent_replay(session, row, format, None)
