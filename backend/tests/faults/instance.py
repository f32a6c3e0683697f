"""A whole Upgrade Lab instance for the fault tests, as `make up` starts it, that a test may break.

Its own Redis (append-only file, as scripts/up.sh), Celery worker, API, SQLite metadata database,
server directory and target ports (tests/ports.py FAULT_*), so killing or restarting any of them
leaves the session's fixtures (tests/conftest.py) alone. Processes are started with their own
environment; the test process reads the instance's database through its own engine.

The metadata database is set up once per test process (`Template`): the migrations, the targets
moved to the fault ports, an admin and a token, written by the functions `make up`'s CLI commands
call (`db upgrade`, `users create-admin`, `users token`) in this process, which spares three CLI
starts (~3.5 s of CPU each; those entry points run as processes in tests/pools/test_metadata_*.py,
tests/users/test_auth.py and tests/targets/test_docker_compose.py). Each instance starts from a copy
of that file: the same rows as its own `db upgrade` would give.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from redis import Redis
from sqlalchemy import Engine, create_engine, func, select, text
from sqlalchemy.orm import Session

from tests import ports
from tests.conftest import BIN, _wait_port
from upgradelab.execution.status import FINAL_STATUSES
from upgradelab.migrations import upgrade_head
from upgradelab.results.store.models import Sample
from upgradelab.settings import Settings
from upgradelab.streaming.keys import stream_key
from upgradelab.users.models import Role
from upgradelab.users.service import create_user_sync, issue_token_sync

FINAL: frozenset[str] = FINAL_STATUSES
SERVER_DIR = f"/var/lib/upgradelab/test-servers-{ports.SESSION}-faults"
TARGET_PORTS = {"mariadb-10.11": ports.FAULT_MARIADB, "mysql-9.7": ports.FAULT_MYSQL}
_STORED = re.compile(r"iteration stored: run=(\d+) variant=(\d+) iteration=(\d+)")
_DATABASE = "upgradelab.db"
# The product's defaults (settings.py), which an instance runs with unless a test asks for a shorter lease.
DEFAULT_LEASE_S: float = Settings.model_fields["job_lease_ttl_s"].default
DEFAULT_HEARTBEAT_S: float = Settings.model_fields["job_heartbeat_s"].default


class LabInstance:
    """Redis, worker and API of one throw-away instance; every method is bounded in time.

    `template`: a prepared database to copy (the fault tests'); without one, `prepare` migrates a new
    one and signs in an admin (`Template`; tests/pools/metadata_lab.py's for a database elsewhere).
    `lease_s`, `heartbeat_s`: the workers' job lease and heartbeat (s, UPGRADELAB_JOB_LEASE_TTL_S /
    _HEARTBEAT_S); the product's defaults unless a test that waits out a lease asks for less."""

    def __init__(
        self,
        template: "Template | None" = None,
        lease_s: float = DEFAULT_LEASE_S,
        heartbeat_s: float = DEFAULT_HEARTBEAT_S,
    ) -> None:
        self.template = template
        self.lease_s, self.heartbeat_s = lease_s, heartbeat_s
        self.state = Path(tempfile.mkdtemp(prefix="upgradelab-faults-"))
        self.redis_port, self.api_port = ports.FAULT_REDIS, ports.FAULT_API
        self.env = {
            **_instance_env(self.state),
            "UPGRADELAB_JOB_LEASE_TTL_S": str(lease_s),
            "UPGRADELAB_JOB_HEARTBEAT_S": str(heartbeat_s),
        }
        self.engine: Engine = create_engine(f"sqlite+pysqlite:///{self.state / 'upgradelab.db'}")
        self.redis_process: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes]] = []
        self.api_process: subprocess.Popen[bytes] | None = None
        self.token = ""

    # ---- set-up ------------------------------------------------------------------------------------
    def prepare(self) -> None:
        """Migrate the database, move the seeded targets to this instance's ports, sign in an admin;
        with a template, its copy of the template's database (the same rows)."""
        if self.template is not None:
            shutil.copyfile(self.template.database, self.state / _DATABASE)
            self.token = self.template.token
            return
        upgrade_head(f"sqlite+pysqlite:///{self.state / _DATABASE}")
        with Session(self.engine) as session:
            for name, port in TARGET_PORTS.items():
                move = "UPDATE target SET settings = json_set(settings, '$.port', :port) WHERE name = :name"
                session.execute(text(move), {"port": port, "name": name})
            session.commit()
            admin = create_user_sync(session, "admin", "faults-admin", Role.admin)
            self.token = issue_token_sync(session, admin, "faults")

    def _cli(self, *args: str, extra: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            [str(BIN / "upgradelab"), *args],
            env={**self.env, **(extra or {})},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self) -> None:
        """Redis, then a worker and the API side by side (two Python start-ups at once); returns once
        the worker is ready and the API listens."""
        self.start_redis()
        _, seen = self._spawn_worker()
        self._spawn_api()
        # bounds, not judged: a worker's start took over 60 s once at load 20 (ci24)
        self._wait_log("worker.log", " ready.", seen, timeout_s=120)
        _wait_port(self.api_port, timeout_s=120)

    # ---- Redis -------------------------------------------------------------------------------------
    def start_redis(self) -> None:
        """redis-server with scripts/up.sh's options: append-only file in the state dir, no RDB."""
        (self.state / "redis").mkdir(exist_ok=True)
        self.redis_process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.redis_port), "--dir",
             str(self.state / "redis"), "--save", "", "--appendonly", "yes"],
            stdout=(self.state / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        _wait_port(self.redis_port)

    def stop_redis(self) -> None:
        """SHUTDOWN as an operator's restart would (the append-only file is flushed)."""
        if self.redis_process is not None:
            self.redis_process.send_signal(signal.SIGTERM)
            self.redis_process.wait(timeout=30)
            self.redis_process = None

    def redis(self) -> Redis:
        """A client on this instance's Redis."""
        return Redis(port=self.redis_port, socket_timeout=5, decode_responses=True)

    # ---- worker ------------------------------------------------------------------------------------
    def start_worker(self) -> subprocess.Popen[bytes]:
        """A Celery worker as scripts/up.sh starts it (INFO log appended to worker.log); returns once
        it is ready."""
        worker, seen = self._spawn_worker()
        self._wait_log("worker.log", " ready.", seen, timeout_s=120)
        return worker

    def _spawn_worker(self) -> tuple[subprocess.Popen[bytes], int]:
        """Start a worker without waiting; it and the count of ' ready.' lines logged before it."""
        seen = self.worker_log().count(" ready.") if (self.state / "worker.log").exists() else 0
        worker = subprocess.Popen(
            [str(BIN / "celery"), "-A", "upgradelab.worker", "worker", "--loglevel=INFO",
             "--concurrency=2", "-Q", "upgradelab"],
            env=self.env,
            stdout=(self.state / "worker.log").open("ab"),
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.workers.append(worker)
        return worker, seen

    def kill_worker(self, worker: subprocess.Popen[bytes]) -> list[int]:
        """kill -9 the worker's main process and its pool processes at once (a crash, an OOM kill);
        the pids killed."""
        pids = [worker.pid, *children_of(worker.pid)]
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        worker.wait(timeout=10)
        return pids

    def worker_log(self) -> str:
        """Everything the instance's workers logged."""
        return (self.state / "worker.log").read_text(errors="replace")

    def logged_iterations(self, run_id: int) -> list[tuple[int, int]]:
        """(variant_index, iteration) of every `iteration stored` line the workers logged for the run."""
        return [(int(v), int(i)) for r, v, i in _STORED.findall(self.worker_log()) if int(r) == run_id]

    # ---- API ---------------------------------------------------------------------------------------
    def start_api(self) -> None:
        """`upgradelab serve` on this instance's port."""
        self._spawn_api()
        _wait_port(self.api_port, timeout_s=120)

    def _spawn_api(self) -> None:
        self.api_process = subprocess.Popen(
            [str(BIN / "upgradelab"), "serve", "--port", str(self.api_port)],
            env=self.env,
            stdout=(self.state / "api.log").open("ab"),
            stderr=subprocess.STDOUT,
        )

    def stop_api(self) -> None:
        if self.api_process is not None:
            _terminate(self.api_process)
            self.api_process = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    @contextmanager
    def client(self) -> Iterator[httpx.Client]:
        """An HTTP client on this instance's API, signed in as its admin."""
        headers = {"Authorization": f"Bearer {self.token}"}
        with httpx.Client(base_url=self.url, timeout=30, headers=headers) as http:
            yield http

    # ---- what is left ------------------------------------------------------------------------------
    def stored_iterations(self, run_id: int) -> list[tuple[int, int, int]]:
        """(variant_index, iteration, statements) of every stored iteration of the run."""
        with Session(self.engine) as session:
            rows = session.execute(
                select(Sample.variant_index, Sample.iteration, func.count())
                .where(Sample.run_id == run_id)
                .group_by(Sample.variant_index, Sample.iteration)
            )
            return [(v, i, n) for v, i, n in rows]

    def run_row(self, run_id: int) -> dict[str, Any]:
        with Session(self.engine) as session:
            row = session.execute(text("SELECT * FROM run WHERE id = :id"), {"id": run_id}).mappings().one()
            return dict(row)

    def stream_events(self, run_id: int) -> list[dict[str, Any]]:
        """The events of the run's Redis Stream, in order."""
        entries: list[Any] = self.redis().xrange(stream_key(run_id)) or []
        return [json.loads(fields["data"]) for _, fields in entries]

    def lock_keys(self) -> list[str]:
        """Target locks present in Redis."""
        return sorted(str(key) for key in self.redis().keys("upgradelab:target-lock:*"))

    def server_processes(self) -> list[int]:
        """Pids of mysqld/mariadbd processes started from this instance's server directory."""
        found = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if SERVER_DIR in command and ("mysqld" in command or "mariadbd" in command):
                found.append(int(proc.name))
        return found

    @staticmethod
    def command_line(pid: int) -> str:
        """The process's command line, arguments joined by spaces ('' once it is gone)."""
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            return ""

    # ---- tear-down ---------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop everything this instance started, servers included."""
        self.stop_api()
        for worker in self.workers:
            if worker.poll() is None:
                _terminate(worker)
        for pid in self.server_processes():
            os.kill(pid, signal.SIGKILL)
        self.stop_redis()
        self.engine.dispose()
        shutil.rmtree(self.state, ignore_errors=True)

    def _wait_log(self, name: str, needle: str, seen: int, timeout_s: float) -> None:
        """Wait until `needle` occurs more than `seen` times in the log."""
        path = self.state / name
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if path.exists() and path.read_text(errors="replace").count(needle) > seen:
                return
            time.sleep(0.2)
        raise TimeoutError(f"{name}: no new {needle!r} after {timeout_s} s")


def _instance_env(state: Path) -> dict[str, str]:
    """The environment of a fault instance's processes whose state directory is `state`."""
    return {
        **os.environ,
        "UPGRADELAB_STATE_DIR": str(state),
        "UPGRADELAB_DATABASE_URL": "",
        "UPGRADELAB_REDIS_URL": f"redis://127.0.0.1:{ports.FAULT_REDIS}/0",
        "UPGRADELAB_API_PORT": str(ports.FAULT_API),
        "UPGRADELAB_SERVER_DIR": SERVER_DIR,
    }


class Template:
    """A metadata database prepared once (`LabInstance.prepare` without a template): its `database`
    file, which instances copy, and the admin's bearer `token`."""

    def __init__(self) -> None:
        seed = LabInstance()
        seed.prepare()
        seed.engine.dispose()
        self.state, self.database, self.token = seed.state, seed.state / _DATABASE, seed.token
        assert not list(self.state.glob(f"{_DATABASE}-*")), "the set-up left a WAL behind: copy it too"

    def remove(self) -> None:
        shutil.rmtree(self.state, ignore_errors=True)


def children_of(pid: int) -> list[int]:
    """Direct children of `pid`."""
    return [
        int(proc.name)
        for proc in Path("/proc").iterdir()
        if proc.name.isdigit() and parent_of(int(proc.name)) == pid
    ]


def parent_of(pid: int) -> int | None:
    """The ppid field of /proc/<pid>/stat; None for a process that is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _terminate(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
