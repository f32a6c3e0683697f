"""Per-iteration samples with their group and metrics, and the per-group sweep summary.

A sweep template (sysbench thread counts, innodb_parallel_read_threads) charts one point per
group per variant: the median over the group's iterations of each metric (tps, qps, p50_ms ...)
and of the iteration seconds.
"""

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, TypeAdapter
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from upgradelab.results.stats.statistics import median
from upgradelab.results.store import digests
from upgradelab.results.store.digests import DigestName
from upgradelab.results.store.models import GroupPoint, iteration_columns
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


_POINTS = TypeAdapter(list[GroupPoint])


class RunGroups(BaseModel):
    """GET /api/runs/{id}/groups: the iterations and the per-group medians."""

    iterations: list[IterationRow]
    groups: list[GroupPoint]


async def run_groups(session: AsyncSession, run: Run, with_iterations: bool = True) -> RunGroups:
    """Iterations in order and their per-group medians, from the iteration table (seconds and summed
    metrics stored when each iteration ended; metrics are numbers only). with_iterations=False leaves
    `iterations` empty: the medians alone, a response that does not grow with the run's length (a
    finished run's as stored at its end, results/store/digests.py, when it has them)."""
    if not with_iterations and run.status.is_final:
        stored = await digests.get(session, run.id, DigestName.GROUP_MEDIANS, _POINTS)
        if stored is not None:
            return RunGroups(iterations=[], groups=stored)
    return _summarize(run, await session.execute(iteration_columns(run.id)), with_iterations)


def store_group_medians_in(session: Session, run: Run) -> None:
    """Compute the run's per-group medians from its iterations and store them (run end); the caller
    commits."""
    summary = _summarize(run, session.execute(iteration_columns(run.id)), with_iterations=False)
    digests.put_in(session, run.id, DigestName.GROUP_MEDIANS, summary.groups)


def _summarize(
    run: Run,
    stored: Iterable[tuple[int, int, int, str, float, dict[str, Any] | None]],
    with_iterations: bool,
) -> RunGroups:
    variants = [variant.name for variant in run.experiment.variants]
    rows: list[IterationRow] = []
    # (variant, group) -> seconds, and metric name -> values: medians without a model object per iteration
    seconds: dict[tuple[int, str], list[float]] = defaultdict(list)
    values: dict[tuple[int, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for variant_index, iteration, round_, group, elapsed_s, raw in stored:
        metrics = {k: float(v) for k, v in (raw or {}).items() if isinstance(v, int | float)}
        seconds[(variant_index, group)].append(elapsed_s)
        for name, value in metrics.items():
            values[(variant_index, group)][name].append(value)
        if with_iterations:
            rows.append(
                IterationRow(
                    variant_index=variant_index,
                    variant=_name(variants, variant_index),
                    iteration=iteration,
                    round=round_,
                    group=group,
                    elapsed_s=elapsed_s,
                    metrics=metrics,
                )
            )
    points = []
    for (variant_index, group), times in seconds.items():
        by_name = values[(variant_index, group)]
        metrics_median: dict[str, Any] = {}
        for name in sorted(by_name):
            middle = median(by_name[name])
            if middle is not None:
                metrics_median[name] = middle
        points.append(
            GroupPoint(
                variant_index=variant_index,
                variant=_name(variants, variant_index),
                group=group,
                iterations=len(times),
                median_s=median(times),
                metrics=metrics_median,
            )
        )
    return RunGroups(iterations=rows, groups=points)


def _name(variants: list[str], index: int) -> str:
    return variants[index] if index < len(variants) else ""
