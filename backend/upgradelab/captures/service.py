"""Capture verbs: create (queued to its target's pool), create_from_my_cnf, get_or_raise,
queries; a check's: create_check, get_check_or_raise (lists, get and cancel: api/job_routes.py); either's
share link: share, revoke_share, capture_by_token, check_by_token."""

from anyio import to_thread
from fastapi import HTTPException, status
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.captures.digests import query_set
from upgradelab.captures.jobs import CAPTURE_JOBS, CHECK_JOBS
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.captures.my_cnf import MY_CNF_FLAVOR, MyCnfError, configuration, parse
from upgradelab.captures.schemas import CaptureCreate, CheckCreate, MyCnfCreate
from upgradelab.db import utcnow
from upgradelab.errors import field_error, not_found
from upgradelab.execution.status import JobStatus
from upgradelab.execution.task import send_job
from upgradelab.pools import routing
from upgradelab.targets import service as targets
from upgradelab.targets.provisioners import DockerProvisioner, LocalProvisioner, TarballProvisioner


async def create(session: AsyncSession, spec: CaptureCreate) -> Capture:
    """Store a queued capture of `spec.target` and send it to the worker of the target's pool
    (pools/routing.py). 422 naming `target` when there is no such target."""
    known = await targets.get_by_names(session, {spec.target})
    if spec.target not in known:
        raise field_error(["body", "target"], f"no target named {spec.target!r}")
    queue = await routing.route(session, {spec.target})
    row = Capture(
        target=spec.target,
        schema_only=spec.schema_only,
        data_limit_mb=spec.data_limit_mb,
        progress={"phase": "queued", "message": ""},
    )
    session.add(row)
    await session.commit()
    await to_thread.run_sync(send_job, CAPTURE_JOBS, row.id, queue)
    return row


MY_CNF_TARGET = "my.cnf"  # an uploaded option file's capture names no target


async def create_from_my_cnf(session: AsyncSession, spec: MyCnfCreate) -> Capture:
    """Store option file `spec.text` as a succeeded capture (target "my.cnf", flavor "my.cnf"): its
    server groups' options as the configuration a check tries (captures/my_cnf.py), no accounts, no
    workload, no dump. 422 naming `text` and every refused line (an include, a control character or
    backslash, a line the lab never writes)."""
    try:
        options = parse(spec.text)
    except MyCnfError as refused:
        raise field_error(["body", "text"], f"option file {spec.name!r} refused: {refused}") from refused
    if not options:
        raise field_error(["body", "text"], f"option file {spec.name!r} holds no option of a server group")
    now = utcnow()
    row = Capture(
        target=MY_CNF_TARGET,
        status=JobStatus.succeeded,
        schema_only=True,
        flavor=MY_CNF_FLAVOR,
        configuration=configuration(options, spec.name).model_dump(mode="json"),
        accounts=[],
        identifiers=[],
        progress={"phase": "done", "message": f"option file {spec.name}: {len(options)} options"},
        started_at=now,
        finished_at=now,
    )
    session.add(row)
    await session.commit()
    return row


async def get_or_raise(session: AsyncSession, capture_id: int) -> Capture:
    """The capture, or 404."""
    row = await session.get(Capture, capture_id)
    if row is None:
        raise not_found("capture", capture_id)
    return row


def queries(row: Capture) -> str:
    """The captured workload as the plain SQL text a replay takes (captures/digests.py query_set);
    '' before the capture succeeded."""
    if row.workload is None:
        return ""
    return query_set(row.workload)


# the kinds whose binary the lab can run with options of its own (server_refusal: LocalOptions', on an
# option file; DockerProvisioner's, as the flags of a throw-away container of the image)
SCRATCH_KINDS = (LocalProvisioner.kind, TarballProvisioner.kind, DockerProvisioner.kind)


async def create_check(session: AsyncSession, capture: Capture, spec: CheckCreate) -> CaptureCheck:
    """Store a queued check of `capture` against target `spec.target` (the team's host as given:
    `spec.team_host`) and send it to that target's pool. 409 when the capture has not succeeded;
    422 naming `target` for an unknown target or one whose binary the lab does not run (an existing
    target)."""
    if capture.status != JobStatus.succeeded:
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            f"capture {capture.id} is {capture.status}; a succeeded capture is needed",
        )
    known = await targets.get_by_names(session, {spec.target})
    target = known.get(spec.target)
    if target is None:
        raise field_error(["body", "target"], f"no target named {spec.target!r}")
    if target.provisioner not in SCRATCH_KINDS:
        raise field_error(
            ["body", "target"],
            f"target {spec.target} is a {target.provisioner} target: a check starts a scratch instance "
            f"of the new version's binary ({' or '.join(SCRATCH_KINDS)} targets)",
        )
    queue = await routing.route(session, {spec.target})
    row = CaptureCheck(capture_id=capture.id, target=spec.target, team_host=spec.team_host)
    session.add(row)
    await session.commit()
    await to_thread.run_sync(send_job, CHECK_JOBS, row.id, queue)
    return row


async def get_check_or_raise(session: AsyncSession, capture_id: int, check_id: int) -> CaptureCheck:
    """Check `check_id` of capture `capture_id`, or 404."""
    row = await session.get(CaptureCheck, check_id)
    if row is None or row.capture_id != capture_id:
        raise not_found("check", check_id)
    return row
