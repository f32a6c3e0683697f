"""The per-variant summary stored when a run ends (variant_summary), and reading it back."""

import logging
from collections import defaultdict

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from upgradelab.db import sync_session
from upgradelab.results.bootstrap import SEED, STATISTICS, distribution, ratio_interval, statistic
from upgradelab.results.models import Sample
from upgradelab.results.summary_models import VariantSummary
from upgradelab.runs.models import Run

log = logging.getLogger(__name__)


def iteration_times(session: Session, run_id: int) -> dict[int, list[float]]:
    """variant_index -> per-iteration seconds in iteration order (SUM of sample.elapsed_s per iteration)."""
    rows = session.execute(
        select(Sample.variant_index, Sample.iteration, func.sum(Sample.elapsed_s))
        .where(Sample.run_id == run_id)
        .group_by(Sample.variant_index, Sample.iteration)
        .order_by(Sample.variant_index, Sample.iteration)
    )
    times: dict[int, list[float]] = defaultdict(list)
    for variant_index, _iteration, seconds in rows.tuples():
        times[variant_index].append(float(seconds))
    return times


def compute_summary(session: Session, run: Run) -> list[VariantSummary]:
    """One row per variant of `run` (all iterations), ratios to the first variant with bootstrap intervals."""
    times = iteration_times(session, run.id)
    baseline = times.get(0, [])
    replicates = {name: distribution(baseline, name, SEED) for name in STATISTICS} if baseline else {}
    rows = []
    for index, variant in enumerate(run.experiment.variants):
        values = times.get(index, [])
        median_ci = ratio_interval(baseline, values, "median", replicates.get("median"))
        p95_ci = ratio_interval(baseline, values, "p95", replicates.get("p95"))
        rows.append(
            VariantSummary(
                run_id=run.id,
                variant_index=index,
                variant=variant["name"],
                iterations=len(values),
                median_s=statistic(values, "median"),
                p95_s=statistic(values, "p95"),
                mean_s=sum(values) / len(values) if values else None,
                total_s=sum(values),
                median_ratio=median_ci and median_ci.ratio,
                median_ratio_low=median_ci and median_ci.low,
                median_ratio_high=median_ci and median_ci.high,
                p95_ratio=p95_ci and p95_ci.ratio,
                p95_ratio_low=p95_ci and p95_ci.low,
                p95_ratio_high=p95_ci and p95_ci.high,
            )
        )
    return rows


def store_summary_in(session: Session, run_id: int) -> list[VariantSummary]:
    """(Re)compute and store the run's summary rows in `session`; commits."""
    run = session.get(Run, run_id)
    if run is None:
        return []
    session.execute(delete(VariantSummary).where(VariantSummary.run_id == run_id))
    rows = compute_summary(session, run)
    session.add_all(rows)
    session.commit()
    return rows


def store_summary(run_id: int) -> None:
    """Worker hook at the end of a run; never raises (a failed summary is recomputed on first read)."""
    try:
        with sync_session() as session:
            store_summary_in(session, run_id)
    except Exception:
        log.exception("summary of run %s", run_id)
