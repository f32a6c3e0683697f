"""The lifecycle every job shares, written once: lock its targets, claim its lease, heartbeat, run
the executor's body, and write the final state on every exit path.

    status = execute(RUNS_KIND, run_id, targets, redis, settings, body, busy=...)

1. the target locks (execution/locks.py), all or none: TargetsBusy when one is held (the task
   retries later; the job stays queued), also when `busy()` says so (a run: the database knows
   another started run on a target, a lock lost in a Redis restart);
2. the lease (execution/leases.py): queued -> claimed, or None when the job is no longer queued;
3. while the heartbeat renews the lease and the locks: `body(lease)` does the job (its instances
   started, frozen, thawed per block and stopped by execution/instances.py `started`) and returns
   its Ending; a body that raises ends the job `failed` with the exception's words;
4. in a `finally`, only while the lease is still held (once lost, the reaper or a cancel wrote the
   end): a `sweep` kind that did not succeed has its targets' servers stopped, the kind's run-end
   hook runs (a run's summary), the final fields are written, the locks are freed (after the final
   state: the next job's start follows this one's finished_at; before it is published: whoever is
   told the job ended finds its targets free), and the final fields are published.

A body may write its final state before it has unwound (`end_now`, from any of its threads: a
sharded replay whose shard's host is gone is final within seconds, while its own servers still
stop); step 4 then only stops a `sweep` kind's servers and frees the locks, once the body returned.
"""

import logging
from collections.abc import Callable

from redis import Redis

from upgradelab.execution import leases
from upgradelab.execution.kinds import Ending, JobKind
from upgradelab.execution.leases import Lease
from upgradelab.execution.locks import TargetLocks, TargetsBusy, lock_names
from upgradelab.execution.reaper import stop_targets
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import spares

log = logging.getLogger(__name__)


def execute(
    kind: JobKind,
    job_id: int,
    targets: list[Target],
    redis: Redis,
    settings: Settings,
    body: Callable[[Lease], Ending],
    busy: Callable[[], bool] = lambda: False,
) -> str | None:
    """Run job `job_id` of `kind` on `targets` to its final status and return it (see the module
    docstring); None when it was not queued, or when its lease was lost and someone else ended it.
    Raises TargetsBusy (the job untouched) when a target is held by another job."""
    what = f"{kind.name} {job_id}"
    locks = TargetLocks(redis, lock_names(targets), settings.target_lock_ttl_s, job_id, kind.name)
    if not locks.acquire():
        raise TargetsBusy(", ".join(sorted(t.name for t in targets)))
    if busy():
        locks.release()
        raise TargetsBusy(", ".join(sorted(t.name for t in targets)))
    owner = leases.new_owner()
    if not leases.claim(job_id, owner, settings.job_lease_ttl_s, kind.lease):
        locks.release()
        return None
    ended: str | None = None
    try:
        # The heartbeat renews the lease and the target locks from here to the final status, whatever
        # the body is doing (dataset preparation, server starts, long iterations or statements).
        with Lease(job_id, owner, locks.renew, settings, kind.lease) as lease:
            ending = Ending(kind.failed, "the job ended without an outcome")
            try:
                ending = body(lease)
            except Exception as failure:  # the job must not stay started: the error is the user's to see
                log.exception("%s failed", what)
                ending = Ending(kind.failed, f"{type(failure).__name__}: {failure}")
            finally:
                if lease.ended:  # end_now wrote the final state: its servers are stopped after it
                    ended = _after_end_now(kind, job_id, targets, lease, settings, locks)
                elif not lease.lost:
                    ended = _end(kind, job_id, owner, targets, ending, settings, locks)
    finally:
        locks.release()
        spares.release()  # the spare instances this job's end prepared may start now
    return ended


def _end(
    kind: JobKind,
    job_id: int,
    owner: str,
    targets: list[Target],
    ending: Ending,
    settings: Settings,
    locks: TargetLocks,
) -> str | None:
    """The final state of a job whose lease this worker holds; its status, None when someone else
    ended it meanwhile."""
    if ending.status not in kind.lease.final:  # an executor's slip must not leave the job started
        log.error(
            "%s %s: %r is not a final status; ending it %s", kind.name, job_id, ending.status, kind.failed
        )
        ending = Ending(kind.failed, ending.error or f"ended with the non-final status {ending.status!r}")
    if kind.sweep and ending.status != kind.succeeded:
        stop_targets(f"{kind.name} {job_id}", targets, settings)
    kind.on_end(job_id, ending)
    fields = kind.final_fields(ending)
    finished = leases.finish(job_id, owner, kind.lease, **fields)
    # the locks are held until the final state is written (the next job on these servers starts after
    # this one's finished_at) and freed before it is published (whoever is told finds them free)
    locks.release()
    if not finished:
        return None
    kind.publish_end(job_id, fields)
    log.info("%s %s %s", kind.name, job_id, ending.status)
    return ending.status


def end_now(kind: JobKind, job_id: int, lease: Lease, ending: Ending) -> bool:
    """Write job `job_id`'s final state at once, from any thread of its body, before the body has
    unwound (module docstring): the kind's run-end hook, its final fields (only while `lease` is
    held, Lease.end) and their publication. The lifecycle then writes no final state of its own; a
    `sweep` kind's servers are stopped and the locks freed once the body returns. False when someone
    else ended the job first. ValueError when `ending.status` is not one of the kind's final ones."""
    if ending.status not in kind.lease.final:
        raise ValueError(f"{kind.name} {job_id}: {ending.status!r} is not a final status")
    kind.on_end(job_id, ending)
    fields = kind.final_fields(ending)
    if not lease.end(fields):
        return False
    kind.publish_end(job_id, fields)
    log.info("%s %s %s (its servers stop after)", kind.name, job_id, ending.status)
    return True


def _after_end_now(
    kind: JobKind, job_id: int, targets: list[Target], lease: Lease, settings: Settings, locks: TargetLocks
) -> str:
    """The end of a job whose final state end_now wrote: a `sweep` kind that did not succeed has its
    targets' servers stopped, then the locks are freed; its final status."""
    status = str((lease.final or {})["status"])
    if kind.sweep and status != kind.succeeded:
        stop_targets(f"{kind.name} {job_id}", targets, settings)
    locks.release()
    return status
