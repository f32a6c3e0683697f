"""The worker's writes to the run and run_variant rows (status, progress, schedule, context), each
published to the run's stream after its commit when a viewer cares (streaming/publisher)."""

from typing import Any

from sqlalchemy import select

from upgradelab.db import sync_session, utcnow
from upgradelab.experiments.models import Run, RunVariant, VariantStatus
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.models import Target


def set_run(run_id: int, **fields: Any) -> None:
    """Write fields of the run row and publish the status-like ones; a run already final (ended by
    the reaper or a cancel meanwhile) is left as it is."""
    with sync_session() as session:
        run = session.get(Run, run_id)
        if run is None or run.status.is_final:
            return
        for name, value in fields.items():
            setattr(run, name, value)
        session.commit()
    publish_status(run_id, fields)


def cancel_requested(run_id: int) -> bool:
    """Whether the user asked to cancel the run."""
    with sync_session() as session:
        return bool(session.scalars(select(Run.cancel_requested).where(Run.id == run_id)).one())


def add_variants(run_id: int, variants: list[tuple[str, str, bool]]) -> None:
    """One pending run_variant row per (name, target, is_aa_control), in variant order."""
    with sync_session() as session:
        session.add_all(
            RunVariant(run_id=run_id, variant_index=index, name=name, target=target, is_aa_control=aa)
            for index, (name, target, aa) in enumerate(variants)
        )
        session.commit()


def set_variant(run_id: int, variant_index: int, **fields: Any) -> None:
    """Write fields of one run_variant row (status, error, context columns, timestamps)."""
    with sync_session() as session:
        row = session.scalars(
            select(RunVariant).where(RunVariant.run_id == run_id, RunVariant.variant_index == variant_index)
        ).one()
        for name, value in fields.items():
            setattr(row, name, value)
        session.commit()


def finish_variants(run_id: int, completed: bool, reason: str) -> None:
    """At the run's end, every variant still pending or running gets its final status: succeeded
    when the schedule went to its end (`completed`), else failed with `reason` (cancelled, crashed)."""
    with sync_session() as session:
        rows = session.scalars(
            select(RunVariant).where(
                RunVariant.run_id == run_id,
                RunVariant.status.in_([VariantStatus.pending, VariantStatus.running]),
            )
        )
        for row in rows:
            if completed and row.status == VariantStatus.running:
                row.status = VariantStatus.succeeded
            else:
                row.status, row.error = VariantStatus.failed, row.error or reason
            row.finished_at = row.finished_at or utcnow()
        session.commit()


def record_version(target_name: str, version: str) -> None:
    """Remember the target's SELECT VERSION() on its row."""
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == target_name)).one()
        target.version = version
        session.commit()
