"""A dataset: a named SQL dump stored under the state dir, loaded into servers on demand.

Deleting a dataset removes its dump and its loaded copies, never the row: replay reports name the
dataset they ran on (issue 24), so the row stays as a record (name, sha256, size, tables per target,
when and by whom it was deleted). Names are unique among live datasets only: `live_name` is the
name while the dataset is live and NULL once deleted, under a plain UNIQUE constraint (NULLs never
collide on SQLite, MariaDB, MySQL and PostgreSQL alike; MariaDB has no partial indexes).
"""

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.datasets.schemas import DatasetLoad
from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.users.models import User


class Dataset(Base):
    """Row of `dataset`. `loads`: per target name, what the last load left (schemas.DatasetLoad:
    version, loaded_at, reused, elapsed_s, rows_seen, tables; typed, db.ModelJSON).
    Once deleted: `deleted_at`, `deleted_by` (the username), `live_name` NULL, the file gone, and
    `copies_pending` the targets whose kept datadirs may still hold the dump (replay/dataset_copies.py
    empties it; [] once every copy is removed)."""

    __tablename__ = "dataset"
    __table_args__ = (UniqueConstraint("live_name", name="uq_dataset_live_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), index=True)
    # defaults to `name` on insert: a new dataset is live
    live_name: Mapped[str | None] = mapped_column(
        String(64), default=lambda context: context.get_current_parameters()["name"]
    )
    path: Mapped[str] = mapped_column(String(1000))
    sha256: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    compression: Mapped[str] = mapped_column(String(8))  # none | gzip | zstd
    loads: Mapped[dict[str, DatasetLoad]] = mapped_column(ModelJSON(dict[str, DatasetLoad]), default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)
    deleted_by: Mapped[str | None] = mapped_column(String(64), default=None)
    copies_pending: Mapped[list[str] | None] = mapped_column(ModelJSON(list[str]), default=None)
    # the copies whose removal failed after its tries: target -> ["slot N: the error", ...] (issue 44,
    # migration 0029); their slots' records still name the dump, as their datadirs may still hold it
    copies_failed: Mapped[dict[str, list[str]] | None] = mapped_column(
        ModelJSON(dict[str, list[str]]), default=None
    )
    # who created it (app_user.id; NULL: from before owners were recorded, or made by the lab): only
    # they or an admin may delete it (users/auth.py require_owner, migration 0021_owners)
    created_by: Mapped[int | None] = mapped_column(ForeignKey(User.id, ondelete="SET NULL"), default=None)
