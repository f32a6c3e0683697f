"""Iteration series and summaries, from the sample table."""

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.results.models import Sample
from upgradelab.results.schemas import Point, Series, StatementRow, SummaryRow
from upgradelab.results.statistics import median, percentile
from upgradelab.runs.models import Run


async def iteration_series(session: AsyncSession, run: Run) -> list[Series]:
    """One series per variant (in experiment order, also those with no iteration yet).

    Each point is an iteration's seconds: SUM(sample.elapsed_s) over its statements.
    """
    rows = await session.execute(
        select(Sample.variant_index, Sample.iteration, func.sum(Sample.elapsed_s))
        .where(Sample.run_id == run.id)
        .group_by(Sample.variant_index, Sample.iteration)
        .order_by(Sample.variant_index, Sample.iteration)
    )
    series = [
        Series(variant=variant["name"], variant_index=index, points=[])
        for index, variant in enumerate(run.experiment.variants)
    ]
    for variant_index, iteration, elapsed_s in rows.tuples():
        series[variant_index].points.append(Point(iteration=iteration, elapsed_s=float(elapsed_s)))
    return series


def summarize(series: list[Series]) -> list[SummaryRow]:
    """Median, p95 and total per variant; ratio of each median to the first variant's median."""
    rows = []
    for one in series:
        times = [point.elapsed_s for point in one.points]
        rows.append(
            SummaryRow(
                variant=one.variant,
                variant_index=one.variant_index,
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


async def statement_summary(session: AsyncSession, run: Run) -> list[StatementRow]:
    """Per variant, per statement label (in first-execution order): count, median, p95, total seconds.

    Source: sample.elapsed_s, client-side perf_counter around each statement.
    """
    rows = await session.execute(
        select(Sample.variant_index, Sample.statement, Sample.elapsed_s)
        .where(Sample.run_id == run.id)
        .order_by(Sample.variant_index, Sample.id)
    )
    grouped: dict[tuple[int, str], list[float]] = {}
    for variant_index, statement, elapsed_s in rows.tuples():
        grouped.setdefault((variant_index, statement), []).append(elapsed_s)
    names = [variant["name"] for variant in run.experiment.variants]
    return [
        StatementRow(
            variant=names[variant_index],
            variant_index=variant_index,
            statement=statement,
            count=len(times),
            median_s=median(times),
            p95_s=percentile(times, 0.95),
            total_s=sum(times),
        )
        for (variant_index, statement), times in grouped.items()
    ]
