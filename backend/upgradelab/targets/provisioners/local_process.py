"""A local server's process: launch on an option file, await SELECT 1, stop, freeze and thaw; find
it by its pid file when another process started it."""

import contextlib
import os
import subprocess

import psutil

from upgradelab.targets.provisioners import processes
from upgradelab.targets.provisioners.base import NotReady, wait_for_select_1
from upgradelab.targets.provisioners.local_options import LocalOptions


class LocalProcess(LocalOptions):
    """Launch, await, stop, freeze and thaw one slot's server process (see module docstring)."""

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
