"""One local server instance's ground: its settings, where its files are (inside and outside the
chroot), the admin account, the command prefix, file ownership and its error log.

LocalInstance is the first of the local provisioner's layers (local.py has the layout of the files
named here); the others add option files and checks (local_options.py), the server process
(local_process.py), the template (local_template.py) and starts with spares (local.py).
"""

import os
import subprocess
from pathlib import Path
from typing import Any

from pydantic import Field

from upgradelab.settings import Settings
from upgradelab.targets.client_auth import AuthPolicy
from upgradelab.targets.options import PlainCredential, ServerOptions
from upgradelab.targets.provisioners import credentials, spares
from upgradelab.targets.provisioners.base import (
    Endpoint,
    ProvisionError,
    client_flags,
    client_name,
    free_port,
)
from upgradelab.targets.sealed import SealedSettings


class LocalSettings(SealedSettings):
    """`target.settings` of a local target. `root` may contain `{lab_dir}`."""

    # a misspelt key (`passwrd`) is refused, not silently dropped for a default (issue 30): SealedSettings
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


class LocalInstance:
    """The settings, paths, account and ownership of one slot's server (see module docstring)."""

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

    @property
    def datadir(self) -> Path:
        """This instance's datadir as this process sees it (`data/`, under the chroot when there is
        one): the one every start runs on and a keep_data start keeps (a concurrent replay copies a
        trial's starting data onto it while the server is stopped, measurement/trial_run.py)."""
        return self._host("data")

    def _template_host(self) -> Path:
        return self.root / f"{self.target_dir}/template".lstrip("/")

    def _datadir(self, name: str) -> str:
        return f"{self.target_dir}/template" if name == "template" else self._inner(name)

    @property
    def endpoint(self) -> Endpoint:
        flags = client_flags(self.cfg.host, self.port, self.cfg.user)
        client = self._command(self._client_path(), *flags)
        auth = AuthPolicy(target=self.target_name)
        return Endpoint(
            self.cfg.host, self.port, self.cfg.user, self.admin_password, client=tuple(client), auth=auth
        )

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
        """ProvisionError naming the target: `detail`, else the error log's tail, else (a server that
        exited before it opened its error log: a bad option file, the chroot, the binary) the tail of
        what the server process printed (stdio.log, kept across starts of this slot)."""
        tail = detail or self.log_tail()
        if tail:
            return ProvisionError(f"target {self.target_name}: {what}\n--- log tail ---\n{tail}")
        printed = self._printed_tail()
        return ProvisionError(
            f"target {self.target_name}: {what}"
            + (f"\n--- server output (stdio.log) ---\n{printed}" if printed else "")
        )

    def _printed_tail(self, lines: int = 15) -> str:
        """The last lines the server processes of this slot printed on stdout/stderr ('' when none)."""
        try:
            text = self._host("stdio.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])
