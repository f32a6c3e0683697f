"""A local server's option files (my.cnf: managed options, target base options, then the variant's)
and the check that the server binary takes a list of options, without starting it."""

import hashlib
import os
import subprocess
from pathlib import Path

from upgradelab.targets.option_names import check_lines, server_names
from upgradelab.targets.options import OptionError, render_option
from upgradelab.targets.provisioners.base import SANDBOX_OPTIONS, ProvisionError
from upgradelab.targets.provisioners.local_instance import LocalInstance

# Option lists the server binary already accepted, per binary identity (check_options): a run checks
# every variant before it starts, the A/A control repeats its base variant's list and the next run
# repeats the last one's, and each check is a server process (~0.2 s, one after the other). Only
# acceptances are kept; a changed binary has another identity. Kept in this process and, for the
# worker's other pool processes, the API and the next worker, as an empty file per acceptance under
# `{state_dir}/option-checks/` (a gate run made ~460 `mariadbd --verbose --help` checks, ~0.15 CPU-s
# each, mostly the same lists again in another process).
_ACCEPTED: set[tuple[str, ...]] = set()


class LocalOptions(LocalInstance):
    """Write option files; check options against the binary (see module docstring)."""

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

    # ---- option checks -------------------------------------------------------------------------
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
        marker = self._accepted_marker(key)
        if marker.exists():
            _ACCEPTED.add(key)
            return
        refusal = self.server_refusal(options)
        if refusal is not None:
            raise ProvisionError(refusal)
        _ACCEPTED.add(key)
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:  # a read-only state dir: this process still remembers it
            pass

    def _accepted_marker(self, key: tuple[str, ...]) -> Path:
        """`{state_dir}/option-checks/<sha256 of the key>`: this binary took this option list."""
        digest = hashlib.sha256("\n".join(key).encode()).hexdigest()
        return self.app.state_dir / "option-checks" / digest

    def server_refusal(self, options: list[str]) -> str | None:
        """The server binary's own words refusing option-file lines (its [ERROR] lines, or its
        output's end when it exits non-zero without one), None when it takes them. The lines must be
        validated already (targets/options.py render_option): they are written as they are; their
        names are not checked against the binary's list, so an unknown or removed name is refused in
        the server's words (a capture's check, captures/option_check.py)."""
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
            return "\n".join(errors) or done.stderr.strip()[-2000:] or f"exit {done.returncode}"
        return None

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
