"""What a run ran on (run.context), read once at run start: host facts and Upgrade Lab's version."""

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import psutil

from upgradelab.runs.models import HostContext, HostStorage, RunHostContext, UpgradeLabVersion
from upgradelab.settings import REPO_ROOT


def run_context(server_dir: Path) -> RunHostContext:
    """The host's facts (cpu_model, cores, memory_bytes: MemTotal in bytes, kernel: uname -r, storage:
    the path, mount point, fs type and device of the servers' directory) and Upgrade Lab's version
    (package, git_commit), as run.context stores them. Values the host does not give are None."""
    return RunHostContext(
        host=HostContext(
            cpu_model=_cpu_model(),
            cores=os.cpu_count(),
            memory_bytes=psutil.virtual_memory().total,
            kernel=platform.release(),
            storage=HostStorage.model_validate(storage_of(server_dir)),
        ),
        upgradelab_version=UpgradeLabVersion(package=_package_version(), git_commit=_git_commit()),
    )


def storage_of(path: Path) -> dict[str, str | None]:
    """The mount holding `path` (its nearest existing ancestor): mount point, filesystem type and
    source device, from the kernel's mount table (psutil.disk_partitions(all=True)); the longest mount
    point that is a prefix wins, the last mounted of equal ones (the visible one)."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    resolved = str(existing.resolve())
    best = None
    for part in psutil.disk_partitions(all=True):
        mount_point = part.mountpoint
        inside = resolved == mount_point or resolved.startswith(mount_point.rstrip("/") + "/")
        if inside and (best is None or len(mount_point) >= len(best.mountpoint)):
            best = part
    if best is None:
        return {"path": str(path), "mount_point": None, "fs_type": None, "device": None}
    return {"path": str(path), "mount_point": best.mountpoint, "fs_type": best.fstype, "device": best.device}


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _package_version() -> str | None:
    try:
        return metadata.version("upgradelab")
    except metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None
