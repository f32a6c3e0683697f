"""A local target's template datadir: initialized once (`mysqld --initialize-insecure` or
`mariadb-install-db`), keyed for the lab's admin account, then copied for every fresh start."""

import contextlib
import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from upgradelab.targets.provisioners import credentials
from upgradelab.targets.provisioners.local_process import LocalProcess

READY_MARKER = ".upgradelab-initialized"


class LocalTemplate(LocalProcess):
    """Initialize and key the template; key a kept datadir (see module docstring)."""

    # ---- initialization ------------------------------------------------------------------------
    def ensure_initialized(self) -> None:
        """Initialize template/ once (idempotent; a half-made template is made again) and key it for
        the admin account (a template keyed otherwise is keyed again, _key). One slot at a time: the
        slots of one run start in parallel threads (and two workers may share a server dir)."""
        with self._template_lock():
            template = self._template_host()
            if (template / READY_MARKER).exists():
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
        (template / READY_MARKER).write_text("initialized\n")

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
        The init file is 0600, owned by the server's user, and removed whatever happens. The slot's
        directory is made the server's first: a template made by another slot (or copied in) keyed
        again here had the server refused its error log in a directory root made for the option file."""
        self._prepare_dir()
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
