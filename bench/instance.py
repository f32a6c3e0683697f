"""A throw-away Upgrade Lab instance for the benches: its own state dir, Redis, Celery worker and API.

Ports: 6391/8791 + BENCH_PORT_OFFSET (default 250), lab servers on 34097/34011/34118 + offset. An admin is
created and its token exported as UPGRADELAB_TOKEN. Import this module before anything from upgradelab.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

OFFSET = int(os.environ.get("BENCH_PORT_OFFSET", "250"))
STATE = Path(tempfile.mkdtemp(prefix="upgradelab-bench-"))
REDIS_PORT, API_PORT = 6391 + OFFSET, 8791 + OFFSET
PORTS = {
    "mysql-9.7": 34097 + OFFSET,
    "mariadb-10.11": 34011 + OFFSET,
    "mariadb-11.8": 34118 + OFFSET,
}
os.environ.update(
    UPGRADELAB_STATE_DIR=str(STATE),
    UPGRADELAB_REDIS_URL=f"redis://127.0.0.1:{REDIS_PORT}/0",
    UPGRADELAB_API_PORT=str(API_PORT),
    UPGRADELAB_SERVER_DIR=f"/var/lib/upgradelab/bench-servers-{OFFSET}",
)
BIN = Path(sys.executable).parent
API = f"http://127.0.0.1:{API_PORT}"


def _wait_port(port: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


@contextmanager
def instance(worker: bool) -> Iterator[str]:
    """Migrated database, admin token in UPGRADELAB_TOKEN, Redis, optional worker, API; yields the API URL."""
    from sqlalchemy import select

    from upgradelab.db import sync_session
    from upgradelab.migrations import upgrade_head
    from upgradelab.targets.models import Target
    from upgradelab.users.models import Role
    from upgradelab.users.service import create_user_sync, issue_token_sync

    for port in (REDIS_PORT, API_PORT, *PORTS.values()):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                raise SystemExit(f"port {port} is in use: set BENCH_PORT_OFFSET to another value")
    upgrade_head()
    with sync_session() as session:
        for target in session.scalars(select(Target)):
            target.settings = target.settings.with_values(port=PORTS[target.name])
        admin = create_user_sync(session, "bench", "bench-password", Role.admin)
        os.environ["UPGRADELAB_TOKEN"] = issue_token_sync(session, admin, "bench")
    processes = [
        subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(REDIS_PORT),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
    ]
    _wait_port(REDIS_PORT)
    log = (STATE / "processes.log").open("wb")
    if worker:
        processes.append(
            subprocess.Popen(
                [
                    str(BIN / "celery"),
                    "-A",
                    "upgradelab.worker",
                    "worker",
                    "-Q",
                    "upgradelab",
                    "--concurrency=1",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    processes.append(
        subprocess.Popen(
            [
                str(BIN / "uvicorn"),
                "upgradelab.main:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(API_PORT),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    )
    try:
        # the API imports the whole app: on a loaded 2-core host that took over 30 s
        _wait_port(API_PORT, timeout_s=180)
        yield API
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=30)
        _kill_servers()
        shutil.rmtree(STATE, ignore_errors=True)


def _kill_servers() -> None:
    """SIGKILL what the instance's worker left running from its server directory: a spare server
    waits for a run until the worker that started it reaps it, and that worker is gone."""
    kill_servers(f"{os.environ['UPGRADELAB_SERVER_DIR']}/")


def kill_servers(directory: str) -> None:
    """SIGKILL every mysqld / mariadbd whose command line names `directory` (a worker's servers)."""
    prefix = directory.encode()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if prefix in command and (b"mysqld" in command or b"mariadbd" in command):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(proc.name), signal.SIGKILL)


def auth_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {os.environ['UPGRADELAB_TOKEN']}"}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
