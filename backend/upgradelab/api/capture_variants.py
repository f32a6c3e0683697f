"""GET /api/captures/{id}/variant?target=NAME (signed in): the capture's settings as a variant's
startup options on lab target NAME (captures/team_variant.py): what is dropped and why, what is
scaled to the lab's memory and from which numbers. A replay or a run takes `options` as a variant's
(the UI's "use this capture's settings"; the same options on the old and the new version's target)."""

from fastapi import APIRouter, HTTPException, Query, status
from pydantic import BaseModel, ConfigDict

from upgradelab.captures import service
from upgradelab.captures.team_variant import DroppedSetting, ScaledSetting, TrimmedSetting, team_variant_of
from upgradelab.db import SessionDep
from upgradelab.settings import get_settings
from upgradelab.targets import service as targets

router = APIRouter(prefix="/api/captures", tags=["captures"])


class TeamVariantRead(BaseModel):
    """A capture's settings on `target`: `options` (name -> value; None a bare flag), `dropped`
    (name, line, reason), `scaled` (name, captured, used, reason), `trimmed` (name, captured, used,
    reason: a list kept without the values `target` refuses, sql_mode minus NO_AUTO_CREATE_USER) and
    `checked_by`: the check whose refusals were dropped (None: none succeeded against `target`; the
    server's start will say)."""

    model_config = ConfigDict(from_attributes=True)

    capture_id: int
    target: str
    options: dict[str, str | None]
    dropped: list[DroppedSetting]
    scaled: list[ScaledSetting]
    checked_by: int | None
    trimmed: list[TrimmedSetting] = []


@router.get("/{capture_id}/variant", response_model=TeamVariantRead)
async def capture_variant(
    capture_id: int,
    session: SessionDep,
    target: str = Query(min_length=1, max_length=64, description="The variant's lab target."),
    instances: int = Query(2, ge=1, le=9, description="Server instances of the job sharing the memory."),
) -> TeamVariantRead:
    """404 unknown capture or target; 409 when the capture holds no configuration (not succeeded)."""
    capture = await service.get_or_raise(session, capture_id)
    row = await targets.get_or_raise(session, target)
    try:
        found = await team_variant_of(session, capture, row, instances, get_settings().instance_allowance_mb)
    except ValueError as error:
        raise HTTPException(status.HTTP_409_CONFLICT, str(error)) from error
    return TeamVariantRead.model_validate(found)
