"""A replay's dataset on one server: the dump loaded as its own user, or reused from a kept datadir.

A datadir holding a loaded dump is marked (workloads/datasets.py `mark_prepared`) with the dump's
sha256 and the databases it holds; a replay on a server whose kept datadir carries the marker reuses
it (no load, its statistics analysed again: replay/settle.py), any other starts from a fresh datadir
and loads the dump (datasets/loader.py: scanned, as the dataset's load user, no client commands).
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from upgradelab.datasets.loader import LoadResult, load_dataset
from upgradelab.targets.provisioners import Provisioner
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.workloads.base import DatasetProgress
from upgradelab.workloads.datasets import META_DATABASE, is_prepared, mark_prepared

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


def _loaded_databases(connection: ServerConnection, sha256: str) -> list[str] | None:
    """The databases of the dataset the datadir's marker records under `sha256`; None when there is
    none, or when it was loaded before dumps loaded as their own user (no list: it is loaded again)."""
    if not is_prepared(connection, sha256):
        return None
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT spec FROM {META_DATABASE}.datasets WHERE spec_hash = %s", (sha256,))
        row = cursor.fetchone()
    databases = json.loads(row[0]).get("databases") if row else None
    return list(databases) if isinstance(databases, list) and databases else None


def ensure_dataset(
    provisioner: Provisioner,
    options: list[str],
    dataset: DumpDataset,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> LoadedDataset:
    """Start the server with the dataset loaded: reused from the kept datadir when its marker holds
    the dump's sha256, otherwise a fresh datadir and the dump loaded as the dataset's load user
    (loader.load_dataset: LoadFailed on a refused dump or a server error), then marked with the
    databases it holds. cancelled(): polled while the dump loads (LoadCancelled once true)."""
    endpoint = provisioner.start(options, keep_data=True)
    connection = endpoint.connect()
    databases = _loaded_databases(connection, dataset.sha256)
    if databases is not None:
        return LoadedDataset(connection, endpoint, None, databases)
    connection.close()
    endpoint = provisioner.start(options, keep_data=False)
    connection = endpoint.connect()
    try:
        result, databases = load_dataset(
            connection, endpoint, provisioner.flavor, dataset.path, dataset.database, report,
            cancelled=cancelled,
        )  # fmt: skip
        spec = {"sha256": dataset.sha256, "database": dataset.database, "databases": databases}
        mark_prepared(connection, dataset.sha256, DATASET_SLUG, spec)
    except BaseException:
        connection.close()
        raise
    return LoadedDataset(connection, endpoint, result, databases)
