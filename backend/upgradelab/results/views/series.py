"""Iteration series and summaries: totals from the iteration table (statements: results/store/statements.py).
The run page's response (the run with these) is put together in api/results.py."""

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.results.stats.downsample import kept_indices
from upgradelab.results.stats.statistics import median, percentile
from upgradelab.results.store.models import Iteration
from upgradelab.results.store.series_store import Columns, stored_columns
from upgradelab.results.views.schemas import ColumnSeries, SummaryRow
from upgradelab.runs.models import Run


async def iteration_columns(session: AsyncSession, run: Run) -> list[Columns]:
    """Per variant (experiment order, also those with no iteration yet): iterations and their seconds,
    iteration.elapsed_s (the sum of the iteration's statements, stored when it ended). A finished run's
    come from its packed series (results/store/series_store.py), others' from the iteration rows."""
    if run.status.is_final:
        stored = await stored_columns(session, run)
        if stored is not None:
            return stored
    rows = await session.execute(
        select(Iteration.variant_index, Iteration.iteration, Iteration.elapsed_s)
        .where(Iteration.run_id == run.id)
        .order_by(Iteration.variant_index, Iteration.iteration)
    )
    columns: list[Columns] = [([], []) for _ in run.experiment.variants]
    for variant_index, iteration, elapsed_s in rows.tuples():
        columns[variant_index][0].append(iteration)
        columns[variant_index][1].append(float(elapsed_s))
    return columns


def series_of(run: Run, columns: list[Columns], max_points: int | None = None) -> list[ColumnSeries]:
    """Columns per variant; with max_points, downsampled (results/stats/downsample.kept_indices) to at most
    max_points per variant."""
    series = []
    for index, variant in enumerate(run.experiment.variants):
        iterations, seconds = columns[index]
        if max_points is not None and len(iterations) > max_points:
            kept = kept_indices(iterations, seconds, max_points)
            iterations, seconds = [iterations[k] for k in kept], [seconds[k] for k in kept]
        series.append(
            ColumnSeries(
                variant=variant.name,
                variant_index=index,
                iterations=iterations,
                elapsed_s=seconds,
                total_points=len(columns[index][0]),
            )
        )
    return series


def summarize_columns(run: Run, columns: list[Columns]) -> list[SummaryRow]:
    """Median, p95 and total seconds per variant over every iteration; ratio of each median to the first
    variant's median (None when either has no iteration)."""
    named = [
        (variant.name, index, columns[index][1]) for index, variant in enumerate(run.experiment.variants)
    ]
    return _summary_rows(named)


def _summary_rows(named: list[tuple[str, int, list[float]]]) -> list[SummaryRow]:
    rows = []
    for variant, variant_index, times in named:
        rows.append(
            SummaryRow(
                variant=variant,
                variant_index=variant_index,
                iterations=len(times),
                median_s=median(times),
                p95_s=percentile(times, 0.95),
                total_s=sum(times),
                ratio=None,
            )
        )
    baseline = rows[0].median_s if rows else None
    for row in rows:
        if baseline and row.median_s is not None:
            row.ratio = row.median_s / baseline
    return rows
