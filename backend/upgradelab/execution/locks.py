"""One job at a time per target: a Redis lock per target name, a lease renewed by the job's heartbeat.

The heartbeat thread (execution/leases.py) renews the locks every few seconds, never the iteration loop,
so a long iteration or a dataset preparation cannot let them lapse. Their TTL (`target_lock_ttl_s`,
90 s) outlasts a Redis outage of a minute: Redis keeps expiry times as wall-clock instants, so a
shorter lock would be gone when Redis comes back. A run whose worker died does not wait for the TTL:
the reaper frees its locks at once (`free_run_locks`). Lock values are `run:<id>:<uuid>` (a
replay's: `replay:<id>:<uuid>`, a dataset copy's `copy:<id>:<uuid>`), so the reaper can tell which
job holds a lock. A job that finds a target locked raises `TargetsBusy` (its task retries later).
"""

import logging
from collections.abc import Iterable
from contextlib import suppress

from redis import Redis, RedisError
from redis.exceptions import LockNotOwnedError
from redis.lock import Lock
from tenacity import retry, retry_if_exception_type, stop_after_delay, wait_exponential

from upgradelab.targets.models import Target
from upgradelab.targets.provisioners.existing import ExistingProvisioner

log = logging.getLogger(__name__)

_PREFIX = "upgradelab:target-lock:"
# Delete a lock only if its value starts with the run's prefix (a compare-and-delete, atomic in Redis).
_FREE_IF_RUN = """
local value = redis.call('get', KEYS[1])
if value and string.sub(value, 1, string.len(ARGV[1])) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""


class TargetsBusy(Exception):
    """Another job holds one of this job's targets; the task retries later (the job stays queued).
    The message names the targets."""


def lock_names(targets: Iterable[Target]) -> list[str]:
    """Names of the locks a job takes: every target's name, plus `server:<host>:<port>` for an
    existing target, so two existing targets naming one server never run at the same time."""
    names: list[str] = []
    for target in targets:
        names.append(target.name)
        if target.provisioner == ExistingProvisioner.kind:
            host, port = (target.settings.host or "").lower(), target.settings.port or 3306
            names.append(f"server:{host}:{port}")
    return names


def lock_key(target: str) -> str:
    """`upgradelab:target-lock:<target>`."""
    return _PREFIX + target


def run_token_prefix(run_id: int, holder: str = "run") -> str:
    """The start of every lock value a run holds: `run:<id>:` (holder "replay": `replay:<id>:`)."""
    return f"{holder}:{run_id}:"


class TargetLocks:
    """All-or-nothing locks on a run's (or replay's: holder "replay") targets, taken in name order so
    two runs cannot deadlock."""

    def __init__(
        self, redis: Redis, targets: list[str], ttl_s: int, run_id: int = 0, holder: str = "run"
    ) -> None:
        # thread_local=False: the heartbeat thread renews what the runner's thread acquired.
        self._locks = [
            Lock(redis, lock_key(name), timeout=ttl_s, thread_local=False) for name in sorted(set(targets))
        ]
        self._prefix = run_token_prefix(run_id, holder)
        self._held: list[Lock] = []
        self._ttl_s = ttl_s

    def acquire(self) -> bool:
        """Take every lock without waiting; False (holding none) when any target is busy."""
        for lock in self._locks:
            if not lock.acquire(blocking=False, token=f"{self._prefix}{lock.name}"):
                self.release()
                return False
            self._held.append(lock)
        return True

    def renew(self) -> None:
        """Reset the expiry of every held lock (the heartbeat's job). A lock that vanished (Redis
        restarted without its data) is taken again with the same value; one another run took
        meanwhile is logged and left to it (runs/executor/jobs.py `started_runs_on` keeps runs apart).
        Raises RedisError while Redis is unreachable (the heartbeat retries at its next beat)."""
        for lock in self._held:
            token = f"{self._prefix}{lock.name}"
            try:
                lock.reacquire()
            except LockNotOwnedError:
                if lock.do_acquire(token):
                    log.warning("target lock %s was gone; taken again", lock.name)
                else:
                    log.error("target lock %s is held by another run", lock.name)

    def release(self) -> None:
        """Release the locks this object holds; a lock that expired meanwhile is skipped. While Redis
        is unreachable this retries for up to the locks' TTL (after which they are gone anyway)."""
        for lock in self._held:
            self._release_one(lock)
        self._held.clear()

    def _release_one(self, lock: Lock) -> None:
        @retry(
            retry=retry_if_exception_type(RedisError),
            stop=stop_after_delay(self._ttl_s),
            wait=wait_exponential(max=2),
            reraise=True,
        )
        def attempt() -> None:
            with suppress(LockNotOwnedError):  # expired, or the reaper freed it: nothing of ours
                lock.release()

        try:
            attempt()
        except RedisError:
            log.exception(
                "releasing %s: Redis unreachable for %s s; the lock expires by itself", lock.name, self._ttl_s
            )


def free_run_locks(redis: Redis, run_id: int, targets: list[str], holder: str = "run") -> int:
    """Delete the locks run `run_id` (or replay, holder "replay") holds on `targets` (the reaper,
    for one whose worker is gone); locks of others are left alone. The number freed."""
    script = redis.register_script(_FREE_IF_RUN)
    prefix = run_token_prefix(run_id, holder)
    return sum(int(script(keys=[lock_key(name)], args=[prefix])) for name in targets)
