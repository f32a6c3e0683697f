"""The local provisioner: a mysqld/mariadbd process on this machine, optionally inside a chroot.

Layout, under `{root}{server_dir}/{target}/` (root is `/` or a chroot such as the lab's sid chroot):

    template/          initialized once (`mysqld --initialize-insecure` or `mariadb-install-db`),
                       started once with an init file that keys the lab's admin account (below),
                       then kept read-only
    instances/{slot}/  one server instance per slot (a run gives every variant its own slot):
        data/          a fresh copy of template/ for every start(): each variant begins from the same
                       state; kept per (target, slot) so a prepared dataset is reused by later runs
        my.cnf         written on every start: managed options, target base options, then the variant's
        error.log      the server's log; its tail is in every ProvisionError
        tmp/           the server's tmpdir (its own, not the shared /tmp)
        files/         the server's secure-file-priv: an empty directory, the only one file SQL may touch
        mysqld.pid, mysqld.sock

Ports: slot 0 listens on the target's port; every other slot on a free 127.0.0.1 port chosen by
binding port 0 when the provisioner is made (so two runs' instances never share a number).

The admin account (credentials.py): `user`@127.0.0.1 with a password random per target, kept in the
worker's state directory (or the one the settings name); root@localhost locked. A template or kept
data/ recording another key (credentials.KEY_FILE: made before issue 30 with the fixed password, or
with another password) is started once with the keying init file before it is used.
"""

import contextlib
import copy
import fcntl
import logging
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
from pydantic import BaseModel, Field

from upgradelab.settings import Settings
from upgradelab.targets.option_names import check_lines, server_names
from upgradelab.targets.options import OptionError, PlainCredential, ServerOptions, render_option
from upgradelab.targets.provisioners import credentials, processes, spares
from upgradelab.targets.provisioners.base import (
    SANDBOX_OPTIONS,
    Endpoint,
    NotReady,
    ProvisionError,
    client_flags,
    client_name,
    free_port,
    wait_for_select_1,
)

log = logging.getLogger(__name__)
_READY_MARKER = ".upgradelab-initialized"

# Option lists the server binary already accepted, per binary identity (check_options): a run checks
# every variant before it starts, the A/A control repeats its base variant's list and the next run
# repeats the last one's, and each check is a server process (~0.2 s, one after the other). Only
# acceptances are kept; a changed binary has another identity.
_ACCEPTED: set[tuple[str, ...]] = set()


class LocalSettings(BaseModel):
    """`target.settings` of a local target. `root` may contain `{lab_dir}`."""

    # a misspelt key (`passwrd`) must be refused, not silently dropped for a default (issue 30)
    model_config = {"extra": "forbid"}

    root: str = Field("/", description="Filesystem root the server runs in: / or a chroot directory.")
    mysqld: str = Field("/usr/sbin/mysqld", description="Server binary, as seen from inside root.")
    install_db: str | None = Field(None, description="mariadb-install-db path; None: mysqld --initialize.")
    client: str | None = Field(
        None,
        pattern=r"^/[A-Za-z0-9_./+-]+$",
        description="Command-line client inside root; None: `mysql`/`mariadb` beside mysqld (sbin -> bin).",
    )
    port: int = Field(ge=1024, le=65535)
    host: str = Field("127.0.0.1", pattern=r"^[A-Za-z0-9.:-]{1,253}$", description="An address or name.")
    user: PlainCredential = Field("upgradelab", description="The lab's admin account on the server.")
    password: PlainCredential | None = Field(
        None,
        description="The admin's password; None (default): random per target, kept in "
        "{state_dir}/server-credentials/<target> on the worker's host (credentials.py).",
    )
    base_options: ServerOptions = Field(default_factory=dict)
    allowed_options: list[str] = Field(
        default_factory=list, description="Admin-listed exceptions to the refused option categories."
    )


class LocalProvisioner:
    """Start, restart and stop one target's server as a local process (see module docstring)."""

    kind = "local"
    instances = True  # any number of servers of this target can run at once (one per slot)

    def __init__(
        self, target_name: str, flavor: str, raw_settings: dict[str, Any], app: Settings, slot: int = 0
    ) -> None:
        self.target_name = target_name
        self.flavor = flavor
        self.slot = slot
        self.cfg = LocalSettings.model_validate(raw_settings)
        self.root = Path(self.cfg.root.format(lab_dir=app.lab_dir))
        self.target_dir = f"{app.server_dir.rstrip('/')}/{target_name}"
        self.inner_dir = f"{self.target_dir}/instances/{slot}"
        # a spare instance of this slot (spares.py) keeps its port: this one listens there too
        self._spare_key = str(self._host())
        spare_port = spares.port_of(self._spare_key)
        self.port = self.cfg.port if slot == 0 else spare_port or free_port(self.cfg.host)
        self.start_timeout_s = app.server_start_timeout_s
        self.app = app
        self._process: subprocess.Popen[bytes] | None = None
        self._options: list[str] = []
        self._password = self.cfg.password  # None: the target's secret, read on first use
        # discard() throws the datadir away only when this object copied it fresh and no start of this
        # instance asked to keep data (a dataset prepared after a keep_data start is kept too)
        self._keep_at_end = False
        self._throwaway = False
        self._served = False  # up at least once since the last discard(): worth a spare (spares.py)
        self._is_spare = False  # a spare's own provisioner never makes another spare

    # paths: "inner" as the server sees them, "host" as this process sees them; the instance's own
    # files under inner_dir, the shared template under target_dir
    def _inner(self, name: str) -> str:
        return f"{self.inner_dir}/{name}"

    def _host(self, name: str = "") -> Path:
        return self.root / f"{self.inner_dir}/{name}".lstrip("/")

    def _template_host(self) -> Path:
        return self.root / f"{self.target_dir}/template".lstrip("/")

    def _datadir(self, name: str) -> str:
        return f"{self.target_dir}/template" if name == "template" else self._inner(name)

    @property
    def endpoint(self) -> Endpoint:
        flags = client_flags(self.cfg.host, self.port, self.cfg.user)
        client = self._command(self._client_path(), *flags)
        return Endpoint(self.cfg.host, self.port, self.cfg.user, self.admin_password, client=tuple(client))

    @property
    def admin_password(self) -> str:
        """The admin account's password: the settings' (admin-set), else the target's secret
        (credentials.server_password, made on first use)."""
        if self._password is None:
            self._password = credentials.server_password(self.target_name, self.app)
        return self._password

    def _client_path(self) -> str:
        if self.cfg.client:
            return self.cfg.client
        directory = os.path.dirname(self.cfg.mysqld)
        # Debian puts the server in /usr/sbin and the client in /usr/bin; tarballs keep both in bin/.
        if directory.endswith("/sbin"):
            directory = directory[: -len("sbin")] + "bin"
        return f"{directory}/{client_name(self.flavor)}"

    # ---- option files --------------------------------------------------------------------------
    def _option_file(self, datadir: str, options: list[str]) -> str:
        managed = [
            f"datadir={self._datadir(datadir)}",
            f"port={self.port}",
            f"bind-address={self.cfg.host}",
            f"socket={self._inner('mysqld.sock')}",
            f"pid-file={self._inner('mysqld.pid')}",
            f"log-error={self._inner('error.log')}",
            # Own temp dir: MariaDB's INSERT ... SELECT temp tables in a shared /tmp were deleted under it.
            f"tmpdir={self._inner('tmp')}",
            # LOAD DATA / SELECT ... INTO OUTFILE / LOAD_FILE() only in this empty directory of the
            # lab's (MariaDB's default is anywhere; the workload user has no FILE privilege anyway).
            f"secure-file-priv={self._inner('files')}",
            *SANDBOX_OPTIONS,
            "user=mysql",
            "loose-mysqlx=OFF",
        ]
        allowed = self.cfg.allowed_options
        base = [render_option(name, value, allowed) for name, value in self.cfg.base_options.items()]
        return "\n".join(["[mysqld]", *managed, *base, *options, ""])

    def _write_option_file(self, name: str, datadir: str, options: list[str]) -> str:
        path = self._host(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        for own in ("tmp", "files"):
            directory = self._host(own)
            if not directory.is_dir():
                directory.mkdir(mode=0o750)
                os.chown(directory, *self._mysql_ids())
        path.write_text(self._option_file(datadir, options))
        path.chmod(0o644)
        return self._inner(name)

    def _command(self, *args: str) -> list[str]:
        prefix = [] if self.root == Path("/") else ["chroot", str(self.root)]
        return [*prefix, *args]

    # ---- ownership ---------------------------------------------------------------------------------
    def _mysql_ids(self) -> tuple[int, int]:
        for line in (self.root / "etc/passwd").read_text().splitlines():
            fields = line.split(":")
            if fields[0] == "mysql":
                return int(fields[2]), int(fields[3])
        raise ProvisionError(f"target {self.target_name}: no 'mysql' user in {self.root / 'etc/passwd'}")

    def _chown_tree(self, path: Path) -> None:
        uid, gid = self._mysql_ids()
        os.chown(path, uid, gid)
        for dirpath, dirnames, filenames in os.walk(path):
            for name in dirnames + filenames:
                os.chown(os.path.join(dirpath, name), uid, gid, follow_symlinks=False)

    def _prepare_dir(self) -> None:
        uid, gid = self._mysql_ids()
        target = self.root / self.target_dir.lstrip("/")
        for path in (target, target / "instances", self._host()):
            path.mkdir(parents=True, exist_ok=True)
            os.chown(path, uid, gid)

    # ---- logs ----------------------------------------------------------------------------------
    def log_tail(self, lines: int = 25) -> str:
        """The last lines of the server's error log ('' when there is none)."""
        path = self._host("error.log")
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def _fail(self, what: str, detail: str = "") -> ProvisionError:
        tail = detail or self.log_tail()
        return ProvisionError(
            f"target {self.target_name}: {what}" + (f"\n--- log tail ---\n{tail}" if tail else "")
        )

    # ---- initialization ------------------------------------------------------------------------
    def ensure_initialized(self) -> None:
        """Initialize template/ once (idempotent; a half-made template is made again) and key it for
        the admin account (a template keyed otherwise is keyed again, _key). One slot at a time: the
        slots of one run start in parallel threads (and two workers may share a server dir)."""
        with self._template_lock():
            template = self._template_host()
            if (template / _READY_MARKER).exists():
                if not self._keyed(template):
                    self._key("template")
                return
            self._initialize(template)

    @contextlib.contextmanager
    def _template_lock(self) -> Iterator[None]:
        directory = self.root / self.target_dir.lstrip("/")
        directory.mkdir(parents=True, exist_ok=True)
        with (directory / ".template.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _initialize(self, template: Path) -> None:
        self.stop()
        self._prepare_dir()
        shutil.rmtree(template, ignore_errors=True)
        self._host("error.log").unlink(missing_ok=True)
        cnf = self._write_option_file("template.cnf", "template", [])
        if self.flavor == "mariadb":
            install_db = self.cfg.install_db or "/usr/bin/mariadb-install-db"
            args = [
                install_db,
                f"--defaults-file={cnf}",
                "--skip-test-db",
                "--auth-root-authentication-method=socket",
            ]
        else:
            template.mkdir(parents=True)
            self._chown_tree(template)
            args = [self.cfg.mysqld, f"--defaults-file={cnf}", "--initialize-insecure"]
        done = subprocess.run(self._command(*args), capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            raise self._fail(f"initializing the datadir failed ({' '.join(args)})", done.stdout + done.stderr)
        self._key("template")
        (template / _READY_MARKER).write_text("initialized\n")

    def _keyed(self, datadir: Path) -> bool:
        """Whether the datadir records the admin key of this target's password (credentials.py)."""
        try:
            recorded = (datadir / credentials.KEY_FILE).read_text().strip()
        except OSError:
            return False
        return recorded == credentials.admin_key(self.admin_password)

    def _key(self, datadir: str) -> None:
        """Start the server on `datadir` ("template" or "data") once with the keying init file
        (credentials.keying_sql: the admin at 127.0.0.1 with this target's password, no `localhost`
        twin, root locked), await SELECT 1 as the admin, stop it, record the key in the datadir.
        The init file is 0600, owned by the server's user, and removed whatever happens."""
        cnf = self._write_option_file(f"{datadir}.cnf", datadir, [])
        init_file = self._host("admin.sql")
        init_file.unlink(missing_ok=True)
        self._host("bootstrap.sql").unlink(missing_ok=True)  # the init file of before: 0644, not removed
        sql = credentials.keying_sql(self.cfg.user, self.admin_password, "127.0.0.1", lock_root=True)
        descriptor = os.open(init_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fchown(descriptor, *self._mysql_ids())
            os.write(descriptor, sql.encode())
        finally:
            os.close(descriptor)
        try:
            self._launch(cnf, extra=[f"--init-file={self._inner('admin.sql')}"])
            self._wait_ready()
        finally:
            self.stop()
            init_file.unlink(missing_ok=True)
        host_dir = self._template_host() if datadir == "template" else self._host(datadir)
        (host_dir / credentials.KEY_FILE).write_text(credentials.admin_key(self.admin_password) + "\n")

    # ---- lifecycle -----------------------------------------------------------------------------
    def check_options(self, options: list[str]) -> None:
        """Ask the server binary whether it takes these options, without starting it.

        MySQL: `mysqld --validate-config`; MariaDB (no such flag): `--verbose --help`, which parses
        every option and prints [ERROR] lines for unknown names and bad values.
        Before anything is written, every name must be one the binary lists, in full, and in no
        refused category (targets/option_names.py). Raises ProvisionError with the refusal or the
        server's [ERROR] lines. A list this binary (binary_identity) already accepted with the same
        base options is not asked again in this process.
        """
        try:
            check_lines(server_names(self, self.app), options, self.cfg.allowed_options)
        except OptionError as refused:
            raise ProvisionError(str(refused)) from None
        allowed = self.cfg.allowed_options
        base = [render_option(name, value, allowed) for name, value in self.cfg.base_options.items()]
        key = (self.binary_identity(), self.flavor, *base, "--", *options)
        if key in _ACCEPTED:
            return
        self._prepare_dir()
        cnf = self._write_option_file("check.cnf", "data", options)
        check = self._check_flags()
        done = subprocess.run(
            self._command(self.cfg.mysqld, f"--defaults-file={cnf}", *check),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        errors = [line for line in done.stderr.splitlines() if "[ERROR]" in line and "Aborting" not in line]
        if done.returncode != 0 or errors:
            raise ProvisionError(
                "\n".join(errors) or done.stderr.strip()[-2000:] or f"exit {done.returncode}"
            )
        _ACCEPTED.add(key)

    def binary_identity(self) -> str:
        """Root, binary path, size and mtime: changes when the package or tarball changes."""
        binary = self.root / self.cfg.mysqld.lstrip("/")
        try:
            stat = binary.stat()
        except OSError as error:
            raise ProvisionError(f"target {self.target_name}: no server binary {binary}: {error}") from None
        return f"{self.root}:{self.cfg.mysqld}:{stat.st_size}:{stat.st_mtime_ns}"

    def option_help(self) -> str:
        """`mysqld --no-defaults --verbose --help` of the target's binary (its option names)."""
        done = subprocess.run(
            self._command(self.cfg.mysqld, "--no-defaults", "--verbose", "--help"),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0 or "--" not in done.stdout:
            raise ProvisionError(
                f"target {self.target_name}: {self.cfg.mysqld} --verbose --help failed: "
                f"{(done.stdout + done.stderr).strip()[-1000:]}"
            )
        return done.stdout

    def _check_flags(self) -> list[str]:
        """The flags that make the server binary parse its options and exit (see check_options)."""
        return ["--validate-config"] if self.flavor == "mysql" else ["--verbose", "--help"]

    def start(self, options: list[str], *, keep_data: bool = False) -> Endpoint:
        """Stop any running server, copy template/ to a fresh data/, write my.cnf, start, await SELECT 1.

        keep_data=True keeps an existing data/ (a prepared dataset, see workloads/datasets.py).
        A spare instance of this slot (spares.py: started fresh from the template after the slot's last
        run, frozen since) with the same option file is taken instead: thawed, SELECT 1 awaited. A spare
        that does not match is killed and its datadir removed first. Waits for a spare of this slot
        that is still starting (at most the start timeout)."""
        self.ensure_initialized()
        try:
            with spares.slot(self._spare_key, self.start_timeout_s):
                spare = spares.take(self._spare_key)
                if spare is not None:
                    if not keep_data and self._matches(spare, options):
                        try:
                            return self._adopt(spare, options)
                        except ProvisionError as gone:  # it died while it waited: start as without it
                            log.warning("target %s: spare instance not taken: %s", self.target_name, gone)
                    spare.owner.discard()
                return self._start(options, keep_data)
        except TimeoutError as error:
            raise self._fail(str(error)) from None

    def _matches(self, spare: spares.Spare, options: list[str]) -> bool:
        """Whether the spare runs, on this slot's port, with exactly the option file this start writes."""
        owner: LocalProvisioner = spare.owner
        process = owner._server_process()
        return (
            spare.port == self.port
            and process is not None
            and processes.server(process.pid) is not None  # alive, not a zombie (killed by someone)
            and owner._option_file("data", spare.options) == self._option_file("data", options)
        )

    def _adopt(self, spare: spares.Spare, options: list[str]) -> Endpoint:
        """Take the spare's process (thawed, SELECT 1 awaited); ProvisionError when it does not answer
        (the spare is then still the owner's: the caller discards it)."""
        owner: LocalProvisioner = spare.owner
        self._process = owner._process
        self._options = list(options)
        self._throwaway, self._keep_at_end = True, False
        self.thaw()
        try:
            wait_for_select_1(self.endpoint, self.start_timeout_s, self._exit_reason)
        except NotReady as not_ready:
            self._process, self._throwaway = None, False
            raise self._fail(str(not_ready)) from None
        owner._process, owner._throwaway = None, False
        self._served = True
        return self.endpoint

    def _start(self, options: list[str], keep_data: bool) -> Endpoint:
        self.stop()
        self._prepare_dir()  # this slot's directory (the template may have been made by another slot)
        data = self._host("data")
        self._keep_at_end = self._keep_at_end or keep_data
        if not (keep_data and (data / "mysql").is_dir()):
            shutil.rmtree(data, ignore_errors=True)
            subprocess.run(["cp", "-a", str(self._template_host()), str(data)], check=True)
            (data / _READY_MARKER).unlink(missing_ok=True)
        elif not self._keyed(data):  # a kept datadir (a loaded dataset) copied from an older template
            self._key("data")
        self._throwaway = not self._keep_at_end
        self._options = list(options)
        self._host("error.log").unlink(missing_ok=True)
        cnf = self._write_option_file("my.cnf", "data", options)
        self._launch(cnf)
        self._wait_ready()
        self._served = True
        return self.endpoint

    def restart(self) -> Endpoint:
        """Stop and start again on the same datadir and my.cnf (cold caches, persisted state kept)."""
        self.stop()
        self._launch(self._inner("my.cnf"))
        self._wait_ready()
        return self.endpoint

    def _launch(self, cnf: str, extra: list[str] | None = None) -> None:
        stdio = self._host("stdio.log").open("ab")
        try:
            self._process = subprocess.Popen(
                self._command(self.cfg.mysqld, f"--defaults-file={cnf}", *(extra or [])),
                stdout=stdio,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            stdio.close()

    def _wait_ready(self) -> None:
        try:
            wait_for_select_1(self.endpoint, self.start_timeout_s, self._exit_reason)
        except NotReady as not_ready:
            if not not_ready.exited:
                self.stop()
            raise self._fail(str(not_ready)) from None

    def _exit_reason(self) -> str | None:
        if self._process is not None and self._process.poll() is not None:
            return f"server exited during start-up (exit code {self._process.returncode})"
        return None

    def _server_process(self) -> psutil.Process | None:
        """This instance's server: our own child while it runs, else the live mysqld/mariadbd named by
        its pid file (a stale pid file or a reused pid gives None)."""
        if self._process is not None and self._process.poll() is None:
            with contextlib.suppress(psutil.Error):
                return psutil.Process(self._process.pid)
        try:
            pid = int(self._host("mysqld.pid").read_text().strip())
        except (OSError, ValueError):
            return None
        return processes.server(pid)

    def stop(self, timeout_s: float = 120.0) -> None:
        """SIGCONT (a frozen server cannot shut down), SIGTERM (a clean shutdown), then SIGKILL after
        timeout_s; reaps our own child."""
        process = self._server_process()
        if process is not None:
            processes.terminate(process, timeout_s)
        if self._process is not None:
            self._process.poll()  # our child is reaped: record its exit code
        self._process = None

    def discard(self) -> None:
        """A throw-away datadir (copied fresh, and no start of this instance asked keep_data): SIGKILL
        the server and remove data/, no clean shutdown; any other (a dataset's copy): stop() cleanly.
        With `spare_instance_s` > 0, a throw-away instance that was up is followed by a spare of this
        slot with the same options (spares.py), started in the background: this returns once the killed
        server has exited (processes.kill), without waiting for the spare."""
        throwaway, self._throwaway, self._keep_at_end = self._throwaway, False, False
        served, self._served = self._served, False
        if not throwaway:
            self.stop()
            return
        process = self._server_process()
        if process is not None:
            processes.kill(process)
        if self._process is not None:
            self._process.poll()  # reaped by processes.kill: record its exit code
        self._process = None
        shutil.rmtree(self._host("data"), ignore_errors=True)
        if served and not self._is_spare and self.app.spare_instance_s > 0:
            self._spare(list(self._options))

    def forget_data(self) -> None:
        """discard() throws this datadir away (Provisioner.forget_data)."""
        self._throwaway, self._keep_at_end = True, False

    def _spare(self, options: list[str]) -> None:
        twin = copy.copy(self)
        twin._process, twin._served, twin._is_spare = None, False, True

        def start() -> "LocalProvisioner":
            twin._start(options, keep_data=False)
            twin.freeze()
            return twin

        spares.prepare(
            self._spare_key,
            self.port,
            options,
            start,
            twin.discard,
            self.app.spare_instance_s,
        )

    def stop_all(self, timeout_s: float = 120.0) -> list[int]:
        """Stop every instance of this target (any slot, any run), found by their pid files; the
        reaper calls it for a run whose worker died. Returns the pids that were stopped."""
        stopped = []
        for pid_file in sorted((self.root / self.target_dir.lstrip("/")).glob("instances/*/mysqld.pid")):
            try:
                process = processes.server(int(pid_file.read_text().strip()))
            except (OSError, ValueError):
                continue
            if process is not None and process.pid != os.getpid():
                processes.terminate(process, timeout_s)
                stopped.append(process.pid)
        self.stop(timeout_s)
        return stopped

    def freeze(self) -> None:
        """SIGSTOP the server process: it does no work (purge, page cleaner, flushing) until thaw();
        returns once the kernel shows it stopped (processes.freeze)."""
        process = self._server_process()
        if process is not None:
            processes.freeze(process)

    def thaw(self) -> None:
        """SIGCONT the server process (a no-op when it runs or is gone)."""
        process = self._server_process()
        if process is not None:
            processes.thaw(process)

    def pid(self) -> int | None:
        """The server's process id while it runs (this instance's), else None."""
        process = self._server_process()
        return None if process is None else process.pid

    def describe(self) -> dict[str, str]:
        """What produced this instance's numbers: {"image_or_binary": the server binary (with the
        chroot it runs in), "option_file": the text of its my.cnf ('' before the first start)}."""
        binary = self.cfg.mysqld if self.root == Path("/") else f"{self.root}:{self.cfg.mysqld}"
        cnf = self._host("my.cnf")
        return {"image_or_binary": binary, "option_file": cnf.read_text() if cnf.exists() else ""}

    def server_version(self) -> str:
        """SELECT VERSION() from the running server, or from the template started briefly (a frozen
        spare of this slot is killed first: it would not answer)."""
        if self._process is None:
            with spares.slot(self._spare_key, self.start_timeout_s):
                spare = spares.take(self._spare_key)
                if spare is not None:
                    spare.owner.discard()
        if self._server_process() is None:
            self.ensure_initialized()
            self._prepare_dir()  # this slot's directory, owned by mysql (its socket goes there)
            self._launch(self._write_option_file("template.cnf", "template", []))
            try:
                self._wait_ready()
                return self._select_version()
            finally:
                self.stop()
        return self._select_version()

    def _select_version(self) -> str:
        connection = self.endpoint.connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT VERSION()")
                row = cursor.fetchone()
        finally:
            connection.close()
        return str(row[0]) if row else ""
