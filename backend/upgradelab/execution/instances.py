"""Server instances of a job (a run, a replay): one per variant (own datadir, port, option file,
error log, tmpdir; docker: own container and data volume), given out by `Slots`, checked against the
machine's memory, started together and frozen by `started`, thawed for a variant's block and frozen
after it (`Fleet.block`), all stopped on every exit path.

A provisioner kind without `instances` (one server only) gives its variants one shared instance.
"""

import logging
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import psutil

from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import provisioner_for, spares
from upgradelab.targets.provisioners.base import Provisioner, ServerConnection

log = logging.getLogger(__name__)

DEFAULT_BUFFER_POOL_BYTES = 128 * 1024**2  # MySQL's and MariaDB's innodb_buffer_pool_size default
_MIB = 1024**2
_SIZE = re.compile(r"^\s*(\d+)\s*([KMGT]?)B?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}

T = TypeVar("T")
SPARE_SETTLE_S = 120.0


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

    @contextmanager
    def thawed(self) -> Iterator["Instance"]:
        """Thawed for one block and frozen again after it (a shared one never freezes). A block
        that raises leaves it thawed: the caller stops it or the job's end does."""
        self.thaw()
        yield self
        self.freeze()


class Slots:
    """Gives each variant of a job its instance: slots 0, 1, ... of its target in variant order, or
    the one shared instance of a kind without `instances` (an existing server: its provisioner also
    remembers what each variant changes, put back when the job ends).

        provisioner = slots.provisioner(target)      # ask it (version, pre-flight) before keeping it
        slots.keep(target, provisioner, options, 3)  # variant 3 runs there
        check_memory([i.options for i in slots.instances], allowance_mb)

    first_slot: the slot the first variant on a target gets (0: the target's own port). A sharded
    replay's shard k starts at k x its variants (replay/sharding.py), so two shards whose workers share
    one machine never take the same slot's port and directories.
    """

    def __init__(self, settings: Settings, first_slot: int = 0) -> None:
        self._settings = settings
        self._first_slot = first_slot
        self._by_target: dict[str, list[Instance]] = {}
        self.instances: list[Instance] = []  # in the order they were kept

    def provisioner(self, target: Target) -> Provisioner:
        """The provisioner the next variant on `target` gets: the shared server's when the kind has no
        instances and one is kept already, else the next slot's (a slot is taken only by `keep`)."""
        kept = self._by_target.get(target.name, [])
        if kept and not kept[0].provisioner.instances:
            return kept[0].provisioner
        return provisioner_for(target, self._settings, slot=self._first_slot + len(kept))

    def keep(self, target: Target, provisioner: Provisioner, options: list[str], variant: int) -> Instance:
        """Variant `variant` runs on `provisioner` (from `provisioner`): a new instance, or the shared
        one it names. The instance."""
        kept = self._by_target.setdefault(target.name, [])
        if kept and kept[0].provisioner is provisioner:
            kept[0].variants.append(variant)
            return kept[0]
        instance = Instance(provisioner, options, [variant])
        kept.append(instance)
        self.instances.append(instance)
        return instance


@dataclass
class Fleet:
    """A job's started instances (see `started`): `errors[i]` is what starting `instances[i]` raised."""

    instances: list[Instance]
    errors: list[BaseException | None] = field(default_factory=list)

    def of(self, variant: int) -> Instance:
        """The instance variant `variant` runs on; KeyError when it has none."""
        for instance in self.instances:
            if variant in instance.variants:
                return instance
        raise KeyError(variant)

    def block(self, instance: Instance) -> AbstractContextManager[Instance]:
        """The instance thawed for one block and frozen again after it (`Instance.thawed`)."""
        return instance.thawed()


class InstanceStarter(Protocol):
    """How a job starts one of its instances, for `started` (called once per instance, one thread
    each): bring its server up and open what the job needs on it. True when it is up and is to be
    frozen, False when it is not (the job has said why); what it raises goes to `Fleet.errors`.
    Implemented by measurement/openers.py VariantOpener (a replay's and a fix search's variants) and
    by a run's start (runs/executor/runner.py `_started`)."""

    def __call__(self, instance: Instance) -> bool: ...


@contextmanager
def started(instances: list[Instance], start: InstanceStarter, what: str) -> Iterator[Fleet]:
    """Start every instance at once, one thread each (`start(instance)`, an InstanceStarter: True when
    it is up and is to be frozen; what it or the freeze raises goes to `Fleet.errors`), freeze each
    one as soon as it is up, wait until no spare instance of this process is still starting
    (spares.settle), yield the Fleet; on every exit path, exception or not, end every instance, all
    at once, one thread each, with `provisioner.discard()`: a throw-away datadir is killed and
    removed (a clean shutdown takes MySQL 9.7 1.5-2 s; one after another, five of them kept a run's
    final state ~7 s behind its last iteration), a kept one (a dataset's copy) is shut down cleanly;
    one that fails is logged with `what` ("run 3") and the others are still ended."""
    fleet = Fleet(instances)
    up: dict[int, bool] = {}

    def one(instance: Instance) -> None:
        up[id(instance)] = start(instance)
        if up[id(instance)]:
            # frozen as soon as it is up, not once all are: on 2 cores a started server's background
            # threads would otherwise take CPU from the ones still starting (MySQL 9.7 ~2 s alone)
            instance.freeze()

    try:
        fleet.errors = in_parallel(one, instances)
        # a spare instance still starting (after the previous run, targets/provisioners/spares.py) would
        # take CPU from the first iterations: wait for it
        spares.settle(SPARE_SETTLE_S)
        yield fleet
    finally:
        # one server that cannot be stopped must not keep the others running
        for instance, error in zip(
            instances, in_parallel(lambda i: i.provisioner.discard(), instances), strict=True
        ):
            if error is not None:
                log.error(
                    "%s: stopping %s: %s", what, instance.provisioner.target_name, error, exc_info=error
                )


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
