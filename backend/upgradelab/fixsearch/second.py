"""A second instance of the variant, for the arms of the candidates that change the variant's schema:
the statistics (histograms.py says why the search's one variant instance cannot carry them), a view
rewritten (views.py), an index (indexes.py). The same target (its next slot, as a replay gives
each variant and its A/A control their instances), the same option lines and settings, the dataset
loaded or reused from that slot's kept datadir (measurement/dataset_load.py), opened as the replay opens a
variant (read-only account, its settings, its clock) and frozen between turns.

Opened lazily, when the search reaches such a candidate (a search that stops before pays for no
third server); refused as "not measured" with the reason when the target's kind has one server only
(an existing server: no second instance) or the machine's memory cannot hold a third instance
(execution/instances.py check_memory).

The change's statements (a candidate's `extra["statements"]`, the statistics' `extra["analyze"]`:
ANALYZE, CREATE OR REPLACE VIEW, CREATE INDEX, built by the lab from identifiers read from
information_schema and quoted, or from the server's own view definition: never user text) run there
as the lab's admin, in the statement's database; the next such candidate first undoes it (its
`extra["undo"]`: DROP INDEX, the view's original definition, the histograms removed), so each
candidate's arm sees the dataset with its own change only. Before the first change, the slot's
dataset record is forgotten and its datadir marked to be thrown away (Provisioner.forget_data): it is
no longer the dataset as loaded, so no later replay may reuse it, even when the search ends in a
cancel or a lost worker between the two (the next use of the slot loads the dump afresh). A server
error, or an error row in ANALYZE's result (MySQL reports a refused histogram there), is the server
refusing the candidate (`Refused`).

Ended with the search (`close`, every exit path: execution/instances.py `started` discards it); its
provisioner is a slot of the variant's target, so a search that does not succeed also has it stopped
by the lifecycle's sweep (execution/lifecycle.py stop_targets), and a cancel while it starts stops it
through the Interrupt (its provisioner is one of `interrupt.servers` from its start on).
"""

from contextlib import ExitStack, suppress

import pymysql

from upgradelab.execution import timing_cpu
from upgradelab.execution.instances import Fleet, Instance, MemoryRefused, check_memory, started
from upgradelab.fixsearch.histograms import Refused, Unavailable
from upgradelab.fixsearch.search import SearchCancelled
from upgradelab.fixsearch.sides import Side
from upgradelab.measurement import (
    DumpDataset,
    Interrupt,
    ReplayVariant,
    VariantOpener,
    forget_record,
    server_turn,
    with_clock_options,
)

SECOND = "a second instance of the variant"


class SecondInstance:
    """The variant's second instance (module docstring). `variant`: the variant on its next slot
    (None: the kind has one server only, `why_not` says so); `others`: the option lines of the
    instances already running (the memory check)."""

    def __init__(self, variant: ReplayVariant | None, dataset: DumpDataset, *, timeout_s: float,
                 interrupt: Interrupt, others: list[list[str]], allowance_mb: int, what: str,
                 why_not: str = "") -> None:  # fmt: skip
        self.variant = with_clock_options(variant) if variant is not None else None
        self.dataset, self.timeout_s, self.interrupt = dataset, timeout_s, interrupt
        self.others, self.allowance_mb, self.what, self.why_not = others, allowance_mb, what, why_not
        self.side: Side | None = None
        self.fleet: Fleet | None = None
        self.cpu: int | None = None  # the CPU the search times on (measure.py Side.cpu): set once opened
        self.applied: str | None = None  # the candidate whose change it holds
        self._undo: list[str] = []  # how that change is undone
        self._stack = ExitStack()

    def open(self) -> Side:
        """The instance, started and opened on the first call; Unavailable (with why: also every call
        after a start that failed), SearchCancelled, or what its start raised."""
        if self.side is not None:
            return self.side
        if self.variant is None or self.fleet is not None:
            raise Unavailable(self.why_not)
        try:
            check_memory([*self.others, self.variant.options], self.allowance_mb)
        except MemoryRefused as refused:
            raise Unavailable(f"no memory for {SECOND}: {refused}") from None
        variant, interrupt = self.variant, self.interrupt
        interrupt.servers = [*interrupt.servers, variant.provisioner]  # a cancel stops it while it starts
        index = len(interrupt.servers) - 1
        instance = Instance(variant.provisioner, variant.options, [index])
        start = VariantOpener({index: variant}, self.dataset, self.timeout_s, interrupt)
        self.fleet = self._stack.enter_context(started([instance], start, self.what))
        opened = [Side(start.opened[i], runner, instance) for i, runner in start.runners.items()]
        self._stack.callback(self._close_connections, opened)
        if interrupt.is_set:
            raise SearchCancelled()
        failure = next((error for error in self.fleet.errors if error is not None), None)
        if failure is not None:
            self.why_not = f"{SECOND} did not start: {type(failure).__name__}: {failure}"
            raise failure
        self.side = opened[0]
        self.side.one.replay.clock = "server" if self.side.one.clock is not None else "client"
        pid = variant.provisioner.pid() if self.cpu is not None else None
        if self.cpu is not None and pid is not None and timing_cpu.server_here(pid):
            # timed on the CPU the search's other servers share (measure.py opened_pair); back after
            with suppress(OSError):
                timing_cpu.pin_process(pid, self.cpu)
                self.side.cpu = self.cpu
            self._stack.callback(timing_cpu.unpin, [pid])
        return self.side

    def with_change(self, name: str, apply: list[str], undo: list[str], database: str) -> Side:
        """The instance with candidate `name`'s change applied once (module docstring): its statements
        run as the admin in `database` (ANALYZE, CREATE OR REPLACE VIEW, CREATE INDEX); the change of
        the candidate before it undone first (its `undo`, as applied). Unavailable when that undo
        fails, Refused when the server refuses this change."""
        side = self.open()
        if self.applied == name:
            return side
        provisioner = side.one.variant.provisioner
        if self.applied is None:
            forget_record(provisioner)  # from here on its datadir is not the dataset as loaded
            provisioner.forget_data()
        else:
            try:
                self._run(side, self._undo, database)
            except Refused as failed:
                raise Unavailable(f"{SECOND} holds {self.applied}, whose undo failed: {failed}") from None
        self.applied, self._undo = name, list(undo)
        self._run(side, apply, database)
        return side

    def _run(self, side: Side, statements: list[str], database: str) -> None:
        """`statements` as the admin; a server error, or an error row in a result (MySQL reports a
        refused histogram there), is Refused with the statement."""
        with server_turn(side):
            admin = side.one.variant.provisioner.endpoint.connect(database)
            statement = ""
            try:
                with admin.cursor() as cursor:
                    for statement in statements:
                        cursor.execute(statement)
                        errors = [
                            row
                            for row in cursor.fetchall() or ()
                            if len(row) > 3 and str(row[2]).lower() == "error"
                        ]
                        if errors:
                            raise Refused(f"{statement}: {errors[0][3]}")
            except pymysql.MySQLError as error:
                said = f"{error.args[0]}: {error.args[1]}" if len(error.args) > 1 else str(error)
                raise Refused(f"{statement}: {said}") from None
            finally:
                admin.close()

    @staticmethod
    def _close_connections(opened: list[Side]) -> None:
        for side in opened:
            for connection in (side.one.connection, side.one.clock.admin if side.one.clock else None):
                if connection is not None:
                    with suppress(pymysql.MySQLError, OSError):
                        connection.close()

    def close(self) -> None:
        """Its connections closed and the instance discarded (a no-op when it never started)."""
        self._stack.close()
