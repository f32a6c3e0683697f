"""Server instances of a run: one per variant (own datadir, port, option file, error log, tmpdir;
docker: own container and data volume), checked against the machine's memory, started together,
frozen while another variant's block runs.

A provisioner kind without `instances` (one server only) gives its variants one shared instance.
"""

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import psutil

from upgradelab.targets.provisioners.base import Provisioner, ServerConnection

DEFAULT_BUFFER_POOL_BYTES = 128 * 1024**2  # MySQL's and MariaDB's innodb_buffer_pool_size default
_MIB = 1024**2
_SIZE = re.compile(r"^\s*(\d+)\s*([KMGT]?)B?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}

T = TypeVar("T")


class MemoryRefused(RuntimeError):
    """The instances would need more memory than the machine has available; the message names both."""


@dataclass
class Instance:
    """One server instance: its provisioner (a slot of a target), the option lines it starts with
    and the variants it serves (more than one only when the kind cannot make instances)."""

    provisioner: Provisioner
    options: list[str]
    variants: list[int] = field(default_factory=list)

    @property
    def shared(self) -> bool:
        return len(self.variants) > 1

    def freeze(self) -> None:
        """SIGSTOP / docker pause (see the provisioners); a shared server is never frozen."""
        if not self.shared:
            self.provisioner.freeze()

    def thaw(self) -> None:
        self.provisioner.thaw()


def buffer_pool_bytes(options: list[str]) -> int:
    """innodb_buffer_pool_size in bytes from option-file lines (the last occurrence wins, `-` and
    `_` alike, K/M/G/T suffixes); 128 MiB, the servers' default, when no line sets it."""
    size = DEFAULT_BUFFER_POOL_BYTES
    for line in options:
        name, _, value = line.partition("=")
        if name.strip().replace("-", "_").removeprefix("loose_") == "innodb_buffer_pool_size":
            found = _SIZE.match(value)
            if found:
                size = int(found[1]) * _UNITS[found[2].upper()]
    return size


def mem_available_bytes() -> int:
    """MemAvailable in bytes (the kernel's estimate of memory usable without swap), from psutil."""
    return int(psutil.virtual_memory().available)


def check_memory(
    option_lists: list[list[str]], allowance_mb: int, available_bytes: int | None = None
) -> None:
    """Refuse (MemoryRefused) when the instances' buffer pools plus `allowance_mb` MiB each exceed
    MemAvailable; the message names every number, in MiB."""
    pools = [buffer_pool_bytes(options) for options in option_lists]
    needed = sum(pools) + len(pools) * allowance_mb * _MIB
    available = mem_available_bytes() if available_bytes is None else available_bytes
    if needed > available:
        raise MemoryRefused(
            f"the run needs {needed // _MIB} MiB for {len(pools)} server instances (buffer pools "
            f"{' + '.join(str(p // _MIB) for p in pools)} MiB, plus {allowance_mb} MiB per instance) "
            f"but MemAvailable is {available // _MIB} MiB"
        )


def in_parallel(work: Callable[[T], Any], items: list[T]) -> list[BaseException | None]:
    """Run work(item) for every item in its own thread; per item the exception it raised, or None."""
    if not items:
        return []

    def guarded(item: T) -> BaseException | None:
        try:
            work(item)
        except Exception as error:
            return error
        return None

    with ThreadPoolExecutor(max_workers=len(items)) as pool:
        return list(pool.map(guarded, items))


def capture_context(provisioner: Provisioner, connection: ServerConnection) -> dict[str, Any]:
    """What produced this instance's numbers, read once right after it started: version
    (SELECT VERSION()), version_comment, variables (SHOW GLOBAL VARIABLES as {name: value}), the
    provisioner kind, image_or_binary and the effective option_file text."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT VERSION(), @@version_comment")
        version, comment = cursor.fetchone() or ("", "")
        cursor.execute("SHOW GLOBAL VARIABLES")
        variables = {str(name): "" if value is None else str(value) for name, value in cursor.fetchall()}
    described = provisioner.describe()
    return {
        "version": str(version),
        "version_comment": str(comment),
        "variables": variables,
        "provisioner": provisioner.kind,
        "image_or_binary": described["image_or_binary"],
        "option_file": described["option_file"],
    }
