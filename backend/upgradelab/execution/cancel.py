"""Cancel while a job works, whatever it is doing: a watch thread beside the job's body reads its
cancel flag every `poll_s` seconds and, once it is set, ends the job's work on its targets from
outside, then and at every poll after, until the body returns (a server still starting at the first
call has its pid file by a later one):

    with CancelWatch.of(RUN_JOBS, 3, lambda: interrupt_targets(...)) as cancel:
        ...the body: starts, dataset preparation, blocks...
    if cancel.requested: ...the job ends `cancelled`...

Why from outside: a job spends most of its time inside one long step (a server start, a template's
data preparation, one iteration or statement, a sysbench process) that reads no flag; ending the
step's server ends every one of them at once, the body sees the step fail and, told by `requested`
that a cancel did it, ends the job `cancelled` instead of failing a variant.

It is the one cancel of every kind: `CancelWatch.of(kind, job_id, on_cancel)` reads the job's own
row (`cancel_requested`, on the kind's lease table), and the runner asks it "cancelled?"
(`requested`, seen by the watch; `cancelled()`, read now when the watch has not seen it yet). A run
(runs/executor/runner.py) and the step runs of an attribution (attribution/steps.py, the attribution's
own flag read beside the run's) stop their targets' servers; a replay and a fix search end their
statements with KILL QUERY (replay/interrupt.py Interrupt) and stop servers still starting; a capture
and a capture check ask between their reads and while their dump or schema trial runs.
"""

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

import psutil
from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.execution.instances import in_parallel
from upgradelab.execution.kinds import JobKind
from upgradelab.execution.periodic import Periodic
from upgradelab.execution.reaper import stop_targets
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import processes, provisioner_for
from upgradelab.targets.provisioners.base import Provisioner

log = logging.getLogger(__name__)

# seconds between two reads of the flag: a cancel ends the job within this plus the step's own end
# (a clean server shutdown: 1-2 s here), inside issue 30's 5 s
CANCEL_POLL_S = 0.5
# A cancelled job's server gets this long for its clean shutdown (1-2 s here) before SIGKILL, so a
# cancel ends inside issue 30's 5 s even when the server cannot act on SIGTERM yet (a start held before
# its signal thread ran waited out a 20 s grace once in CI). A kept datadir (a prepared dataset) stays
# consistent either way: InnoDB's crash recovery replays its redo log at the next start.
STOP_TIMEOUT_S = 3.0


class CancelWatch(Periodic):
    """While entered: `requested_now()` every `poll_s` seconds until it says True, then `on_cancel()`
    then and at every poll after, until exited. A failing read or call is logged and tried again at
    the next poll (execution/periodic.py)."""

    def __init__(
        self,
        what: str,
        requested_now: Callable[[], bool],
        on_cancel: Callable[[], None] = lambda: None,
        poll_s: float = CANCEL_POLL_S,
    ) -> None:
        self._what, self._requested_now, self._on_cancel = what, requested_now, on_cancel
        self._requested = threading.Event()
        super().__init__(f"cancel-{what.replace(' ', '-')}", poll_s, self._poll)

    @classmethod
    def of(
        cls,
        kind: JobKind,
        job_id: int,
        on_cancel: Callable[[], None] = lambda: None,
        poll_s: float = CANCEL_POLL_S,
        also: Callable[[], bool] = lambda: False,
    ) -> "CancelWatch":
        """The watch of job `job_id` of `kind`: its row's cancel flag (`cancel_requested`), or `also()`
        (an attribution's step run: the attribution's flag); `on_cancel` ends its work on its servers."""
        return cls(
            f"{kind.name} {job_id}", lambda: cancel_requested(kind, job_id) or also(), on_cancel, poll_s
        )

    @property
    def requested(self) -> bool:
        """True once the watch saw the flag (and began ending the job's work)."""
        return self._requested.is_set()

    def cancelled(self) -> bool:
        """ "Cancelled?", asked by the runner between two steps: True once the watch saw the flag, else
        the flag read now (the next poll is not waited for; it calls `on_cancel` once the flag is
        seen either way)."""
        if not self._requested.is_set() and self._requested_now():
            log.info("%s: cancel requested", self._what)
            self._requested.set()
        return self._requested.is_set()

    def _poll(self) -> None:
        if not self._requested.is_set() and self._requested_now():
            log.info("%s: cancel requested", self._what)
            self._requested.set()
        if self._requested.is_set():
            self._on_cancel()


def cancel_requested(kind: JobKind, job_id: int) -> bool:
    """Whether a user asked to cancel job `job_id` of `kind` (its row's `cancel_requested`, set by
    execution/cancel_request.py); a row gone (deleted meanwhile) counts as asked."""
    model: Any = kind.lease.model
    with sync_session() as session:
        row = session.execute(select(model.cancel_requested).where(model.id == job_id)).first()
    return row is None or bool(row[0])


def interrupt_targets(
    what: str, targets: list[Target], settings: Settings, own: Iterable[Provisioner] = ()
) -> None:
    """End whatever a job runs on these targets now. `own`: the job's own provisioners (its instances):
    each one's server process is stopped through its own handle, found even before the server wrote
    its pid file (a start that has not answered yet: InnoDB recovery, a server held by SIGSTOP), all
    at once. Then every instance of the targets a pid file or a docker label names is stopped
    (stop_all: SIGCONT for a frozen one, a clean shutdown, SIGKILL after STOP_TIMEOUT_S). A stopped
    server ends its start, its data preparation, any statement or client on it. A server the lab does
    not run (existing) is never stopped: the statements of the lab's account there are killed
    (`interrupt`, KILL QUERY). A target that fails is logged with `what` ("run 3") and the others
    are still ended."""
    stop_servers(what, list(own))
    owned = []
    for target in targets:
        interrupt: Callable[[], None] | None = getattr(provisioner_for(target, settings), "interrupt", None)
        if interrupt is None:
            owned.append(target)
            continue
        try:
            interrupt()
        except Exception:  # the next poll tries again; the job's own end closes its connections
            log.exception("%s: interrupting the statements on %s", what, target.name)
    stop_targets(what, owned, settings)


def stop_servers(what: str, provisioners: list[Provisioner]) -> None:
    """Stop these provisioners' servers now, all at once (_stop_own: their own handles and the target's
    directory, so a start, an initialization or a dump load is ended before any pid file names the
    server); a failure is logged with `what`."""
    for error in in_parallel(_stop_own, provisioners):
        if error is not None:
            log.error("%s: stopping a server of the job: %s", what, error, exc_info=error)


def _stop_own(provisioner: Provisioner) -> None:
    """The provisioner's server through its own handle (its child even before it is named mysqld: a
    chroot not yet exec'd), and any server process whose command line names the target's directory
    (a local target's: the datadir's initialization, `mariadbd --bootstrap` under mariadb-install-db
    or `mysqld --initialize`, which no handle or pid file names)."""
    found: list[psutil.Process] = []
    pid = provisioner.pid()
    if pid is not None:
        with contextlib.suppress(psutil.NoSuchProcess):
            found.append(psutil.Process(pid))
    target_dir: str | None = getattr(provisioner, "target_dir", None)
    if target_dir:
        mark = target_dir.rstrip("/") + "/"
        for process in psutil.process_iter(["name", "cmdline"]):
            name, command = process.info["name"], process.info["cmdline"] or []
            if name in processes.SERVER_NAMES and any(mark in part for part in command):
                found.append(process)
    for process in {one.pid: one for one in found}.values():
        if _initializing(process) or not _listening(process):
            processes.kill(process)
        else:
            processes.terminate(process, STOP_TIMEOUT_S)


def _listening(process: psutil.Process) -> bool:
    """Whether the server listens on its TCP port yet. One that does not is still starting (InnoDB
    start or recovery, a start held by SIGSTOP): nothing was done through it, and before its signal
    thread runs it cannot act on SIGTERM (measured: a cancel of a template started to read its version
    waited out the whole grace, 20.8 s once in CI, 3.8 s at a 3 s grace), so it is killed at once.
    Unknown (not ours to inspect) counts as listening: the clean shutdown is tried."""
    try:
        return any(one.status == psutil.CONN_LISTEN for one in process.net_connections(kind="inet"))
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:
        return True


def _initializing(process: psutil.Process) -> bool:
    """Whether the process makes a datadir (`mariadbd --bootstrap` under mariadb-install-db, `mysqld
    --initialize`): it blocks SIGTERM (measured: mariadbd 10.11 --bootstrap's SigBlk has SIGTERM, so a
    cancel waited out STOP_TIMEOUT_S), and its half-made datadir is made again at the next use
    (local_template.py READY_MARKER): SIGKILL at once."""
    with contextlib.suppress(psutil.Error):
        return any(part == "--bootstrap" or part.startswith("--initialize") for part in process.cmdline())
    return False
