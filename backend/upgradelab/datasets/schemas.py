"""API shapes of datasets."""

from datetime import datetime

from pydantic import BaseModel, Field

from upgradelab.datasets.dump import Compression
from upgradelab.datasets.loader import TableStats
from upgradelab.request_model import RequestModel

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"


class DatasetFromPath(RequestModel):
    """A dump already on the lab's machine, inside a directory listed in UPGRADELAB_DATASET_DIRS
    (absolute path, read by the API; see datasets/paths.py for what is refused)."""

    path: str = Field(
        pattern=r"^/[^\n\x00]+$",
        max_length=4096,
        description="Absolute path of a .sql, .sql.gz or .sql.zst dump inside UPGRADELAB_DATASET_DIRS.",
    )


class DatasetLoad(BaseModel):
    """The dataset as last loaded on one target (replay/runner.py): the server's SELECT VERSION(),
    when (UTC), whether the kept datadir already held it (`reused`: no load), the load's seconds and
    the rows its INSERTs held (None when reused), and the tables (exact rows, data + index bytes)."""

    version: str
    loaded_at: datetime
    reused: bool
    elapsed_s: float | None
    rows_seen: int | None
    tables: list[TableStats]


class DatasetRead(BaseModel):
    """A dataset: size in bytes, sha256 of the file as stored, compression, default database
    (`database`, the name with '-' as '_'), per target name the last load, and `replay_count`: the
    replay reports measured on it (kept when it is deleted).

    A deleted dataset is a record: `deleted_at` (UTC) and `deleted_by` (username) set, its dump gone,
    and `copies_pending` the targets whose kept datadirs may still hold it ([] once all are removed;
    None while live); `copies_failed` the copies whose removal failed after its tries, per target
    ("slot N: the error"): still there, to remove by hand. A new upload is the same dump when its
    sha256 is this one's."""

    id: int
    name: str
    sha256: str
    size_bytes: int
    compression: Compression
    database: str
    loads: dict[str, DatasetLoad]
    created_at: datetime
    replay_count: int
    deleted_at: datetime | None
    deleted_by: str | None
    copies_pending: list[str] | None
    copies_failed: dict[str, list[str]] | None = None
