"""The test sessions' server directories on a scratch file system that never waits for the disk.

Why: the gate's servers are many and short-lived (a template initialized per target, a datadir copied
per start, thousands of commits), and on this machine's shared disk an fsync waits 0.5 ms when quiet and
several milliseconds beside the other test sessions: `mysqld --initialize` took 16 s of wall time for
2 s of CPU. The servers are the real binaries with their real settings; only where their files land
changes: an ext4 file system in a sparse image file, mounted through a loop device with `nobarrier`, so
an fsync reaches the image file's page cache and returns, and the kernel writes it back when it likes.
What this gives up is durability across a power loss of the test machine, which no gate test needs.
A timing that depends on the disk (redo log off, binary log off) is a power check on the lab's real
disk (bench/power_checks.py), never a gate test.

One image per machine (IMAGE, mounted at DISK by the first session and left mounted, like the Docker
engine); each session bind-mounts a directory of it over each of its server directories (on the host
and inside each chroot: a chroot sees the bind mounts of its tree), and removes them at its end.
Not root, or no loop device (a container): the directories stay on the disk as they are, said once.

OFF by default (UPGRADELAB_TEST_SCRATCH_DISK=1 turns it on): in its first full gate run (three pytest
sessions and the fuzzer's on two cores) two cancel-while-a-server-starts tests waited out the 20 s
SIGKILL fallback (a server's start stalled), which runs on the disk never showed; one loop device
serializes every session's I/O (a datadir's removal with `discard` punches holes while another
session's server starts), a suspect not yet ruled out. Measure it beside the plain disk before turning
it on.
"""

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

DISK = Path("/var/lib/upgradelab/test-scratch")
IMAGE = Path("/var/lib/upgradelab/test-scratch.img")
# sparse: the image takes what the sessions hold (deletes are given back: `discard`), at most this
IMAGE_SIZE = "120G"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def _say(message: str) -> None:
    print(f"[tests] scratch disk: {message}", file=sys.stderr)


def _mounted() -> bool:
    """Mount the scratch file system at DISK if it is not (under a lock: the sessions start at once);
    False (said why) when it cannot be."""
    if os.environ.get("UPGRADELAB_TEST_SCRATCH_DISK", "0") != "1":
        return False
    if os.geteuid() != 0:
        _say("not root: server directories stay on the disk")
        return False
    DISK.parent.mkdir(parents=True, exist_ok=True)
    with (DISK.parent / "test-scratch.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.ismount(DISK):
            return True
        if not IMAGE.exists():
            made = _run("truncate", "-s", IMAGE_SIZE, str(IMAGE))
            formatted = made.returncode == 0 and _run("mkfs.ext4", "-q", "-F", str(IMAGE)).returncode == 0
            if not formatted:
                IMAGE.unlink(missing_ok=True)
                _say(f"cannot make {IMAGE}: server directories stay on the disk")
                return False
        DISK.mkdir(exist_ok=True)
        mounted = _run("mount", "-o", "loop,nobarrier,discard,noatime", str(IMAGE), str(DISK))
        if mounted.returncode != 0:
            _say(f"cannot mount {IMAGE} ({mounted.stderr.strip()}): server directories stay on the disk")
            return False
        return True


def _unmount(directory: Path) -> None:
    if os.path.ismount(directory):
        _run("umount", "--lazy", str(directory))


def attach(directories: Iterable[Path]) -> None:
    """Bind-mount a directory of the scratch file system over each of `directories` (made empty; one
    left mounted by a crashed session is replaced)."""
    if not _mounted():
        return
    for directory in directories:
        _unmount(directory)
        shutil.rmtree(directory, ignore_errors=True)
        source = DISK / str(directory).strip("/").replace("/", "_")
        shutil.rmtree(source, ignore_errors=True)
        source.mkdir(parents=True)
        directory.mkdir(parents=True, exist_ok=True)
        bound = _run("mount", "--bind", str(source), str(directory))
        if bound.returncode != 0:
            _say(f"cannot bind {source} on {directory}: {bound.stderr.strip()}")


def detach(directories: Iterable[Path]) -> None:
    """Unmount and remove what attach() mounted over `directories` (their servers already killed)."""
    for directory in directories:
        was_bound = os.path.ismount(directory)
        shutil.rmtree(directory, ignore_errors=True)  # the contents (the mount point itself stays)
        _unmount(directory)
        with contextlib.suppress(OSError):
            directory.rmdir()
        if was_bound:
            shutil.rmtree(DISK / str(directory).strip("/").replace("/", "_"), ignore_errors=True)
