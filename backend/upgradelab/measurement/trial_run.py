"""One variant's trials, each from the same starting data (issue 50 items 2-4): the dataset loaded
once on the variant's instance, its datadir kept, and every trial a copy of it, run, measured and
stopped.

`prepare_trials` starts the instance with the dataset (dataset_load.py: loaded, or reused from the
instance's kept datadir), gives the replay's writer account its grants on the dataset's databases
only (datasets/accounts.py: a statement writing elsewhere is refused by the server, as a replay's),
cuts the dump's definer to the same, stops the server cleanly and copies its datadir aside
(`<instance>/data.trials`, trial_data.py copy_datadir, made under a `.partial` name and renamed
once whole): the trials' starting data. A kept copy found there (a job that ended without
restoring it: its worker killed) is put back first, so the dataset is never reused with a trial's
writes in it.

`run_trial` is one trial, in phases, each told to `step` and each ended by a cancel:
1. "copy": the kept copy onto the instance's datadir (server stopped; timed apart: DatadirCopy);
2. "start": the server started on it with the variant's option lines (keep_data; a cancel asked
   meanwhile is read once it is up, and the server stopped), then the variant's instance statements
   and SET GLOBAL applied on it by the admin connection (variant_settings.py apply_server_settings,
   as a replay's variant opens: SettingRefused naming the variant and the setting);
3. "trial": the sessions run together (session_driver.py run_sessions: speed, statement bound,
   DriverBounds), each session's connection given the variant's SET SESSION before its first
   statement (apply_session_settings), the server's lock counters read before and after, its waits
   sampled, its last deadlock read, then each fingerprint's server p95 where the server keeps it
   (trial_server.py digest_p95: performance_schema's digest histograms; why not where not);
4. "checksum": every base table of the dataset's databases checksummed (the data at the end).
The server is stopped before it returns or raises, whatever happened (`TrialCancelled` names the
phase a cancel ended). `restore_datadir` puts the kept copy back as the instance's datadir at the
job's end (a rename: the dataset as loaded, so a later job reuses it, not a trial's writes).

Only an instance whose datadir the lab owns can do this (a LocalProvisioner's `datadir`: local and
chroot targets): an existing server is never a trial's target.
"""

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from upgradelab.datasets.accounts import definer_access, replay_account
from upgradelab.measurement.dataset_load import DumpDataset, ensure_dataset
from upgradelab.measurement.session_driver import DriverBounds, SessionOpener, run_sessions
from upgradelab.measurement.session_shapes import Session
from upgradelab.measurement.trial_data import DatadirCopy, DatadirCopyError, copy_datadir
from upgradelab.measurement.trial_server import (
    LockWaitSampler,
    ServerLocks,
    TrialReadCancelled,
    digest_p95,
    last_deadlock,
    lock_counters,
    table_checksums,
)
from upgradelab.measurement.trial_summary import TrialSummary, fingerprint_samples, summarize_trial
from upgradelab.measurement.variant_settings import (
    VariantSettings,
    apply_server_settings,
    apply_session_settings,
)
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import (
    ADMIN_READ_TIMEOUT_S,
    STATEMENT_READ_MARGIN_S,
    ServerConnection,
)
from upgradelab.workloads.base import DatasetProgress

Phase = Literal["copy", "start", "trial", "checksum"]
KEPT_NAME = "data.trials"


class TrialCancelled(RuntimeError):
    """A trial ended by a cancel; `phase` the phase it was in."""

    def __init__(self, phase: Phase) -> None:
        super().__init__(f"trial cancelled while in its {phase} phase")
        self.phase = phase


@dataclass(frozen=True)
class TrialTarget:
    """One variant's instance ready for trials (prepare_trials): its `provisioner` (a lab
    instance), the option lines its server starts with, the `kept` datadir (the dataset as loaded),
    the writer account (`user`, `password`) the sessions connect as, the dataset's `databases` (its
    default one first), the copy that kept it (`kept_copy`) and whether the dataset was reused from
    the instance's kept datadir (`reused`) rather than loaded; `name` the variant's (in a refused
    setting's message) and its `settings` applied on every trial's server and sessions (SET GLOBAL,
    instance statements, SET SESSION; its `options` are the line list above). Variants that differ
    only in these settings may share one prepared instance (dataclasses.replace): every trial starts
    from the same kept copy."""

    provisioner: LocalProvisioner
    options: list[str]
    kept: Path
    user: str
    password: str
    databases: list[str]
    kept_copy: DatadirCopy | None = None
    reused: bool = False
    name: str = ""
    settings: VariantSettings = field(default_factory=VariantSettings)


class TrialMeasure(BaseModel):
    """One trial measured: the `datadir_copy` it started from (timed apart), `start_s` (seconds the server
    took to start on it), what the driver measured (`summary`), what the server counted (`locks`)
    and the data at its end (`checksums`: "db.table" -> sha256)."""

    datadir_copy: DatadirCopy
    start_s: float
    summary: TrialSummary
    locks: ServerLocks
    checksums: dict[str, str]


def _no_step(phase: Phase) -> None:
    return None


def prepare_trials(
    provisioner: LocalProvisioner,
    options: list[str],
    dataset: DumpDataset,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
    cancelled: Callable[[], bool] = lambda: False,
    *,
    name: str = "",
    settings: VariantSettings | None = None,
) -> TrialTarget:
    """The variant's instance with the dataset kept for trials (module docstring); `name` and
    `settings` (SET GLOBAL, SET SESSION, instance statements) kept for its trials, which apply them
    (the dataset is loaded and kept without them). What ensure_dataset raises (LoadFailed,
    ProvisionError, LoadCancelled), DatadirCopyError from the copy; the server is stopped on every
    exit."""
    kept = provisioner.datadir.with_name(KEPT_NAME)
    if kept.is_dir():  # a job that ended without restoring it (a worker killed): the dataset as loaded
        provisioner.stop()
        shutil.rmtree(provisioner.datadir, ignore_errors=True)
        kept.rename(provisioner.datadir)
    try:
        loaded = ensure_dataset(provisioner, options, dataset, report, cancelled)
        try:
            definer_access(loaded.admin, loaded.databases, writes=True)
            user, password = replay_account(loaded.admin, loaded.databases, writes=True)
        finally:
            loaded.admin.close()
    finally:
        provisioner.stop()
    partial = kept.with_name(f"{KEPT_NAME}.partial")  # renamed once whole: a kept copy is never half one
    made = copy_datadir(provisioner.datadir, partial, cancelled)
    partial.rename(kept)
    made = made.model_copy(update={"target": str(kept)})
    return TrialTarget(
        provisioner, list(options), kept, user, password, loaded.databases, made, loaded.load is None,
        name, settings or VariantSettings(),
    )  # fmt: skip


def run_trial(
    target: TrialTarget,
    sessions: Sequence[Session],
    *,
    speed: float,
    timeout_s: float,
    bounds: DriverBounds | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    step: Callable[[Phase], None] = _no_step,
    sample_s: float = 0.5,
) -> TrialMeasure:
    """One trial of `sessions` on `target` from its kept data (module docstring): speed and
    timeout_s (seconds) as run_sessions takes them, `bounds` its DriverBounds, `cancelled()` read in
    every phase (TrialCancelled naming it), `step(phase)` told as each begins, lock waits sampled
    every `sample_s` seconds. Sessions without a default database connect to the dataset's. The
    target's settings: SET GLOBAL and instance statements once the server is up, SET SESSION on
    every session's connection (SettingRefused, a ProvisionError, at the first refused).
    DriverError, DatadirCopyError, ProvisionError and server errors as they come; the server is
    stopped before it returns or raises."""
    provisioner = target.provisioner
    step("copy")
    provisioner.stop()
    try:
        copied = copy_datadir(target.kept, provisioner.datadir, cancelled)
    except DatadirCopyError:
        if cancelled():
            raise TrialCancelled("copy") from None
        raise
    try:
        if cancelled():
            raise TrialCancelled("copy")
        step("start")
        began = time.perf_counter()
        endpoint = provisioner.start(target.options, keep_data=True)
        start_s = time.perf_counter() - began
        if cancelled():
            raise TrialCancelled("start")
        admin = endpoint.connect(read_timeout_s=ADMIN_READ_TIMEOUT_S)
        try:
            apply_server_settings(admin, target.name, target.settings, provisioner)
            step("trial")
            account = replace(endpoint, user=target.user, password=target.password)
            default = target.databases[0] if target.databases else None

            def connect(database: str | None) -> ServerConnection:
                connection = account.connect(
                    database or default, read_timeout_s=timeout_s + STATEMENT_READ_MARGIN_S
                )
                try:
                    apply_session_settings(connection, target.name, target.settings)
                except BaseException:
                    connection.close()
                    raise
                return connection

            opener = SessionOpener(
                connect=connect,
                admin=lambda: endpoint.connect(timeout_s=5, read_timeout_s=ADMIN_READ_TIMEOUT_S),
                flavor=provisioner.flavor,
            )
            before = lock_counters(admin, provisioner.flavor)
            sampler = LockWaitSampler(opener.admin, provisioner.flavor, sample_s).start()
            try:
                run = run_sessions(
                    sessions, opener, speed=speed, timeout_s=timeout_s, bounds=bounds, cancelled=cancelled
                )
            finally:
                waits = sampler.stop()
            if run.stopped == "cancelled":
                raise TrialCancelled("trial")
            server_p95 = digest_p95(admin, fingerprint_samples(run, sessions, default))
            locks = ServerLocks(
                counters=lock_counters(admin, provisioner.flavor).since(before),
                waits=waits,
                last_deadlock=last_deadlock(admin),
            )
            step("checksum")
            checksums = _checksums(admin, target.databases, cancelled)
        finally:
            admin.close()
    finally:
        provisioner.stop()
    return TrialMeasure(
        datadir_copy=copied,
        start_s=start_s,
        summary=summarize_trial(run, sessions, server_p95),
        locks=locks,
        checksums=checksums,
    )


def _checksums(
    admin: ServerConnection, databases: Sequence[str], cancelled: Callable[[], bool]
) -> dict[str, str]:
    try:
        return table_checksums(admin, databases, cancelled)
    except TrialReadCancelled:
        raise TrialCancelled("checksum") from None


def restore_datadir(target: TrialTarget) -> None:
    """Put the kept copy back as the instance's datadir (the server stopped; a rename, the trial's
    datadir removed): the dataset as it was loaded, for the next job to reuse. A no-op when the
    kept copy is gone (restored already)."""
    if not target.kept.is_dir():
        return
    target.provisioner.stop()
    shutil.rmtree(target.provisioner.datadir, ignore_errors=True)
    target.kept.rename(target.provisioner.datadir)
