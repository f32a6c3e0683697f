"""API shapes of datasets."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"


class DatasetFromPath(BaseModel):
    """A dump already on the worker's machine (absolute path, read by the API and worker)."""

    path: str = Field(
        pattern=r"^/[^\n\x00]+$", description="Absolute path of a .sql, .sql.gz or .sql.zst dump."
    )


class DatasetRead(BaseModel):
    """A stored dataset: size in bytes, sha256 of the file as stored, compression, default database
    (`database`, the name with '-' as '_'), and per target the last load (tables, rows, bytes)."""

    id: int
    name: str
    sha256: str
    size_bytes: int
    compression: str
    database: str
    loads: dict[str, Any]
    created_at: datetime
