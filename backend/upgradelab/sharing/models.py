"""Share links: read-only, unguessable URLs for one run or one comparison."""

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from upgradelab.db import Base, utcnow


class ShareLink(Base):
    """Row of `share_link`. `token` is the sha256 hex of the link's token (secrets.token_urlsafe(24),
    192 random bits; users/tokens.py): the token itself is shown once, when the link is made.

    kind "run": run_id is set; kind "comparison": `comparison` holds the ComparisonQuery fields;
    kind "replay": replay_id is set (migration 0007_datasets).
    """

    __tablename__ = "share_link"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    run_id: Mapped[int | None] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), default=None)
    comparison: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    replay_id: Mapped[int | None] = mapped_column(
        ForeignKey("replay_run.id", ondelete="CASCADE"), default=None
    )
    created_by: Mapped[int | None] = mapped_column(ForeignKey("app_user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)
