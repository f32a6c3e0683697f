"""A second worker pool on this machine, as a second bench host would be: its own state directory,
the shared metadata database and Redis, the API reached over HTTP with the worker credential."""

import json
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
from sqlalchemy import select, text

from tests.conftest import BIN, STATE, auth_headers
from tests.faults.instance import children_of
from upgradelab.db import sync_session
from upgradelab.pools.credential import worker_token
from upgradelab.settings import get_settings
from upgradelab.targets.models import Target


def second_host_env(pool: str, state: Path) -> dict[str, str]:
    """The variables a second host's worker sets (README: "A second bench host")."""
    settings = get_settings()
    return {
        **os.environ,
        "UPGRADELAB_POOL": pool,
        "UPGRADELAB_STATE_DIR": str(state),
        "UPGRADELAB_DATABASE_URL": settings.async_database_url,  # the shared metadata database
        "UPGRADELAB_REDIS_URL": settings.redis_url,
        "UPGRADELAB_API_URL": f"http://127.0.0.1:{settings.api_port}",
        "UPGRADELAB_WORKER_TOKEN": worker_token(),
    }


def start_worker(pool: str, state: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """A Celery worker of `pool` (no -Q: it consumes its pool's queue), ready when it returns; `env`:
    more variables of its host (its own server directory)."""
    state.mkdir(parents=True, exist_ok=True)
    log = state / "worker.log"
    process = subprocess.Popen(
        [str(BIN / "celery"), "-A", "upgradelab.worker", "worker", "--concurrency=2", "-l", "INFO",
         "-n", f"{pool}@%h"],
        env={**second_host_env(pool, state), **(env or {})},
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while " ready." not in log.read_text(errors="replace"):
        assert process.poll() is None, log.read_text(errors="replace")
        assert time.monotonic() < deadline, log.read_text(errors="replace")
        time.sleep(0.2)
    return process


def kill(process: subprocess.Popen[bytes]) -> None:
    """kill -9 a worker and its pool processes at once (the host gone)."""
    for pid in [process.pid, *children_of(process.pid)]:
        with suppress(ProcessLookupError):
            os.kill(pid, 9)
    process.wait(timeout=10)


@contextmanager
def pools_of_targets(pools: dict[str, list[str]]) -> Iterator[None]:
    """Put the seeded targets in the pools given, and back in theirs afterwards."""
    with sync_session() as session:
        rows = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(pools)))}
        before = {name: list(row.pools) for name, row in rows.items()}
        for name, row in rows.items():
            row.pools = pools[name]
        session.commit()
    try:
        yield
    finally:
        with sync_session() as session:
            for row in session.scalars(select(Target).where(Target.name.in_(before))):
                row.pools = before[row.name]
            session.commit()


def wait_for_pool_worker(api: str, pool: str, timeout_s: float = 20) -> dict[str, object]:
    """GET /api/pools until `pool` lists a live worker; that pool's JSON."""
    deadline = time.monotonic() + timeout_s
    with httpx.Client(base_url=api, headers=auth_headers(), timeout=10) as client:
        while time.monotonic() < deadline:
            listed = {p["name"]: p for p in client.get("/api/pools").json()}
            if listed.get(pool, {}).get("workers"):
                return dict(listed[pool])
            time.sleep(0.3)
    raise TimeoutError(f"no live worker in pool {pool}: {json.dumps(listed)[:500]}")


def lease_owner_pid(kind_table: str, job_id: int) -> int | None:
    """The pid in a job's lease_owner (`host:pid:hex`), None while it holds no lease."""

    with sync_session() as session:
        owner = session.execute(
            text(f"SELECT lease_owner FROM {kind_table} WHERE id = :i"), {"i": job_id}
        ).scalar()
    return int(owner.split(":")[1]) if owner else None


__all__ = ["STATE", "kill", "lease_owner_pid", "pools_of_targets", "start_worker", "wait_for_pool_worker"]
