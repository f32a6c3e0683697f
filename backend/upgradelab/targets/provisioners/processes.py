"""A local server process by pid (psutil): whether it is still a server, stop it cleanly, freeze and thaw it.

A pid comes from our own Popen or from an instance's mysqld.pid file, which may be stale: pids are
reused, so every call first checks that the pid is still a running mysqld/mariadbd (not a zombie).
"""

import contextlib
import os
import signal
import time

import psutil

SERVER_NAMES = frozenset({"mysqld", "mariadbd"})
FREEZE_WAIT_S = 2.0  # how long freeze() waits for the kernel to show the process stopped
# Polling steps: a block switch waits for the frozen state and a run's end for every server to exit,
# so these are on the run's wall clock (a SIGSTOP shows within a few hundred microseconds).
FREEZE_POLL_S = 0.0005
EXIT_POLL_S = 0.02


def server(pid: int) -> psutil.Process | None:
    """The process if `pid` is a live mysqld/mariadbd (running, sleeping or stopped), else None."""
    try:
        process = psutil.Process(pid)
        if process.name() not in SERVER_NAMES or process.status() == psutil.STATUS_ZOMBIE:
            return None
    except psutil.Error:  # gone, or not ours to inspect
        return None
    return process


def terminate(process: psutil.Process, timeout_s: float) -> None:
    """SIGCONT (a frozen server cannot shut down), SIGTERM (a clean shutdown: InnoDB flushes), then
    SIGKILL if it is still there after timeout_s seconds. Returns once the process is gone (reaped when
    it is our child)."""
    with contextlib.suppress(psutil.NoSuchProcess):
        process.send_signal(signal.SIGCONT)
        process.terminate()
    deadline = time.monotonic() + timeout_s
    while not gone(process) and time.monotonic() < deadline:
        time.sleep(EXIT_POLL_S)
    if not gone(process):
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()
        while not gone(process):
            time.sleep(EXIT_POLL_S)


def kill(process: psutil.Process, timeout_s: float = 10.0) -> None:
    """SIGKILL (no clean shutdown: for a server whose datadir is thrown away) and wait, up to
    timeout_s seconds, until the process is gone (reaped when it is our child)."""
    with contextlib.suppress(psutil.NoSuchProcess):
        process.kill()
    deadline = time.monotonic() + timeout_s
    while not gone(process) and time.monotonic() < deadline:
        time.sleep(EXIT_POLL_S)


def gone(process: psutil.Process) -> bool:
    """Whether the process has exited: our own child only once reaped here; a zombie that is not our
    child (its parent died and nobody reaps it, as in a container without an init) counts as gone too.

    Our own killed child is not gone while it shows Z: its main thread is a zombie while its other
    threads still exit, it cannot be reaped until they have, and until then the socket's lock file
    names a live pid (a server started on the same slot at once refuses it: "Another process with pid
    ... is using unix socket file")."""
    try:
        process.wait(timeout=0)
    except psutil.TimeoutExpired:
        try:
            return process.status() == psutil.STATUS_ZOMBIE and process.ppid() != os.getpid()
        except psutil.NoSuchProcess:
            return True
    except psutil.NoSuchProcess:
        pass
    return True


def freeze(process: psutil.Process) -> None:
    """SIGSTOP: the server does no work (purge, page cleaner, flushing) until thaw(). SIGSTOP is delivered
    asynchronously, so wait (at most FREEZE_WAIT_S) until the kernel shows it stopped: the next
    instance's block never starts beside a still-running one."""
    with contextlib.suppress(psutil.NoSuchProcess):
        process.suspend()
        with contextlib.suppress(psutil.TimeoutExpired):
            _wait_status(process, psutil.STATUS_STOPPED, FREEZE_WAIT_S)


def thaw(process: psutil.Process) -> None:
    """SIGCONT (a no-op when it runs; nothing when it is gone)."""
    with contextlib.suppress(psutil.NoSuchProcess):
        process.resume()


def _wait_status(process: psutil.Process, status: str, timeout_s: float) -> None:
    """Poll the process's state every FREEZE_POLL_S until it is `status`; psutil.TimeoutExpired after
    timeout_s."""
    deadline = time.monotonic() + timeout_s
    while process.status() not in (status, psutil.STATUS_TRACING_STOP):
        if time.monotonic() >= deadline:
            raise psutil.TimeoutExpired(timeout_s, process.pid)
        time.sleep(FREEZE_POLL_S)
