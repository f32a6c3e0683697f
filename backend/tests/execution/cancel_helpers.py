"""What the cancel tests look at (tests/runs/test_cancel_phases.py, tests/replay/test_cancel_phases.py):
a target's server processes, found by their command line, held by SIGSTOP, and its lock."""

import contextlib
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any, cast

from redis import Redis
from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.execution.locks import lock_key
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import LocalProvisioner, provisioner_for
from upgradelab.worker import celery_app, queue_of

CANCEL_WITHIN_S = 5.0  # issue 30, Deliver 5


def target_dir(name: str) -> str:
    """The local target's directory (every slot's datadir, option file and pid file are under it)."""
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == name)).one()
    provisioner = provisioner_for(target)
    assert isinstance(provisioner, LocalProvisioner)
    return provisioner.target_dir + "/"


def servers(directory: str, also: str = "") -> list[int]:
    """Pids of mysqld/mariadbd processes (a chroot exec'd into the server) whose command line names
    `directory` (any slot of a target), and `also`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            name = (proc / "comm").read_text().strip()
        except OSError:
            continue
        if directory in command and also in command and name in ("mysqld", "mariadbd"):
            found.append(int(proc.name))
    return found


def _local(name: str) -> LocalProvisioner:
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == name)).one()
    provisioner = provisioner_for(target)
    assert isinstance(provisioner, LocalProvisioner)
    return provisioner


def template(name: str, made: bool) -> None:
    """The local target's template datadir made now (the next start is a server start on it) or
    removed (the next start first initializes it: `mariadbd --bootstrap`, `mysqld --initialize`)."""
    provisioner = _local(name)
    if made:
        provisioner.ensure_initialized()
    else:  # none yet when the session's first run has not made it
        shutil.rmtree(provisioner.root / provisioner.target_dir.lstrip("/") / "template", ignore_errors=True)


def _initializing(pid: int) -> bool | None:
    try:
        parts = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    return any(part == b"--bootstrap" or part.startswith(b"--initialize") for part in parts)


def hold(directory: str, initializing: bool, timeout_s: float = 60) -> list[int]:
    """SIGSTOP the target's server processes as soon as one shows (polled every 5 ms): those making a
    datadir (`--bootstrap`, `--initialize*`) when `initializing`, else those started on an option file
    (`--defaults-file=`, a server start held before it answers SELECT 1); their pids ([] when none
    showed within timeout_s)."""
    stopped: list[int] = []
    deadline = time.monotonic() + timeout_s
    while not stopped and time.monotonic() < deadline:
        for pid in servers(directory, "--defaults-file="):
            if _initializing(pid) is initializing:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
        time.sleep(0.005)
    return stopped


def _jobs_left(redis: Redis) -> list[str]:
    """What the session's worker still has: messages in its queue (not yet taken) and the names of the
    tasks it runs, holds or waits to retry (Celery's inspect: active, reserved, scheduled); "no reply"
    when the worker did not answer within the inspect's timeout (unknown is not idle)."""
    queued = redis.llen(queue_of(get_settings().pool))
    inspect = celery_app.control.inspect(timeout=2.0, limit=1)  # the session has one worker
    listings: list[dict[str, list[dict[str, Any]]] | None] = [
        cast(Any, inspect.active()),
        cast(Any, inspect.reserved()),
        cast(Any, inspect.scheduled()),  # each {"request": {...}, "eta": ...}
    ]
    if any(not listing for listing in listings):
        return ["no reply"]
    held = [
        (task.get("request") or task).get("name", "?")
        for listing in listings
        for tasks in (listing or {}).values()
        for task in tasks
    ]
    return [f"{queued} queued"] * bool(queued) + held


def settled(name: str, directory: str, timeout_s: float = 120) -> None:
    """Wait until the session's worker has no task left (queued, running, or waiting to retry), the
    target's lock is free and none of its servers is making a datadir: what an earlier test of the
    session left running on it has ended (a dataset delete's copy removal, a Celery task, holds the
    lock and may initialize the template). `hold` freezes any server process of the directory: run
    beside such a job, it froze the job's `mariadbd --bootstrap` (which held the template lock the test
    then waited for) and the gate hung. The lock and the servers alone were not enough: a browser
    test's dataset delete had queued its copy removal, which the worker took a moment after this wait
    had seen the target idle (a gate run, the same hang)."""
    redis = Redis.from_url(get_settings().redis_url)
    deadline = time.monotonic() + timeout_s
    idle = 0  # idle seen twice in a row, 0.5 s apart: a message being taken is in no listing for a moment
    try:
        while idle < 2:
            left = _jobs_left(redis)
            making = any(_initializing(pid) for pid in servers(directory))
            busy = left or redis.exists(lock_key(name)) or making
            idle = 0 if busy else idle + 1
            assert time.monotonic() < deadline, f"target {name} still busy after {timeout_s} s: {left}"
            time.sleep(0.5)
    finally:
        redis.close()


def nothing_left(name: str, directory: str) -> None:
    """No server of the target runs and its lock is free, within CANCEL_WITHIN_S of the job's final
    status (the worker writes the status, then releases the lock: a gate run read it in between)."""
    assert servers(directory) == []
    redis = Redis.from_url(get_settings().redis_url)
    deadline = time.monotonic() + CANCEL_WITHIN_S
    try:
        while redis.exists(lock_key(name)):
            assert time.monotonic() < deadline, f"target {name} locked {CANCEL_WITHIN_S} s after"
            time.sleep(0.05)
    finally:
        redis.close()
