"""A replay's dataset on one server: the dump loaded as its own user, or reused from a kept datadir.

A load that succeeded is recorded twice: in the datadir by the lab's admin (the marker,
workloads/datasets.py `mark_prepared`: the dump's sha256, the databases, a random token) and outside
it, in the worker's state directory (measurement/dataset_records.py: the same sha256, databases and
token). A replay on a server whose kept datadir both name the dump with the same token reuses it (no
load, its statistics analysed again: measurement/settle.py); any other starts from a fresh datadir and
loads the dump (datasets/loader.py: scanned, as the dataset's load user, no client commands, no
event running: accounts.events_paused).

A load that fails or is cancelled leaves no record, and its instance's datadir is thrown away when
the job ends (Provisioner.forget_data, then discard()): a later start on kept data never finds it.
No dataset account holds a privilege on the marker's database (datasets/reserved.py, checked where
grants are made), and the marker alone is never trusted.
"""

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from upgradelab.datasets.accounts import events_paused
from upgradelab.datasets.loader import LoadFailed, LoadResult, load_dataset
from upgradelab.datasets.reserved import ReservedDatabase, check
from upgradelab.measurement.dataset_records import (
    DatasetRecord,
    forget_record,
    new_token,
    read_record,
    reusable,
    write_record,
)
from upgradelab.targets.provisioners import Provisioner
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.workloads.base import DatasetProgress
from upgradelab.workloads.datasets import mark_prepared, prepared_spec

DATASET_SLUG = "dataset"


@dataclass(frozen=True)
class DumpDataset:
    """A dump to load: file, sha256 (the reuse key) and the default database it loads into."""

    path: Path
    sha256: str
    database: str


@dataclass
class LoadedDataset:
    """A started server holding the dataset: the admin connection and endpoint, the load (None when
    the kept datadir was reused) and every database the dataset holds (the default one first)."""

    admin: ServerConnection
    endpoint: Endpoint
    load: LoadResult | None
    databases: list[str]


def file_sha256(path: Path) -> str:
    """sha256 hex of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def ensure_dataset(
    provisioner: Provisioner,
    options: list[str],
    dataset: DumpDataset,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> LoadedDataset:
    """Start the server with the dataset loaded: reused from the kept datadir when the instance's
    record and the datadir's marker name the dump with one token (dataset_records.reusable),
    otherwise a fresh datadir and the dump loaded as the dataset's load user (loader.load_dataset,
    events paused), then marked and recorded. LoadFailed on a refused dump, a server error or a
    default database that is the server's or the lab's own (before anything starts); on any
    failure the instance's datadir is to be thrown away (Provisioner.forget_data). cancelled():
    polled while the dump loads (LoadCancelled once true)."""
    try:
        check(dataset.database)
    except ReservedDatabase as refused:
        raise LoadFailed(f"the dump was not loaded: {refused}", line=None, code=None) from None
    endpoint = provisioner.start(options, keep_data=True)
    connection = endpoint.connect()
    try:
        marker = prepared_spec(connection, dataset.sha256)
    except BaseException:
        connection.close()
        raise
    databases = reusable(read_record(provisioner), marker, dataset.sha256, dataset.database)
    if databases is not None:
        return LoadedDataset(connection, endpoint, None, databases)
    connection.close()
    forget_record(provisioner)  # from here on the datadir holds a load that has not succeeded yet
    try:
        endpoint = provisioner.start(options, keep_data=False)
        connection = endpoint.connect()
    except BaseException:
        provisioner.forget_data()
        raise
    try:
        with events_paused(connection):
            result, databases = load_dataset(
                connection, endpoint, provisioner.flavor, dataset.path, dataset.database, report,
                cancelled=cancelled,
            )  # fmt: skip
        token = new_token()
        spec = dict(sha256=dataset.sha256, database=dataset.database, databases=databases, token=token)
        mark_prepared(connection, dataset.sha256, DATASET_SLUG, spec)
        write_record(provisioner, DatasetRecord(dataset.sha256, databases, token))
    except BaseException as failure:
        provisioner.forget_data()
        connection.close()
        if isinstance(failure, ReservedDatabase):
            raise LoadFailed(f"the dump was not loaded: {failure}", line=None, code=None) from None
        raise
    return LoadedDataset(connection, endpoint, result, databases)
