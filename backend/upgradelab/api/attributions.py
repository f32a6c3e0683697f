"""/api/attributions (signed in) and /api/public/attributions/{token} (a share link, read-only).

Viewers read attributions without their share_token (users/auth.py sees_share_tokens); only the
attribution's owner or an admin may cancel it (require_owner)."""

from typing import Literal

from fastapi import APIRouter, Query, Response, status
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.api.job_routes import cancel_route, share_route, shared_job
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


@router.get("", response_model=list[AttributionRead])
async def list_attributions(
    session: SessionDep, user: CurrentUser, run_id: int | None = None, limit: int = Query(50, ge=1, le=500)
) -> list[AttributionRead]:
    """Attributions, newest first; only those of `run_id` when given."""
    return [_read(row, user) for row in await service.list_for_run(session, run_id, limit)]


@router.get("/{attribution_id}", response_model=AttributionRead)
async def get_attribution(attribution_id: int, session: SessionDep, user: CurrentUser) -> AttributionRead:
    """One attribution with its candidates, steps, progress and result; 404 for an unknown id."""
    return _read(await service.get_or_raise(session, attribution_id), user)


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


@router.get("/{attribution_id}/export")
async def export_attribution(
    attribution_id: int, session: SessionDep, user: CurrentUser, format: Literal["csv", "json"] = "json"
) -> Response:
    """The result as CSV (members, unexplained share, steps) or the whole attribution as JSON."""
    return _export(await service.get_or_raise(session, attribution_id), format, user)


def _read(row: Attribution, user: User | None) -> AttributionRead:
    """The API shape for `user` (None: the holder of its share link): share_token only for whom
    sees_share_tokens."""
    read = service.to_read(row)
    if user is not None and not sees_share_tokens(user):
        read.share_token = None
    return read


def _export(row: Attribution, format: Literal["csv", "json"], user: User | None = None) -> Response:
    """The CSV (service.export_csv: kind, name, share and interval as fractions of the gap) or the JSON
    (AttributionRead) of one attribution, as an attachment named attribution-<id>."""
    if format == "csv":
        return Response(
            service.export_csv(row),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="attribution-{row.id}.csv"'},
        )
    return Response(
        _read(row, user).model_dump_json(indent=2),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="attribution-{row.id}.json"'},
    )


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
    return _export(await shared_job(session, ATTRIBUTION_JOBS, token), format)
