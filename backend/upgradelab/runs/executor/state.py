"""The one writer of a run's state in the worker: what one step of the run changes (its status,
progress, schedule, context, current variant; its variants' status, error, context and timestamps;
a target's version) is gathered in a `Change` and written by `write` in one session and one commit,
then the status-like fields published to the run's stream (streaming/publisher). The runner
(runs/executor/runner.py), its blocks and the run-end hook (runs/executor/jobs.py) write nothing else.

    state.write(run_id, Change().run(current_variant=2))             # a block starts
    state.write(run_id, Change().variant(1, status=..., error=...)
                                .run(progress=None))                 # a variant failed
"""

from dataclasses import dataclass, field
from typing import Any, Self

from pydantic import BaseModel
from sqlalchemy import select

from upgradelab.db import sync_session, utcnow
from upgradelab.runs.models import Run, RunVariant, VariantStatus
from upgradelab.streaming.publisher import publish_status
from upgradelab.targets.models import Target


@dataclass
class Change:
    """What one step changes, gathered before it is written (each method returns the Change)."""

    run_fields: dict[str, Any] = field(default_factory=dict)
    variant_fields: dict[int, dict[str, Any]] = field(default_factory=dict)
    new_variants: list[tuple[str, str, bool]] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    finished: tuple[bool, str] | None = None

    def run(self, **fields: Any) -> Self:
        """Fields of the run row (status, progress, schedule, context, current_variant, ...)."""
        self.run_fields.update(fields)
        return self

    def variant(self, index: int, **fields: Any) -> Self:
        """Fields of the run_variant row of variant `index` (status, error, context, timestamps)."""
        self.variant_fields.setdefault(index, {}).update(fields)
        return self

    def add_variants(self, variants: list[tuple[str, str, bool]]) -> Self:
        """One pending run_variant row per (name, target, is_aa_control), in variant order."""
        self.new_variants.extend(variants)
        return self

    def version(self, target_name: str, version: str) -> Self:
        """The target's SELECT VERSION(), remembered on its row."""
        self.versions[target_name] = version
        return self

    def finish_variants(self, completed: bool, reason: str) -> Self:
        """At the run's end, every variant still pending or running gets its final status: succeeded
        when the schedule went to its end (`completed`), else failed with `reason`."""
        self.finished = (completed, reason)
        return self


@dataclass(frozen=True)
class Seen:
    """What `write` read in the same session: whether the run was already final (nothing written)
    and whether the user asked to cancel it."""

    final: bool
    cancel_requested: bool


def write(run_id: int, change: Change) -> Seen:
    """Write `change` in one session and one commit, then publish its status-like run fields. A run
    already final (ended by the reaper or a cancel meanwhile) is left as it is (only a target's
    version is still remembered). An empty Change only reads (the cancel check)."""
    with sync_session() as session:
        run = session.get(Run, run_id)
        final = run is None or run.status.is_final
        cancel = bool(run is not None and run.cancel_requested)
        for name, version in change.versions.items():
            target = session.scalars(select(Target).where(Target.name == name)).one()
            target.version = version
        if not final:
            _apply(session, run_id, run, change)
        if change.versions or not final:
            session.commit()
    if not final and change.run_fields:
        publish_status(run_id, _as_json(change.run_fields))
    return Seen(final, cancel)


def _as_json(fields: dict[str, Any]) -> dict[str, Any]:
    """The run's fields as the stream carries them: a typed value (RunProgress) as the JSON it was
    given as (its fields set, so an event has the keys it had when progress was a dict)."""
    return {
        name: value.model_dump(mode="json", exclude_unset=True) if isinstance(value, BaseModel) else value
        for name, value in fields.items()
    }


def cancel_requested(run_id: int) -> bool:
    """Whether the user asked to cancel the run (a read only, between iterations)."""
    with sync_session() as session:
        return bool(session.scalars(select(Run.cancel_requested).where(Run.id == run_id)).one())


def _apply(session: Any, run_id: int, run: Any, change: Change) -> None:
    for name, value in change.run_fields.items():
        setattr(run, name, value)
    session.add_all(
        RunVariant(run_id=run_id, variant_index=index, name=name, target=target, is_aa_control=aa)
        for index, (name, target, aa) in enumerate(change.new_variants)
    )
    if change.variant_fields or change.finished:
        session.flush()
        rows = {
            row.variant_index: row
            for row in session.scalars(select(RunVariant).where(RunVariant.run_id == run_id))
        }
        for index, fields in change.variant_fields.items():
            for name, value in fields.items():
                setattr(rows[index], name, value)
        if change.finished is not None:
            completed, reason = change.finished
            for row in rows.values():
                if row.status not in (VariantStatus.pending, VariantStatus.running):
                    continue
                if completed and row.status == VariantStatus.running:
                    row.status = VariantStatus.succeeded
                else:
                    row.status, row.error = VariantStatus.failed, row.error or reason
                row.finished_at = row.finished_at or utcnow()
