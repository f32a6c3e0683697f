"""The verdict table stored when a run ends (variant_summary), and reading it back."""

import logging

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from upgradelab.db import sync_session
from upgradelab.results.stats import verdicts
from upgradelab.results.store import rounds
from upgradelab.results.store.groups import store_group_medians_in
from upgradelab.results.store.hooks import RunEnd, run_ended
from upgradelab.results.store.series_store import store_series_in
from upgradelab.results.store.statements import store_statements_in
from upgradelab.results.store.summary_models import VariantSummary
from upgradelab.results.store.verdict_table import VerdictRow, table
from upgradelab.runs.models import Run
from upgradelab.workloads.base import PrimaryMetric

log = logging.getLogger(__name__)


def to_stored(row: VerdictRow) -> VariantSummary:
    """A verdict row as a variant_summary row; its verdict and floor as VerdictRead values at the default
    threshold."""
    verdict, floor = row.read(verdicts.DEFAULT_THRESHOLD), row.floor_read(verdicts.DEFAULT_THRESHOLD)
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
        verdict_value=verdict,
        floor_value=floor,
        round_values=row.round_values,
    )


def _interval(value: verdicts.VerdictRead | None) -> verdicts.Interval | None:
    return None if value is None else value.interval()


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
        interval=_interval(stored.verdict_value),
        floor=_interval(stored.floor_value),
        round_values=stored.round_values,
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
    series_store.py), its statement table and group medians (results/store/digests.py) and what the
    run-end hooks add (probes: its packed probe columns; results/store/hooks.py) in `session`; commits.
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
    run_ended(session, RunEnd(run, series))
    session.commit()
    return rows


def store_summary(run_id: int) -> None:
    """Worker hook at the end of a run; never raises (a failed summary is recomputed on first read)."""
    try:
        with sync_session() as session:
            store_summary_in(session, run_id)
    except Exception:
        log.exception("summary of run %s", run_id)
