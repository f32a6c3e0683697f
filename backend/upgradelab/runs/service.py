"""Run verbs: create (and queue), get_or_raise, list, cancel, and their API shape with progress."""

from collections.abc import Sequence

from anyio import to_thread
from sqlalchemy import distinct, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.db import utcnow
from upgradelab.errors import not_found
from upgradelab.experiments.models import Experiment
from upgradelab.results.models import Sample
from upgradelab.runs.models import Run, RunStatus
from upgradelab.runs.schemas import RunPage, RunRead
from upgradelab.worker import EXECUTE_RUN, celery_app
from upgradelab.workloads import groups_of


async def create(session: AsyncSession, experiment: Experiment) -> Run:
    """Store a queued run of `experiment` and send it to the Celery queue."""
    run = Run(experiment_id=experiment.id, status=RunStatus.queued)
    session.add(run)
    await session.commit()
    await session.refresh(run, ["experiment"])
    await to_thread.run_sync(lambda: celery_app.send_task(EXECUTE_RUN, args=[run.id]))
    return run


async def get_or_raise(session: AsyncSession, run_id: int) -> Run:
    """The run, or 404."""
    run = await session.get(Run, run_id)
    if run is None:
        raise not_found("run", run_id)
    return run


async def list_page(session: AsyncSession, limit: int, offset: int, status: RunStatus | None) -> RunPage:
    """Runs newest first, with the total count for pagination."""
    query = select(Run)
    count = select(func.count()).select_from(Run)
    if status is not None:
        query, count = query.where(Run.status == status), count.where(Run.status == status)
    runs = (await session.scalars(query.order_by(Run.id.desc()).limit(limit).offset(offset))).unique().all()
    total = (await session.scalar(count)) or 0
    return RunPage(items=await to_read(session, runs), total=total, limit=limit, offset=offset)


async def cancel(session: AsyncSession, run: Run) -> Run:
    """Ask the worker to stop after the current iteration; a queued run is cancelled at once."""
    if run.status.is_final:
        return run
    run.cancel_requested = True
    if run.status == RunStatus.queued:
        run.status, run.finished_at = RunStatus.cancelled, utcnow()
    await session.commit()
    return run


async def to_read(session: AsyncSession, runs: Sequence[Run]) -> list[RunRead]:
    """API shape of runs, with iterations_done from one grouped count over their samples."""
    ids = [run.id for run in runs]
    done: dict[int, int] = {}
    if ids:
        iteration_key = Sample.variant_index * 1_000_000 + Sample.iteration
        rows = await session.execute(
            select(Sample.run_id, func.count(distinct(iteration_key)))
            .where(Sample.run_id.in_(ids))
            .group_by(Sample.run_id)
        )
        done = {run_id: count for run_id, count in rows.tuples()}
    return [
        RunRead(
            id=run.id,
            experiment_id=run.experiment_id,
            name=run.experiment.name,
            workload=run.experiment.workload,
            status=run.status,
            error=run.error,
            created_at=run.created_at,
            started_at=run.started_at,
            finished_at=run.finished_at,
            iterations=run.experiment.iterations,
            variants=[variant["name"] for variant in run.experiment.variants],
            current_variant=run.current_variant,
            iterations_done=done.get(run.id, 0),
            iterations_total=run.experiment.iterations
            * len(groups_of(run.experiment.workload, run.experiment.parameters))
            * len(run.experiment.variants),
            policy=run.experiment.policy,
            progress=run.progress,
        )
        for run in runs
    ]
