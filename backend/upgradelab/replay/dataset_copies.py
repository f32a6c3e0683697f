"""A deleted dataset's loaded copies, removed from the targets' kept datadirs (on the worker).

A replay leaves its dataset loaded in the kept datadir of every instance it used (measurement/engine.py
ensure_dataset: slot k of a target for its k-th variant there), marked by the dump's sha256 in
`upgradelab_meta.datasets`. Every start without keep_data, a run's included, begins from a fresh copy
of the target's template, so a datadir holds the dump exactly when its marker names the sha256.

Removal, per target in the dataset's `copies_pending` (what the delete stored: the targets it was
loaded on or replayed on), under that target's run lock (execution/locks.py, as runs and replays take
them: nothing is started on a target in use; a busy target stays pending and the task retries):
every slot the dataset's replays used is started on its kept datadir with the options it last ran
with; when its marker names the dump, it is started once more without keep_data (a fresh copy of the
template: the dump's schemas go, whatever their names), then stopped. Why not drop the databases:
which ones a dump creates is the dump's business (`CREATE SCHEMA` of its own), the template is not.

A removal that fails (a start refused: "Address already in use" when another process took the
slot's port) is tried COPY_REMOVAL_TRIES times, COPY_RETRY_S apart; one that still fails is recorded
in the dataset's `copies_failed` ("slot N: the error") and the slot's record (dataset_records.py) is
kept, since the datadir may still hold the dump; a copy removed has its record forgotten (issue 44:
a removal that failed twice was reported as done and its record still named the deleted dataset).

Not removed: a copy on an `existing` server (the lab does not own it: left as it is, logged), and a
copy whose sha256 is also a live dataset's (the same dump uploaded again: the copy is that
dataset's too, and its next replay reuses it).
"""

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import pymysql
from redis import Redis, RedisError
from sqlalchemy import select

from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session
from upgradelab.execution.locks import TargetLocks, lock_names
from upgradelab.measurement import forget_record, read_record
from upgradelab.replay.models import ReplayRun
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import ExistingProvisioner, Provisioner, provisioner_for
from upgradelab.workloads.datasets import is_prepared

log = logging.getLogger(__name__)
HOLDER = "dataset"  # lock values `dataset:<id>:<uuid>` (execution/locks.py)
COPY_REMOVAL_TRIES = 3
COPY_RETRY_S = 5.0  # a port another process held a moment ago is usually free again by then


def discard_copy(provisioner: Provisioner, options: list[str], sha256: str) -> bool:
    """Start the instance on its kept datadir; when its marker names `sha256`, start it again on a
    fresh copy of the template (the copy is gone). Stopped on every path. True when a copy was
    removed. Raises what the provisioner raises (ProvisionError) and pymysql errors."""
    try:
        connection = provisioner.start(options, keep_data=True).connect()
        try:
            held = is_prepared(connection, sha256)
        finally:
            with suppress(pymysql.MySQLError, OSError):
                connection.close()
        if held:
            provisioner.start(options, keep_data=False)
        return held
    finally:
        provisioner.stop()


def slot_options(replays: list[ReplayRun]) -> dict[str, list[list[str]]]:
    """Per target, the option lines each slot last ran with in these replays (oldest first, so the
    newest wins): slot k is the target's k-th variant in a replay (replay/runner.py _variants)."""
    slots: dict[str, list[list[str]]] = {}
    for replay in replays:
        seen: dict[str, int] = {}
        for variant in replay.variants:
            target, options = variant.target, list(variant.options)
            index = seen.get(target, 0)
            seen[target] = index + 1
            known = slots.setdefault(target, [])
            if index < len(known):
                known[index] = options
            else:
                known.append(options)
    return slots


@contextmanager
def _renewed(locks: TargetLocks, every_s: float) -> Iterator[None]:
    """Renew the locks every `every_s` seconds while the block runs (a server start can outlast a
    lock's TTL)."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every_s):
            try:
                locks.renew()
            except RedisError:
                log.warning("renewing dataset clean-up locks: Redis unreachable; next beat")

    thread = threading.Thread(target=beat, name="dataset-copies-locks", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _set_pending(dataset_id: int, pending: list[str], failed: dict[str, list[str]] | None = None) -> None:
    with sync_session() as session:
        dataset = session.get(Dataset, dataset_id)
        if dataset is not None:
            dataset.copies_pending = list(pending)
            if failed:
                dataset.copies_failed = {**(dataset.copies_failed or {}), **failed}
            session.commit()


def _remove_on(target: Target, slots: list[list[str]], sha256: str, settings: Settings) -> list[str]:
    """Remove the copy from every slot (discard_copy), each tried COPY_REMOVAL_TRIES times; a slot's
    record is forgotten once its copy is gone. The failures left, one "slot N: error" a slot."""
    failures: list[str] = []
    for slot, options in enumerate(slots):
        provisioner = provisioner_for(target, settings, slot=slot)
        error: str | None = None
        for attempt in range(1, COPY_REMOVAL_TRIES + 1):
            try:
                if discard_copy(provisioner, options, sha256):
                    log.info("dataset copy removed from %s slot %s", target.name, slot)
                record = read_record(provisioner)
                if record is not None and record.sha256 == sha256:
                    forget_record(provisioner)  # the slot no longer holds it
                error = None
                break
            except Exception as failed:  # one instance that cannot start must not keep the others' copies
                error = f"slot {slot}: {failed}"[:1000]
                log.warning(
                    "removing a dataset copy from %s slot %s (try %s): %s", target.name, slot, attempt, failed
                )
                if attempt < COPY_REMOVAL_TRIES:
                    time.sleep(COPY_RETRY_S)
        if error is not None:
            failures.append(error)
    return failures


def remove_copies(dataset_id: int, redis: Redis, settings: Settings) -> list[str]:
    """Remove a deleted dataset's copies from every target in its `copies_pending` that is free now
    (see the module docstring), updating `copies_pending` after each; the targets still pending
    (busy: the caller retries later). [] for a live or unknown dataset."""
    with sync_session() as session:
        dataset = session.get(Dataset, dataset_id)
        if dataset is None or dataset.deleted_at is None or not dataset.copies_pending:
            return []
        pending, sha256 = list(dataset.copies_pending), dataset.sha256
        shared = session.scalar(
            select(Dataset.name).where(Dataset.sha256 == sha256, Dataset.deleted_at.is_(None)).limit(1)
        )
        replays = list(session.scalars(select(ReplayRun).where(ReplayRun.dataset_id == dataset_id)))
        slots = slot_options(sorted(replays, key=lambda r: r.id))
        targets = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(pending)))}
        for row in targets.values():
            session.expunge(row)
    if shared is not None:
        log.info("dataset %s: its dump is also dataset %s's; its copies are kept", dataset_id, shared)
        _set_pending(dataset_id, [])
        return []
    failed: dict[str, list[str]] = {}
    for name in list(pending):
        target = targets.get(name)
        if target is not None and target.provisioner == ExistingProvisioner.kind:
            log.info("dataset %s: left on %s, a server the lab does not own", dataset_id, name)
        elif target is not None:
            locks = TargetLocks(redis, lock_names([target]), settings.target_lock_ttl_s, dataset_id, HOLDER)
            if not locks.acquire():
                continue
            try:
                with _renewed(locks, settings.job_heartbeat_s):
                    failures = _remove_on(target, slots.get(name) or [[]], sha256, settings)
            finally:
                locks.release()
            if failures:
                log.error(
                    "dataset %s: copies left on %s after %s tries: %s",
                    dataset_id,
                    name,
                    COPY_REMOVAL_TRIES,
                    failures,
                )
                failed[name] = failures
        pending.remove(name)
        _set_pending(dataset_id, pending, failed)
    return pending
