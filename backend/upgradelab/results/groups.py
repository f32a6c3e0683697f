"""Per-iteration samples with their group and metrics, and the per-group sweep summary.

A sweep template (sysbench thread counts, innodb_parallel_read_threads) charts one point per
group per variant: the median over the group's iterations of each metric (tps, qps, p50_ms ...)
and of the iteration seconds.
"""

from collections import defaultdict
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from upgradelab.results.models import Sample
from upgradelab.results.statistics import median
from upgradelab.runs.models import Run


class IterationRow(BaseModel):
    """One iteration: its group ("threads=16"), seconds (sum of statements) and summed metrics."""

    variant_index: int
    variant: str
    iteration: int
    group: str
    elapsed_s: float
    metrics: dict[str, float]


class GroupPoint(BaseModel):
    """Per variant and group: iterations, median seconds and the median of every metric."""

    variant_index: int
    variant: str
    group: str
    iterations: int
    median_s: float | None
    metrics: dict[str, float]


class RunGroups(BaseModel):
    """GET /api/runs/{id}/groups: the iterations and the per-group medians."""

    iterations: list[IterationRow]
    groups: list[GroupPoint]


async def run_groups(session: AsyncSession, run: Run) -> RunGroups:
    """Iterations in order and their per-group medians (metrics from sample.metrics, numbers only)."""
    samples = await session.scalars(
        select(Sample)
        .where(Sample.run_id == run.id)
        .order_by(Sample.variant_index, Sample.iteration, Sample.id)
    )
    rows: dict[tuple[int, int], IterationRow] = {}
    for sample in samples:
        key = (sample.variant_index, sample.iteration)
        row = rows.get(key)
        if row is None:
            row = rows[key] = IterationRow(
                variant_index=sample.variant_index,
                variant=sample.variant,
                iteration=sample.iteration,
                group=sample.label,
                elapsed_s=0.0,
                metrics={},
            )
        row.elapsed_s += sample.elapsed_s
        for name, value in (sample.metrics or {}).items():
            if isinstance(value, int | float):
                row.metrics[name] = row.metrics.get(name, 0.0) + float(value)
    by_group: dict[tuple[int, str], list[IterationRow]] = defaultdict(list)
    for row in rows.values():
        by_group[(row.variant_index, row.group)].append(row)
    points = []
    for (variant_index, group), members in by_group.items():
        names: set[str] = {name for member in members for name in member.metrics}
        metrics: dict[str, Any] = {}
        for name in sorted(names):
            value = median([m.metrics[name] for m in members if name in m.metrics])
            if value is not None:
                metrics[name] = value
        points.append(
            GroupPoint(
                variant_index=variant_index,
                variant=members[0].variant,
                group=group,
                iterations=len(members),
                median_s=median([m.elapsed_s for m in members]),
                metrics=metrics,
            )
        )
    return RunGroups(iterations=list(rows.values()), groups=points)
