"""A replay run on the worker, through the lifecycle every job shares (execution/lifecycle.py): the
targets' locks (the same as experiment runs', so the two never share a server; values
`replay:<id>:`), the lease and its heartbeat (replay/jobs.py REPLAYS), the final state on every exit
path. The body here: plan the rounds (stored), give every variant its own server instance (a slot of
its target, execution/instances.py Slots; memory checked as runs do), replay (engine.py), store the
report (replay/state.py writes every change of the row). The extension's budget (`max_rounds`) is
kept in the replay's `schedule` JSON from its creation (service.create), beside the planned rounds'
order once it starts; each extension step stores the longer schedule before its rounds run.

Cancel (its API route sets `cancel_requested`): a watch (execution/cancel.py) reads the flag every
CANCEL_POLL_S seconds; once set it interrupts the replay (engine.py Interrupt: the statement running
is killed with KILL QUERY, none other starts) and, while servers are still starting or loading the
dump, stops them. The replay ends `cancelled` with the report of what it measured, marked partial
(none when no statement was captured on every variant); its servers are stopped and its locks freed
as on any other exit.

A worker killed outright is found by the reaper (execution/reaper.py), which stops the instances and
frees the locks. A replay that fails stops every instance of its targets (`stop_all`, the kind's
`sweep`), not only the ones it knows it started.

One concept: a replay's body on its worker, from its rounds to its stored report (whole, partial,
or a sharded one's: sharding.py runs the shards and gives back what they measured).
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from redis import Redis
from sqlalchemy import select

from upgradelab.datasets import service as datasets
from upgradelab.datasets.fetch import local_dump
from upgradelab.datasets.loader import LoadFailed
from upgradelab.datasets.models import Dataset
from upgradelab.datasets.schemas import DatasetLoad
from upgradelab.datasets.service import database_of
from upgradelab.db import sync_session, utcnow
from upgradelab.execution.cancel import CancelWatch
from upgradelab.execution.instances import MemoryRefused, Slots, check_memory
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease
from upgradelab.execution.lifecycle import end_now, execute
from upgradelab.execution.reaper import stop_targets
from upgradelab.execution.schedule import RunSchedule, Schedule, plan
from upgradelab.execution.status import JobStatus
from upgradelab.measurement import (
    DumpDataset,
    Extension,
    Interrupt,
    ReplayCancelled,
    ReplayVariant,
    ReplayVariantSpec,
    SourceStatement,
    VariantReplay,
    VariantSettings,
    replay_rounds,
)
from upgradelab.replay import sharding, state
from upgradelab.replay import shards as shards_module
from upgradelab.replay.compare import compare
from upgradelab.replay.document import report_document
from upgradelab.replay.extension import still_undecided
from upgradelab.replay.jobs import REPLAY_JOBS
from upgradelab.replay.models import ReplayRun
from upgradelab.replay.schemas import ReplayProgress
from upgradelab.settings import Settings, get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import ProvisionError
from upgradelab.workloads.base import DatasetProgress

log = logging.getLogger(__name__)

CANCEL_POLL_S = 1.0


@dataclass
class _Replay:
    """What the body needs of a queued replay, read before its lease is claimed."""

    replay_id: int
    dataset: Dataset | None
    specs: list[ReplayVariantSpec]
    statements: list[SourceStatement]
    rounds: int
    passes: int
    read_only: bool
    timeout_s: float
    targets: dict[str, Target]
    max_rounds: int | None = None  # None: no extension (replays made before it)
    shards: int = 1  # ReplayRun.shards: 1 none, 0 as many as the pool's live workers


def load(replay_id: int, queued: bool = True) -> _Replay | None:
    """What a worker needs of replay `replay_id` (read before its lease is claimed); None when it is
    gone, or when `queued` and it is no longer queued (a shard's worker reads a running one)."""
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        if replay is None or (queued and replay.status != JobStatus.queued):
            return None
        specs = replay.variants
        names = [v.target for v in specs]
        targets = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(names)))}
        dataset = session.get(Dataset, replay.dataset_id)
        for row in [*targets.values(), *([dataset] if dataset else [])]:
            session.expunge(row)
        return _Replay(
            replay_id,
            dataset,
            specs,
            replay.statements,
            replay.repeats,
            replay.passes,
            not replay.allow_writes,
            replay.statement_timeout_s,
            targets,
            replay.schedule.max_rounds if replay.schedule else None,
            replay.shards,
        )


def _variants(
    specs: list[ReplayVariantSpec], targets: dict[str, Target], settings: Settings, first_slot: int = 0
) -> list[ReplayVariant]:
    """One instance per variant (execution/instances.py Slots: slots first_slot, first_slot + 1, ...
    of each target, in variant order), started with the variant's option lines and given its SET
    GLOBAL, SET SESSION and instance statements (variant_settings.py; applied as it opens,
    opening.py). Refuses (MemoryRefused) when their buffer pools and allowances exceed MemAvailable."""
    slots = Slots(settings, first_slot)
    out = []
    for index, spec in enumerate(specs):
        target = targets.get(spec.target)
        if target is None:
            raise ProvisionError(f"variant {spec.name!r}: target {spec.target!r} does not exist")
        provisioner = slots.provisioner(target)
        slots.keep(target, provisioner, spec.options, index)
        own = VariantSettings(spec.options, spec.set_global, spec.set_session, spec.instance)
        out.append(ReplayVariant(spec.name, provisioner, spec.options, own))
    check_memory([v.options for v in out], settings.instance_allowance_mb)
    return out


def execute_replay(replay_id: int, redis: Redis, settings: Settings | None = None) -> JobStatus | None:
    """Run a queued replay; its final status (None when it was not queued, or when its lease was lost
    and the reaper ended it). TargetsBusy (execution/locks.py) while a target is locked."""
    settings = settings or get_settings()
    replay = load(replay_id)
    if replay is None:
        return None
    targets = list(replay.targets.values())
    body = lambda lease: _execute(replay, settings, lease)  # noqa: E731
    status = execute(REPLAY_JOBS, replay_id, targets, redis, settings, body)
    return None if status is None else JobStatus(status)


def _execute(replay: _Replay, settings: Settings, lease: Lease) -> Ending:
    """The replay while its lease is held: how it ends (a cancel asked meanwhile ends it cancelled
    unless it succeeded). Spread over the pool's hosts when it asks for shards and the pool has more
    than one live worker (sharding.py), else on this worker alone, as always."""
    replay_id, specs, statements = replay.replay_id, replay.specs, replay.statements
    interrupt = Interrupt()

    def cancel() -> None:  # the watch calls it every CANCEL_POLL_S seconds once cancel is asked
        interrupt.set()
        if interrupt.attached < len(specs):  # still starting or loading the dump: stop them now
            stop_targets(f"replay {replay_id}", list(replay.targets.values()), settings)

    ending = Ending(JobStatus.failed)
    watch = CancelWatch.of(REPLAY_JOBS, replay_id, cancel, CANCEL_POLL_S)
    try:
        with watch:
            dataset = _dataset(replay)
            # The seed is the replay's id (as a run's without its own), stored with the schedule.
            schedule = plan("interleaved", replay.rounds, replay.passes, replay_id, len(specs))
            planned = _store_schedule(replay, schedule)
            stored: list[RunSchedule] = []  # the extension's longer schedules, as stored
            shards = sharding.plan_shards(replay_id, replay.shards, statements, len(specs), settings)
            if shards is not None:
                ending = sharding.coordinate(
                    replay_id,
                    shards,
                    lambda own: run_rounds(replay, own, settings, interrupt, stored),
                    lambda merged, null_of, spread: _report(
                        replay,
                        dataset.id,
                        merged,
                        _longest(replay, spread, stored or [planned]),
                        null_of,
                        spread,
                    ),
                    interrupt,
                    settings,
                    statements,
                    lambda kept, merged, null_of, spread: _partial(
                        replay, kept, merged, _longest(replay, spread, stored or [planned]), null_of, spread
                    ),
                    lambda early: end_now(REPLAY_JOBS, replay_id, lease, early),
                )
            else:
                try:
                    replays = run_rounds(replay, sharding.Own(statements), settings, interrupt, stored)
                except ReplayCancelled as cancelled:
                    ending = Ending(JobStatus.cancelled)
                    _keep_partial(replay, dataset.id, cancelled, (stored or [planned])[-1])
                else:
                    ending = _report(replay, dataset.id, replays, (stored or [planned])[-1])
    except (
        LoadFailed,
        ProvisionError,
        MemoryRefused,
        sharding.ShardFailed,
        shards_module.ShardMismatch,
    ) as failure:
        ending = Ending(JobStatus.failed, str(failure))
    except Exception as failure:  # the run must not stay "running": any error is the user's to see
        log.exception("replay %s failed", replay_id)
        ending = Ending(JobStatus.failed, f"{type(failure).__name__}: {failure}")
    # a start the cancel stopped (a sharded replay's own shard is interrupted by a failed shard too)
    if watch.requested and ending.status != JobStatus.succeeded:
        ending = Ending(JobStatus.cancelled)
    return ending


def _dataset(replay: _Replay) -> Dataset:
    """The replay's dataset; LoadFailed when it was deleted."""
    if replay.dataset is None or replay.dataset.deleted_at is not None:
        raise LoadFailed("the dataset was deleted", line=None, code=None)
    return replay.dataset


def run_rounds(
    replay: _Replay, own: "sharding.Own", settings: Settings, interrupt: Interrupt, stored: list[RunSchedule]
) -> list[VariantReplay]:
    """The replay's rounds over `own.statements` (all the replay's, or one shard's) on this worker:
    every variant on its own instance from slot `own.first_slot` on, the schedule planned from the
    replay's id (the same on every shard), the extension over these statements; each longer schedule
    stored (and appended to `stored`) when `own.stores_schedule`; progress to `own.progress` (None:
    the replay's own row). engine.replay_rounds' VariantReplays; raises as it does (ReplayCancelled
    once interrupted)."""
    specs, statements = replay.specs, own.statements
    dataset = _dataset(replay)
    dump = DumpDataset(local_dump(dataset, settings), dataset.sha256, database_of(dataset.name))
    schedule = plan("interleaved", replay.rounds, replay.passes, replay.replay_id, len(specs))
    variants = _variants(specs, replay.targets, settings, own.first_slot)
    aa = next((s.name for s in specs if s.aa_control), None)

    def extended(longer: Schedule) -> None:
        if own.stores_schedule:
            stored.append(_store_schedule(replay, longer))

    extension = (
        Extension(replay.max_rounds, lambda done: still_undecided(statements, done, aa), extended)
        if replay.max_rounds is not None and replay.max_rounds > replay.rounds
        else None
    )
    report, step = own.progress or _progress(replay.replay_id, specs)
    return replay_rounds(
        variants, dump, statements, schedule, report, step, timeout_s=replay.timeout_s,
        read_only=replay.read_only, interrupt=interrupt, extension=extension,
    )  # fmt: skip


def _report(
    replay: _Replay,
    dataset_id: int,
    replays: list[VariantReplay],
    planned: RunSchedule,
    null_of: list[int | None] | None = None,
    spread: shards_module.Spread | None = None,
) -> Ending:
    """Compare the replays (every statement of the replay; `null_of`: a sharded replay's null
    statement per statement, shards.merge; `spread`: where its statements ran, shards.spread), store
    the report and its dataset loads (this worker's): the replay succeeded."""
    specs, statements = replay.specs, replay.statements
    for spec, one in zip(specs, replays, strict=True):
        _record_load(dataset_id, spec.target, one)
    aa = next((s.name for s in specs if s.aa_control), None)
    reports = compare(statements, replays, aa_control=aa, null_of=null_of)
    document = report_document(
        statements, replays, reports, planned, statement_timeout_s=replay.timeout_s,
        aa_control=aa, planned_rounds=replay.rounds, max_rounds=replay.max_rounds, spread=spread,
    )  # fmt: skip
    state.write(replay.replay_id, report=document.model_dump(mode="json"), progress=None)
    return Ending(JobStatus.succeeded, completed=True)


def _store_schedule(replay: _Replay, schedule: Schedule) -> RunSchedule:
    """Store the schedule (its rounds so far) with the extension's budget beside it; the read model."""
    stored = RunSchedule.model_validate(schedule.as_json())
    kept = {**stored.model_dump(mode="json"), "max_rounds": replay.max_rounds}
    state.write(replay.replay_id, schedule=kept)
    return stored


def _longest(replay: _Replay, spread: shards_module.Spread, stored: list[RunSchedule]) -> RunSchedule:
    """A sharded replay's schedule: the one planned from its id for the most rounds any shard ran
    (each shard's is its first rounds, execution/schedule.py plan), stored when longer than the
    last one stored (shard 0's, `stored`); the read model."""
    most = max(spread.rounds, default=0)
    if most <= stored[-1].rounds:
        return stored[-1]
    return _store_schedule(
        replay, plan("interleaved", most, replay.passes, replay.replay_id, len(replay.specs))
    )


def _keep_partial(replay: _Replay, dataset_id: int, cancelled: ReplayCancelled, planned: RunSchedule) -> None:
    """Store what a cancelled replay measured (engine.ReplayCancelled), marked partial; nothing when
    no statement was captured on every variant."""
    specs = replay.specs
    if len(cancelled.replays) == len(specs):
        for spec, one in zip(specs, cancelled.replays, strict=True):
            _record_load(dataset_id, spec.target, one)
    if cancelled.captured:
        _partial(replay, replay.statements[: cancelled.captured], cancelled.replays, planned)


def _partial(
    replay: _Replay,
    kept: list[SourceStatement],
    replays: list[VariantReplay],
    planned: RunSchedule,
    null_of: list[int | None] | None = None,
    spread: shards_module.Spread | None = None,
) -> None:
    """Store the report of what a cancelled replay measured on `kept` (the statements captured on
    every variant; `null_of`, `spread`: a sharded replay's, as _report's), marked partial."""
    aa = next((s.name for s in replay.specs if s.aa_control), None)
    reports = compare(kept, replays, aa_control=aa, null_of=null_of)
    document = report_document(
        kept, replays, reports, planned, statement_timeout_s=replay.timeout_s, partial=True,
        aa_control=aa, planned_rounds=replay.rounds, max_rounds=replay.max_rounds, spread=spread,
    )  # fmt: skip
    state.write(replay.replay_id, report=document.model_dump(mode="json"))


def _progress(
    replay_id: int, specs: list[ReplayVariantSpec]
) -> tuple[Callable[[str, DatasetProgress], None], Callable[[str, str], None]]:
    """(report, step) for replay_rounds: both write replay.progress (schemas.ReplayProgress); the
    instances start in parallel, so the last word wins."""
    index = {spec.name: number for number, spec in enumerate(specs, start=1)}

    def write(variant: str, phase: str, load: dict[str, Any]) -> None:
        progress = ReplayProgress(variant=variant, index=index[variant], of=len(specs), phase=phase, **load)
        state.write(replay_id, progress=progress.model_dump(mode="json"))

    def report(variant: str, progress: DatasetProgress) -> None:
        numbers = progress.as_dict()
        write(variant, numbers.pop("phase"), numbers)

    def step(variant: str, phase: str) -> None:
        write(variant, phase, {})

    return report, step


def _record_load(dataset_id: int, target: str, replay: VariantReplay) -> None:
    load = DatasetLoad(
        version=replay.version,
        loaded_at=utcnow(),
        reused=replay.load is None,
        elapsed_s=round(replay.load.elapsed_s, 3) if replay.load else None,
        rows_seen=replay.load.rows_seen if replay.load else None,
        tables=replay.tables,
    )
    with sync_session() as session:
        datasets.record_load(session, dataset_id, target, load)
