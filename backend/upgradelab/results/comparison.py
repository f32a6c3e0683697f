"""Compare variants within a run or across runs: median, p95, ratio to a baseline with bootstrap 95%
intervals and a verdict at the user's threshold (results/bootstrap.py).

The default comparison of a finished run (its own variants, baseline variant 0, no warm-up cut) is
read from variant_summary, stored once when the run ended; other choices are computed on request.
"""

from sqlalchemy import select
from sqlalchemy.orm import Session

from upgradelab.errors import field_error
from upgradelab.results import bootstrap
from upgradelab.results.comparison_schemas import (
    Comparison,
    ComparisonQuery,
    ComparisonRow,
    ComparisonSeries,
    RatioRead,
)
from upgradelab.results.downsample import kept_indices
from upgradelab.results.schemas import Point
from upgradelab.results.summary import iteration_times, store_summary_in
from upgradelab.results.summary_models import VariantSummary
from upgradelab.runs.models import Run


def _ratio(ratio: float | None, low: float | None, high: float | None, threshold: float) -> RatioRead | None:
    if ratio is None or low is None or high is None:
        return None
    interval = bootstrap.RatioInterval(ratio, low, high)
    return RatioRead(ratio=ratio, low=low, high=high, verdict=bootstrap.verdict(interval, threshold))


def _downsampled(seconds: list[float], first_iteration: int, max_points: int) -> list[Point]:
    iterations = list(range(first_iteration, first_iteration + len(seconds)))
    return [
        Point.model_construct(iteration=iterations[k], elapsed_s=seconds[k])
        for k in kept_indices(iterations, seconds, max_points)
    ]


def _ratio_of(interval: bootstrap.RatioInterval | None, threshold: float) -> RatioRead | None:
    if interval is None:
        return None
    return _ratio(interval.ratio, interval.low, interval.high, threshold)


def compare(
    session: Session, query: ComparisonQuery, max_points: int, with_series: bool = True
) -> Comparison:
    """The comparison (sync: bootstrap is CPU work, the API runs this in a thread).

    with_series=False leaves `series` empty (a verdict table needs no chart data).

    Errors: 404-shaped 422 on `runs` for an unknown run, on `baseline` for a key not among the variants.
    """
    runs: list[Run] = []
    for position, run_id in enumerate(query.runs):
        run = session.get(Run, run_id)
        if run is None:
            raise field_error(["query", "runs", position], f"run {run_id} not found")
        runs.append(run)
    times: dict[str, list[float]] = {}
    labels: dict[str, tuple[Run, int, str]] = {}
    first: dict[str, int] = {}  # iteration number of times[key][0]
    for run in runs:
        per_variant = iteration_times(session, run.id)
        for index, variant in enumerate(run.experiment.variants):
            key = f"{run.id}:{index}"
            all_times = per_variant.get(index, [])
            times[key] = all_times[query.warmup :]
            first[key] = query.warmup + 1
            labels[key] = (run, index, variant["name"])
    baseline = query.baseline or f"{runs[0].id}:0"
    if baseline not in times:
        raise field_error(["query", "baseline"], f"{baseline} is not one of the compared variants")
    stored = _stored_rows(session, runs[0], query, baseline)
    replicates = (
        {}
        if stored or not times[baseline]
        else {
            name: bootstrap.distribution(times[baseline], name, bootstrap.SEED)
            for name in bootstrap.STATISTICS
        }
    )
    rows = []
    for key, values in times.items():
        run, index, variant = labels[key]
        label = variant if len(runs) == 1 else f"#{run.id} {variant}"
        summary = stored.get(key)
        if summary is not None:
            median = _ratio(
                summary.median_ratio, summary.median_ratio_low, summary.median_ratio_high, query.threshold
            )
            p95 = _ratio(summary.p95_ratio, summary.p95_ratio_low, summary.p95_ratio_high, query.threshold)
            numbers = (summary.iterations, summary.median_s, summary.p95_s, summary.mean_s)
        else:
            median_ci = bootstrap.ratio_interval(times[baseline], values, "median", replicates.get("median"))
            p95_ci = bootstrap.ratio_interval(times[baseline], values, "p95", replicates.get("p95"))
            median = _ratio_of(median_ci, query.threshold)
            p95 = _ratio_of(p95_ci, query.threshold)
            mean = sum(values) / len(values) if values else None
            numbers = (
                len(values),
                bootstrap.statistic(values, "median"),
                bootstrap.statistic(values, "p95"),
                mean,
            )
        rows.append(
            ComparisonRow(
                key=key,
                run_id=run.id,
                run_name=run.name or run.experiment.name,
                variant_index=index,
                variant=variant,
                label=label,
                is_baseline=key == baseline,
                iterations=numbers[0],
                median_s=numbers[1],
                p95_s=numbers[2],
                mean_s=numbers[3],
                median=median,
                p95=p95,
            )
        )
    series = [
        ComparisonSeries(
            key=row.key,
            label=row.label,
            points=_downsampled(times[row.key], first[row.key], max_points),
            total_points=len(times[row.key]),
        )
        for row in rows
        if with_series
    ]
    return Comparison(
        query=query,
        baseline=baseline,
        confidence=bootstrap.CONFIDENCE,
        resamples=bootstrap.RESAMPLES,
        seed=bootstrap.SEED,
        stored=bool(stored),
        rows=rows,
        series=series,
    )


def _stored_rows(
    session: Session, run: Run, query: ComparisonQuery, baseline: str
) -> dict[str, VariantSummary]:
    """The stored summary when the query is the default one of a finished run; computed once if missing."""
    if len(query.runs) != 1 or query.warmup != 0 or baseline != f"{run.id}:0" or not run.status.is_final:
        return {}
    rows = list(session.scalars(select(VariantSummary).where(VariantSummary.run_id == run.id)))
    if len(rows) != len(run.experiment.variants):
        rows = store_summary_in(session, run.id)
    return {f"{row.run_id}:{row.variant_index}": row for row in rows}
