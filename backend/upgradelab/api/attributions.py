"""/api/attributions (signed in) and /api/public/attributions/{token} (a share link, read-only).

Viewers read attributions without their share_token (users/auth.py sees_share_tokens); only the
attribution's owner or an admin may cancel it (require_owner)."""

from typing import Literal

from fastapi import APIRouter, Response, status
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
from upgradelab.attribution import service
from upgradelab.attribution.jobs import ATTRIBUTION_JOBS
from upgradelab.attribution.models import Attribution
from upgradelab.attribution.schemas import AttributionCreate, AttributionRead
from upgradelab.db import SessionDep
from upgradelab.users.auth import CurrentUser, sees_share_tokens, stamp_owner
from upgradelab.users.models import User

router = APIRouter(prefix="/api/attributions", tags=["attributions"])
public_router = APIRouter(prefix="/api/public/attributions", tags=["attributions"])


@router.post("", response_model=AttributionRead, status_code=status.HTTP_201_CREATED)
async def create_attribution(
    spec: AttributionCreate, session: SessionDep, user: CurrentUser
) -> AttributionRead:
    """Start explaining the gap of `variant` in run `run_id` against its baseline (queued; the
    caller's). 404 unknown run; 409 run not succeeded or no decided verdict; 422 naming variant /
    baseline or an unknown field; 503 option list."""
    row = await service.create(session, spec)
    await stamp_owner(session, row, user)
    return service.to_read(row)


@list_route(router, ATTRIBUTION_JOBS, AttributionRead, by={"run_id": int})
async def list_attributions(_: AsyncSession, row: Attribution, user: User) -> AttributionRead:
    """Attributions, newest first; only those of `run_id` when given."""
    return _read(row, user)


@get_route(router, ATTRIBUTION_JOBS, AttributionRead)
async def get_attribution(_: AsyncSession, row: Attribution, user: User) -> AttributionRead:
    """One attribution with its candidates, steps, progress and result; 404 for an unknown id."""
    return _read(row, user)


@cancel_route(router, ATTRIBUTION_JOBS, AttributionRead, cancel=service.cancel)
async def cancel_attribution(_: AsyncSession, row: Attribution) -> AttributionRead:
    """Cancel (its current step run too); 403 unless the caller started it or is an admin; 409 when
    it already ended."""
    return service.to_read(row)


@share_route(router, ATTRIBUTION_JOBS, AttributionRead)
async def share_attribution(_: AsyncSession, row: Attribution) -> AttributionRead:
    """Give it a new read-only share token (share_token, in this answer only; /api/public/attributions/
    {token}; an earlier link stops working); 403 unless the caller started it or is an admin."""
    return service.to_read(row)


@export_route(router, ATTRIBUTION_JOBS, "attribution")
async def export_attribution(
    _: AsyncSession, row: Attribution, format: Format, user: User | None
) -> str | Response:
    """The result as CSV (members, unexplained share, steps) or the whole attribution as JSON."""
    return service.export_csv(row) if format == "csv" else _read(row, user).model_dump_json(indent=2)


def _read(row: Attribution, user: User | None) -> AttributionRead:
    """The API shape for `user` (None: the holder of its share link): share_token only for whom
    sees_share_tokens."""
    read = service.to_read(row)
    if user is not None and not sees_share_tokens(user):
        read.share_token = None
    return read


@public_router.get("/{token}", response_model=AttributionRead)
async def shared_attribution(token: str, session: SessionDep) -> AttributionRead:
    """A shared attribution, read-only, without sign-in; 404 for an unknown token."""
    return service.to_read(await shared_job(session, ATTRIBUTION_JOBS, token))


@public_router.get("/{token}/export")
async def export_shared_attribution(
    token: str, session: SessionDep, format: Literal["csv", "json"] = "json"
) -> Response:
    """A shared attribution's export without sign-in, as GET /api/attributions/{id}/export gives it
    (CSV: members, unexplained share, steps; JSON: the whole attribution); 404 for an unknown token."""
    return await export_attribution(session, await shared_job(session, ATTRIBUTION_JOBS, token), format, None)
