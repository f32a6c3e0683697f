"""Each worker's heartbeat: every few seconds its pool, queues, host facts and version go to a Redis
key that expires unless renewed, so the workers listed (pools/status.py) are the live ones.

The worker imports this module (worker.py `include`): the thread starts at `worker_ready` in the
worker's main process and its key is deleted at `worker_shutdown` (a killed worker's key expires).
"""

import json
import logging
import os
import platform
import socket
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from celery.signals import worker_ready, worker_shutdown
from celery.utils import worker_direct
from redis import Redis

from upgradelab.pools.schemas import WorkerRead
from upgradelab.settings import get_settings
from upgradelab.worker import queue_of

log = logging.getLogger(__name__)

KEY_PREFIX = "upgradelab:workers:"
INTERVAL_S = 5.0
TTL_S = 15  # three beats: a worker missing three is not live
_stop = threading.Event()
_key: list[str] = []


def version() -> str:
    """Upgrade Lab's installed version ("unknown" when run from a tree that is not installed)."""
    try:
        return metadata.version("upgradelab")
    except metadata.PackageNotFoundError:
        return "unknown"


def _memory_mb() -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def facts(node: str, queues: list[str]) -> dict[str, Any]:
    """What a heartbeat says (pools/schemas.WorkerRead's fields but `seen_at`)."""
    return {
        "name": node,
        "pool": get_settings().pool,
        "queues": queues,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "version": version(),
        "python": platform.python_version(),
        "cpus": os.cpu_count() or 0,
        "memory_mb": _memory_mb(),
        "started_at": datetime.now(UTC).isoformat(),
    }


def workers_of(told: Iterable[bytes | str | None]) -> list[WorkerRead]:
    """The heartbeats read (None: expired since it was listed), by pool, name and pid; each worker's
    own queue (Celery's worker_direct `<name>.dq2`, worker.py) apart from its pool's queues, as
    `direct_queue`."""
    workers = [_direct_apart(WorkerRead.model_validate(json.loads(one))) for one in told if one is not None]
    return sorted(workers, key=lambda worker: (worker.pool, worker.name, worker.pid))


def _direct_apart(worker: WorkerRead) -> WorkerRead:
    own = worker_direct(worker.name).name
    if own not in worker.queues:
        return worker
    return worker.model_copy(update={"queues": [q for q in worker.queues if q != own], "direct_queue": own})


def live_workers_now(redis: Redis) -> list[WorkerRead]:
    """Every live worker (pools/status.py live_workers) read with a worker's own blocking Redis
    client: a sharded replay's choice of hosts (replay/sharding.py)."""
    return workers_of([redis.get(key) for key in redis.scan_iter(match=f"{KEY_PREFIX}*", count=500)])


def _beat(redis: Redis, key: str, told: dict[str, Any]) -> None:
    redis.set(key, json.dumps({**told, "seen_at": datetime.now(UTC).isoformat()}), ex=TTL_S)


def _loop(key: str, told: dict[str, Any]) -> None:
    redis = Redis.from_url(get_settings().redis_url, socket_timeout=5, socket_connect_timeout=5)
    while True:
        try:
            _beat(redis, key, told)
        except Exception:  # Redis briefly away: the next beat tries again
            log.exception("worker heartbeat failed")
        if _stop.wait(INTERVAL_S):
            return


@worker_ready.connect
def _start(sender: Any = None, **_: Any) -> None:
    """In the worker's main process: beat now, then every INTERVAL_S seconds."""
    node = str(getattr(sender, "hostname", None) or f"celery@{socket.gethostname()}")
    try:
        queues = sorted(sender.app.amqp.queues.consume_from)
    except AttributeError:
        queues = [queue_of(get_settings().pool)]
    key = f"{KEY_PREFIX}{get_settings().pool}:{node}:{os.getpid()}"
    _key.append(key)
    threading.Thread(
        target=_loop, args=(key, facts(node, queues)), name="pool-heartbeat", daemon=True
    ).start()


@worker_shutdown.connect
def _end(**_: Any) -> None:
    """A worker that stops says so at once (a killed one's key expires after TTL_S)."""
    _stop.set()
    for key in _key:
        try:
            Redis.from_url(get_settings().redis_url, socket_timeout=5, socket_connect_timeout=5).delete(key)
        except Exception:
            log.exception("could not delete the heartbeat key %s", key)
