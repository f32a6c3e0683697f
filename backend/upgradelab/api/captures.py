"""/api/captures (signed in): capture a target's configuration, accounts and workload (or upload an
option file as one); read, list, cancel; its workload as the SQL text a replay takes; check its
settings against a new version (/api/captures/{id}/checks); share a capture or a check read-only
(/api/public/captures/{token}, /api/public/captures/checks/{token}) and revoke the link. Only the
owner or an admin may cancel or revoke (require_owner); viewers read no share_token
(users/auth.py sees_share_tokens)."""

import re

from fastapi import APIRouter, Depends, HTTPException, Request, Response, status
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.api.datasets import worker_only
from upgradelab.api.job_routes import cancel_route, get_route, list_route, share_route, shared_job, unshare
from upgradelab.captures import service
from upgradelab.captures.findings import check_about, csv_text
from upgradelab.captures.jobs import CAPTURE_JOBS, CHECK_JOBS
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.captures.schemas import (
    CaptureCreate,
    CaptureRead,
    CaptureSummary,
    CheckCreate,
    CheckRead,
    MyCnfCreate,
)
from upgradelab.datasets import service as datasets
from upgradelab.datasets.schemas import DatasetRead
from upgradelab.db import SessionDep
from upgradelab.execution.status import JobStatus
from upgradelab.users.auth import CurrentUser, require_owner, stamp_owner, token_for
from upgradelab.users.models import User

router = APIRouter(prefix="/api/captures", tags=["captures"])
public_router = APIRouter(prefix="/api/public/captures", tags=["captures"])


def _capture(row: object, user: User | None) -> CaptureRead:
    """The API shape for `user` (None: a share link's holder): share_token only for whom sees it."""
    return token_for(CaptureRead.model_validate(row), user)


def _check(row: object, user: User | None) -> CheckRead:
    return token_for(CheckRead.model_validate(row), user)


@router.post("", response_model=CaptureRead, status_code=status.HTTP_201_CREATED)
async def create_capture(spec: CaptureCreate, session: SessionDep, user: CurrentUser) -> CaptureRead:
    """Capture target `target` (queued; the caller's). 422 naming `target` for an unknown one, or
    naming the field refused; 409 when the target's pool cannot be chosen."""
    row = await service.create(session, spec)
    await stamp_owner(session, row, user)
    return CaptureRead.model_validate(row)


@router.post("/my-cnf", response_model=CaptureRead, status_code=status.HTTP_201_CREATED)
async def create_from_my_cnf(spec: MyCnfCreate, session: SessionDep, user: CurrentUser) -> CaptureRead:
    """An uploaded option file as a capture (succeeded at once; the caller's): its server groups'
    options are the settings its checks try (POST /api/captures/{id}/checks) and its variant's
    options. 422 naming `text` and each refused line: `!include`, a control character or backslash,
    an option the lab never writes (targets/options.py: init-file, datadir, a value injecting a line)."""
    row = await service.create_from_my_cnf(session, spec)
    await stamp_owner(session, row, user)
    return CaptureRead.model_validate(row)


@list_route(router, CAPTURE_JOBS, CaptureSummary, by={"target": str})
async def list_captures(_: AsyncSession, row: Capture, __: User) -> CaptureSummary:
    """Captures, newest first (summaries); only those of `target` when given."""
    return CaptureSummary.of(row)


@get_route(router, CAPTURE_JOBS, CaptureRead)
async def get_capture(_: AsyncSession, row: Capture, user: User) -> CaptureRead:
    """One capture with its configuration, accounts and workload; 404 for an unknown id."""
    return _capture(row, user)


@share_route(router, CAPTURE_JOBS, CaptureRead)
async def share_capture(_: AsyncSession, row: Capture) -> CaptureRead:
    """Give it a new read-only share token (share_token, in this answer only; GET
    /api/public/captures/{token}; an earlier link stops working); 403 unless the caller owns it or is
    an admin."""
    return CaptureRead.model_validate(row)


@router.delete("/{capture_id}/share", response_model=CaptureRead)
async def revoke_capture_share(capture_id: int, session: SessionDep, user: CurrentUser) -> CaptureRead:
    """Revoke its share link (it stops working at once); 403 unless the caller owns it or is an admin."""
    row = await service.get_or_raise(session, capture_id)
    require_owner(user, row.created_by, f"capture {capture_id}", "revoke the share link of")
    return _capture(await unshare(session, CAPTURE_JOBS, row), user)


@cancel_route(router, CAPTURE_JOBS, CaptureRead)
async def cancel_capture(_: AsyncSession, row: Capture) -> CaptureRead:
    """Cancel; 403 unless the caller started it or is an admin; 409 when it already ended."""
    return CaptureRead.model_validate(row)


@router.get("/{capture_id}/queries.sql")
async def capture_queries(capture_id: int, session: SessionDep) -> Response:
    """The captured digests a replay can execute, as a plain SQL file (most executed first, each with
    a `-- digest D executions N weight W` line): the `queries` of a replay. Empty before it succeeded."""
    row = await service.get_or_raise(session, capture_id)
    return Response(
        service.queries(row),
        media_type="application/sql",
        headers={"Content-Disposition": f'attachment; filename="capture-{capture_id}-queries.sql"'},
    )


@router.post("/{capture_id}/checks", response_model=CheckRead, status_code=status.HTTP_201_CREATED)
async def create_check(
    capture_id: int, spec: CheckCreate, session: SessionDep, user: CurrentUser
) -> CheckRead:
    """Check the capture's settings against target `target`'s binary (queued; the caller's): which it
    refuses, warns about or takes, in its own words. 404 unknown capture; 409 capture not succeeded;
    422 naming `target` (unknown, or not a local or tarball target)."""
    capture = await service.get_or_raise(session, capture_id)
    row = await service.create_check(session, capture, spec)
    await stamp_owner(session, row, user)
    return CheckRead.model_validate(row)


@list_route(router, CHECK_JOBS, CheckRead, limit=None, parent=CAPTURE_JOBS)
async def list_checks(_: AsyncSession, row: CaptureCheck, user: User) -> CheckRead:
    """The capture's checks, newest first; 404 unknown capture."""
    return _check(row, user)


@get_route(router, CHECK_JOBS, CheckRead)
async def get_check(_: AsyncSession, row: CaptureCheck, user: User) -> CheckRead:
    """One check with its findings; 404 when the capture has no such check."""
    return _check(row, user)


@share_route(router, CHECK_JOBS, CheckRead)
async def share_check(_: AsyncSession, row: CaptureCheck) -> CheckRead:
    """Give it a new read-only share token (share_token, in this answer only; GET
    /api/public/captures/checks/{token}; an earlier link stops working); 403 unless the caller owns it
    or is an admin."""
    return CheckRead.model_validate(row)


@router.delete("/{capture_id}/checks/{check_id}/share", response_model=CheckRead)
async def revoke_check_share(
    capture_id: int, check_id: int, session: SessionDep, user: CurrentUser
) -> CheckRead:
    """Revoke its share link (it stops working at once); 403 unless the caller owns it or is an admin."""
    row = await service.get_check_or_raise(session, capture_id, check_id)
    require_owner(user, row.created_by, f"check {check_id}", "revoke the share link of")
    return _check(await unshare(session, CHECK_JOBS, row), user)


@router.get("/{capture_id}/checks/{check_id}/findings.csv")
async def check_findings_csv(capture_id: int, check_id: int, session: SessionDep) -> Response:
    """The check's findings in one severity order (CheckRead.ordered) as CSV: severity, kind,
    subject, outcome, evidence, action, then the capture, its target and version, the check's target
    and binary on every row (captures/findings.py csv_text); 404 when the capture has no such check."""
    row = await service.get_check_or_raise(session, capture_id, check_id)
    return await _csv(session, CheckRead.model_validate(row))


async def _csv(session: SessionDep, row: CheckRead) -> Response:
    capture = await service.get_or_raise(session, row.capture_id)
    about = check_about(row.capture_id, capture.target, capture.version, row.target, row.server)
    name = re.sub(
        r"[^A-Za-z0-9._-]+", "_", f"capture-{row.capture_id}-{capture.target}-check-{row.id}-{row.target}"
    )
    return Response(
        csv_text(row.ordered, about),
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'},
    )


@cancel_route(router, CHECK_JOBS, CheckRead)
async def cancel_check(_: AsyncSession, row: CaptureCheck) -> CheckRead:
    """Cancel; 403 unless the caller started it or is an admin; 409 when it already ended."""
    return CheckRead.model_validate(row)


@public_router.get("/checks/{token}", response_model=CheckRead)
async def shared_check(token: str, session: SessionDep) -> CheckRead:
    """A shared check with its findings, read-only, without sign-in; 404 for an unknown or revoked token."""
    return _check(await shared_job(session, CHECK_JOBS, token), None)


@public_router.get("/checks/{token}/findings.csv")
async def shared_check_csv(token: str, session: SessionDep) -> Response:
    """A shared check's findings as CSV (as GET .../checks/{id}/findings.csv); 404 unknown or revoked."""
    return await _csv(session, CheckRead.model_validate(await shared_job(session, CHECK_JOBS, token)))


@public_router.get("/{token}", response_model=CaptureRead)
async def shared_capture(token: str, session: SessionDep) -> CaptureRead:
    """A shared capture, read-only, without sign-in; 404 for an unknown or revoked token."""
    return _capture(await shared_job(session, CAPTURE_JOBS, token), None)


# Written by workers, not users: the capture's dump (captures/dump.py upload), worker credential only.
worker_router = APIRouter(prefix="/api/captures", tags=["captures"], dependencies=[Depends(worker_only)])


@worker_router.put("/{capture_id}/dataset", response_model=DatasetRead, status_code=status.HTTP_201_CREATED)
async def store_capture_dump(capture_id: int, request: Request, session: SessionDep) -> DatasetRead:
    """The running capture's dump (the raw body) stored as dataset `capture-<id>` through the upload's
    path (datasets/service.py create_from_stream: streamed, sha256, 413 past its size bound, 422
    empty, 409 when the name is taken), owned by the capture's owner. Needs the worker credential
    (401 otherwise); 404 unknown capture, 409 unless it is running."""
    row = await service.get_or_raise(session, capture_id)
    if row.status != JobStatus.running:
        raise HTTPException(status.HTTP_409_CONFLICT, f"capture {capture_id} is {row.status}, not running")
    dataset = await datasets.create_from_stream(session, f"capture-{capture_id}", request.stream())
    dataset.created_by = row.created_by
    await session.commit()
    return datasets.to_read(dataset)
