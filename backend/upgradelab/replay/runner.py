"""A replay run on the worker: take the targets' locks (the same as experiment runs', so the two
never share a server; values `replay:<id>:`), plan the rounds (stored), give every variant its own
server instance (a slot of its target; memory checked as runs do), replay (engine.py), store the
report. The final status is
written on every exit path.

Cancel (service.cancel sets `cancel_requested`): a watch thread reads the flag every
CANCEL_POLL_S seconds; once set it interrupts the replay (engine.py Interrupt: the statement running
is killed with KILL QUERY, none other starts) and, while servers are still starting or loading the
dump, stops them. The replay ends `cancelled` with the report of what it measured, marked partial
(none when no statement was captured on every variant); its servers are stopped and its locks freed
as on any other exit.

While it runs it holds a lease (runs/leases.py, kind REPLAYS, as runs do): a heartbeat thread
renews the lease and the target locks every `run_heartbeat_s` seconds, whatever the replay's thread
is doing (a long dump load, a slow statement); a worker killed outright is found by the reaper
(runs/reaper.py), which stops the instances and frees the locks. A replay that fails stops every
instance of its targets (`stop_all`), not only the ones it knows it started.
"""

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from redis import Redis
from sqlalchemy import select

from upgradelab.datasets import service as datasets
from upgradelab.datasets.loader import LoadFailed
from upgradelab.datasets.models import Dataset
from upgradelab.datasets.schemas import DatasetLoad
from upgradelab.datasets.service import database_of
from upgradelab.db import sync_session, utcnow
from upgradelab.replay.compare import compare, report_document
from upgradelab.replay.engine import (
    DumpDataset,
    Interrupt,
    ReplayCancelled,
    ReplayVariant,
    VariantReplay,
    replay_rounds,
)
from upgradelab.replay.models import ReplayRun
from upgradelab.replay.schemas import ReplayProgress, ReplayVariantSpec
from upgradelab.replay.sources import SourceStatement
from upgradelab.runs import leases
from upgradelab.runs.leases import REPLAYS, new_owner
from upgradelab.runs.locks import TargetLocks
from upgradelab.runs.plan import plan
from upgradelab.runs.reaper import stop_targets
from upgradelab.runs.schemas import RunSchedule
from upgradelab.settings import Settings, get_settings
from upgradelab.targets.instances import MemoryRefused, check_memory
from upgradelab.targets.lock_names import lock_names
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import ProvisionError, provisioner_for
from upgradelab.workloads.base import DatasetProgress

log = logging.getLogger(__name__)

CANCEL_POLL_S = 1.0


class TargetsBusy(RuntimeError):
    """Another run holds one of the replay's targets; the task retries."""


def _update(replay_id: int, **values: Any) -> None:
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        if replay is not None:
            for key, value in values.items():
                setattr(replay, key, value)
            session.commit()


def _variants(
    specs: list[ReplayVariantSpec], targets: dict[str, Target], settings: Settings
) -> list[ReplayVariant]:
    """One instance per variant: slots 0, 1, ... of each target, in variant order. Refuses
    (MemoryRefused) when their buffer pools and allowances exceed MemAvailable."""
    slots: dict[str, int] = {}
    out = []
    for spec in specs:
        target = targets.get(spec.target)
        if target is None:
            raise ProvisionError(f"variant {spec.name!r}: target {spec.target!r} does not exist")
        slot = slots.get(target.name, 0)
        slots[target.name] = slot + 1
        provisioner = provisioner_for(target, settings, slot=slot)
        out.append(ReplayVariant(spec.name, provisioner, spec.options))
    check_memory([v.options for v in out], settings.instance_allowance_mb)
    return out


def execute_replay(replay_id: int, redis: Redis, settings: Settings | None = None) -> str | None:
    """Run a queued replay; its final status (None when it was not queued, or when its lease was lost
    and the reaper ended it). TargetsBusy while a target is locked."""
    settings = settings or get_settings()
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        if replay is None or replay.status != "queued":
            return None
        dataset = session.get(Dataset, replay.dataset_id)
        specs = [ReplayVariantSpec.model_validate(v) for v in replay.variants]
        statements = [SourceStatement(**s) for s in replay.statements]
        rounds, passes = replay.repeats, replay.passes
        read_only, timeout_s = not replay.allow_writes, replay.statement_timeout_s
        names = [v.target for v in specs]
        targets = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(names)))}
        for target in targets.values():
            session.expunge(target)
    held = lock_names(targets.values())
    locks = TargetLocks(redis, held, settings.target_lock_ttl_s, replay_id, REPLAYS.name)
    if not locks.acquire():
        raise TargetsBusy(f"replay {replay_id}: a target is busy")
    owner = new_owner()
    if not leases.claim(replay_id, owner, settings.run_lease_ttl_s, REPLAYS):
        locks.release()
        return None
    status, error = "failed", None
    heartbeat = leases.Lease(replay_id, owner, locks.renew, settings, REPLAYS)
    interrupt = Interrupt()
    attached = len(specs)

    def cancel() -> None:  # the watch calls it every CANCEL_POLL_S seconds once cancel is asked
        interrupt.set()
        if interrupt.attached < attached:  # still starting or loading the dump: stop them now
            stop_targets(f"replay {replay_id}", list(targets.values()), settings)

    try:
        with heartbeat, _CancelWatch(replay_id, cancel):
            if dataset is None or dataset.deleted_at is not None:
                raise LoadFailed("the dataset was deleted", line=None, code=None)
            dump = DumpDataset(Path(dataset.path), dataset.sha256, database_of(dataset.name))
            # The seed is the replay's id (as a run's without its own), stored with the schedule.
            schedule = plan("interleaved", rounds, passes, replay_id, len(specs))
            planned = RunSchedule.model_validate(schedule.as_json())
            _update(replay_id, schedule=planned.model_dump(mode="json"))
            variants = _variants(specs, targets, settings)
            try:
                replays = replay_rounds(
                    variants, dump, statements, schedule, *_progress(replay_id, specs),
                    timeout_s=timeout_s, read_only=read_only, interrupt=interrupt,
                )  # fmt: skip
            except ReplayCancelled as cancelled:
                status = "cancelled"
                _keep_partial(replay_id, dataset.id, specs, statements, cancelled, planned, timeout_s)
            else:
                for spec, one in zip(specs, replays, strict=True):
                    _record_load(dataset.id, spec.target, one)
                reports = compare(statements, replays)
                document = report_document(
                    statements, replays, reports, planned, statement_timeout_s=timeout_s
                )
                _update(replay_id, report=document.model_dump(mode="json"), progress=None)
                status = "succeeded"
    except (LoadFailed, ProvisionError, MemoryRefused) as failure:
        error = str(failure)
    except Exception as failure:  # the run must not stay "running": any error is the user's to see
        log.exception("replay %s failed", replay_id)
        error = f"{type(failure).__name__}: {failure}"
    finally:
        if interrupt.is_set and status != "succeeded":  # a start the cancel stopped fails: cancelled
            status, error = "cancelled", None
        # Once the lease is lost the reaper has stopped the servers and written the final status.
        if status != "succeeded" and not heartbeat.lost:
            stop_targets(f"replay {replay_id}", list(targets.values()), settings)
        locks.release()
        final: dict[str, Any] = {"status": status, "error": error, "ended_at": utcnow()}
        if status == "cancelled":
            final["progress"] = None
        ended = not heartbeat.lost and leases.finish(replay_id, owner, REPLAYS, **final)
    return status if ended else None


def _keep_partial(
    replay_id: int,
    dataset_id: int,
    specs: list[ReplayVariantSpec],
    statements: list[SourceStatement],
    cancelled: ReplayCancelled,
    planned: RunSchedule,
    timeout_s: float,
) -> None:
    """Store what a cancelled replay measured (engine.ReplayCancelled), marked partial; nothing when
    no statement was captured on every variant."""
    if len(cancelled.replays) == len(specs):
        for spec, one in zip(specs, cancelled.replays, strict=True):
            _record_load(dataset_id, spec.target, one)
    if not cancelled.captured:
        return
    kept = statements[: cancelled.captured]
    reports = compare(kept, cancelled.replays)
    document = report_document(
        kept, cancelled.replays, reports, planned, statement_timeout_s=timeout_s, partial=True
    )
    _update(replay_id, report=document.model_dump(mode="json"))


class _CancelWatch:
    """While entered: a thread reads the replay's cancel_requested every CANCEL_POLL_S seconds; once
    it is set, calls `on_cancel` then and every CANCEL_POLL_S seconds after, until exited (a server
    that was still starting at the first call has its pid file by a later one). A failing read is
    logged and tried again."""

    def __init__(self, replay_id: int, on_cancel: Callable[[], None]) -> None:
        self._replay_id, self._on_cancel = replay_id, on_cancel
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name=f"cancel-replay-{replay_id}", daemon=True)

    def _watch(self) -> None:
        requested = False
        while not self._stop.wait(CANCEL_POLL_S):
            try:
                if not requested:
                    with sync_session() as session:
                        requested = bool(
                            session.scalar(
                                select(ReplayRun.cancel_requested).where(ReplayRun.id == self._replay_id)
                            )
                        )
                    if requested:
                        log.info("replay %s: cancel requested", self._replay_id)
                if requested:
                    self._on_cancel()
            except Exception:  # the database may be busy: the next poll tries again
                log.exception("replay %s: cancelling", self._replay_id)

    def __enter__(self) -> "_CancelWatch":
        self._thread.start()
        return self

    def __exit__(
        self, _type: type[BaseException] | None, _value: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()


def _progress(
    replay_id: int, specs: list[ReplayVariantSpec]
) -> tuple[Callable[[str, DatasetProgress], None], Callable[[str, str], None]]:
    """(report, step) for replay_rounds: both write replay.progress (schemas.ReplayProgress); the
    instances start in parallel, so the last word wins."""
    index = {spec.name: number for number, spec in enumerate(specs, start=1)}

    def write(variant: str, phase: str, load: dict[str, Any]) -> None:
        progress = ReplayProgress(variant=variant, index=index[variant], of=len(specs), phase=phase, **load)
        _update(replay_id, progress=progress.model_dump(mode="json"))

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
