"""Identical starting data for every trial (issue 50 item 3): a trial's datadir is a copy of the
dataset's kept datadir (the one measurement/dataset_load.py loaded and marked), made before the
trial and timed apart from it, so every trial on every variant starts from the same rows.

The copy is `cp -a --reflink=auto`: a reflink (the blocks shared, copy-on-write, in about no time)
on a filesystem that has one (btrfs, XFS with reflink, bcachefs), a full copy elsewhere (ext4: this
lab's disk), the same command and result either way. The server of the kept datadir must be
stopped while it is copied (a running server's files are not a consistent datadir: stop it
cleanly first, as Provisioner.stop does). A cancel (`cancelled()` read every POLL_S) kills the copy
and removes what it wrote.
"""

import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

POLL_S = 0.1


class DatadirCopyError(RuntimeError):
    """A copy that could not be made (the source is no datadir, cp failed) or was cancelled."""


class DatadirCopy(BaseModel):
    """A trial's datadir made: `bytes` the source holds (apparent sizes), `seconds` the copy took
    (time.perf_counter, not part of the trial's time), `filesystem` the target's (`stat -f`'s type:
    ext2/ext3 (ext4), btrfs, xfs, ...: whether a reflink was possible), the copy's `target`."""

    target: str
    bytes: int
    seconds: float
    filesystem: str


def _size(path: Path) -> int:
    return sum(one.stat().st_size for one in path.rglob("*") if one.is_file() and not one.is_symlink())


def copy_datadir(source: Path, target: Path, cancelled: Callable[[], bool] = lambda: False) -> DatadirCopy:
    """Copy the stopped server's datadir `source` to `target` (replaced when it exists: the previous
    trial's), `cp -a --reflink=auto` (module docstring), timed. DatadirCopyError when `source` is no
    datadir (no `mysql/` system schema in it), when cp fails (its message), or on a cancel (the
    partial copy removed)."""
    if not (source / "mysql").is_dir():
        raise DatadirCopyError(f"{source}: not a datadir (no mysql/ system schema in it)")
    if target.resolve() == source.resolve():
        raise DatadirCopyError(f"{target}: the copy cannot be its own source")
    shutil.rmtree(target, ignore_errors=True)
    started = time.perf_counter()
    process = subprocess.Popen(
        ["cp", "-a", "--reflink=auto", str(source), str(target)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        while True:
            try:
                process.wait(POLL_S)  # returns as cp exits: the time is the copy's
                break
            except subprocess.TimeoutExpired:
                if cancelled():
                    raise DatadirCopyError(f"copy of {source} cancelled") from None
        seconds = time.perf_counter() - started
        if process.returncode != 0:
            error = (process.stderr.read() if process.stderr else b"").decode(errors="replace").strip()
            raise DatadirCopyError(f"cp {source} -> {target}: {error or f'exit {process.returncode}'}")
    except BaseException:
        if process.poll() is None:
            process.kill()
            process.wait()
        shutil.rmtree(target, ignore_errors=True)
        raise
    finally:
        if process.stderr:
            process.stderr.close()
    kind = subprocess.run(
        ["stat", "-f", "-c", "%T", str(target)], capture_output=True, text=True, check=False
    )
    size = _size(source)
    return DatadirCopy(target=str(target), bytes=size, seconds=seconds, filesystem=kind.stdout.strip())
