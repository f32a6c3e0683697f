"""Compare variants within a run or across runs, per group and primary metric: median, p95, the ratio
to a baseline with its interval from the rounds, and a verdict at the user's threshold
(results/stats/verdicts.py, results/store/verdict_table.py). Everything is read from the `iteration` table.

The default comparison of a finished run (its own variants, baseline variant 0, no warm-up cut) is
read from variant_summary, stored once when the run ended; other choices are computed on request.
"""

from anyio import to_thread
from sqlalchemy.orm import Session

from upgradelab.db import sync_session
from upgradelab.errors import field_error
from upgradelab.results.stats import bootstrap, verdicts
from upgradelab.results.stats.downsample import DEFAULT_MAX_POINTS, kept_indices
from upgradelab.results.store.rounds import RunRounds, VariantRounds, load
from upgradelab.results.store.summary import store_summary_in, stored_summary
from upgradelab.results.store.verdict_table import VerdictRow, table
from upgradelab.results.views.comparison_schemas import (
    Comparison,
    ComparisonQuery,
    ComparisonRow,
    ComparisonSeries,
    RoundPoint,
    RoundSeries,
)
from upgradelab.results.views.schemas import Point
from upgradelab.runs.models import Run


def _downsampled(variant: VariantRounds, max_points: int) -> list[Point]:
    iterations = [p.iteration for p in variant.points]
    seconds = [p.elapsed_s for p in variant.points]
    return [
        Point.model_construct(iteration=iterations[k], elapsed_s=seconds[k])
        for k in kept_indices(iterations, seconds, max_points)
    ]


def compare(
    session: Session, query: ComparisonQuery, max_points: int, with_series: bool = True
) -> Comparison:
    """The comparison (sync: CPU work, the API runs this in a thread).

    with_series=False leaves `series` empty (a verdict table needs no iteration chart); `rounds`, the
    per-round medians the verdicts rest on (rounds x variants x groups x metrics points), is always there.

    Errors: 422 on `runs` for an unknown run, on `baseline` for a key not among the variants.
    """
    runs: list[Run] = []
    for position, run_id in enumerate(query.runs):
        run = session.get(Run, run_id)
        if run is None:
            raise field_error(["query", "runs", position], f"run {run_id} not found")
        runs.append(run)
    baseline = query.baseline or f"{runs[0].id}:0"
    names = {run.id: run.name or run.experiment.name for run in runs}
    stored = _stored_rows(session, runs[0], query, baseline)
    if stored and not with_series and all(row.round_values is not None for row in stored):
        # the stored table carries the round medians too: no iteration is read
        labels = {f"{row.run_id}:{row.variant_index}": row.variant for row in stored}
        rounds = [
            RoundSeries(
                key=f"{row.run_id}:{row.variant_index}",
                label=row.variant,
                group=row.group,
                metric=row.metric.name,
                points=[RoundPoint(round=r, value=v) for r, v in sorted((row.round_values or {}).items())],
            )
            for row in stored
        ]
        return _comparison(query, baseline, stored, True, labels, names, [], rounds)
    loaded = [load(session, run, query.warmup) for run in runs]
    variants = {f"{v.run_id}:{v.variant_index}": v for one in loaded for v in one.variants}
    if baseline not in variants:
        raise field_error(["query", "baseline"], f"{baseline} is not one of the compared variants")
    rows = stored or table(loaded, variants[baseline])
    labels = {key: v.name if len(runs) == 1 else f"#{v.run_id} {v.name}" for key, v in variants.items()}
    series = [
        ComparisonSeries(
            key=key,
            label=labels[key],
            points=_downsampled(variant, max_points),
            total_points=len(variant.points),
        )
        for key, variant in variants.items()
    ]
    return _comparison(
        query,
        baseline,
        rows,
        bool(stored),
        labels,
        names,
        series if with_series else [],
        _round_series(loaded, labels),
    )


def _comparison(
    query: ComparisonQuery,
    baseline: str,
    rows: list[VerdictRow],
    stored: bool,
    labels: dict[str, str],
    names: dict[int, str],
    series: list[ComparisonSeries],
    rounds: list[RoundSeries],
) -> Comparison:
    return Comparison(
        query=query,
        baseline=baseline,
        confidence=verdicts.CONFIDENCE,
        min_rounds=verdicts.MIN_ROUNDS,
        resamples=bootstrap.RESAMPLES,
        seed=bootstrap.SEED,
        stored=stored,
        rows=[_row(row, baseline, labels, names, query.threshold) for row in rows],
        series=series,
        rounds=rounds,
    )


async def run_comparison(
    query: ComparisonQuery, max_points: int = DEFAULT_MAX_POINTS, with_series: bool = True
) -> Comparison:
    """compare() in a worker thread (bootstrap and round medians are CPU work) with a sync session."""

    def work() -> Comparison:
        with sync_session() as session:
            return compare(session, query, max_points, with_series)

    return await to_thread.run_sync(work)


def _row(
    row: VerdictRow, baseline: str, labels: dict[str, str], names: dict[int, str], threshold: float
) -> ComparisonRow:
    key = f"{row.run_id}:{row.variant_index}"
    return ComparisonRow(
        key=key,
        run_id=row.run_id,
        run_name=names[row.run_id],
        variant_index=row.variant_index,
        variant=row.variant,
        label=labels.get(key, row.variant),
        is_baseline=key == baseline,
        is_aa_control=row.is_aa_control,
        group=row.group,
        metric=row.metric.name,
        unit=row.metric.unit,
        higher_is_better=row.metric.higher_is_better,
        iterations=row.iterations,
        rounds=row.rounds,
        median_s=row.median_s,
        p95_s=row.p95_s,
        mean_s=row.mean_s,
        median=row.median,
        p95=row.p95,
        ratio=row.read(threshold),
        aa_floor=row.floor_read(threshold),
    )


def _round_series(loaded: list[RunRounds], labels: dict[str, str]) -> list[RoundSeries]:
    """Per-round medians per variant, group and metric of the first run's workload."""
    home = loaded[0]
    out = []
    for run in loaded:
        for variant in run.variants:
            key = f"{variant.run_id}:{variant.variant_index}"
            for group in home.groups:
                for metric in home.metrics:
                    values = verdicts.round_values(variant.rounds(group, metric))
                    points = [RoundPoint(round=r, value=v) for r, v in values.items()]
                    out.append(
                        RoundSeries(
                            key=key, label=labels[key], group=group, metric=metric.name, points=points
                        )
                    )
    return out


def _stored_rows(session: Session, run: Run, query: ComparisonQuery, baseline: str) -> list[VerdictRow]:
    """The stored table when the query is the default one of a finished run; computed once if missing."""
    if len(query.runs) != 1 or query.warmup != 0 or baseline != f"{run.id}:0" or not run.status.is_final:
        return []
    return stored_summary(session, run.id) or store_summary_in(session, run.id)
