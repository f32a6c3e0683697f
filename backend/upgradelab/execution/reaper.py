"""The reaper: ends the jobs (runs, replays, ...) whose worker is gone, so none stays started for good.

A started job whose lease (execution/leases.py) expired, or that has none, lost its worker (killed,
machine rebooted). The reaper takes its lease over (a conditional UPDATE: two reapers never end the
same row), stops the servers of its targets (found by the pid files and docker labels the
provisioners keep), frees its target locks, calls its kind's run-end hook (a run: its variants
finished, the summary of the iterations it kept stored) and writes the final status (`failed`,
error "worker lost"; then the kind's `published` hook: a run's stream). A kind's job that `ends_first`
(a sharded replay) has its final state written first, then its servers stopped and locks freed.

It knows the kinds only through a registry the worker's start-up fills (`register` a JobKind,
execution/kinds.py, for each of job_kinds.py JOB_KINDS: worker_start.py): its lease, how to find its
targets, its run-end hook and its final fields.

Where it runs: a daemon thread in every Celery worker's main process (`start_reaper_thread`,
started from the `worker_ready` signal, connected by worker_start.py): once at start-up, so a new worker ends
what a dead one left, then every `reaper_interval_s` seconds. With the 15 s lease and a 5 s
period a dead worker's job is final within ~20 s while any worker is up. The API runs the same
thread (main.py's lifespan), where the metadata database is, so a job whose only worker is gone
ends too (issue 44): it takes a lease only `api_reaper_grace_s` after it expired, leaving a live
worker's reaper the first go, and within ~25 s of the kill. Either stops the servers of the targets
of its own pool (its host); a target of another pool is left to that host's worker
(execution/servers_left.py). Cancelling a job without a live lease ends it at once through
`end_abandoned` (execution/cancel_request.py).
"""

import logging
import os
import threading
from collections.abc import Callable

from redis import Redis, RedisError
from tenacity import retry, retry_if_exception_type, stop_after_delay, wait_exponential

from upgradelab.execution import leases, servers_left
from upgradelab.execution.kinds import Ending, JobKind
from upgradelab.execution.leases import LeaseKind
from upgradelab.execution.locks import free_run_locks, lock_names
from upgradelab.settings import Settings, get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import Provisioner, provisioner_for

log = logging.getLogger(__name__)

WORKER_LOST = "worker lost"
# How long a reaper holds a job it is ending (stopping servers can take a while); a reaper that
# dies meanwhile leaves the job to the next one after this.
_REAPING_TTL_S = 300.0

# A reaper pass holds the database pool's and the driver's locks while it queries; a pool process
# forked in the middle of one (Celery replaces a killed pool process at once) would inherit them held
# and hang on its first query (worker_process_init disposes of the pool). Forks wait for the pass.
_PASS = threading.RLock()  # reentrant: a pass that forks itself (preexec_fn) passes its own guard
os.register_at_fork(before=_PASS.acquire, after_in_parent=_PASS.release, after_in_child=_PASS.release)


_REGISTRY: dict[str, JobKind] = {}


def register(kind: JobKind) -> None:
    """Add (or replace) a kind of job the reaper ends, keyed by its name."""
    _REGISTRY[kind.name] = kind


def registered() -> list[JobKind]:
    """Every kind registered so far, in registration order."""
    return list(_REGISTRY.values())


def reap_expired(
    settings: Settings | None = None, kind: str | None = None, grace_s: float = 0.0
) -> list[int]:
    """End every started job (of every registered kind, or only `kind`) whose lease expired more than
    `grace_s` seconds ago as failed ("worker lost"); the ids ended."""
    settings = settings or get_settings()
    owner = "reaper:" + leases.new_owner()
    ended = []
    for job in registered():
        if kind is not None and job.name != kind:
            continue
        for job_id in leases.take_over_expired(None, owner, _REAPING_TTL_S, job.lease, grace_s):
            log.warning("%s %s: lease expired (worker lost); ending it", job.name, job_id)
            _end(
                job, job_id, owner, Ending(job.failed, WORKER_LOST, reason=WORKER_LOST, reaped=True), settings
            )
            ended.append(job_id)
    return ended


def end_abandoned(
    job: JobKind, job_id: int, status: str, error: str | None, settings: Settings | None = None
) -> bool:
    """End job `job_id` of kind `job` with `status` if it is started and has no live lease (its worker
    is gone); False, leaving it alone, when a worker still holds it or it is not started. The kind is
    passed, not looked up: the API process, which registers none, ends jobs through it
    (execution/cancel_request.py)."""
    settings = settings or get_settings()
    owner = "reaper:" + leases.new_owner()
    if not leases.take_over_expired(job_id, owner, _REAPING_TTL_S, job.lease):
        return False
    _end(job, job_id, owner, Ending(status, error, reason=error, reaped=True), settings)
    return True


def _end(job: JobKind, job_id: int, owner: str, ending: Ending, settings: Settings) -> None:
    what = f"{job.name} {job_id}"
    targets = job.targets_of(job_id)
    mine = [target for target in targets if servers_left.here(target, settings)]
    first = job.ends_first(job_id)
    if first:  # its other hosts stop once they see it final, while this one's servers stop
        _write_end(job, job_id, owner, ending)
    stop_targets(what, mine, settings)
    # Freed before the final status (unless the kind ends first): whoever sees the job ended finds
    # its targets free. Another host's targets keep their locks until that host's worker stopped
    # their servers.
    _free_locks(what, job_id, job.lease, lock_names(mine), settings)
    _leave(what, job_id, job.lease, [target for target in targets if target not in mine], settings)
    if not first:
        _write_end(job, job_id, owner, ending)


def _write_end(job: JobKind, job_id: int, owner: str, ending: Ending) -> None:
    """The run-end hook, the final fields (while `owner` holds the lease) and their publication."""
    job.on_end(job_id, ending)
    fields = job.final_fields(ending)
    if leases.finish(job_id, owner, job.lease, **fields):
        job.publish_end(job_id, fields)


def stop_targets(what: str, targets: list[Target], settings: Settings) -> None:
    """Every instance of these targets stopped (stop_all: pid files, docker labels); a failure is
    logged with `what` ("run 3", "replay 5") and the next target still stopped."""
    for target in targets:
        try:
            _stop_all(provisioner_for(target, settings))
        except Exception:  # a server that cannot be stopped must not keep the row unfinished
            log.exception("%s: stopping the servers of %s", what, target.name)


def _stop_all(provisioner: Provisioner) -> None:
    # The run-loop's provisioners stop every instance of a target (`stop_all`: pid files, docker
    # labels); until then one server per target, which `stop` finds by its pid file or name.
    stop_all: Callable[[], None] = getattr(provisioner, "stop_all", provisioner.stop)
    stop_all()


def _free_locks(what: str, job_id: int, kind: LeaseKind, targets: list[str], settings: Settings) -> None:
    @retry(
        retry=retry_if_exception_type(RedisError),
        stop=stop_after_delay(settings.redis_outage_s),
        wait=wait_exponential(max=2),
        reraise=True,
    )
    def attempt() -> int:
        redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
        try:
            return free_run_locks(redis, job_id, targets, kind.name)
        finally:
            redis.close()

    try:
        attempt()
    except RedisError:
        log.exception("%s: freeing its target locks; they expire by themselves", what)


def _leave(what: str, job_id: int, kind: LeaseKind, targets: list[Target], settings: Settings) -> None:
    if not targets:
        return
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        servers_left.leave(redis, kind.name, job_id, targets)
        log.warning("%s: servers of %s left to their host's worker", what, ", ".join(t.name for t in targets))
    except RedisError:
        log.exception("%s: recording the servers of another host; they stay until stopped by hand", what)
    finally:
        redis.close()


def _stop_left(settings: Settings) -> None:
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        servers_left.stop_left(redis, settings, stop_targets)
    finally:
        redis.close()


def start_reaper_thread(settings: Settings | None = None, grace_s: float = 0.0) -> threading.Event:
    """Reap every registered kind (leases expired more than `grace_s` seconds ago) and stop the servers
    other reapers left to this host (execution/servers_left.py) now and then every
    `reaper_interval_s` seconds in a daemon thread; set the returned event to stop it."""
    settings = settings or get_settings()
    stop = threading.Event()

    def loop() -> None:
        while True:
            for job in registered():
                try:
                    with _PASS:
                        reap_expired(settings, job.name, grace_s)
                except Exception:  # the database may be briefly unavailable: try again next period
                    log.exception("reaping %ss with expired leases", job.name)
            try:
                with _PASS:
                    _stop_left(settings)
            except Exception:  # Redis or the database briefly unavailable: next period
                log.exception("stopping the servers other reapers left to this host")
            if stop.wait(settings.reaper_interval_s):
                return

    threading.Thread(target=loop, name="job-reaper", daemon=True).start()
    return stop
