"""The tarball provisioner: a MySQL basedir (an official linux-glibc tarball, or any dir with bin/mysqld).

It is the local provisioner (same layout, option files, template copy, pre-flight and log handling)
with the server taken from `{basedir}/bin/mysqld` and `basedir=` in every option file, so the
server finds its share/ (error messages, charsets) and lib/plugin/ there.

    basedir   e.g. /opt/mysql/mysql-8.0.40-linux-glibc2.28-x86_64; `tarball` (a .tar.gz/.tar.xz
              path) is unpacked there first when bin/mysqld is missing
    root      / for a tarball on this machine (official tarballs run on bookworm's glibc and carry
              their own libssl in lib/private); a chroot directory when the binaries need another
              system's libraries, as the lab's test basedir made from Debian's MySQL 9.7 does

Versions: 5.7, 8.0, 8.4 and 9.x initialize with `mysqld --initialize-insecure` (5.6's
mysql_install_db is not supported). 5.7 has neither the X Plugin (the managed `loose-mysqlx=OFF`
is ignored) nor `--validate-config` (pre-flight uses `--verbose --help`, as for MariaDB).
"""

import re
import subprocess
import tarfile
from pathlib import Path
from typing import Any

from pydantic import Field

from upgradelab.settings import Settings
from upgradelab.targets.options import PlainCredential, ServerOptions
from upgradelab.targets.provisioners.base import ProvisionError
from upgradelab.targets.provisioners.local import LocalProvisioner, LocalSettings
from upgradelab.targets.sealed import SealedSettings

_VERSION = re.compile(r"Ver (\d+)\.(\d+)\.(\d+)")


class TarballSettings(SealedSettings):
    """`target.settings` of a tarball target. `root` may contain `{lab_dir}`."""

    basedir: str = Field(pattern=r"^/[A-Za-z0-9_./+-]+$", description="Unpacked tarball, as seen from root.")
    tarball: str | None = Field(None, pattern=r"^/[A-Za-z0-9_./+-]+$", description="Archive to unpack.")
    root: str = "/"
    port: int = Field(ge=1024, le=65535)
    host: str = Field("127.0.0.1", pattern=r"^[A-Za-z0-9.:-]{1,253}$", description="An address or name.")
    user: PlainCredential = Field("upgradelab", description="The lab's admin account on the server.")
    password: PlainCredential | None = Field(
        None, description="The admin's password; None (default): random per target (credentials.py)."
    )
    base_options: ServerOptions = Field(default_factory=dict)
    allowed_options: list[str] = Field(default_factory=list)


class TarballProvisioner(LocalProvisioner):
    """A local provisioner whose server is `{basedir}/bin/mysqld` (see module docstring)."""

    kind = "tarball"

    def __init__(
        self, target_name: str, flavor: str, raw_settings: dict[str, Any], app: Settings, slot: int = 0
    ) -> None:
        tarball = TarballSettings.model_validate(raw_settings)
        self.basedir = tarball.basedir.rstrip("/")
        self.tarball = tarball.tarball
        local = LocalSettings.model_validate(
            {
                **tarball.model_dump(exclude={"basedir", "tarball"}),
                "mysqld": f"{self.basedir}/bin/mysqld",
                "install_db": None,
            }
        )
        super().__init__(target_name, flavor, local.model_dump(), app, slot)
        self._series: tuple[int, int] | None = None

    def _option_file(self, datadir: str, options: list[str]) -> str:
        header, _, rest = super()._option_file(datadir, options).partition("\n")
        return "\n".join([header, f"basedir={self.basedir}", rest])

    def _unpack(self) -> None:
        """Unpack `tarball` into basedir (its top directory stripped) when bin/mysqld is missing."""
        binary = self.root / self.cfg.mysqld.lstrip("/")
        if binary.exists() or self.tarball is None:
            return
        archive = self.root / self.tarball.lstrip("/")
        target = self.root / self.basedir.lstrip("/")
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as packed:
            members = []
            for member in packed.getmembers():
                parts = Path(member.name).parts[1:]
                if parts:
                    member.name = str(Path(*parts))
                    members.append(member)
            packed.extractall(target, members=members, filter="tar")
        if not binary.exists():
            raise ProvisionError(f"target {self.target_name}: {archive} has no bin/mysqld")

    def series(self) -> tuple[int, int]:
        """(major, minor) from `bin/mysqld --version`; ProvisionError if the binary is not a server."""
        if self._series is None:
            self._unpack()
            if not (self.root / self.cfg.mysqld.lstrip("/")).exists():
                raise ProvisionError(f"target {self.target_name}: no bin/mysqld in basedir {self.basedir}")
            done = subprocess.run(
                self._command(self.cfg.mysqld, "--version"), capture_output=True, text=True, check=False
            )
            found = _VERSION.search(done.stdout)
            if done.returncode != 0 or found is None:
                raise ProvisionError(
                    f"target {self.target_name}: {self.cfg.mysqld} --version failed: "
                    f"{(done.stdout + done.stderr).strip()[-500:]}"
                )
            self._series = (int(found[1]), int(found[2]))
        return self._series

    def binary_identity(self) -> str:
        """As the local provisioner's, after unpacking `tarball` when bin/mysqld is missing (the API
        reads the binary's option names before a first run has unpacked it)."""
        self._unpack()
        return super().binary_identity()

    def ensure_initialized(self) -> None:
        """Unpack if needed, refuse servers older than 5.7, then initialize template/ once."""
        if self.series() < (5, 7):
            raise ProvisionError(f"target {self.target_name}: MySQL {self.series()} is older than 5.7")
        super().ensure_initialized()

    def _check_flags(self) -> list[str]:
        # --validate-config exists from 8.0.16 on.
        return ["--validate-config"] if self.series() >= (8, 0) else ["--verbose", "--help"]
