"""/api/assessments (signed in) and /api/public/assessments/{token} (a share link, read-only): create
(owner stamped), the derived list, get, export (JSON: the page's content; CSV: the to-do lists),
cancel and share routes, and the documents to attach: report.md and report.pdf (assessment/
document.py). While an assessment runs its report is read live from its children."""

import csv
import io
from datetime import UTC, datetime
from typing import Literal

from anyio import to_thread
from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.api.job_routes import (
    Format,
    cancel_route,
    export_route,
    get_route,
    job_or_404,
    list_route,
    share_route,
    shared_job,
)
from upgradelab.assessment import service
from upgradelab.assessment.document import About, markdown, pdf, print_html
from upgradelab.assessment.jobs import ASSESSMENT_JOBS
from upgradelab.assessment.models import Assessment
from upgradelab.assessment.report import AssessmentReport
from upgradelab.assessment.schemas import AssessmentCreate, AssessmentRead
from upgradelab.db import SessionDep
from upgradelab.users.auth import CurrentUser, stamp_owner, token_for
from upgradelab.users.models import User

router = APIRouter(prefix="/api/assessments", tags=["assessments"])
public_router = APIRouter(prefix="/api/public/assessments", tags=["assessments"])
TODO_COLUMNS = ("version", "position", "area", "subject", "text", "action", "evidence")


@router.post("", response_model=AssessmentRead, status_code=status.HTTP_201_CREATED)
async def create_assessment(spec: AssessmentCreate, session: SessionDep, user: CurrentUser) -> AssessmentRead:
    """Assess an upgrade (queued; the caller's): the team's server captured read-only (or a capture,
    or its option file), checked against each new version, replayed with an A/A control, slower
    queries' fixes searched, within the budget; one report. 422 naming target, versions, baseline or
    the source given twice; 404 unknown capture_id; 409 capture not succeeded, targets across pools."""
    row = await service.create(session, spec)
    await stamp_owner(session, row, user)
    return await _read(session, row, user)


async def _read(session: AsyncSession, row: Assessment, user: User | None) -> AssessmentRead:
    """The API shape for `user` (None: a share link's holder): the report read live from the
    children while it runs; share_token only for whom sees_share_tokens."""
    read = AssessmentRead.model_validate(row)
    if read.report is None:
        read.report = await service.read_report(session, row.children)
    return token_for(read, user)


@list_route(router, ASSESSMENT_JOBS, AssessmentRead)
async def list_assessments(session: AsyncSession, row: Assessment, user: User) -> AssessmentRead:
    """Assessments, newest first (their reports as stored; None while running)."""
    return token_for(AssessmentRead.model_validate(row), user)


@get_route(router, ASSESSMENT_JOBS, AssessmentRead)
async def get_assessment(session: AsyncSession, row: Assessment, user: User) -> AssessmentRead:
    """One assessment with its children's ids and its report (live while it runs); 404 unknown id."""
    return await _read(session, row, user)


def todo_csv(report: AssessmentReport) -> str:
    """The report's to-do lists as CSV: TODO_COLUMNS, a row per item of each version, in order (a
    leading = + - @ of a value prefixed with ', as a check's CSV does)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(TODO_COLUMNS)
    for version in report.versions:
        for position, item in enumerate(version.todo, 1):
            values = (
                version.version,
                str(position),
                item.area,
                item.subject,
                item.text,
                item.action,
                item.evidence,
            )
            writer.writerow([f"'{v}" if v[:1] in ("=", "+", "-", "@") else v for v in values])
    return out.getvalue()


@export_route(router, ASSESSMENT_JOBS, "assessment")
async def export_assessment(session: AsyncSession, row: Assessment, format: Format, user: User | None) -> str:
    """The assessment as JSON (AssessmentRead: the page's content) or CSV (its to-do lists), as an
    attachment named assessment-<id>; 404 for an unknown id."""
    read = await _read(session, row, user)
    if format == "csv":
        return todo_csv(
            read.report or AssessmentReport(capture_id=None, source_version=None, versions=[], exit_bits=0)
        )
    return read.model_dump_json(indent=2)


@cancel_route(router, ASSESSMENT_JOBS, AssessmentRead)
async def cancel_assessment(session: AsyncSession, row: Assessment) -> AssessmentRead:
    """Cancel: its running child is ended through its own cancel and no step starts after; 403
    unless the caller started it or is an admin; 409 when it already ended."""
    return AssessmentRead.model_validate(row)


@share_route(router, ASSESSMENT_JOBS, AssessmentRead)
async def share_assessment(session: AsyncSession, row: Assessment) -> AssessmentRead:
    """A new read-only share link (share_token in this answer only; /api/public/assessments/{token};
    an earlier link stops working); 403 unless the caller started it or is an admin."""
    return AssessmentRead.model_validate(row)


async def _document(
    request: Request, session: AsyncSession, row: Assessment, user: User | None, kind: Literal["md", "pdf"]
) -> Response:
    read = await _read(session, row, user)
    report = read.report
    if report is None:  # read_report always gives one; a guard for the type
        raise HTTPException(status.HTTP_409_CONFLICT, f"assessment {row.id} has no report")
    base = str(request.base_url).rstrip("/")
    source = row.target or (
        f"capture {row.children.capture_id}" if row.children.capture_id else "option file"
    )
    about = About(row.id, source, f"{base}/assessments/{row.id}", datetime.now(UTC))
    name = f"assessment-{row.id}.{kind}"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    if kind == "md":
        return Response(markdown(report, about, base), media_type="text/markdown", headers=headers)
    try:
        body = await to_thread.run_sync(pdf, print_html(report, about, base))
    except RuntimeError as failed:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, str(failed)) from failed
    return Response(body, media_type="application/pdf", headers=headers)


@router.get("/{assessment_id}/report.md")
async def assessment_markdown(
    assessment_id: int, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """The report as Markdown to attach to a change request (the lab's version, the team's server's
    and each new version's, the dataset's sha256, the date, the page's link); 404 unknown id."""
    row = await job_or_404(session, ASSESSMENT_JOBS, {"assessment_id": assessment_id})
    return await _document(request, session, row, user, "md")


@router.get("/{assessment_id}/report.pdf")
async def assessment_pdf(
    assessment_id: int, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """The report's print view as PDF (A4, printed by the lab's headless Chromium); 404 unknown id,
    503 when the browser cannot start."""
    row = await job_or_404(session, ASSESSMENT_JOBS, {"assessment_id": assessment_id})
    return await _document(request, session, row, user, "pdf")


@public_router.get("/{token}", response_model=AssessmentRead)
async def shared_assessment(token: str, session: SessionDep) -> AssessmentRead:
    """A shared assessment, read-only, without sign-in; 404 for an unknown token."""
    return await _read(session, await shared_job(session, ASSESSMENT_JOBS, token), None)


@public_router.get("/{token}/export")
async def export_shared_assessment(token: str, session: SessionDep, format: Format = "json") -> Response:
    """A shared assessment's export without sign-in (as /api/assessments/{id}/export); 404 unknown token."""
    return await export_assessment(session, await shared_job(session, ASSESSMENT_JOBS, token), format, None)


@public_router.get("/{token}/report.pdf")
async def shared_assessment_pdf(token: str, request: Request, session: SessionDep) -> Response:
    """A shared assessment's PDF without sign-in (as /api/assessments/{id}/report.pdf); 404 unknown token."""
    return await _document(request, session, await shared_job(session, ASSESSMENT_JOBS, token), None, "pdf")
