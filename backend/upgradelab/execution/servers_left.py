"""Servers a reaper could not stop because they run on another host: left to that host's worker.

A reaper stops a dead job's servers through the provisioners, which find them on the host the reaper
runs on (pid files, docker labels). The API reaps too (execution/reaper.py), so a job whose only
worker is gone still ends; a target of another pool (another bench host) is then out of its reach.
Such a target is recorded here, in the Redis hash `upgradelab:servers-left` (target name -> the
dead job's lock holder, `run:<id>:`), and its lock is kept (it expires by its TTL). Every reaper pass
of a process of the target's pool (its host's worker, when one starts again) stops every instance
of it (stop_all) once no other job holds it, frees the dead job's lock and forgets the record.
"""

import logging
from collections.abc import Callable

from redis import Redis
from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.execution.locks import free_run_locks, lock_key, lock_names, run_token_prefix
from upgradelab.settings import Settings
from upgradelab.targets.models import Target

log = logging.getLogger(__name__)

KEY = "upgradelab:servers-left"


def here(target: Target, settings: Settings) -> bool:
    """Whether `target`'s servers run where this process does: its pools name this process's pool."""
    return settings.pool in (target.pools or ["local"])


def leave(redis: Redis, holder: str, job_id: int, targets: list[Target]) -> None:
    """Record `targets` (of another pool) as left running by job `job_id` of kind `holder`."""
    if targets:
        redis.hset(KEY, mapping={target.name: run_token_prefix(job_id, holder) for target in targets})


def stop_left(
    redis: Redis, settings: Settings, stop: Callable[[str, list[Target], Settings], None]
) -> list[str]:
    """Stop the recorded targets of this process's pool (`stop`: the reaper's stop_targets) whose lock
    is free or still the dead job's, free that lock and forget them; a target another job holds now
    is forgotten unstopped (that job's own starts replace its instances). The target names stopped."""
    stopped: list[str] = []
    for raw_name, raw_holder in redis.hgetall(KEY).items():
        name, holder = _text(raw_name), _text(raw_holder)
        with sync_session() as session:
            target = session.scalars(select(Target).where(Target.name == name)).first()
        if target is not None and not here(target, settings):
            continue
        if target is not None:
            held_by = _text(redis.get(lock_key(name)) or b"")
            if not held_by or held_by.startswith(holder):
                stop(f"{holder.rstrip(':')} (left by its worker)", [target], settings)
                kind, job_id = holder.split(":")[:2]
                free_run_locks(redis, int(job_id), lock_names([target]), kind)
                stopped.append(name)
            else:
                log.warning("target %s: left by %s, now held by %s: not stopped", name, holder, held_by)
        redis.hdel(KEY, name)
    return stopped


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
