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

from upgradelab.results.models import Iteration
from upgradelab.results.statistics import median
from upgradelab.runs.models import Run


class IterationRow(BaseModel):
    """One iteration: its group ("threads=16"), round (1-based), seconds (sum of statements) and
    summed metrics."""

    variant_index: int
    variant: str
    iteration: int
    round: int = 1
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
    """Iterations in order and their per-group medians, from the iteration table (seconds and summed
    metrics stored when each iteration ended; metrics are numbers only)."""
    stored = await session.scalars(
        select(Iteration)
        .where(Iteration.run_id == run.id)
        .order_by(Iteration.variant_index, Iteration.iteration)
    )
    variants = [variant["name"] for variant in run.experiment.variants]
    rows: dict[tuple[int, int], IterationRow] = {}
    for one in stored:
        rows[(one.variant_index, one.iteration)] = IterationRow(
            variant_index=one.variant_index,
            variant=variants[one.variant_index] if one.variant_index < len(variants) else "",
            iteration=one.iteration,
            round=one.round,
            group=one.group,
            elapsed_s=one.elapsed_s,
            metrics={k: float(v) for k, v in (one.metrics or {}).items() if isinstance(v, int | float)},
        )
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
