"""The server's command-line client as the loader runs it (loader.py says why so): how it is
started (every client command off, as the `mysql` user of where it runs, a bare environment), the
process fed on stdin with a thread that kills it on a cancel, and its errors read back."""

import os
import re
import subprocess
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from upgradelab.datasets.scan import ClientKind
from upgradelab.targets.client_auth import plugin_dir_flag
from upgradelab.targets.provisioners.base import Endpoint

# the server's errors (ERROR 1064 (42000) at line 12: ...) and the client's own (ERROR at line 3: ...)
_CLIENT_ERROR = re.compile(
    r"ERROR(?: (?P<code>\d+)(?: \((?P<state>\w+)\))?)?(?: at line (?P<line>\d+))?: (?P<msg>.*)"
)
# client warnings that are no error (MariaDB 11's about TLS checks, MySQL's about passwords)
_NOISE = re.compile(r"^WARNING: |Using a password")
_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
CANCEL_POLL_S = 0.25  # how often a busy client is checked for a cancel
# every client command off; `--loose-`: a client older than the switch warns and goes on
_SWITCHES = {
    "mysql": ["--binary-mode", "--loose-commands=OFF"],
    "mariadb": ["--binary-mode", "--loose-sandbox"],
}


class LoadFailed(RuntimeError):
    """The client stopped: `line` of the dump (None when the client gave none), the server's `code`
    (None for a client-side error) and its message."""

    def __init__(self, message: str, *, line: int | None, code: int | None) -> None:
        super().__init__(message)
        self.line, self.code = line, code


class LoadCancelled(LoadFailed):
    """The load was cancelled (`cancelled()` turned true): the client was killed mid-dump."""

    def __init__(self) -> None:
        super().__init__("the dump load was cancelled", line=None, code=None)


@dataclass(frozen=True)
class ClientLaunch:
    """How the client is started: argv, environment, and the uid/gid to switch to before exec
    (None: the argv switches itself, or this process is not root)."""

    argv: list[str]
    env: dict[str, str]
    uid: int | None
    gid: int | None


def client_kind(flavor: str) -> ClientKind:
    """Which client reads the dump: MariaDB's for the mariadb flavor, MySQL's otherwise."""
    return "mariadb" if flavor == "mariadb" else "mysql"


def _mysql_ids(passwd: Path) -> tuple[int, int]:
    for line in passwd.read_text().splitlines():
        fields = line.split(":")
        if fields[0] == "mysql" and len(fields) > 3:
            return int(fields[2]), int(fields[3])
    raise LoadFailed(f"no 'mysql' user in {passwd}: the client must not run as root", line=None, code=None)


def client_launch(endpoint: Endpoint, flavor: str, database: str) -> ClientLaunch:
    """The client of `endpoint` (Endpoint.client) as the loader starts it: connected as
    endpoint.user, default database `database`, every client command off, as the `mysql` user of
    the chroot, container or host it runs in. LoadFailed when there is no `mysql` user to run as."""
    args = [f"--user={endpoint.user}" if arg.startswith("--user=") else arg for arg in endpoint.client]
    flags = [*_SWITCHES[client_kind(flavor)], "--default-character-set=utf8mb4", f"--database={database}"]
    flags.append(plugin_dir_flag(args, endpoint.auth))  # the target's allowed plugins only
    env = {"PATH": _PATH, "HOME": "/", "MYSQL_PWD": endpoint.password}
    if args[0] == "chroot":  # chroot <root> <client> ...: the ids are the chroot's own
        uid, gid = _mysql_ids(Path(args[1]) / "etc/passwd")
        return ClientLaunch(["chroot", f"--userspec={uid}:{gid}", *args[1:], *flags], env, None, None)
    if args[0] == "docker":  # docker exec -i -e MYSQL_PWD <container> <client> ...
        at = args.index("exec") + 1
        docker_env = {k: v for k, v in os.environ.items() if k.startswith("DOCKER_")}
        env = {**env, **docker_env, "HOME": os.environ.get("HOME", "/")}  # the docker CLI's config
        return ClientLaunch([*args[:at], "--user", "mysql", *args[at:], *flags], env, None, None)
    if os.geteuid() != 0:
        return ClientLaunch([*args, *flags], env, None, None)
    uid, gid = _mysql_ids(Path("/etc/passwd"))
    return ClientLaunch([*args, *flags], env, uid, gid)


class DumpClient:
    """The client process, started on first use; killed by a watch thread once `cancelled()`."""

    def __init__(self, launch: Callable[[], ClientLaunch], cancelled: Callable[[], bool]) -> None:
        self._launch, self._cancelled = launch, cancelled
        self.process: subprocess.Popen[bytes] | None = None
        self.stderr: list[bytes] = []
        self._done = threading.Event()
        self._threads: list[threading.Thread] = []

    def write(self, data: bytes) -> None:
        if self.process is None:
            self._start()
        assert self.process is not None and self.process.stdin is not None
        if data:
            self.process.stdin.write(data)

    def _start(self) -> None:
        launch = self._launch()
        self.process = subprocess.Popen(
            launch.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=launch.env,
            user=launch.uid,
            group=launch.gid,
            extra_groups=[] if launch.uid is not None else None,
            cwd="/",
        )
        process = self.process
        assert process.stderr is not None
        self._threads = [
            threading.Thread(target=lambda: self.stderr.append(process.stderr.read()), daemon=True),  # type: ignore[union-attr]
            threading.Thread(target=self._watch, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _watch(self) -> None:
        while not self._done.wait(CANCEL_POLL_S):
            if self._cancelled():  # the feed may be blocked writing to a busy client: kill it
                self.kill()
                return

    def kill(self) -> None:
        if self.process is not None:
            with suppress(ProcessLookupError):
                self.process.kill()

    def end(self, *, sent: bool) -> int:
        """Close stdin (kill the client first unless everything was `sent`); its exit status."""
        self._done.set()
        if self.process is None:
            return 0
        if not sent:  # refused or interrupted mid-way: the client must not go on with half a dump
            self.kill()
        assert self.process.stdin is not None
        with suppress(BrokenPipeError):
            self.process.stdin.close()
        code = self.process.wait()
        for thread in self._threads:
            thread.join()
        return code


def failure_of(stderr: str, exit_code: int) -> LoadFailed:
    """The client's stderr and exit status as LoadFailed: the dump's line and the server's code
    when the client named them (its warnings skipped)."""
    lines = [line for line in stderr.splitlines() if line.strip() and not _NOISE.search(line)]
    for line in lines:
        match = _CLIENT_ERROR.search(line)
        if match:
            where = f" at line {match['line']} of the dump" if match["line"] else ""
            what = f"ERROR {match['code']}" if match["code"] else "the client's error"
            return LoadFailed(
                f"the dump did not load{where}: {what}: {match['msg']}",
                line=int(match["line"]) if match["line"] else None,
                code=int(match["code"]) if match["code"] else None,
            )
    at_line = re.search(r"at line (\d+)", stderr)
    text = " / ".join(lines)[-2000:] or f"client exit status {exit_code}"
    return LoadFailed(f"the dump did not load: {text}", line=int(at_line[1]) if at_line else None, code=None)
