"""The verdict table stored when a run ends (variant_summary), and reading it back."""

import logging
from typing import cast

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from upgradelab.db import sync_session
from upgradelab.experiments.models import Run
from upgradelab.probes.series import store_probe_series_in
from upgradelab.results import rounds, verdicts
from upgradelab.results.groups import store_group_medians_in
from upgradelab.results.series_store import store_series_in
from upgradelab.results.statements import store_statements_in
from upgradelab.results.summary_models import VariantSummary
from upgradelab.results.verdict_table import VerdictRow, table
from upgradelab.workloads.base import PrimaryMetric

log = logging.getLogger(__name__)


def to_stored(row: VerdictRow) -> VariantSummary:
    """A verdict row as a variant_summary row; verdict, reason and mde at the default threshold."""
    found, floor = row.interval, row.floor
    decision = row.decision(verdicts.DEFAULT_THRESHOLD)
    return VariantSummary(
        run_id=row.run_id,
        variant_index=row.variant_index,
        variant=row.variant,
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
        total_s=row.total_s,
        median=row.median,
        p95=row.p95,
        ratio=found and found.ratio,
        ratio_low=found and found.low,
        ratio_high=found and found.high,
        ratio_rounds=found and found.rounds,
        method=found and found.method,
        verdict=decision and decision.verdict,
        reason=decision and decision.reason,
        mde=found and found.mde,
        aa_ratio=floor and floor.ratio,
        aa_low=floor and floor.low,
        aa_high=floor and floor.high,
        aa_rounds=floor and floor.rounds,
        round_values=None if row.round_values is None else {str(r): v for r, v in row.round_values.items()},
    )


def _interval(
    ratio: float | None, low: float | None, high: float | None, rounds_: int | None, method: str | None
) -> verdicts.Interval | None:
    if ratio is None or low is None or high is None or rounds_ is None or method is None:
        return None
    return verdicts.Interval(ratio, low, high, rounds_, cast(verdicts.Method, method))


def from_stored(stored: VariantSummary) -> VerdictRow:
    """The verdict row a variant_summary row was made from."""
    return VerdictRow(
        run_id=stored.run_id,
        variant_index=stored.variant_index,
        variant=stored.variant,
        is_aa_control=stored.is_aa_control,
        group=stored.group,
        metric=PrimaryMetric(stored.metric, stored.unit, stored.higher_is_better),
        iterations=stored.iterations,
        rounds=stored.rounds,
        median_s=stored.median_s,
        p95_s=stored.p95_s,
        mean_s=stored.mean_s,
        total_s=stored.total_s,
        median=stored.median,
        p95=stored.p95,
        interval=_interval(
            stored.ratio, stored.ratio_low, stored.ratio_high, stored.ratio_rounds, stored.method
        ),
        floor=_interval(stored.aa_ratio, stored.aa_low, stored.aa_high, stored.aa_rounds, "paired rounds"),
        round_values=None
        if stored.round_values is None
        else {int(r): float(v) for r, v in stored.round_values.items()},
    )


def compute_summary(session: Session, run: Run) -> list[VerdictRow]:
    """The run's verdict table: all iterations, against its first variant."""
    loaded = rounds.load(session, run)
    return table([loaded], loaded.variants[0]) if loaded.variants else []


def stored_summary(session: Session, run_id: int) -> list[VerdictRow]:
    """The stored rows in variant, group and metric order ([] when none was stored)."""
    rows = session.scalars(
        select(VariantSummary).where(VariantSummary.run_id == run_id).order_by(VariantSummary.id)
    )
    return [from_stored(row) for row in rows]


OPEN = {"inconclusive", "insufficient rounds"}


def undecided(run_id: int, skip: set[int]) -> bool:
    """Whether a verdict of the run is still open at the default threshold (inconclusive or
    insufficient rounds), on the iterations stored so far: the auto-extension's question (runs/plan.py
    `extensions`). Every variant counts but those in `skip` (failed); the A/A control too, since the
    others are judged against its floor and a floor wider than the threshold decides nothing."""
    with sync_session() as session:
        run = session.get(Run, run_id)
        rows = compute_summary(session, run) if run is not None else []
    for row in rows:
        decision = row.decision(verdicts.DEFAULT_THRESHOLD) if row.variant_index not in skip else None
        if decision is not None and decision.verdict in OPEN:
            return True
    return False


def store_summary_in(session: Session, run_id: int) -> list[VerdictRow]:
    """(Re)compute and store the run's verdict table, its packed iteration series (results/
    series_store.py), its statement table and group medians (results/digests.py) and its probe columns
    (probes/series.py) in `session`; commits.
    [] for an unknown run."""
    run = session.get(Run, run_id)
    if run is None:
        return []
    session.execute(delete(VariantSummary).where(VariantSummary.run_id == run_id))
    rows = compute_summary(session, run)
    session.add_all([to_stored(row) for row in rows])
    series = store_series_in(session, run)
    store_statements_in(session, run)
    store_group_medians_in(session, run)
    store_probe_series_in(session, run, client=series)
    session.commit()
    return rows


def store_summary(run_id: int) -> None:
    """Worker hook at the end of a run; never raises (a failed summary is recomputed on first read)."""
    try:
        with sync_session() as session:
            store_summary_in(session, run_id)
    except Exception:
        log.exception("summary of run %s", run_id)
