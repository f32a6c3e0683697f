"""/api/runs/{run_id}/results, /api/runs/{run_id}/export, /api/compare; the run page's and the run
export's responses (the run's own record and context come from runs/, the rest from results/)."""

import json
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.db import SessionDep
from upgradelab.results.stats.downsample import DEFAULT_MAX_POINTS, POINTS_PER_PIXEL
from upgradelab.results.store import groups, statements
from upgradelab.results.store.groups import RunGroups
from upgradelab.results.store.models import Iteration, StatementRow
from upgradelab.results.views.comparison import run_comparison
from upgradelab.results.views.comparison_schemas import Comparison, ComparisonQuery
from upgradelab.results.views.context import VariableDiff, variables_diff
from upgradelab.results.views.export import COMPARISON_COLUMNS, comparison_rows, download, respond
from upgradelab.runs import service as runs
from upgradelab.runs.models import Run
from upgradelab.runs.results import RunResults, results_of

router = APIRouter(tags=["results"])


_ITERATION_COLUMNS = [
    "run_id", "variant_index", "variant", "iteration", "group", "round", "block", "position", "elapsed_s",
    "metrics",
]  # fmt: skip
_CONTEXT_COLUMNS = ["version", "version_comment", "provisioner", "image_or_binary", "is_aa_control"]
RUN_COLUMNS = [*_ITERATION_COLUMNS, *_CONTEXT_COLUMNS, "variables_diff", "schedule_seed", "host"]


async def run_export(session: AsyncSession, run: Run, fmt: str) -> Response:
    """Every iteration of the run (`iteration` table) with what produced it (runs.service.context).

    JSON: {"run_id", "schedule", "context", "variants": [runs.schemas.VariantContext with its
    variables], "variables_diff": [{"name", "values"}] (results/views/context.py), "iterations": [{run_id,
    variant_index, variant, iteration, group, round, block, position, elapsed_s, metrics}]}.
    CSV: one line per iteration, RUN_COLUMNS: the variant's context on every line, variables_diff as
    JSON {name: value} of the variables that differ between variants, host as JSON.
    elapsed_s: seconds, the sum of the iteration's statements (client-side).
    """
    context = await runs.context(session, run)
    diff = variables_diff([v.variables for v in context.variants])
    names = [spec.name for spec in run.experiment.variants]
    iterations: list[dict[str, Any]] = [
        {
            "run_id": run.id,
            "variant_index": row.variant_index,
            "variant": names[row.variant_index] if row.variant_index < len(names) else "",
            "iteration": row.iteration,
            "group": row.group,
            "round": row.round,
            "block": row.block,
            "position": row.position,
            "elapsed_s": row.elapsed_s,
            "metrics": row.metrics,
        }
        for row in await session.scalars(
            select(Iteration)
            .where(Iteration.run_id == run.id)
            .order_by(Iteration.variant_index, Iteration.iteration)
        )
    ]
    filename = f"run-{run.id}"
    if fmt == "json":
        body = {
            **context.model_dump(mode="json"),
            "variables_diff": [d.model_dump() for d in diff],
            "iterations": iterations,
        }
        return download(json.dumps(body), "application/json", f"{filename}.json")
    host = json.dumps(context.context.host.model_dump() if context.context else None)
    seed = context.schedule.seed if context.schedule else None
    per_variant = {
        v.variant_index: {
            **{k: getattr(v, k) for k in _CONTEXT_COLUMNS},
            "variables_diff": json.dumps({d.name: d.values[position] for d in diff}),
            "schedule_seed": seed,
            "host": host,
        }
        for position, v in enumerate(context.variants)
    }
    rows = [
        {**row, "metrics": json.dumps(row["metrics"]), **per_variant.get(row["variant_index"], {})}
        for row in iterations
    ]
    return respond(rows, RUN_COLUMNS, "csv", filename)


MaxPoints = Query(DEFAULT_MAX_POINTS, ge=10, le=100_000, description="Downsample longer series (MinMaxLTTB).")
Width = Query(
    None,
    ge=50,
    le=20_000,
    description=f"The chart's plot width in pixels: series are downsampled to {POINTS_PER_PIXEL} x width "
    "points each (overrides max_points).",
)


@router.get("/api/runs/{run_id}/results", response_model=RunResults)
async def run_results(
    run_id: int, session: SessionDep, max_points: int = MaxPoints, width: int | None = Width
) -> RunResults:
    """The run, one series per variant as columns (iterations[], elapsed_s[]), the summary (median,
    p95, total seconds per variant over every iteration) and `contrasts` (the template's within-variant
    ratios per variant, and each variant's over variant 0's, with 95 % intervals and verdicts from
    the rounds: results/views/contrasts.py); 404 for an unknown run.

    Times are seconds, client-side (perf_counter around each statement), summed per iteration.
    Series longer than max_points (or POINTS_PER_PIXEL x width) are downsampled with MinMaxLTTB; each
    series' total_points counts every iteration.
    """
    run = await runs.get_or_raise(session, run_id)
    return await results_of(session, run, POINTS_PER_PIXEL * width if width else max_points)


@router.get("/api/runs/{run_id}/export")
async def export_run(run_id: int, session: SessionDep, format: Literal["csv", "json"] = "csv") -> Response:
    """Every iteration (seconds, round, group, metrics) with the run's context, its variants' versions,
    provisioners and the variables that differ between them; shapes in api/results.py run_export."""
    return await run_export(session, await runs.get_or_raise(session, run_id), format)


@router.get("/api/runs/{run_id}/variables-diff", response_model=list[VariableDiff])
async def run_variables_diff(run_id: int, session: SessionDep) -> list[VariableDiff]:
    """The global variables (SHOW GLOBAL VARIABLES, captured when each variant's instance started) whose
    values differ between the run's variants: name and one value per variant in run_variant order
    (GET /api/runs/{id}/context's `variants`); [] when fewer than two variants were captured; 404
    for an unknown run."""
    context = await runs.context(session, await runs.get_or_raise(session, run_id))
    return variables_diff([v.variables for v in context.variants])


@router.get("/api/runs/{run_id}/statements", response_model=list[StatementRow])
async def run_statements(run_id: int, session: SessionDep) -> list[StatementRow]:
    """Per variant and statement (e.g. "TRUNCATE test3"): count, median/p95/total seconds (a finished run's
    as stored at its end, results/store/statements.py); 404 unknown run."""
    return await statements.statement_summary(session, await runs.get_or_raise(session, run_id))


@router.get("/api/runs/{run_id}/groups", response_model=RunGroups)
async def run_groups(
    run_id: int,
    session: SessionDep,
    iterations: bool = Query(True, description="false: the per-group medians only, `iterations` empty."),
) -> RunGroups:
    """Every iteration with its group (e.g. "threads=16") and metrics (sysbench tps, qps, p50_ms,
    p95_ms, p99_ms; lock-waits thread_<n>_s, thread_<n>_trx, monitor_polls), and the per-variant,
    per-group medians the sweep charts draw (seconds; metrics in their own units); 404 for an unknown
    run."""
    run = await runs.get_or_raise(session, run_id)
    return await groups.run_groups(session, run, iterations)


def comparison_query(
    runs: str = Query(..., pattern=r"^\d+(,\d+){0,9}$", description="Run ids, comma-separated."),
    baseline: str | None = Query(None, pattern=r"^\d+:\d+$"),
    warmup: int = Query(0, ge=0),
    threshold: float = Query(0.05, gt=0, lt=1),
) -> ComparisonQuery:
    """Query string -> ComparisonQuery."""
    ids = [int(part) for part in runs.split(",")]
    return ComparisonQuery(runs=ids, baseline=baseline, warmup=warmup, threshold=threshold)


@router.get("/api/compare", response_model=Comparison)
async def get_comparison(
    query: ComparisonQuery = Depends(comparison_query),
    max_points: int = MaxPoints,
    series: bool = Query(True, description="false: the verdict table only, no chart series."),
) -> Comparison:
    """Variants of `runs` against `baseline`, per group and primary metric: median, p95, the ratio with
    its 95 % interval from the rounds, the A/A floor, the smallest detectable change and a verdict.

    Within a run the rounds are paired: per round the variant's block median over the baseline's, and
    the 20 % trimmed geometric mean of those ratios with its Tukey-McLaughlin interval; across runs
    Welch's t on the log round values. A verdict at `threshold` needs at least 5 rounds; a one-round
    (sequential) run gets a within-block bootstrap interval, never a verdict.
    """
    return await run_comparison(query, max_points, series)


@router.get("/api/compare/export")
async def export_comparison(
    query: ComparisonQuery = Depends(comparison_query), format: Literal["csv", "json"] = "csv"
) -> Response:
    """The comparison table as CSV or JSON (seconds; ratios unitless)."""
    comparison = await run_comparison(query, with_series=False)
    return respond(comparison_rows(comparison), COMPARISON_COLUMNS, format, "comparison")
