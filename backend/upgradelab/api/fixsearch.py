"""/api/fixsearches (signed in) and /api/public/fixsearches/{token} (a share link, read-only).

Viewers read fix searches without their share_token (users/auth.py sees_share_tokens); only the
search's owner or an admin may cancel it (require_owner)."""

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
from upgradelab.db import SessionDep
from upgradelab.fixsearch import service
from upgradelab.fixsearch.export import export_csv
from upgradelab.fixsearch.jobs import FIX_SEARCH_JOBS
from upgradelab.fixsearch.models import FixSearch
from upgradelab.fixsearch.schemas import FixSearchCreate, FixSearchRead
from upgradelab.users.auth import CurrentUser, sees_share_tokens, stamp_owner
from upgradelab.users.models import User

router = APIRouter(prefix="/api/fixsearches", tags=["fix searches"])
public_router = APIRouter(prefix="/api/public/fixsearches", tags=["fix searches"])


@router.post("", response_model=FixSearchRead, status_code=status.HTTP_201_CREATED)
async def create_fix_search(spec: FixSearchCreate, session: SessionDep, user: CurrentUser) -> FixSearchRead:
    """Start looking for a remedy for a fingerprint of a replay slower on a variant (queued; the
    caller's). 404 unknown replay; 409 replay not succeeded or targets across pools; 422 naming
    fingerprint_id, variant or an unknown field."""
    row = await service.create(session, spec)
    await stamp_owner(session, row, user)
    return service.to_read(row)


@list_route(router, FIX_SEARCH_JOBS, FixSearchRead, by={"replay_id": int})
async def list_fix_searches(_: AsyncSession, row: FixSearch, user: User) -> FixSearchRead:
    """Fix searches, newest first; only those of `replay_id` when given."""
    return _read(row, user)


@get_route(router, FIX_SEARCH_JOBS, FixSearchRead)
async def get_fix_search(_: AsyncSession, row: FixSearch, user: User) -> FixSearchRead:
    """One fix search with its candidates, trials, progress and result; 404 for an unknown id."""
    return _read(row, user)


@cancel_route(router, FIX_SEARCH_JOBS, FixSearchRead)
async def cancel_fix_search(_: AsyncSession, row: FixSearch) -> FixSearchRead:
    """Cancel; 403 unless the caller started it or is an admin; 409 when it already ended."""
    return service.to_read(row)


@share_route(router, FIX_SEARCH_JOBS, FixSearchRead)
async def share_fix_search(_: AsyncSession, row: FixSearch) -> FixSearchRead:
    """Give it a new read-only share token (share_token, in this answer only; /api/public/fixsearches/
    {token}; an earlier link stops working); 403 unless the caller started it or is an admin."""
    return service.to_read(row)


@export_route(router, FIX_SEARCH_JOBS, "fixsearch")
async def export_fix_search(
    _: AsyncSession, row: FixSearch, format: Format, user: User | None
) -> str | Response:
    """The search as CSV (fixsearch/export.py: a row per trial, a row per side effect) or JSON
    (FixSearchRead), as an attachment named fixsearch-<id>; 404 for an unknown id."""
    read = _read(row, user)
    return export_csv(read) if format == "csv" else read.model_dump_json(indent=2)


def _read(row: FixSearch, user: User | None) -> FixSearchRead:
    """The API shape for `user`: share_token only for whom sees_share_tokens."""
    read = service.to_read(row)
    if user is not None and not sees_share_tokens(user):
        read.share_token = None
    return read


@public_router.get("/{token}", response_model=FixSearchRead)
async def shared_fix_search(token: str, session: SessionDep) -> FixSearchRead:
    """A shared fix search, read-only, without sign-in; 404 for an unknown token."""
    return service.to_read(await shared_job(session, FIX_SEARCH_JOBS, token))


@public_router.get("/{token}/export")
async def export_shared_fix_search(
    token: str, session: SessionDep, format: Literal["csv", "json"] = "json"
) -> Response:
    """A shared fix search's export without sign-in (as /api/fixsearches/{id}/export); 404 for an
    unknown token."""
    return await export_fix_search(session, await shared_job(session, FIX_SEARCH_JOBS, token), format, None)
