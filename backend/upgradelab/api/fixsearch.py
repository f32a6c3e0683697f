"""/api/fixsearches (signed in) and /api/public/fixsearches/{token} (a share link, read-only).

Viewers read fix searches without their share_token (users/auth.py sees_share_tokens); only the
search's owner or an admin may cancel it (require_owner)."""

from typing import Literal

from fastapi import APIRouter, Query, status
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.api.job_routes import cancel_route, share_route, shared_job
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


@router.get("", response_model=list[FixSearchRead])
async def list_fix_searches(
    session: SessionDep, user: CurrentUser, replay_id: int | None = None, limit: int = Query(50, ge=1, le=500)
) -> list[FixSearchRead]:
    """Fix searches, newest first; only those of `replay_id` when given."""
    return [_read(row, user) for row in await service.list_searches(session, replay_id, limit)]


@router.get("/{search_id}", response_model=FixSearchRead)
async def get_fix_search(search_id: int, session: SessionDep, user: CurrentUser) -> FixSearchRead:
    """One fix search with its candidates, trials, progress and result; 404 for an unknown id."""
    return _read(await service.get_or_raise(session, search_id), user)


@cancel_route(router, FIX_SEARCH_JOBS, FixSearchRead)
async def cancel_fix_search(_: AsyncSession, row: FixSearch) -> FixSearchRead:
    """Cancel; 403 unless the caller started it or is an admin; 409 when it already ended."""
    return service.to_read(row)


@share_route(router, FIX_SEARCH_JOBS, FixSearchRead)
async def share_fix_search(_: AsyncSession, row: FixSearch) -> FixSearchRead:
    """Give it a new read-only share token (share_token, in this answer only; /api/public/fixsearches/
    {token}; an earlier link stops working); 403 unless the caller started it or is an admin."""
    return service.to_read(row)


@router.get("/{search_id}/export")
async def export_fix_search(
    search_id: int, session: SessionDep, user: CurrentUser, format: Literal["csv", "json"] = "json"
) -> Response:
    """The search as CSV (fixsearch/export.py: a row per trial, a row per side effect) or JSON
    (FixSearchRead), as an attachment named fixsearch-<id>; 404 for an unknown id."""
    return _export(await service.get_or_raise(session, search_id), format, user)


def _export(row: FixSearch, format: Literal["csv", "json"], user: User | None = None) -> Response:
    read = _read(row, user) if user is not None else service.to_read(row)
    headers = {"Content-Disposition": f'attachment; filename="fixsearch-{row.id}.{format}"'}
    if format == "csv":
        return Response(export_csv(read), media_type="text/csv", headers=headers)
    return Response(read.model_dump_json(indent=2), media_type="application/json", headers=headers)


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
    return _export(await shared_job(session, FIX_SEARCH_JOBS, token), format)
