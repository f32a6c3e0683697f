"""Datasets: store a dump (streamed, hashed on the fly), list, get, delete, record a load.

Files live in `{state_dir}/datasets/<name>.dump` (the compression is read from the magic bytes, not
the name). An upload is written to a `.partial` file first and renamed when complete, so a dropped
upload never leaves a dataset behind. A delete keeps the row as a record and every replay report
measured on it (models.py); the dump goes at once, the loaded copies on the targets through the
worker (copies.py).

A dataset's name gives its default database (database_of: `-` as `_`, so `shop-2024` loads into
`shop_2024`, the name a DBA's query log uses). That map is one to one among live datasets: a name
whose database another live dataset has (`x_y` beside `x-y`) is refused, and so is a name whose
database is the server's or the lab's own (datasets/reserved.py).
"""

import hashlib
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import anyio.to_thread
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from upgradelab.datasets.dump import detect
from upgradelab.datasets.models import Dataset
from upgradelab.datasets.paths import open_or_refuse
from upgradelab.datasets.reserved import refusal
from upgradelab.datasets.schemas import DatasetLoad, DatasetRead
from upgradelab.db import utcnow
from upgradelab.settings import get_settings
from upgradelab.worker import REMOVE_DATASET_COPIES, celery_app

MAX_BYTES = 20 * 1024**3  # 20 GiB: beyond that a dump belongs on the worker (from a path)
# The API's functions import FastAPI's HTTPException where they raise it: the worker imports this
# module (record_load) and FastAPI costs each worker start ~0.4 CPU-s (issue 31).


def database_of(name: str) -> str:
    """The default database a dataset loads into: its name with '-' as '_' (one to one among live
    datasets: _refuse_existing)."""
    return name.replace("-", "_")


def to_read(dataset: Dataset, replay_count: int = 0) -> DatasetRead:
    """The API's view of a dataset row (`loads` validated into DatasetLoad per target);
    `replay_count` from replay/dataset_use.py replay_counts()."""
    return DatasetRead.model_validate(
        {
            "id": dataset.id,
            "name": dataset.name,
            "sha256": dataset.sha256,
            "size_bytes": dataset.size_bytes,
            "compression": dataset.compression,
            "database": database_of(dataset.name),
            "loads": dataset.loads or {},
            "created_at": dataset.created_at,
            "replay_count": replay_count,
            "deleted_at": dataset.deleted_at,
            "deleted_by": dataset.deleted_by,
            "copies_pending": dataset.copies_pending,
            "copies_failed": dataset.copies_failed,
        }
    )


def _directory() -> Path:
    directory = get_settings().state_dir / "datasets"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def gone_message(dataset: Dataset) -> str:
    """What to say about a deleted dataset: when, by whom, and how to upload it again."""
    when = dataset.deleted_at.strftime("%Y-%m-%d %H:%M UTC") if dataset.deleted_at else "earlier"
    return (
        f"dataset {dataset.name!r} was deleted on {when} by {dataset.deleted_by or 'an unknown user'}; "
        f"upload the dump again (`upgradelab datasets add {dataset.name} FILE` or the Datasets page): "
        f"it is the same dump when its sha256 is {dataset.sha256}"
    )


async def get_or_raise(session: AsyncSession, name: str) -> Dataset:
    """The live dataset called `name`; 410 saying how to upload it again when the newest dataset of
    that name was deleted (gone_message), 404 naming it when there never was one."""
    from fastapi import HTTPException, status

    dataset = await session.scalar(select(Dataset).where(Dataset.live_name == name))
    if dataset is not None:
        return dataset
    deleted = await session.scalar(
        select(Dataset).where(Dataset.name == name).order_by(Dataset.id.desc()).limit(1)
    )
    if deleted is not None:
        raise HTTPException(status.HTTP_410_GONE, gone_message(deleted))
    raise HTTPException(status.HTTP_404_NOT_FOUND, f"no dataset named {name!r}")


async def list_datasets(session: AsyncSession, *, deleted: bool = False) -> list[Dataset]:
    """The live datasets by name; with deleted=True the deleted records, newest delete first."""
    if deleted:
        query = select(Dataset).where(Dataset.deleted_at.is_not(None)).order_by(Dataset.deleted_at.desc())
    else:
        query = select(Dataset).where(Dataset.deleted_at.is_(None)).order_by(Dataset.name)
    return list(await session.scalars(query))


async def _refuse_existing(session: AsyncSession, name: str) -> None:
    """409 when a live dataset is called `name` or loads into its database (database_of); 422 when
    that database is the server's or the lab's own."""
    from fastapi import HTTPException, status

    database = database_of(name)
    reserved = refusal(database)
    if reserved is not None:
        message = f"name: dataset {name!r} would load into `{database}`: {reserved}"
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_ENTITY, message)
    if await session.scalar(select(Dataset.id).where(Dataset.live_name == name)) is not None:
        raise HTTPException(
            status.HTTP_409_CONFLICT, f"name: a dataset named {name!r} exists; delete it first"
        )
    taken = await session.scalar(
        select(Dataset.name).where(func.replace(Dataset.live_name, "-", "_") == database).limit(1)
    )
    if taken is not None:
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            f"name: dataset {taken!r} loads into database `{database}` already; choose another name",
        )


async def create_from_stream(session: AsyncSession, name: str, chunks: AsyncIterator[bytes]) -> Dataset:
    """Write the request body to the dataset's file as it arrives (sha256 on the fly); 413 past
    MAX_BYTES, 422 for an empty body, 409 when the name or its database is taken (checked before
    and after the upload), 422 when its database is reserved (_refuse_existing)."""
    from fastapi import HTTPException, status

    await _refuse_existing(session, name)
    final = anyio.Path(await anyio.to_thread.run_sync(_directory)) / f"{name}.dump"
    partial = final.with_suffix(".partial")
    digest, size, head = hashlib.sha256(), 0, b""
    try:
        async with await anyio.open_file(partial, "wb") as out:
            async for chunk in chunks:
                size += len(chunk)
                if size > MAX_BYTES:
                    raise HTTPException(status.HTTP_413_REQUEST_ENTITY_TOO_LARGE, "body: dump over 20 GiB")
                if len(head) < 4:
                    head += chunk[:4]
                digest.update(chunk)
                await out.write(chunk)
        if size == 0:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_ENTITY, "body: the dump is empty")
        await _refuse_existing(session, name)  # again: another upload may have taken it meanwhile
        await partial.rename(final)
    finally:
        await partial.unlink(missing_ok=True)
    dataset = Dataset(
        name=name,
        live_name=name,
        path=str(final),
        sha256=digest.hexdigest(),
        size_bytes=size,
        compression=detect(head),
        loads={},
    )
    session.add(dataset)
    await session.commit()
    await session.refresh(dataset)
    return dataset


async def create_from_path(session: AsyncSession, name: str, source: str) -> Dataset:
    """Copy a dump on this machine into the state dir. Only a regular file inside a directory listed
    in UPGRADELAB_DATASET_DIRS, links resolved (datasets/paths.py); 422 with one message for every
    refusal, whether the file exists or not; 409 when the name is taken."""
    await _refuse_existing(session, name)
    directories = get_settings().dataset_dirs
    file = anyio.wrap_file(await anyio.to_thread.run_sync(lambda: open_or_refuse(source, directories)))

    async def read() -> AsyncIterator[bytes]:
        while block := await file.read(1 << 20):
            yield block

    try:
        return await create_from_stream(session, name, read())
    finally:
        await file.aclose()


async def delete(
    session: AsyncSession, dataset: Dataset, username: str, *, unfinished: list[int], loaded_on: set[str]
) -> Dataset:
    """Delete the live dataset row `dataset`: its dump file at once, its loaded copies on the targets
    through the worker (replay/dataset_copies.py, queued here); the row stays as a record (deleted_at,
    deleted_by) and every replay report measured on it is kept. `unfinished`: ids of the replays on it
    that have not ended (409 naming them when any); `loaded_on`: the targets its replays loaded it on
    (replay/dataset_use.py), beside the targets of its recorded loads."""
    from fastapi import HTTPException, status

    if unfinished:
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            f"replays {', '.join(map(str, unfinished))} on dataset {dataset.name!r} have not ended (queued "
            "or running): wait for them or cancel them, then delete",
        )
    targets = set(dataset.loads or {}) | loaded_on
    dataset.deleted_at, dataset.deleted_by = utcnow(), username
    dataset.live_name = None
    dataset.copies_pending = sorted(targets)
    await session.commit()
    await anyio.Path(dataset.path).unlink(missing_ok=True)
    if targets:
        await anyio.to_thread.run_sync(lambda: celery_app.send_task(REMOVE_DATASET_COPIES, args=[dataset.id]))
    return dataset


def record_load(session: Session, dataset_id: int, target: str, load: DatasetLoad) -> None:
    """Store what loading the dataset on `target` gave (the worker, sync session; committed)."""
    dataset = session.get(Dataset, dataset_id)
    if dataset is not None:
        dataset.loads = {**(dataset.loads or {}), target: load}
        session.commit()


def remove_all_files() -> None:
    """Delete the datasets directory (tests' clean-up)."""
    shutil.rmtree(get_settings().state_dir / "datasets", ignore_errors=True)
