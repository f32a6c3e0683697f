"""A dataset: a named SQL dump stored under the state dir, loaded into servers on demand."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, utcnow


class Dataset(Base):
    """Row of `dataset`. `loads`: per target name, what the last load left ({"version", "loaded_at",
    "elapsed_s", "bytes_fed", "rows_seen", "tables": [{"schema", "name", "rows", "bytes"}]})."""

    __tablename__ = "dataset"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    path: Mapped[str] = mapped_column(String(1000))
    sha256: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    compression: Mapped[str] = mapped_column(String(8))  # none | gzip | zstd
    loads: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
