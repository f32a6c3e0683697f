"""/api/datasets: upload a dump (streamed), register one on the lab's disk, list, inspect, delete."""

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request, status
from fastapi import Path as PathParam
from fastapi.responses import FileResponse

from upgradelab.datasets import service
from upgradelab.datasets.models import Dataset
from upgradelab.datasets.schemas import NAME_PATTERN, DatasetFromPath, DatasetRead
from upgradelab.db import SessionDep
from upgradelab.pools.credential import is_worker_token
from upgradelab.replay import dataset_use
from upgradelab.users.auth import CurrentUser, request_token, require_owner, stamp_owner

router = APIRouter(prefix="/api/datasets", tags=["datasets"])
Name = Annotated[str, PathParam(pattern=NAME_PATTERN, description="Lower-case letters, digits, - and _.")]


@router.get("", response_model=list[DatasetRead])
async def list_datasets(
    session: SessionDep,
    deleted: Annotated[
        bool, Query(description="The deleted datasets' records instead of the live ones.")
    ] = False,
) -> list[DatasetRead]:
    """The live datasets by name, each with its per-target loads (tables, rows, bytes) and how many
    replay reports were measured on it; `deleted=true`: the deleted ones' records, newest first."""
    datasets = await service.list_datasets(session, deleted=deleted)
    counts = await dataset_use.replay_counts(session, [d.id for d in datasets])
    return [service.to_read(d, counts.get(d.id, 0)) for d in datasets]


@router.get("/{name}", response_model=DatasetRead)
async def get_dataset(name: Name, session: SessionDep) -> DatasetRead:
    """One live dataset, with `replay_count` (what a delete would keep); 404 when unknown, 410 when
    deleted (the message says how to upload it again and gives its sha256)."""
    return await _read_one(session, await service.get_or_raise(session, name))


@router.put("/{name}", response_model=DatasetRead, status_code=status.HTTP_201_CREATED)
async def upload_dataset(name: Name, request: Request, session: SessionDep, user: CurrentUser) -> DatasetRead:
    """Create a dataset from the raw request body: a mysqldump / mariadb-dump file, plain, gzip or
    zstd (`content-type: application/octet-stream`). Streamed to disk, never held in memory; sha256
    computed on the way. 409 when a live dataset has the name (a deleted one's name can be reused),
    413 over 20 GiB, 422 when empty. The dataset is the caller's: only they or an admin may delete it."""
    dataset = await service.create_from_stream(session, name, request.stream())
    await stamp_owner(session, dataset, user)
    return service.to_read(dataset)


@router.post("/{name}/from-path", response_model=DatasetRead, status_code=status.HTTP_201_CREATED)
async def dataset_from_path(
    name: Name, spec: DatasetFromPath, session: SessionDep, user: CurrentUser
) -> DatasetRead:
    """Admin only. Create a dataset from a dump already on the lab's machine (copied into the state
    dir): a regular file inside a directory listed in UPGRADELAB_DATASET_DIRS once every link is
    resolved. 422 "path: not a readable file in UPGRADELAB_DATASET_DIRS" for every refusal (missing,
    outside, a link leading out, `..`, not a regular file, unreadable), 422 naming the setting when it
    lists no directory, 409 when the name is taken."""
    dataset = await service.create_from_path(session, name, spec.path)
    await stamp_owner(session, dataset, user)
    return service.to_read(dataset)


@router.delete("/{name}", response_model=DatasetRead)
async def delete_dataset(name: Name, session: SessionDep, user: CurrentUser) -> DatasetRead:
    """Delete the dataset's dump and its loaded copies on the targets (removed by the worker as each
    target is free: `copies_pending`); the dataset stays as a record (`deleted_at`, `deleted_by`) and
    every replay report measured on it is kept, with its share links and exports (`replay_count`).
    404 when unknown, 410 when already deleted, 403 unless the caller made it or is an admin, 409
    while a replay on it is queued or running."""
    dataset = await service.get_or_raise(session, name)
    require_owner(user, dataset.created_by, f"dataset {name}", "delete")
    unfinished, loaded_on = await dataset_use.usage(session, dataset.id)
    await service.delete(session, dataset, user.username, unfinished=unfinished, loaded_on=loaded_on)
    return await _read_one(session, dataset)


async def _read_one(session: SessionDep, dataset: Dataset) -> DatasetRead:
    counts = await dataset_use.replay_counts(session, [dataset.id])
    return service.to_read(dataset, counts.get(dataset.id, 0))


def worker_only(request: Request) -> None:
    """Router dependency: 401 unless the request shows the worker credential (pools/credential.py)."""
    if not is_worker_token(request_token(request)):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "the worker credential is needed",
            headers={"WWW-Authenticate": "Bearer"},
        )


# Read by workers, not users: its own router with the worker credential (pools/credential.py).
worker_router = APIRouter(prefix="/api/datasets", tags=["datasets"], dependencies=[Depends(worker_only)])


@worker_router.get(
    "/{name}/dump",
    response_class=FileResponse,
    responses={200: {"content": {"application/octet-stream": {}}}},
)
async def download_dump(name: Name, session: SessionDep) -> FileResponse:
    """A live dataset's dump as it was stored (plain, gzip or zstd bytes), streamed, for a worker that
    does not have it (datasets/fetch.py). Needs `Authorization: Bearer <worker credential>`
    (UPGRADELAB_WORKER_TOKEN, or {state_dir}/worker.token): 401 otherwise. Headers: `x-sha256`, the
    sha256 the worker checks the bytes against. 404 when unknown, 410 when deleted."""
    dataset = await service.get_or_raise(session, name)
    return FileResponse(
        dataset.path, media_type="application/octet-stream", headers={"x-sha256": dataset.sha256}
    )
