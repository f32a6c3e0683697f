"""One CPU for the client and the servers while statements are timed (a replay's rounds).

Why: on the lab machine (2 vCPUs) a fast statement's server time (TIMER_WAIT) depends on where the
scheduler put the client's and the server's threads, and that placement holds for a whole pass and
changes between passes. Measured by hand on MariaDB 10.11, 30 passes of `DO 0` (each pass the median
of its runs), p10 to p90 of the pass medians, two tries each: client and server free to move,
13-157 us and 14-40 us (a second mode at ~130 us); both on one CPU, 7-12 us twice; each on a CPU of
its own, 26-164 us and 19-35 us. Unpinned, a pass's median of 200 runs scattered by half between two
passes a few milliseconds apart (log sd ~0.5 for the statements under 150 us), and the A/A control
of a replay did not call most 100 us fingerprints "same" within 10 % at 60 rounds (bench/README.md,
replay_causes.py). With the replay's thread and every variant's server process on one CPU, every
pass runs under the same placement.

The CPU is claimed for the job (an exclusive flock on `<claims>/cpu-N.lock`, the claims directory
UPGRADELAB_TIMING_CPU_CLAIMS_DIR, released when the rounds end or the process dies): a second job
timing at the same time takes the next free CPU, or none. Every variant is pinned or none is: a
variant that is not a server process on this host (an existing server) leaves all of them unpinned,
as a pinned variant beside an unpinned one would be timed two ways. A statement the server runs on
several threads (MySQL's parallel clustered-index reads for COUNT(*)) gets one CPU on every variant:
UPGRADELAB_REPLAY_TIMING_CPU=off compares that parallelism.
"""

import fcntl
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

Setting = Literal["auto", "off"] | int
PROC = Path("/proc")


@dataclass(frozen=True)
class TimingCpu:
    """Where a job's timing runs: `cpu` (None: not pinned) and a sentence for its report."""

    cpu: int | None
    text: str


def candidates(
    setting: Setting, pids: Sequence[tuple[str, int | None]], allowed: set[int] | None = None
) -> tuple[list[int], str]:
    """The CPUs the timing may take, in the order tried, and why none when empty. setting: "auto" (every
    CPU this process may use, highest first, when it may use two or more), "off", or one CPU number
    (which it must be allowed); pids: each variant's (name, server pid on this host or None);
    allowed: the CPUs this process may use (default os.sched_getaffinity(0))."""
    allowed = set(os.sched_getaffinity(0)) if allowed is None else allowed
    if setting == "off":
        return [], "not pinned to a CPU (UPGRADELAB_REPLAY_TIMING_CPU=off)"
    elsewhere = [name for name, pid in pids if pid is None]
    if elsewhere:
        return [], (
            f"not pinned to a CPU: {', '.join(elsewhere)} is not a server process on this host "
            "(a pinned variant beside an unpinned one would be timed two ways)"
        )
    if setting == "auto":
        if len(allowed) < 2:
            return [], "not pinned to a CPU (this worker may use one CPU only)"
        return sorted(allowed, reverse=True), ""
    if setting not in allowed:
        return [], f"not pinned: CPU {setting} (UPGRADELAB_REPLAY_TIMING_CPU) is not one this worker may use"
    return [setting], ""


SERVER_COMMANDS = ("mysqld", "mariadbd")


def server_here(pid: int) -> bool:
    """Whether `pid` is a MySQL or MariaDB server process as this process sees it (/proc/PID/comm). A
    docker target's pid is the host's: a worker in a container of its own sees another process, or
    none, under that number, and must pin neither."""
    try:
        return (PROC / str(pid) / "comm").read_text().strip() in SERVER_COMMANDS
    except OSError:
        return False


@contextmanager
def one_cpu(
    setting: Setting,
    pids: Sequence[tuple[str, int | None]],
    claims: Path,
    is_server: Callable[[int], bool] = server_here,
) -> Iterator[TimingCpu]:
    """Inside the block, the calling thread and every thread of each process in `pids` on one CPU
    (module docstring), claimed under directory `claims`; after it, the processes on every CPU this
    process may use (a server kept as a spare must not stay pinned), the thread as before, the claim
    released. A pid that `is_server` denies counts as no process here. Never raises for a CPU it
    cannot have: the TimingCpu says "not pinned" and why (every candidate claimed by other jobs; the
    claims directory not writable; a process this one may not pin, PermissionError: none stays pinned).
    """
    pids = [(name, pid if pid is not None and is_server(pid) else None) for name, pid in pids]
    tried, why = candidates(setting, pids)
    with ExitStack() as stack:
        try:
            cpu = _claim(tried, claims, stack)
        except OSError as error:
            yield TimingCpu(None, f"not pinned to a CPU: no claim could be made under {claims} ({error})")
            return
        if cpu is None:
            yield TimingCpu(
                None,
                why or f"not pinned to a CPU: CPU {', '.join(map(str, tried))} taken by another job's timing",
            )
            return
        servers = [pid for _, pid in pids if pid is not None]
        stack.callback(unpin, servers)
        try:
            for pid in servers:
                pin_process(pid, cpu)
        except OSError as error:
            stack.close()
            yield TimingCpu(None, f"not pinned to a CPU: a server process could not be ({error})")
            return
        stack.enter_context(pinned_thread(cpu))
        yield TimingCpu(
            cpu,
            f"the client and every variant's server on CPU {cpu} while timed (UPGRADELAB_REPLAY_TIMING_CPU)",
        )


def _claim(cpus: list[int], claims: Path, stack: ExitStack) -> int | None:
    """The first of `cpus` whose lock file under `claims` this process could lock (flock, exclusive,
    not waiting); the lock is held until `stack` closes. None when every one is held."""
    if not cpus:
        return None
    claims.mkdir(parents=True, exist_ok=True)
    for cpu in cpus:
        handle: IO[bytes] = stack.enter_context(open(claims / f"cpu-{cpu}.lock", "ab"))  # noqa: SIM115  # held by the stack
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue
        stack.callback(fcntl.flock, handle, fcntl.LOCK_UN)
        return cpu
    return None


def unpin(pids: Sequence[int], cpus: set[int] | None = None) -> None:
    """Every thread of each process back on `cpus` (default: the CPUs this process may use), as after
    a start. Errors are ignored (a process gone; its threads keep what they had)."""
    cpus = set(os.sched_getaffinity(0)) if cpus is None else cpus
    for pid in pids:
        try:
            pin_process(pid, cpus)
        except OSError:
            continue


def pin_process(pid: int, cpus: int | set[int]) -> int:
    """Put every thread of process `pid` on `cpus` (sched_setaffinity per task of /proc/PID/task; a
    thread it starts later inherits its starter's CPUs). Returns how many threads were set; 0 when
    the process is gone; a thread that ends meanwhile is skipped. PermissionError when this process
    may not (another user's, not root)."""
    wanted = {cpus} if isinstance(cpus, int) else cpus
    try:
        tasks = [int(task.name) for task in (PROC / str(pid) / "task").iterdir()]
    except (FileNotFoundError, ProcessLookupError):
        return 0
    done = 0
    for task in tasks:
        try:
            os.sched_setaffinity(task, wanted)
            done += 1
        except ProcessLookupError:
            continue
    return done


@contextmanager
def pinned_thread(cpu: int | None) -> Iterator[None]:
    """The calling thread on `cpu` inside the block (Linux: sched_setaffinity(0) is the calling
    thread's; a thread it starts inherits it), its CPUs before restored after; nothing when cpu is
    None."""
    if cpu is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
