"""A job's measured workload as another kind reads it (a fix search starts from a finished replay): the
kind that measured it provides a `MeasuredWorkload` through a `WorkloadSource` (its JobKind's
`workload`, execution/kinds.py), and a reader asks `measured_workload(session, kind, job_id)` by the
kind's name among the kinds registered in this process (execution/reaper.py `registered`: the API's
app and the worker register every kind at start, job_kinds.py). The reader never imports the other
kind's package (backend/pyproject.toml's "kinds" contract)."""

from dataclasses import dataclass, field
from typing import Protocol

from sqlalchemy.orm import Session

from upgradelab.execution.reaper import registered
from upgradelab.measurement.shapes import ReplayVariantSpec
from upgradelab.measurement.sources import SourceStatement
from upgradelab.results.stats.verdicts import VerdictRead

# the statement kinds that write (a fix search does not measure an index's cost on them)
WRITE_KINDS = ("insert", "update", "delete", "replace")


@dataclass(frozen=True)
class MeasuredWorkload:
    """What job `job_id` of kind `kind` measured, as stored by it: its `status` (a JobStatus value);
    its `variants` (ReplayVariantSpec each, the baseline first, an A/A control flagged `aa_control`);
    the sampled
    `statements` replayed (SourceStatement each, in order) and the `skipped_writes` a read-only job
    left out (`allow_writes`: whether it replayed its writes); its `dataset_id`, the bound of every
    statement `statement_timeout_s` (seconds) and `passes` per block; `aa_control`: the A/A control
    variant's name (None without one) and `floors`: that control's ratio against the baseline per
    fingerprint id (VerdictRead: ratio, low, high; only fingerprints it measured)."""

    kind: str
    job_id: int
    status: str
    variants: list[ReplayVariantSpec]
    statements: list[SourceStatement]
    skipped_writes: list[SourceStatement]
    allow_writes: bool
    dataset_id: int
    statement_timeout_s: float
    passes: int
    aa_control: str | None = None
    floors: dict[str, VerdictRead] = field(default_factory=dict)

    def of_fingerprint(self, fingerprint_id: str) -> list[SourceStatement]:
        """The sampled statements of fingerprint `fingerprint_id`, in order ([] when none was)."""
        return [s for s in self.statements if s.fingerprint_id == fingerprint_id]

    def other_fingerprints(self, fingerprint_id: str) -> list[tuple[str, str, list[SourceStatement]]]:
        """The fingerprints other than `fingerprint_id`, in the workload's order: (id, text, its sampled
        statements)."""
        grouped: dict[str, tuple[str, list[SourceStatement]]] = {}
        for one in self.statements:
            if one.fingerprint_id != fingerprint_id:
                grouped.setdefault(one.fingerprint_id, (one.fingerprint, []))[1].append(one)
        return [(fingerprint_id, text, statements) for fingerprint_id, (text, statements) in grouped.items()]

    def write_count(self) -> int:
        """Its write statements (WRITE_KINDS): those left out (`skipped_writes`) and those replayed
        when it allowed writes."""
        replayed = [s for s in self.statements if s.kind.lower() in WRITE_KINDS]
        return len(self.skipped_writes) + (len(replayed) if self.allow_writes else 0)


class WorkloadSource(Protocol):
    """How a kind provides its jobs' measured workloads (its JobKind's `workload`, execution/kinds.py):
    job `job_id`'s MeasuredWorkload read in `session` (a sync SQLAlchemy session), None when the job
    is gone."""

    def __call__(self, session: Session, job_id: int) -> MeasuredWorkload | None: ...


def measured_workload(session: Session, kind: str, job_id: int) -> MeasuredWorkload | None:
    """The measured workload of job (`kind`, `job_id`), read in `session` through the registered kind's
    `workload` (a WorkloadSource); None when the job is gone. LookupError naming the kind when no kind
    of that name is registered in this process or it provides no workload; TypeError when its
    source returns something else than a MeasuredWorkload."""
    found = next((one for one in registered() if one.name == kind), None)
    if found is None or found.workload is None:
        raise LookupError(
            f"job kind {kind!r}: not registered with a measured workload (its JobKind's workload)"
        )
    workload = found.workload(session, job_id)
    if workload is not None and not isinstance(workload, MeasuredWorkload):
        raise TypeError(
            f"job kind {kind!r}: its workload gave {type(workload).__name__}, not a MeasuredWorkload"
        )
    return workload
