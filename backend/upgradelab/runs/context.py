"""What a run ran on (run.context), read once at run start: host facts and Upgrade Lab's version."""

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from upgradelab.settings import REPO_ROOT


def run_context(server_dir: Path) -> dict[str, Any]:
    """{"host": {"cpu_model", "cores", "memory_bytes" (MemTotal), "kernel" (uname -r), "storage":
    {"path", "mount_point", "fs_type", "device"} of the servers' directory}, "upgradelab_version":
    {"package", "git_commit"}}. Values the host does not give are None."""
    return {
        "host": {
            "cpu_model": _cpu_model(),
            "cores": os.cpu_count(),
            "memory_bytes": _mem_total(),
            "kernel": platform.release(),
            "storage": storage_of(server_dir),
        },
        "upgradelab_version": {"package": _package_version(), "git_commit": _git_commit()},
    }


def storage_of(path: Path, mountinfo: Path = Path("/proc/self/mountinfo")) -> dict[str, str | None]:
    """The mount holding `path` (its nearest existing ancestor): mount point, filesystem type and
    source device, from /proc/self/mountinfo (the longest mount point that is a prefix wins)."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    resolved = str(existing.resolve())
    best: tuple[str, str | None, str | None] = ("", None, None)
    try:
        lines = mountinfo.read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        mount_point = fields[4].replace("\\040", " ")
        after = line.split(" - ", 1)[1].split()
        inside = resolved == mount_point or resolved.startswith(mount_point.rstrip("/") + "/")
        if inside and len(mount_point) >= len(best[0]):
            best = (mount_point, after[0] if after else None, after[1] if len(after) > 1 else None)
    return {"path": str(path), "mount_point": best[0] or None, "fs_type": best[1], "device": best[2]}


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _mem_total() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


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
