"""Fix search verbs: create (the replay's fingerprint and variants checked, queued), briefs
(get, list, cancel and share are the routes every kind derives: api/job_routes.py)."""

from typing import TypeVar

from anyio import to_thread
from fastapi import HTTPException, status
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.errors import field_error, not_found
from upgradelab.execution.status import JobStatus
from upgradelab.execution.task import send_job
from upgradelab.fixsearch.candidates import SOURCES
from upgradelab.fixsearch.jobs import FIX_SEARCH_JOBS
from upgradelab.fixsearch.models import SOURCE_KIND, FixSearch
from upgradelab.fixsearch.schemas import FixSearchCreate, FixSearchProgress, FixSearchRead
from upgradelab.measurement import measured_workload
from upgradelab.pools import routing
from upgradelab.targets import service as targets

Brief = TypeVar("Brief", bound=BaseModel)


async def create(session: AsyncSession, spec: FixSearchCreate) -> FixSearch:
    """Store a queued fix search and send it to the worker. 404 for an unknown replay; 409 when the
    replay has not succeeded or its targets span worker pools; 422 naming `fingerprint_id` when the
    replay sampled no statement of it, `variant` for a name the replay lacks, its baseline, a
    variant of another flavor than the baseline (a statement-level setting names one flavor's
    variables) or a target gone. Queued to its targets' pool (pools/routing.py)."""
    replay = await session.run_sync(measured_workload, SOURCE_KIND, spec.replay_id)
    if replay is None:
        raise not_found("replay", spec.replay_id)
    if replay.status != JobStatus.succeeded:
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            f"replay {replay.job_id} is {replay.status}; a finished replay is needed",
        )
    variants = {v.name: v for v in replay.variants if not v.aa_control}
    baseline = replay.variants[0]
    if spec.variant not in variants:
        raise field_error(
            ["body", "variant"],
            f"replay {replay.job_id} has no variant {spec.variant!r}; it has {', '.join(variants)}",
        )
    if spec.variant == baseline.name:
        raise field_error(["body", "variant"], "the variant is the replay's baseline; pick another variant")
    variant = variants[spec.variant]
    statements = replay.of_fingerprint(spec.fingerprint_id)
    if not statements:
        raise field_error(
            ["body", "fingerprint_id"],
            f"replay {replay.job_id} sampled no statement of fingerprint {spec.fingerprint_id!r}",
        )
    known = await targets.get_by_names(session, {baseline.target, variant.target})
    base_target, var_target = known.get(baseline.target), known.get(variant.target)
    if base_target is None or var_target is None:
        raise field_error(["body", "variant"], "a target of the replay no longer exists")
    if base_target.flavor != var_target.flavor:
        raise field_error(
            ["body", "variant"],
            f"{var_target.name} ({var_target.flavor}) and {base_target.name} ({base_target.flavor}) are of "
            "different flavors: a statement-level setting names one flavor's variables",
        )
    queue = await routing.route(session, {base_target.name, var_target.name})  # 409 across pools
    row = FixSearch(
        replay_id=replay.job_id,
        fingerprint_id=spec.fingerprint_id,
        fingerprint=statements[0].fingerprint,
        variant=spec.variant,
        baseline=baseline.name,
        variants=[baseline, variant],
        statements=statements,
        dataset_id=replay.dataset_id,
        statement_timeout_s=replay.statement_timeout_s,
        rounds=spec.rounds,
        passes=spec.passes or replay.passes,
        budget_rounds=spec.budget_rounds or 0,
        budget_scaled=spec.budget_rounds is None,
        budget_minutes=spec.budget_minutes,
        try_all=spec.try_all,
        tolerance=spec.tolerance,
        scope=spec.scope,
        sources=[s for s in SOURCES if s in spec.sources],  # each once, in the search's order
        side_rounds=spec.side_rounds,
        side_minutes=spec.side_minutes,
        candidates=[],
        tried=[],
        progress=FixSearchProgress(phase="queued"),
    )
    session.add(row)
    await session.commit()
    await to_thread.run_sync(send_job, FIX_SEARCH_JOBS, row.id, queue)
    return row


async def briefs(session: AsyncSession, replay_id: int, shape: type[Brief]) -> dict[str, list[Brief]]:
    """The replay's fix searches by fingerprint id, newest first, as its report rows show them: each
    a `shape` (the replay's, replay/report.py FixSearchBrief, given by the API: a kind never imports
    another's package) of its id, variant, status and its result's outcome, remedy, global_remedy."""
    out: dict[str, list[Brief]] = {}
    for row in await session.scalars(
        select(FixSearch).where(FixSearch.replay_id == replay_id).order_by(FixSearch.id.desc())
    ):
        result = row.result
        brief = shape(
            id=row.id,
            variant=row.variant,
            status=str(row.status.value),
            outcome=result.outcome if result else None,
            remedy=result.remedy if result else None,
            global_remedy=result.global_remedy if result else None,
        )
        out.setdefault(row.fingerprint_id, []).append(brief)
    return out


def to_read(row: FixSearch) -> FixSearchRead:
    """API shape."""
    return FixSearchRead.model_validate(row)
