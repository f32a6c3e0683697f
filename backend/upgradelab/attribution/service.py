"""Attribution verbs: create (candidates built, queued), cancel, share, export (its get and list are
the routes every kind derives: api/job_routes.py)."""

import contextlib
import csv
import io
from dataclasses import asdict

from anyio import to_thread
from fastapi import HTTPException, status
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.attribution import candidates as candidate_builder
from upgradelab.attribution.jobs import ATTRIBUTION_JOBS
from upgradelab.attribution.models import Attribution
from upgradelab.attribution.schemas import (
    AttributionCreate,
    AttributionProgress,
    AttributionRead,
    CandidateRead,
    UntestableRead,
)
from upgradelab.errors import field_error, not_found
from upgradelab.execution.cancel_request import request_cancel
from upgradelab.execution.status import JobStatus
from upgradelab.execution.task import send_job
from upgradelab.pools import routing
from upgradelab.results.stats.verdicts import VerdictRead
from upgradelab.results.store.summary import stored_summary
from upgradelab.results.views.context import variables_diff
from upgradelab.runs.executor.jobs import RUN_JOBS
from upgradelab.runs.models import Run, RunVariant
from upgradelab.targets import option_lists
from upgradelab.targets import service as targets
from upgradelab.targets.options import OptionError, validate_option

DECIDED = ("regression", "improvement")


async def create(session: AsyncSession, spec: AttributionCreate) -> Attribution:
    """Store a queued attribution and send it to the worker. 404 for an unknown run; 409 when the
    run has not succeeded or the variant has no decided verdict (regression or improvement) against
    the baseline, or when its targets span worker pools; 422 naming `variant` / `baseline` for an
    unknown name, or `variant` when the two are of different flavors; 503 when the variant's option
    list cannot be built. Queued to its targets' pool (pools/routing.py), as runs and replays are."""
    run = await session.get(Run, spec.run_id)
    if run is None:
        raise not_found("run", spec.run_id)
    if run.status != JobStatus.succeeded:
        raise HTTPException(
            status.HTTP_409_CONFLICT, f"run {run.id} is {run.status}; a finished run is needed"
        )
    variants = {v.name: v for v in run.experiment.variants}
    baseline_name = spec.baseline or run.experiment.variants[0].name
    for field, name in (("variant", spec.variant), ("baseline", baseline_name)):
        if name not in variants:
            raise field_error(
                ["body", field], f"run {run.id} has no variant {name!r}; it has {', '.join(variants)}"
            )
    if spec.variant == baseline_name:
        raise field_error(["body", "variant"], "the variant is the baseline; pick another variant")
    baseline, variant = variants[baseline_name], variants[spec.variant]
    known = await targets.get_by_names(session, {baseline.target, variant.target})
    base_target, var_target = known.get(baseline.target), known.get(variant.target)
    if base_target is None or var_target is None:
        raise field_error(["body", "variant"], "a target of the run no longer exists")
    if base_target.flavor != var_target.flavor:
        raise field_error(
            ["body", "variant"],
            f"{variant.target} ({var_target.flavor}) and {baseline.target} "
            f"({base_target.flavor}) are of different flavors: their settings cannot be exchanged",
        )
    group, metric, gap = await _decided_gap(session, run, baseline_name, spec.variant)
    # its step runs execute in its own task: it goes to the pool that reaches its targets, as a run does
    queue = await routing.route(session, {baseline.target, variant.target})  # 409 across pools
    contexts = {
        row.name: row.variables
        for row in await session.scalars(select(RunVariant).where(RunVariant.run_id == run.id))
    }
    diffs = variables_diff([contexts.get(baseline_name), contexts.get(spec.variant)])
    diff = {d.name: (d.values[0], d.values[1]) for d in diffs}
    names = await option_lists.names_or_503(var_target)
    allowed = var_target.settings.allowed_options or []

    def accepts(option: str, value: str | None) -> str | None:
        try:
            validate_option(option, value, allowed)
            if names is not None:
                names.canonical(option)
        except OptionError as error:
            return str(error)
        return None

    found, untestable = candidate_builder.build(
        baseline, variant, diff, base_target.name == var_target.name, accepts
    )
    testable = []
    for candidate in found:
        refusals = [r for o, v in candidate.revert.get("add_options", {}).items() if (r := accepts(o, v))]
        if refusals:
            untestable.append(
                candidate_builder.Untestable(
                    candidate.name, refusals[0], candidate.baseline, candidate.variant
                )
            )
        else:
            testable.append(candidate)
    row = Attribution(
        run_id=run.id,
        variant=spec.variant,
        baseline=baseline_name,
        group=group,
        metric=metric,
        target_share=spec.target_share,
        rounds=spec.rounds or max(run.experiment.rounds, 5),
        block=spec.block or run.experiment.block,
        budget_runs=spec.budget_runs,
        budget_minutes=spec.budget_minutes,
        candidates=[CandidateRead.model_validate(c.as_dict()) for c in testable],
        untestable=[UntestableRead.model_validate(asdict(u)) for u in untestable],
        steps=[],
        gap=gap,
        progress=AttributionProgress(phase="queued"),
    )
    session.add(row)
    await session.commit()
    await to_thread.run_sync(send_job, ATTRIBUTION_JOBS, row.id, queue)
    return row


async def _decided_gap(
    session: AsyncSession, run: Run, baseline: str, variant: str
) -> tuple[str, str, VerdictRead]:
    """(group, metric, verdict) of the variant's first decided verdict in the run's stored summary
    (against the run's first variant); 409 when there is none or the baseline is not the first variant."""
    rows = await session.run_sync(lambda sync: stored_summary(sync, run.id))
    if run.experiment.variants[0].name != baseline:
        raise field_error(
            ["body", "baseline"],
            "only the run's first variant can be the baseline (its verdicts are against it)",
        )
    for row in rows:
        read = row.read(0.05)
        if row.variant == variant and read is not None and read.verdict in DECIDED:
            return row.group, row.metric.name, read
    raise HTTPException(
        status.HTTP_409_CONFLICT,
        f"variant {variant!r} of run {run.id} has no decided verdict against {baseline!r}: "
        "nothing to explain",
    )


async def cancel(session: AsyncSession, row: Attribution) -> Attribution:
    """Cancel (execution/cancel_request.py, the same for every kind): a queued one at once; a running
    one is flagged (its worker stops before the next step) and its current step run cancelled too;
    one whose worker is gone is ended by the reaper's path at once. 409 when it already ended."""
    await request_cancel(session, ATTRIBUTION_JOBS, row.id)
    await session.refresh(row)
    current = row.progress.current_run_id if row.progress is not None else None
    if current:
        with contextlib.suppress(HTTPException):  # the step run ended on its own (409) or is gone
            await request_cancel(session, RUN_JOBS, current)
        await session.refresh(row)
    return row


def to_read(row: Attribution) -> AttributionRead:
    """API shape."""
    return AttributionRead.model_validate(row)


def export_csv(row: Attribution) -> str:
    """CSV: one line per member of the result (name, contribution, low, high as fractions of the gap,
    option lines), per setting named beside the set ("also": its share alone, how it was decided), per
    test beside the set left undecided ("beside"), then the unexplained share and one line per step
    run."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["kind", "name", "share", "low", "high", "detail"])
    result = row.result
    for member in result.members if result else []:
        lines = "; ".join(member.lines)
        writer.writerow(["member", member.name, member.contribution, member.low, member.high, lines])
    for other in result.also if result else []:
        alone = other.alone
        how = f"decided by {other.decided_by} in {other.runs} run(s)"
        writer.writerow(["also", other.name, alone.share, alone.low, alone.high, how])
    for test in result.beside if result else []:
        if not test.decided and test.stage != "screening":
            detail = f"{test.stage}: not decided in {test.runs} run(s)"
            writer.writerow(["beside", "+".join(test.subset), test.share, test.low, test.high, detail])
    unexplained, outcome = (result.unexplained, result.outcome) if result else (None, "")
    writer.writerow(["unexplained", "", unexplained, "", "", outcome])
    for step in row.steps:
        for one in step.tests or []:
            writer.writerow(
                ["step", f"run {step.run_id}", one.share, one.low, one.high, "+".join(one.subset)]
            )
    return out.getvalue()
