"""The two servers of a fix search, opened once for the whole search (measure.py measures on them):
the baseline and the variant as the replay ran them, the replay's dataset loaded (or reused from a
kept datadir), each opened as a replay opens a variant (measurement/opening.py: read-only account, its
settings, its clock) and frozen between turns; the search's thread and both servers on one CPU while
it measures (execution/timing_cpu.py, as a replay's rounds: a microsecond statement's time otherwise
follows where the scheduler put them). A `Side` is one of them: its replay connection, statement
runner, instance, the connection's own variables (what a no-op wrapper sets, wrappers.py, and what a
global remedy's SET SESSION sets back) and the CPU it is timed on; the measurement library's
`TurnServer`, so each turn on it is `server_turn(side, settings)` (its instance thawed, the settings
in force on its connection)."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

import pymysql

from upgradelab.execution import timing_cpu
from upgradelab.execution.instances import Instance, started
from upgradelab.fixsearch.rewrite import literal
from upgradelab.fixsearch.search import SearchCancelled
from upgradelab.measurement import (
    DumpDataset,
    Interrupt,
    OpenVariant,
    ReplayVariant,
    StatementRunner,
    TurnServer,
    VariantOpener,
    with_clock_options,
)
from upgradelab.settings import get_settings


@dataclass
class Side(TurnServer):
    """One opened server: the replay's connection and clock (`one`), its statement runner, its
    instance (thawed per turn: measurement `server_turn`, whose TurnServer it is) and its flavor."""

    one: OpenVariant
    runner: StatementRunner
    instance: Instance
    own: dict[str, str] | None = None
    cpu: int | None = None  # the CPU its server and the search's thread are timed on (None: not pinned)

    @property
    def flavor(self) -> str:
        return self.one.variant.provisioner.flavor

    @contextmanager
    def session(self, settings: dict[str, str]) -> Iterator[None]:
        """`settings` in force on the replay connection while entered (SET SESSION), its own values
        set back after (module docstring); pymysql.MySQLError when the server refuses one."""
        if not settings:
            yield
            return
        if self.own is None:  # the connection's own values: read once, they change only here
            self.own = self.variables()
        own = self.own
        back = ", ".join(f"{name}={literal(own[name.lower()])}" for name in settings if name.lower() in own)

        def restore() -> None:
            if back:
                with self.one.connection.cursor() as cursor:
                    cursor.execute(f"SET SESSION {back}")

        with self.one.connection.cursor() as cursor:
            cursor.execute("SET SESSION " + ", ".join(f"{n}={literal(v)}" for n, v in settings.items()))
        try:
            yield
        except BaseException:  # interrupted (a cancel kills the statement): the search is ending
            with suppress(pymysql.MySQLError, OSError):
                restore()
            raise
        restore()

    def variables(self) -> dict[str, str]:
        """SHOW SESSION VARIABLES on the replay's connection ({lower-case name: value}): what its
        statements run under (defaults, startup options, the variant's SET SESSION)."""
        with self.one.connection.cursor() as cursor:
            cursor.execute("SHOW SESSION VARIABLES")
            return {
                str(name).lower(): "" if value is None else str(value) for name, value in cursor.fetchall()
            }


@contextmanager
def opened_pair(
    baseline: ReplayVariant,
    variant: ReplayVariant,
    dataset: DumpDataset,
    *,
    timeout_s: float,
    interrupt: Interrupt,
    step: Callable[[str], object] = lambda phase: None,
) -> Iterator[tuple[Side, Side]]:
    """Both servers started at once (execution/instances.py `started`), the dataset loaded or reused,
    each opened as a replay opens a variant (read-only, its settings applied, its clock), frozen
    between turns; every instance ended on every exit path. Raises the first start failure;
    SearchCancelled when interrupted while they started."""
    variants = [with_clock_options(baseline), with_clock_options(variant)]
    interrupt.servers = [v.provisioner for v in variants]
    instances = [Instance(v.provisioner, v.options, [index]) for index, v in enumerate(variants)]
    start = VariantOpener(dict(enumerate(variants)), dataset, timeout_s, interrupt)

    step("starting the servers")
    with started(instances, start, "fix search") as fleet:
        sides = {i: Side(start.opened[i], runner, fleet.of(i)) for i, runner in start.runners.items()}
        try:
            if interrupt.is_set:
                raise SearchCancelled()
            failure = next((error for error in fleet.errors if error is not None), None)
            if failure is not None:
                raise failure
            for side in sides.values():
                side.one.replay.clock = "server" if side.one.clock is not None else "client"
            # the search's thread and both servers on one CPU while it measures (execution/timing_cpu.py,
            # as a replay's rounds): a microsecond statement's time otherwise follows the scheduler
            settings = get_settings()
            servers = [(v.name, v.provisioner.pid()) for v in variants]
            with timing_cpu.one_cpu(
                settings.replay_timing_cpu, servers, settings.timing_cpu_claims_dir
            ) as cpu:
                for side in sides.values():
                    side.one.replay.timing_cpu, side.cpu = cpu.text, cpu.cpu
                yield sides[0], sides[1]
        finally:
            for side in sides.values():
                with suppress(pymysql.MySQLError, OSError):
                    side.one.connection.close()
                if side.one.clock is not None:
                    with suppress(pymysql.MySQLError, OSError):
                        side.one.clock.admin.close()
