"""A shard of a sharded replay on the worker it was sent to (replay/sharding.py): through the
lifecycle every job shares (execution/lifecycle.py) with no target of its own to lock (the replay's
worker holds them), its lease and heartbeat on its `replay_shard` row; its statements' rounds on
every variant on this host (runner.run_rounds, its instances from its first slot on), its progress
in its row, its result sealed into it. It stops when the replay is cancelled or ends, or its own row
is ended (the replay's coordinator, its end hook): its cancel watch reads all three. Cancelled, it
stores what it measured at once, before its servers stop (Interrupt.kept), so the coordinator's
partial report has it even when they are slow to stop.
"""

import logging

from redis import Redis
from sqlalchemy import select, update

from upgradelab.datasets.loader import LoadFailed
from upgradelab.db import sync_session
from upgradelab.execution.cancel import CancelWatch
from upgradelab.execution.instances import MemoryRefused
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.status import JobStatus
from upgradelab.measurement import Interrupt, ReplayCancelled
from upgradelab.replay import runner, sharding
from upgradelab.replay.jobs import REPLAY_JOBS, REPLAY_SHARD_JOBS
from upgradelab.replay.models import ReplayRun, ReplayShard
from upgradelab.settings import Settings, get_settings
from upgradelab.targets.provisioners import ProvisionError

log = logging.getLogger(__name__)


def execute_shard(shard_id: int, redis: Redis, settings: Settings | None = None) -> JobStatus | None:
    """Run a queued shard; its final status (None when it was not queued, or its replay is gone or
    final, or its lease was lost and someone else ended it)."""
    settings = settings or get_settings()
    with sync_session() as session:
        row = session.get(ReplayShard, shard_id)
        if row is None or row.status != JobStatus.queued:
            return None
        replay_id, indexes, number, first_slot = (
            row.replay_id,
            list(row.statements),
            row.shard,
            row.first_slot,
        )
    replay = runner.load(replay_id, queued=False)
    if replay is None:
        return None
    body = lambda lease: _execute(shard_id, replay, indexes, first_slot, settings, lease)  # noqa: E731
    status = execute(REPLAY_SHARD_JOBS, shard_id, [], redis, settings, body)
    log.info("replay %s shard %s: %s", replay_id, number + 1, status)
    return None if status is None else JobStatus(status)


def _ended(replay_id: int, shard_id: int) -> bool:
    """Whether the replay or this shard is final (the coordinator ended it, or the reaper)."""
    with sync_session() as session:
        replay = session.scalar(select(ReplayRun.status).where(ReplayRun.id == replay_id))
        shard = session.scalar(select(ReplayShard.status).where(ReplayShard.id == shard_id))
    return replay is None or shard is None or JobStatus(replay).is_final or JobStatus(shard).is_final


def _keep(shard_id: int, sealed: bytes) -> None:
    """Store a cancelled shard's sealed result in its row while it still runs (its end writes the
    same); a failure is logged: its end tries again."""
    try:
        with sync_session() as session:
            session.execute(
                update(ReplayShard)
                .where(ReplayShard.id == shard_id, ReplayShard.status == JobStatus.running)
                .values(result=sealed)
            )
            session.commit()
    except Exception:  # the database briefly away: the cancel must still end the shard
        log.exception("shard %s: storing what it measured before its servers stop", shard_id)


def _execute(
    shard_id: int,
    replay: "runner._Replay",
    indexes: list[int],
    first_slot: int,
    settings: Settings,
    _lease: Lease,
) -> Ending:
    interrupt = Interrupt()
    # what it measured, stored as soon as it is interrupted: its servers may take long to stop, and
    # the coordinator waits for it (sharding.CANCEL_WAIT_S) only
    interrupt.kept = lambda cancelled: _keep(
        shard_id, sharding.seal(cancelled.replays, settings, cancelled.captured)
    )
    ended = lambda: _ended(replay.replay_id, shard_id)  # noqa: E731
    try:
        with CancelWatch.of(REPLAY_JOBS, replay.replay_id, interrupt.set, runner.CANCEL_POLL_S, also=ended):
            own = sharding.Own(
                [replay.statements[i] for i in indexes],
                first_slot,
                stores_schedule=False,
                progress=sharding.shard_progress(shard_id),
            )
            replays = runner.run_rounds(replay, own, settings, interrupt, [])
        return Ending(
            JobStatus.succeeded, completed=True, fields={"result": sharding.seal(replays, settings)}
        )
    except ReplayCancelled as cancelled:  # what it measured, for the replay's partial report
        return Ending(
            JobStatus.cancelled,
            fields={"result": sharding.seal(cancelled.replays, settings, cancelled.captured)},
        )
    except (LoadFailed, ProvisionError, MemoryRefused) as failure:
        return Ending(JobStatus.failed, str(failure))
