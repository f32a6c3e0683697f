"""Shared fixtures: a test instance of Upgrade Lab with its own state, ports and server directories.

Everything is real: Redis (redis-server), the lab's MySQL 9.7 (sid chroot) and MariaDB 10.11 servers,
a Celery worker process and the API under uvicorn. Ports differ from the product's defaults so a
running `make up` is left alone.
"""

import contextlib
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import ports, scratch_disk

STATE = Path(tempfile.mkdtemp(prefix="upgradelab-test-"))
# Two test sessions on one machine (two checkouts) stay apart: UPGRADELAB_TEST_SESSION (tests/ports.py).
REDIS_PORT = ports.REDIS
API_PORT = ports.API
TEST_PORTS = ports.WORKER_TARGETS
SERVER_DIR = f"/var/lib/upgradelab/test-servers-{ports.SESSION}"
# Datasets from a path come only from directories an admin lists (two here: the list is comma-separated).
DATASET_DIRS = [STATE / "dumps", STATE / "more-dumps"]
for _directory in DATASET_DIRS:
    _directory.mkdir()

# Settings are read from the environment on first use: set them before importing upgradelab.
os.environ.update(
    UPGRADELAB_STATE_DIR=str(STATE),
    UPGRADELAB_REDIS_URL=f"redis://127.0.0.1:{REDIS_PORT}/0",
    UPGRADELAB_API_PORT=str(API_PORT),
    UPGRADELAB_SERVER_DIR=SERVER_DIR,
    UPGRADELAB_DATASET_DIRS=",".join(str(d) for d in DATASET_DIRS),
    # each session a lab of its own: its replays always find a CPU to time on (execution/timing_cpu.py;
    # on the machine's directory the gate's other sessions held both CPUs at times, and an unpinned
    # replay's TIMER_WAIT can exceed the client's time: tests/replay/test_statement_cost_on_server.py)
    UPGRADELAB_TIMING_CPU_CLAIMS_DIR=str(STATE / "timing-cpus"),
)

from sqlalchemy import select  # noqa: E402

from upgradelab.db import sync_session  # noqa: E402
from upgradelab.migrations import upgrade_head  # noqa: E402
from upgradelab.settings import REPO_ROOT, get_settings  # noqa: E402
from upgradelab.targets.models import Target  # noqa: E402
from upgradelab.targets.provisioners import LocalProvisioner, credentials, provisioner_for  # noqa: E402
from upgradelab.targets.provisioners.local_template import READY_MARKER  # noqa: E402
from upgradelab.users.models import Role  # noqa: E402
from upgradelab.users.service import create_user_sync, issue_token_sync  # noqa: E402

BIN = Path(sys.executable).parent
TLS_CONTEXT = ssl.create_default_context()


def _wait_port(port: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout_s} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def database() -> Iterator[None]:
    """Migrated SQLite metadata database; the seeded lab targets moved to the test ports."""
    upgrade_head()
    with sync_session() as session:
        for target in session.scalars(select(Target)):
            target.settings = target.settings.with_values(port=TEST_PORTS[target.name])
        session.commit()
        _sign_in_tests(session)
    yield
    shutil.rmtree(STATE, ignore_errors=True)


# Auth (issue 4): every API call needs a user. The session creates an admin and a token; `client`,
# the browser `page` and the CLI (UPGRADELAB_TOKEN, inherited by subprocesses) use it.
ADMIN_USER, ADMIN_PASSWORD = "test-admin", "test-admin-password"


def _sign_in_tests(session: Any) -> None:
    admin = create_user_sync(session, ADMIN_USER, ADMIN_PASSWORD, Role.admin)
    os.environ["UPGRADELAB_TOKEN"] = issue_token_sync(session, admin, "tests")


def auth_headers() -> dict[str, str]:
    """Authorization header of the session's admin (after the `database` fixture ran)."""
    return {"Authorization": f"Bearer {os.environ['UPGRADELAB_TOKEN']}"}


def signed_in(context: Any, api: str) -> Any:
    """A Playwright BrowserContext with the admin's session cookie set for the test API."""
    context.add_cookies([{"name": "upgradelab_session", "value": os.environ["UPGRADELAB_TOKEN"], "url": api}])
    return context


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """A real redis-server on 127.0.0.1:6391, no persistence."""
    process = subprocess.Popen(
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
    _wait_port(REDIS_PORT)
    yield get_settings().redis_url
    _stop(process)


@pytest.fixture(scope="session")
def worker(database: None, redis_server: str) -> Iterator[subprocess.Popen[bytes]]:
    """A real Celery worker (2 processes) consuming the test instance's queue."""
    log = (STATE / "worker.log").open("wb")
    process = subprocess.Popen(
        [
            str(BIN / "celery"),
            "-A",
            "upgradelab.worker",
            "worker",
            "-Q",
            "upgradelab",
            "--concurrency=2",
            "-l",
            "INFO",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    time.sleep(3)
    assert process.poll() is None, (STATE / "worker.log").read_text()
    yield process
    _stop(process)
    for name in TEST_PORTS:  # a test that failed mid-run may leave servers behind (any slot)
        with sync_session() as session:
            provisioner_for(session.scalars(select(Target).where(Target.name == name)).one()).stop_all()


@pytest.fixture(scope="session")
def api(worker: subprocess.Popen[bytes]) -> Iterator[str]:
    """The API (and the built UI, when frontend/dist exists) under uvicorn; yields its base URL."""
    log = (STATE / "api.log").open("wb")
    process = subprocess.Popen(
        [str(BIN / "uvicorn"), "upgradelab.main:app", "--host", "127.0.0.1", "--port", str(API_PORT)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:  # a slow start (a loaded host) fails the session without leaving uvicorn behind
        _wait_port(API_PORT, timeout_s=90)
        yield f"http://127.0.0.1:{API_PORT}"
    finally:
        _stop(process)


@pytest.fixture
def client(api: str) -> Iterator[httpx.Client]:
    """An HTTP client on the test API, signed in as the session's admin."""
    # One TLS context for the process: httpx makes one per client otherwise, loading the CA bundle
    # (~40 ms of CPU) for a plain-HTTP API, in every test that takes `client`.
    with httpx.Client(base_url=api, timeout=30, headers=auth_headers(), verify=TLS_CONTEXT) as http:
        yield http


def lab_provisioner(name: str, port: int | None = None, suffix: str = "unit") -> LocalProvisioner:
    """A provisioner for a seeded lab target as `<name>-<suffix>` on its own port (default
    ports.UNIT_TARGETS[name]) and server directory, apart from the worker's; its template a copy of
    the worker's one of `name` when that is made (_seed_template)."""
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == name)).one()
    settings = {**target.settings.stored(), "port": port or ports.UNIT_TARGETS[name]}
    provisioner = LocalProvisioner(f"{name}-{suffix}", target.flavor, settings, get_settings())
    _seed_template(
        provisioner, LocalProvisioner(name, target.flavor, target.settings.stored(), get_settings())
    )
    return provisioner


def _seed_template(provisioner: LocalProvisioner, seed: LocalProvisioner) -> None:
    """Give `provisioner` (a test's `<name>-<suffix>`) a copy of `seed`'s template (the session's
    worker's target `<name>`, made by its first run there) and the seed's admin password, unless its
    template is made already or the seed's is not made and keyed yet (then it initializes its own).

    A template costs a `mysqld --initialize-insecure` or `mariadb-install-db` and a keying start:
    ~2.5 CPU-s for MySQL 9.7, on a gate that made one per suffix and server (about 30 per session).
    The copy is what every start does with a template anyway (data/ is a `cp -a` of it): the same
    server, the same settings (only the port differs, which a datadir does not record), the same key,
    since the password is the seed's. Paths in the template are relative to its datadir. This process
    never starts a server for the worker's target (its slot 0 and port are the worker's, and a spare
    may be up there): it only copies under the template's lock, which the worker takes to make it."""
    template = provisioner._template_host()
    if (template / READY_MARKER).exists():
        return
    with provisioner._template_lock():
        if (template / READY_MARKER).exists():
            return
        with seed._template_lock():
            source = seed._template_host()
            if not ((source / READY_MARKER).exists() and seed._keyed(source)):
                return
            password = credentials.password_file(provisioner.target_name, provisioner.app)
            if not password.exists():
                shutil.copy2(credentials.password_file(seed.target_name, seed.app), password)
            shutil.rmtree(template, ignore_errors=True)  # (its directory: made by the lock; a start owns it)
            subprocess.run(["cp", "-a", str(source), str(template)], check=True)


# The templates' unit tests run on the two original lab targets; mariadb-11.8 is used by the
# dataset and replay tests (tests/datasets, tests/replay), which ask for it by name.
TEMPLATE_TARGETS = ["mariadb-10.11", "mysql-9.7"]


@pytest.fixture(scope="module", params=TEMPLATE_TARGETS)
def provisioner(request: pytest.FixtureRequest, database: None) -> Iterator[LocalProvisioner]:
    """Each lab target's provisioner in turn (MariaDB 10.11, MySQL 9.7); stopped afterwards."""
    one = lab_provisioner(request.param)
    yield one
    one.stop()


FRONTEND_DIST = REPO_ROOT / "frontend" / "dist"


# ---- this session's server directories: none at the start, none left at the end -------------------
# Templates, datasets and kept datadirs take gigabytes per session (count-star's dataset alone is ~200 MB
# per variant); left behind by each run of the test command, they filled the disk until InnoDB said
# "The table 'test_long' is full". Each session owns its directories (tests/ports.py): it removes them,
# on the host and inside each chroot, after killing any server still running from them.
FAULTS_SERVER_DIR = f"{SERVER_DIR}-faults"  # tests/faults/instance.py


def _session_server_dirs() -> list[Path]:
    roots = [Path("/"), *sorted((get_settings().lab_dir / "chroots").glob("*"))]
    return [root / name.lstrip("/") for root in roots for name in (SERVER_DIR, FAULTS_SERVER_DIR)]


def _kill_session_servers() -> None:
    """SIGKILL mysqld/mariadbd processes whose command line names this session's directories."""
    kill_servers_under(f"{SERVER_DIR}/", f"{FAULTS_SERVER_DIR}/")


def kill_servers_under(*prefixes: str) -> None:
    """SIGKILL mysqld/mariadbd processes whose command line names one of `prefixes` (directories)."""
    for pid in servers_under(*prefixes):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def servers_under(*prefixes: str) -> list[int]:
    """The pids of the mysqld/mariadbd processes whose command line names one of `prefixes`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(prefix in command for prefix in prefixes) and ("mysqld" in command or "mariadbd" in command):
            found.append(int(proc.name))
    return found


def _owns_directories(config: pytest.Config) -> bool:
    # the pytest-xdist controller runs no test and owns no directory (its workers do)
    return hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None)


def _remove_session_servers(config: pytest.Config) -> None:
    if not _owns_directories(config):
        return
    _kill_session_servers()
    scratch_disk.detach(_session_server_dirs())


def pytest_sessionstart(session: pytest.Session) -> None:
    """A crashed earlier session's servers and directories are gone before this one starts its own;
    its server directories are on the scratch disk (tests/scratch_disk.py)."""
    _remove_session_servers(session.config)
    if _owns_directories(session.config):
        scratch_disk.attach(_session_server_dirs())


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """After the session fixtures stopped their servers, remove what they left on disk."""
    _remove_session_servers(session.config)


# ---- the longest test files first --------------------------------------------------------------------
# pytest-xdist (`--dist loadfile`) hands out whole files in collection order, each worker holding at most
# two ahead. A long file handed out last ends the suite with one worker busy and the others idle, so the
# longest files (measured: each file's wall clock, its first test to the next file's, in a gate run) go first.
# A file named here that no longer exists is simply not found; a new long file belongs in this list.
LONGEST_FIRST = [  # seconds per file in a gate run on 3 workers (session 9, main cc37307; a file's tests
    # summed, setup and teardown included). scripts/test.sh passes --no-loadscope-reorder: without it,
    # pytest-xdist (3.x) sorts the files by their number of tests and this order was never used (the
    # longest file started at 404 s of 760).
    "faults/test_worker_killed.py",  # 105 s
    "faults/test_redis_restart.py",  # 90 s
    "targets/test_docker_compose.py",  # 86 s
    "replay/test_replay_api.py",  # 78 s
    "targets/test_docker_provisioner.py",  # 68 s
    "datasets/test_hostile_dumps.py",  # 65 s
    "pools/test_two_pools.py",  # 65 s
    "faults/test_concurrent_submissions.py",  # 50 s
    "faults/test_replay_worker_killed.py",  # 48 s
    "probes/test_probes_on_servers.py",  # 47 s
    "fixsearch/test_fix_on_mysql.py",  # 45 s
    "replay/test_replay_bounds_and_cancel.py",  # 44 s
    "replay/test_replay_on_servers.py",  # 39 s
    "replay/test_replay_accounts.py",  # 36 s
    "targets/test_spares.py",  # 35 s
    "fixsearch/test_fix_global_on_mariadb.py",  # 34 s
    "targets/test_local_provisioner.py",  # 34 s
    "fixsearch/test_fix_on_mariadb.py",  # 31 s
    "runs/test_mixed_targets.py",  # 30 s
    "datasets/test_docker_loading.py",  # 30 s
    "workloads/test_count_star.py",  # 28 s
    "browser/test_new_run_form.py",  # 28 s
    "datasets/test_dataset_records.py",  # 27 s
    "pools/test_metadata_mariadb.py",  # 25 s
    "browser/test_contrast_cases.py",  # 25 s
    "pools/test_metadata_postgresql.py",  # 24 s
    "workloads/test_hostile_custom_sql.py",  # 24 s
    "experiments/test_variant_settings.py",  # 24 s
    "runs/test_existing_runs.py",  # 24 s
    "results/test_contrasts_on_servers.py",  # 24 s
    "browser/test_datasets_and_replay.py",  # 23 s
    "workloads/test_custom_sql_timeout.py",  # 23 s
    "results/test_charset_verdicts_on_servers.py",  # 23 s
    "sharing/test_no_secret_in_reports.py",  # 23 s
    "runs/test_cancel_phases.py",  # 23 s
    "browser/test_template_form.py",  # 23 s
    "faults/test_api_restart.py",  # 22 s
    "targets/test_port_clash.py",  # 22 s
    "replay/test_results_streamed.py",  # 21 s
    "targets/test_statement_timeout.py",  # 20 s
    "targets/test_server_credentials.py",  # 20 s
    "fixsearch/test_fix_statistics_on_mariadb.py",  # 19 s
    "runs/test_interleaved.py",  # 19 s
    "attribution/test_mariadb_pair.py",  # 19 s
    "targets/test_tarball_provisioner.py",  # 18 s
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the collected tests: the files of LONGEST_FIRST in its order, then the rest as collected."""
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    tests_dir = Path(__file__).parent

    def place(item: pytest.Item) -> int:
        name = item.path.relative_to(tests_dir).as_posix() if item.path.is_relative_to(tests_dir) else ""
        return rank.get(name, len(rank))

    items.sort(key=place)  # stable: each file's tests stay in their order
