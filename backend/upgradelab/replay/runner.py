"""A replay run on the worker: take the targets' locks (the same as experiment runs', so the two
never share a server), replay on each variant in order, store the report; the final status is
written on every exit path."""

import time
from pathlib import Path
from typing import Any

from redis import Redis
from sqlalchemy import select

from upgradelab.datasets import service as datasets
from upgradelab.datasets.loader import LoadFailed
from upgradelab.datasets.models import Dataset
from upgradelab.datasets.service import database_of
from upgradelab.db import sync_session, utcnow
from upgradelab.replay.compare import compare, report_document
from upgradelab.replay.engine import DumpDataset, VariantReplay, replay_variant
from upgradelab.replay.models import ReplayRun
from upgradelab.replay.sources import SourceStatement
from upgradelab.runs.locks import TargetLocks
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import ProvisionError, provisioner_for
from upgradelab.workloads.base import DatasetProgress

LOCK_TTL_S = 3600


class TargetsBusy(RuntimeError):
    """Another run holds one of the replay's targets; the task retries."""


def _update(replay_id: int, **values: Any) -> None:
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        if replay is not None:
            for key, value in values.items():
                setattr(replay, key, value)
            session.commit()


def execute_replay(replay_id: int, redis: Redis) -> str | None:
    """Run a queued replay; its final status (None when it was not queued). TargetsBusy while a
    target is locked."""
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        if replay is None or replay.status != "queued":
            return None
        dataset = session.get(Dataset, replay.dataset_id)
        variants = list(replay.variants)
        statements = [SourceStatement(**s) for s in replay.statements]
        repeats = replay.repeats
        names = [str(v["target"]) for v in variants]
        targets = {t.name: t for t in session.scalars(select(Target).where(Target.name.in_(names)))}
        for target in targets.values():
            session.expunge(target)
    locks = TargetLocks(redis, names, LOCK_TTL_S)
    if not locks.acquire():
        raise TargetsBusy(f"replay {replay_id}: a target is busy")
    status, error = "failed", None
    try:
        _update(replay_id, status="running")
        if dataset is None:
            raise LoadFailed("the dataset was deleted", line=None, code=None)
        dump = DumpDataset(Path(dataset.path), dataset.sha256, database_of(dataset.name))
        replays: list[VariantReplay] = []
        for index, variant in enumerate(variants):
            target = targets[str(variant["target"])]
            step = {"variant": variant["name"], "index": index + 1, "of": len(variants)}
            _update(replay_id, progress={**step, "phase": "starting"})

            def report(progress: DatasetProgress, step: dict[str, Any] = step) -> None:
                locks.renew()  # a load can take long: every progress report is also a heartbeat
                _update(replay_id, progress={**step, **progress.as_dict()})

            def phase(text: str, step: dict[str, Any] = step) -> None:
                locks.renew()
                _update(replay_id, progress={**step, "phase": text})

            provisioner = provisioner_for(target)
            started = time.monotonic()
            one = replay_variant(
                str(variant["name"]),
                provisioner,
                list(variant["options"]),
                dump,
                statements,
                repeats,
                report,
                phase,
            )
            locks.renew()
            replays.append(one)
            _record_load(dataset.id, target.name, one, time.monotonic() - started)
        document = report_document(statements, replays, compare(statements, replays))
        _update(replay_id, report=document, progress=None)
        status = "succeeded"
    except (LoadFailed, ProvisionError) as failure:
        error = str(failure)
    except Exception as failure:  # the run must not stay "running": any error is the user's to see
        error = f"{type(failure).__name__}: {failure}"
    finally:
        locks.release()
        _update(replay_id, status=status, error=error, ended_at=utcnow())
    return status


def _record_load(dataset_id: int, target: str, replay: VariantReplay, elapsed_s: float) -> None:
    load = {
        "version": replay.version,
        "loaded_at": utcnow().isoformat(),
        "reused": replay.load is None,
        "elapsed_s": round(replay.load.elapsed_s if replay.load else elapsed_s, 3),
        "rows_seen": replay.load.rows_seen if replay.load else None,
        "tables": [t.__dict__ for t in replay.tables],
    }
    with sync_session() as session:
        datasets.record_load(session, dataset_id, target, load)
