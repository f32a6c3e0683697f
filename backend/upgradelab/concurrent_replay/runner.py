"""A concurrent replay on the worker, through the lifecycle every job shares
(execution/lifecycle.py: its targets' locks, the lease and its heartbeat, the final state on every
exit path). The body:

1. plan the rounds: `rounds` rounds, each variant one trial a round, the order of each round
   shuffled from the stored seed (the job's id; execution/schedule.py plan, stored before any
   server starts);
2. prepare each variant's instance (a slot of its target, execution/instances.py Slots: an A/A
   control on the baseline's target gets a slot of its own): the dataset loaded or reused, the
   writer account given the dataset's databases only, the datadir kept aside
   (measurement prepare_trials);
3. the trials in the planned order, one at a time, each from a copy of its variant's kept datadir:
   copy, start (the variant's SET GLOBAL and instance statements applied once it is up, its SET
   SESSION on every session's connection), the sessions run together, checksums, stop (measurement
   run_trial); each trial's record stored and streamed as it ends;
4. decide (decide.py) and store the report.
Every instance's kept copy is put back as its datadir at the end, whatever happened
(measurement restore_datadir: the dataset as loaded, for the next job to reuse).

Only lab instances: a target whose provisioner is not a local one (an existing server, docker) or
that is not disposable is refused naming it (the replay writes). One server runs at a time (each
trial's), so no memory is checked beyond one instance's.

Cancel (its route sets `cancel_requested`): the watch (execution/cancel.py) is read in every phase:
while the dump loads, between copy blocks, once the server is up, every CANCEL_POLL_S inside a
trial (the statements running are killed) and between tables of the checksums. The replay ends
`cancelled` with a partial report of the trials that ended (none when none did).
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass

from redis import Redis
from sqlalchemy import select

from upgradelab.concurrent_replay import state
from upgradelab.concurrent_replay.decide import decide
from upgradelab.concurrent_replay.jobs import CONCURRENT_REPLAY_JOBS
from upgradelab.concurrent_replay.models import ConcurrentReplay
from upgradelab.concurrent_replay.report import TrialRecord
from upgradelab.concurrent_replay.schemas import ConcurrentProgress, Step
from upgradelab.datasets.fetch import local_dump
from upgradelab.datasets.loader import LoadFailed
from upgradelab.datasets.models import Dataset
from upgradelab.datasets.service import database_of
from upgradelab.db import sync_session
from upgradelab.execution.cancel import CancelWatch
from upgradelab.execution.instances import Slots
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease, LeaseLost
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.schedule import RunSchedule, plan
from upgradelab.execution.status import JobStatus
from upgradelab.measurement import (
    DatadirCopyError,
    DriverBounds,
    DriverError,
    DumpDataset,
    ReplayVariantSpec,
    Session,
    TrialMeasure,
    TrialPhase,
    TrialTarget,
    VariantSettings,
    prepare_trials,
    restore_datadir,
    run_trial,
)
from upgradelab.settings import Settings, get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner, ProvisionError

log = logging.getLogger(__name__)

CANCEL_POLL_S = 0.5
# statement results one trial keeps (each a StatementRun): past it the trial stops, its `stopped`
# "memory" (session_driver.py DriverBounds). Measured at this bound: 177 MB of Python memory over the
# whole trial, 354 bytes a result with its summary (tracemalloc's peak over run_trial;
# bench/concurrent_replay.py --cases memory, bench/README.md), 753 MB before StatementRun was slotted
MAX_RESULTS = 500_000


@dataclass
class _Job:
    """What the body needs of a queued concurrent replay, read before its lease is claimed."""

    job_id: int
    dataset: Dataset | None
    specs: list[ReplayVariantSpec]
    sessions: list[Session]
    rounds: int
    speed: float
    timeout_s: float
    bounds: DriverBounds
    targets: dict[str, Target]


def _load(job_id: int) -> _Job | None:
    with sync_session() as session:
        row = session.get(ConcurrentReplay, job_id)
        if row is None or row.status != JobStatus.queued:
            return None
        names = [v.target for v in row.variants]
        targets = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(names)))}
        dataset = session.get(Dataset, row.dataset_id)
        for one in [*targets.values(), *([dataset] if dataset else [])]:
            session.expunge(one)
        bounds = DriverBounds(
            max_sessions=row.max_sessions, max_duration_s=row.max_trial_s, max_results=MAX_RESULTS
        )
        return _Job(
            job_id, dataset, list(row.variants), list(row.sessions.sessions), row.rounds, row.speed,
            row.statement_timeout_s, bounds, targets,
        )  # fmt: skip


def execute_concurrent_replay(job_id: int, redis: Redis, settings: Settings | None = None) -> str | None:
    """Run a queued concurrent replay to its final status (None when it was not queued, or its
    lease was lost and the reaper ended it). TargetsBusy (execution/locks.py) while a target is
    locked."""
    settings = settings or get_settings()
    job = _load(job_id)
    if job is None:
        return None
    body = lambda lease: _execute(job, settings, lease)  # noqa: E731
    return execute(CONCURRENT_REPLAY_JOBS, job_id, list(job.targets.values()), redis, settings, body)


def _instances(job: _Job, settings: Settings) -> list[LocalProvisioner]:
    """Each variant's instance (a slot of its target, in variant order); ProvisionError naming a
    target that is missing, not disposable or not a lab instance the lab copies."""
    slots = Slots(settings)
    out: list[LocalProvisioner] = []
    for index, spec in enumerate(job.specs):
        target = job.targets.get(spec.target)
        if target is None:
            raise ProvisionError(f"variant {spec.name!r}: target {spec.target!r} does not exist")
        if not target.disposable:
            raise ProvisionError(
                f"variant {spec.name!r}: target {target.name} is not disposable (the replay writes)"
            )
        provisioner = slots.provisioner(target)
        if not isinstance(provisioner, LocalProvisioner):
            raise ProvisionError(
                f"variant {spec.name!r}: target {target.name} is a {provisioner.kind} target; a concurrent "
                "replay copies a lab instance's datadir for every trial (local targets only)"
            )
        slots.keep(target, provisioner, spec.options, index)
        out.append(provisioner)
    return out


class _Progress:
    """The replay's progress, written and streamed (state.write) at each step."""

    def __init__(self, job: _Job) -> None:
        self.job, self.done = job, 0

    def __call__(self, step: Step, index: int | None = None, round: int | None = None) -> None:
        specs = self.job.specs
        progress = ConcurrentProgress(
            step=step,
            variant=specs[index].name if index is not None else None,
            index=index,
            of=len(specs),
            round=round,
            rounds=self.job.rounds,
            trials_done=self.done,
            trials_planned=self.job.rounds * len(specs),
        )
        state.write(self.job.job_id, progress=progress.model_dump(mode="json"))

    def phase_of(self, index: int, round: int) -> Callable[[TrialPhase], None]:
        """The step callback of one trial (run_trial's `step`): each phase written as it begins."""
        return lambda phase: self(phase, index, round)


def _record(name: str, round: int, position: int, measure: TrialMeasure) -> TrialRecord:
    return TrialRecord(
        variant=name, round=round, position=position, copy_s=measure.datadir_copy.seconds,
        copy_bytes=measure.datadir_copy.bytes, start_s=measure.start_s, summary=measure.summary,
        locks=measure.locks, checksums=measure.checksums,
    )  # fmt: skip


def _execute(job: _Job, settings: Settings, lease: Lease) -> Ending:
    """The replay while its lease is held: how it ends (module docstring)."""
    names = [spec.name for spec in job.specs]
    aa = next((spec.name for spec in job.specs if spec.aa_control), None)
    records: list[TrialRecord] = []
    prepared: list[TrialTarget] = []
    progress = _Progress(job)
    watch = CancelWatch.of(CONCURRENT_REPLAY_JOBS, job.job_id, poll_s=CANCEL_POLL_S)
    ending = Ending(JobStatus.failed)
    try:
        with watch:
            dataset = job.dataset
            if dataset is None or dataset.deleted_at is not None:
                raise LoadFailed("the dataset was deleted", line=None, code=None)
            dump = DumpDataset(local_dump(dataset, settings), dataset.sha256, database_of(dataset.name))
            schedule = plan("interleaved", job.rounds, 1, job.job_id, len(job.specs))
            stored = RunSchedule.model_validate(schedule.as_json())
            state.write(job.job_id, schedule=stored.model_dump(mode="json"))
            for index, provisioner in enumerate(_instances(job, settings)):
                progress("preparing", index)
                spec = job.specs[index]
                own = VariantSettings(spec.options, spec.set_global, spec.set_session, spec.instance)
                kept = prepare_trials(
                    provisioner, spec.options, dump, cancelled=watch.cancelled, name=spec.name, settings=own
                )
                prepared.append(kept)
            for number, order in enumerate(schedule.order, start=1):
                for position, index in enumerate(order):
                    lease.check()
                    measure = run_trial(
                        prepared[index], job.sessions, speed=job.speed, timeout_s=job.timeout_s,
                        bounds=job.bounds, cancelled=watch.cancelled,
                        step=progress.phase_of(index, number),
                    )  # fmt: skip
                    records.append(_record(names[index], number, position, measure))
                    progress.done = len(records)
                    state.write(
                        job.job_id,
                        trials=[r.model_dump(mode="json") for r in records],
                        trial=records[-1].model_dump(mode="json"),
                    )
            progress("deciding")
            report = decide(names, records, aa)
            state.write(job.job_id, report=report.model_dump(mode="json"))
            ending = Ending(JobStatus.succeeded, completed=True)
    except LeaseLost:
        raise
    except (LoadFailed, ProvisionError, DriverError, DatadirCopyError) as failure:
        ending = Ending(JobStatus.failed, str(failure))
    except Exception as failure:  # the replay must not stay running: the error is the user's to see
        if not watch.requested:
            log.exception("concurrent replay %s failed", job.job_id)
        ending = Ending(JobStatus.failed, f"{type(failure).__name__}: {failure}")
    finally:
        for target in prepared:
            try:
                restore_datadir(target)
            except OSError:
                log.exception("concurrent replay %s: the kept datadir of %s", job.job_id, target.kept)
    if watch.requested and ending.status != JobStatus.succeeded:
        ending = Ending(JobStatus.cancelled)
        if records:
            partial = decide(names, records, aa, partial=True)
            state.write(job.job_id, report=partial.model_dump(mode="json"))
    return ending
