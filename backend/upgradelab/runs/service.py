"""Run verbs: create (and queue), get_or_raise, list, update, rerun, cancel; API shape with progress."""

from collections.abc import Sequence

from anyio import to_thread
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.errors import not_found
from upgradelab.execution.status import JobStatus
from upgradelab.execution.task import send_job
from upgradelab.pools import routing
from upgradelab.results.store.models import Iteration
from upgradelab.runs import experiments, history
from upgradelab.runs.executor.jobs import RUN_JOBS
from upgradelab.runs.models import Experiment, Run, RunVariant
from upgradelab.runs.schemas import (
    RunContext,
    RunFilter,
    RunPage,
    RunRead,
    RunUpdate,
    VariantContext,
    VariantState,
)
from upgradelab.workloads import groups_of


async def create(session: AsyncSession, experiment: Experiment) -> Run:
    """Store a queued run of `experiment` and send it to the Celery queue; first its startup options
    are checked again against its targets' option lists (409/503: runs/experiments.py check_runnable)."""
    await experiments.check_runnable(session, experiment)
    targets = sorted({variant.target for variant in experiment.variants})
    queue = await routing.route(session, targets)  # 409 when the variants span worker pools
    run = Run(experiment_id=experiment.id, status=JobStatus.queued, targets="," + ",".join(targets) + ",")
    session.add(run)
    await session.commit()
    await session.refresh(run, ["experiment"])
    await to_thread.run_sync(send_job, RUN_JOBS, run.id, queue)
    return run


async def get_or_raise(session: AsyncSession, run_id: int) -> Run:
    """The run, or 404."""
    run = await session.get(Run, run_id)
    if run is None:
        raise not_found("run", run_id)
    return run


async def list_page(session: AsyncSession, limit: int, offset: int, where: RunFilter) -> RunPage:
    """Runs matching `where`, in its order, with the total count for pagination."""
    runs, total = await history.list_runs(session, where, limit, offset)
    return RunPage(items=await to_read(session, runs), total=total, limit=limit, offset=offset)


async def update(session: AsyncSession, run: Run, change: RunUpdate) -> Run:
    """Rename (an empty name falls back to the experiment's) and/or annotate a run."""
    fields = change.model_dump(exclude_unset=True)
    if "name" in fields:
        run.name = (fields["name"] or "").strip() or None
    if "notes" in fields:
        run.notes = fields["notes"] or None
    await session.commit()
    return run


async def rerun(session: AsyncSession, run: Run) -> Run:
    """A new queued run of the same experiment (same workload, variants, iterations), same name."""
    again = await create(session, run.experiment)
    if run.name:
        again.name = run.name
        await session.commit()
    return again


async def to_read(session: AsyncSession, runs: Sequence[Run]) -> list[RunRead]:
    """API shape of runs, with iterations_done from one grouped count over their iteration rows."""
    ids = [run.id for run in runs]
    done: dict[int, int] = {}
    if ids:
        rows = await session.execute(
            select(Iteration.run_id, func.count()).where(Iteration.run_id.in_(ids)).group_by(Iteration.run_id)
        )
        done = {run_id: count for run_id, count in rows.tuples()}
    states: dict[int, list[VariantState]] = {}
    if ids:
        variant_rows = await session.execute(
            select(
                RunVariant.run_id,
                RunVariant.variant_index,
                RunVariant.name,
                RunVariant.target,
                RunVariant.status,
                RunVariant.error,
                RunVariant.is_aa_control,
            )
            .where(RunVariant.run_id.in_(ids))
            .order_by(RunVariant.run_id, RunVariant.variant_index)
        )
        for run_id, index, name, target, state, error, aa in variant_rows.tuples():
            states.setdefault(run_id, []).append(
                VariantState(
                    variant_index=index, name=name, target=target, status=state, error=error, is_aa_control=aa
                )
            )
    return [
        RunRead(
            id=run.id,
            experiment_id=run.experiment_id,
            name=run.name or run.experiment.name,
            notes=run.notes,
            targets=[name for name in run.targets.split(",") if name],
            workload=run.experiment.workload,
            status=run.status,
            error=run.error,
            created_at=run.created_at,
            started_at=run.started_at,
            finished_at=run.finished_at,
            iterations=run.experiment.iterations,
            variants=[variant.name for variant in run.experiment.variants],
            current_variant=run.current_variant,
            iterations_done=done.get(run.id, 0),
            iterations_total=_planned_iterations(run)
            * len(groups_of(run.experiment.workload, run.experiment.parameters))
            * len(run.experiment.variants),
            policy=run.experiment.policy,
            progress=run.progress,
            schedule=run.schedule,
            schedule_kind=run.experiment.schedule,
            rounds=run.experiment.rounds,
            block=run.experiment.block,
            aa_control=run.experiment.aa_control,
            variant_states=states.get(run.id, []),
        )
        for run in runs
    ]


def _planned_iterations(run: Run) -> int:
    """Iterations per variant and group: the experiment's, or the stored schedule's rounds x block once
    an auto-extension (experiment.max_rounds) has added rounds."""
    rounds = run.schedule.rounds if run.schedule else run.experiment.rounds
    if run.experiment.schedule == "interleaved" and rounds > run.experiment.rounds:
        return int(rounds) * run.experiment.block
    return run.experiment.iterations


async def context(session: AsyncSession, run: Run) -> RunContext:
    """The run's schedule, host context and every variant's context (run_variant rows)."""
    rows = await session.scalars(
        select(RunVariant).where(RunVariant.run_id == run.id).order_by(RunVariant.variant_index)
    )
    variants = [
        VariantContext(
            variant_index=row.variant_index,
            name=row.name,
            target=row.target,
            status=row.status,
            error=row.error,
            is_aa_control=row.is_aa_control,
            provisioner=row.provisioner,
            image_or_binary=row.image_or_binary,
            version=row.version,
            version_comment=row.version_comment,
            option_file=row.option_file,
            variables=row.variables,
            started_at=row.started_at,
            finished_at=row.finished_at,
        )
        for row in rows
    ]
    return RunContext(run_id=run.id, schedule=run.schedule, context=run.context, variants=variants)
