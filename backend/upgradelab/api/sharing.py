"""/api/shares (signed in) and /api/public/shares/{token} (no sign-in, read-only).

One table holds every kind's links (sharing/models.py JobShare): POST /api/shares makes a run's, a
replay's or a comparison's (a capture, a check, an attribution, a fix search is shared by its own
POST .../share, api/job_routes.py share_route); the list shows every kind's; DELETE
/api/shares/{id} revokes any; a kind's public route opens its own tokens only.

Who sees and revokes which link (users/auth.py): viewers list none (403: a token opens a result to
anyone, and a viewer may not create one either); an operator lists their own links and the others'
live ones, and revokes only their own; an admin lists and revokes every link."""

from fastapi import APIRouter, Depends, HTTPException, status
from pydantic import BaseModel

from upgradelab.db import SessionDep
from upgradelab.replay import service as replays
from upgradelab.replay.schemas import ReplayRead
from upgradelab.results.stats.downsample import DEFAULT_MAX_POINTS
from upgradelab.results.views.comparison import run_comparison
from upgradelab.results.views.comparison_schemas import Comparison, ComparisonQuery
from upgradelab.runs import service as runs
from upgradelab.runs.results import RunResults, results_of
from upgradelab.sharing import service
from upgradelab.sharing.schemas import ShareCreate, ShareRead
from upgradelab.users.auth import CurrentUser, authorize, require_owner, sees_share_tokens
from upgradelab.users.models import Role

router = APIRouter(prefix="/api/shares", tags=["sharing"], dependencies=[Depends(authorize)])
public_router = APIRouter(prefix="/api/public/shares", tags=["sharing"])


# here, not in sharing/: a shared run's view is the run page's response (runs/results.py)
class SharedView(BaseModel):
    """What a share link shows: a run's results, a comparison or a replay run with its report (never
    target settings)."""

    kind: str
    run: RunResults | None = None
    comparison: Comparison | None = None
    replay: ReplayRead | None = None


@router.post("", response_model=ShareRead, status_code=status.HTTP_201_CREATED)
async def create_share(spec: ShareCreate, session: SessionDep, user: CurrentUser) -> ShareRead:
    """A read-only link for a run, a comparison or a replay; 404 for an unknown run or replay; 403
    unless the caller owns what the link opens (a comparison: every run in it) or is an admin."""
    if spec.run_id is not None:
        run = await runs.get_or_raise(session, spec.run_id)
        require_owner(user, run.created_by, f"run {run.id}", "share")
    if spec.kind == "replay" and spec.replay_id is not None:
        replay = await replays.get_or_raise(session, spec.replay_id)
        require_owner(user, replay.created_by, f"replay {replay.id}", "share")
    if spec.kind == "comparison" and spec.comparison is not None:
        for run_id in spec.comparison.runs:
            run = await runs.get_or_raise(session, run_id)
            require_owner(user, run.created_by, f"run {run_id}", "share")
    link, token = await service.create(session, spec, user.id)
    return service.to_read(link, token)


@router.get("", response_model=list[ShareRead])
async def list_shares(
    session: SessionDep,
    user: CurrentUser,
    run_id: int | None = None,
    kind: str | None = None,
    job_id: int | None = None,
) -> list[ShareRead]:
    """Share links of every kind, newest first (only a run's with run_id; only one kind's, "capture",
    "fixsearch", ..., and one job's with kind and job_id): an admin's list holds every link, revoked
    ones with revoked_at; an operator's their own (revoked ones too) and the others' live ones; 403
    for a viewer."""
    if not sees_share_tokens(user):
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            f"share links are listed to operators and admins only, you are {user.role.value}: "
            "a link's token opens the result to anyone without signing in",
        )
    owner = None if user.role == Role.admin else user.id
    return [service.to_read(link) for link in await service.list_links(session, run_id, owner, kind, job_id)]


@router.delete("/{link_id}", response_model=ShareRead)
async def revoke_share(link_id: int, session: SessionDep, user: CurrentUser) -> ShareRead:
    """Revoke a link of any kind: it answers 404 from now on. 404 for an unknown id; 403 unless the
    caller created the link or is an admin."""
    link = await service.get_or_raise(session, link_id)
    require_owner(user, link.created_by, f"share link {link_id}", "revoke")
    return service.to_read(await service.revoke(session, link))


@public_router.get("/{token}", response_model=SharedView)
async def shared(token: str, session: SessionDep) -> SharedView:
    """What the link shows, without signing in; 404 when unknown or revoked."""
    link = await service.resolve(session, token, ("run", "replay", "comparison"))
    if link.kind == "run" and link.job_id is not None:
        run = await runs.get_or_raise(session, link.job_id)
        return SharedView(kind="run", run=await results_of(session, run, DEFAULT_MAX_POINTS))
    if link.kind == "replay" and link.job_id is not None:
        replay = await replays.get_or_raise(session, link.job_id)
        return SharedView(kind="replay", replay=await replays.to_read(session, replay, with_report=True))
    query = ComparisonQuery.model_validate(link.comparison)
    return SharedView(kind="comparison", comparison=await run_comparison(query))
