"""Assessment verbs: create (validated, queued to its targets' pool), read_report (the report of its
children as they are now: stored at its end by the runner, shown live by the API while it runs)."""

from anyio import to_thread
from fastapi import HTTPException, status
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.assessment.jobs import ASSESSMENT_JOBS
from upgradelab.assessment.models import Assessment
from upgradelab.assessment.report import AssessmentReport, VersionEvidence, build_report
from upgradelab.assessment.schemas import AssessmentChildren, AssessmentCreate, VersionChildren
from upgradelab.captures import service as captures
from upgradelab.captures.schemas import CaptureRead, CheckRead
from upgradelab.errors import field_error
from upgradelab.execution.status import JobStatus
from upgradelab.execution.task import send_job
from upgradelab.fixsearch import service as fixsearches
from upgradelab.fixsearch.models import FixSearch
from upgradelab.pools import routing
from upgradelab.replay import service as replays
from upgradelab.replay.schemas import ReplayRead
from upgradelab.targets import service as targets


async def create(session: AsyncSession, spec: AssessmentCreate) -> Assessment:
    """Store a queued assessment and send it to the worker of its targets' pool. 422 naming
    `target`, `versions` or `baseline` for an unknown target, `baseline` when it is one of the
    versions; 404 for an unknown `capture_id`, 409 when that capture has not succeeded; 409 when the
    targets span worker pools (pools/routing.py: the children run in the assessment's worker)."""
    names = {
        *spec.versions,
        *([spec.target] if spec.target else []),
        *([spec.baseline] if spec.baseline else []),
    }
    known = await targets.get_by_names(session, names)
    for field, values in (
        ("target", [spec.target]),
        ("versions", spec.versions),
        ("baseline", [spec.baseline]),
    ):
        missing = [name for name in values if name is not None and name not in known]
        if missing:
            raise field_error(["body", field], f"no target named {', '.join(map(repr, missing))}")
    if spec.baseline is not None and spec.baseline in spec.versions:
        raise field_error(
            ["body", "baseline"], f"{spec.baseline} is one of the new versions: the baseline is the old"
        )
    children = AssessmentChildren(versions=[VersionChildren(version=name) for name in spec.versions])
    if spec.capture_id is not None:
        capture = await captures.get_or_raise(session, spec.capture_id)
        if capture.status != JobStatus.succeeded:
            raise HTTPException(
                status.HTTP_409_CONFLICT,
                f"capture {capture.id} is {capture.status}; a succeeded capture is needed",
            )
        children.capture_id = capture.id
    queue = await routing.route(session, names)
    row = Assessment(
        target=spec.target,
        my_cnf=spec.my_cnf,
        versions=spec.versions,
        baseline=spec.baseline,
        dataset=spec.dataset,
        queries=spec.queries,
        budget_min=spec.budget_min,
        fix_tolerance=spec.fix_tolerance,
        children=children,
    )
    session.add(row)
    await session.commit()
    await to_thread.run_sync(send_job, ASSESSMENT_JOBS, row.id, queue)
    return row


async def read_report(session: AsyncSession, children: AssessmentChildren) -> AssessmentReport:
    """The report of an assessment's `children` as they are now, each read through its kind's read
    shape (CaptureRead, CheckRead, ReplayRead with its report, FixSearchRead): assessment/report.py
    build_report. A child deleted since reads as not made."""
    capture = None
    if children.capture_id is not None:
        capture = await read_capture(session, children.capture_id)
    versions = []
    for version in children.versions:
        check = replay = None
        if version.check_id is not None and capture is not None:
            row = await captures.get_check_or_raise(session, capture.id, version.check_id)
            check = CheckRead.model_validate(row)
        if version.replay_id is not None:
            replay = await read_replay(session, version.replay_id)
        searches = []
        for search_id in version.fix_search_ids:
            search = await session.get(FixSearch, search_id)
            if search is not None:
                searches.append(fixsearches.to_read(search))
        versions.append(
            VersionEvidence(
                version.version,
                check=check,
                replay=replay,
                fix_searches=searches,
                why_no_check=version.why_no_check,
                why_no_replay=version.why_no_replay,
            )
        )
    stopped = children.stopped_by_budget
    return build_report(
        capture, versions, children.why_no_capture, (stopped.kind, stopped.id) if stopped else None
    )


async def read_capture(session: AsyncSession, capture_id: int) -> CaptureRead:
    """Capture `capture_id` as the API reads it (404 naming it when gone)."""
    return CaptureRead.model_validate(await captures.get_or_raise(session, capture_id))


async def read_replay(session: AsyncSession, replay_id: int) -> ReplayRead:
    """Replay `replay_id` with its report (404 naming it when gone)."""
    return await replays.to_read(session, await replays.get_or_raise(session, replay_id), with_report=True)
