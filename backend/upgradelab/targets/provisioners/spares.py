"""Spare instances: a local server started fresh, right after a run ends, for the next run of the same
slot and options, frozen until that run takes it or its time is up (settings `spare_instance_s`, 0 =
never: the default).

Why: five servers starting at once on 2 cores take ~3 s before a run's first iteration (MySQL 9.7
alone 1-2 s), 15 % of a 10-round run of article 001. A spare is started from a fresh copy of the
template, exactly as the run would have started it, and frozen (SIGSTOP) as soon as it answers
SELECT 1: it has served no statement and its buffer pool is empty (runs/executor/preflight.py turns the pool's
dump and load off). Taking it is a SIGCONT and a SELECT 1. A spare whose options differ from the next
start's is killed and its datadir removed; the start then copies and starts as without spares.

One registry per process, keyed by the slot's directory (`key`): a spare is registered with its port
before it starts (the next run's provisioner of that slot takes the same port, so the option files can
match), and every start of that slot waits, on the slot's lock, for a spare still starting. A spare
is killed (SIGKILL, datadir removed) when its time is up (a timer), when the worker process ends
(`discard_all`, from the worker's shutdown signals) or when a start of its slot cannot use it. A worker
killed outright leaves its spares frozen: the next start of that slot and the reaper's stop_all
stop any server found by the slot's pid file.

A spare starts once the job that discarded its slot's instance has written its final state
(`release`, from execution/lifecycle.py): that job's end does not share the CPU with it. While a spare
starts, `settle()` holds the next run's first iteration back (a server starting beside a
timed loop would take its CPU): execution/instances.py `started` calls it once its instances are up.
"""

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)


@dataclass
class Spare:
    """One spare instance: its port, the options it started with, the provisioner that started it
    (its process handle), whether it is up (`ready`), the timer that kills it."""

    port: int
    options: list[str]
    owner: Any = None  # the LocalProvisioner that started it (typed Any: provisioners import this)
    ready: bool = False
    timer: threading.Timer | None = field(default=None, repr=False)


_SPARES: dict[str, Spare] = {}
_SLOT_LOCKS: dict[str, threading.Lock] = {}
_REGISTRY = threading.Lock()
_STARTING = threading.Condition(_REGISTRY)
_starting = 0  # spares being started now (settle waits for 0)
_gate = threading.Event()  # set by release(): the spares prepared before it may start
HOLD_S = 10.0  # a spare starts at the latest this long after it was prepared, released or not


def _slot_lock(key: str) -> threading.Lock:
    with _REGISTRY:
        return _SLOT_LOCKS.setdefault(key, threading.Lock())


@contextlib.contextmanager
def slot(key: str, timeout_s: float) -> Iterator[None]:
    """Hold slot `key` (a spare being started holds it until it is up or has failed); TimeoutError
    after timeout_s seconds."""
    lock = _slot_lock(key)
    if not lock.acquire(timeout=timeout_s):
        raise TimeoutError(f"slot {key}: a spare instance is still starting after {timeout_s:.0f} s")
    try:
        yield
    finally:
        lock.release()


def port_of(key: str) -> int | None:
    """The port of slot `key`'s spare (starting or up), or None: the next provisioner of that slot
    listens there too, so that its option file can match the spare's."""
    with _REGISTRY:
        spare = _SPARES.get(key)
        return None if spare is None else spare.port


def take(key: str) -> Spare | None:
    """Remove and return slot `key`'s spare if it is up (the caller holds the slot: `slot`), else None.
    The caller uses it or kills it."""
    with _REGISTRY:
        spare = _SPARES.get(key)
        if spare is None or not spare.ready:
            return None
        del _SPARES[key]
    if spare.timer is not None:
        spare.timer.cancel()
    return spare


def prepare(
    key: str,
    port: int,
    options: list[str],
    start: Callable[[], Any],
    kill: Callable[[], None],
    keep_s: float,
) -> bool:
    """Start a spare for slot `key` in a daemon thread: once the job that discarded the slot's instance
    has written its final state (`release`, at most HOLD_S seconds later: its own ending must not share
    the CPU with the spare's copy and start), `start()` (copy, start, freeze; returns the provisioner that
    owns the process), then keep it `keep_s` seconds, after which `kill()` (SIGKILL, datadir removed)
    unless a start took it. The slot is held from this call until the spare is up or has failed, so a
    start of the slot waits for it. A start that fails is logged and leaves no spare. Returns at once:
    False (no spare) when the slot is held already."""
    global _starting
    lock = _slot_lock(key)
    if not lock.acquire(blocking=False):
        return False
    mine = Spare(port, list(options))
    with _REGISTRY:
        old = _SPARES.pop(key, None)
        _SPARES[key] = mine
        _starting += 1
        gate = _gate
    if old is not None and old.timer is not None:
        old.timer.cancel()

    def run() -> None:
        global _starting
        try:
            gate.wait(HOLD_S)
            try:
                owner = start()
            except Exception as error:
                log.warning("spare instance %s did not start: %s", key, error)
                with _REGISTRY:
                    if _SPARES.get(key) is mine:
                        del _SPARES[key]
                with contextlib.suppress(Exception):
                    kill()
                return
            timer = threading.Timer(keep_s, _expire, args=(key, mine, kill))
            timer.daemon = True
            with _REGISTRY:
                kept = _SPARES.get(key) is mine  # not when discard_all or another spare replaced it
                if kept:
                    mine.owner, mine.ready, mine.timer = owner, True, timer
            if not kept:
                kill()
                return
            timer.start()
        except Exception:
            log.exception("spare instance %s", key)
        finally:
            lock.release()
            with _STARTING:
                _starting -= 1
                _STARTING.notify_all()

    threading.Thread(target=run, name=f"spare {key}", daemon=True).start()
    return True


def release() -> None:
    """The job of this process has written its final state: the spares its instances left may start
    (execution/lifecycle.py calls it after every job)."""
    global _gate
    with _REGISTRY:
        gate, _gate = _gate, threading.Event()
    gate.set()


def _expire(key: str, mine: Spare, kill: Callable[[], None]) -> None:
    """The timer of a spare nobody took: kill it, unless a start took it meanwhile."""
    try:
        with slot(key, 600):
            with _REGISTRY:
                if _SPARES.get(key) is not mine:
                    return
                del _SPARES[key]
            kill()
    except Exception:
        log.exception("expiring spare instance %s", key)


def settle(timeout_s: float) -> None:
    """Wait (at most timeout_s seconds) until no spare of this process is starting."""
    deadline = time.monotonic() + timeout_s
    with _STARTING:
        while _starting > 0:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            _STARTING.wait(left)


def discard_all() -> None:
    """Kill every spare of this process that is up (the worker is ending); one still starting is killed
    by its own thread once up (it finds itself gone from the registry)."""
    with _REGISTRY:
        ready = [(key, spare) for key, spare in _SPARES.items() if spare.ready]
        _SPARES.clear()
    for key, spare in ready:
        if spare.timer is not None:
            spare.timer.cancel()
        try:
            spare.owner.discard()
        except Exception:
            log.exception("discarding spare instance %s", key)


def count() -> int:
    """How many spares this process holds (starting or up)."""
    with _REGISTRY:
        return len(_SPARES)
