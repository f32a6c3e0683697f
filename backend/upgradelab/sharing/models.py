"""Share links of every job kind, in one table (issue 48, item 2): read-only, unguessable URLs for
one job (a run, a replay, a capture, a check, an attribution, a fix search) or one comparison."""

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ForeignKey, Index, String, and_, event, exists
from sqlalchemy.orm import Mapped, MappedSQLExpression, column_property, mapped_column
from sqlalchemy.orm.attributes import set_committed_value

from upgradelab.db import Base, ModelJSON, utcnow
from upgradelab.results.views.comparison_schemas import ComparisonQuery


class JobShare(Base):
    """Row of `job_share`: one read-only link. `token` is the sha256 hex of the link's token
    (secrets.token_urlsafe(24), 192 random bits; users/tokens.py): the token itself is shown once,
    when the link is made.

    kind: the job kind's name (execution/kinds.py JobKind.name: "run", "replay", "capture",
    "capture_check", "attribution", "fixsearch") with `job_id` its row's id, or "comparison" with
    `comparison` the ComparisonQuery it opens (job_id None). created_by: who made it (SET NULL when
    that user is deleted); revoked_at: set when revoked, the link answers 404 from then on.
    Migration 0032_job_share made it from `share_link` and the kinds' `share_token` columns.
    """

    __tablename__ = "job_share"
    __table_args__ = (Index("ix_job_share_kind_job", "kind", "job_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    job_id: Mapped[int | None] = mapped_column(default=None)
    comparison: Mapped[ComparisonQuery | None] = mapped_column(ModelJSON(ComparisonQuery), default=None)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("app_user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)


def live_share(kind: str, job_id: Any) -> MappedSQLExpression[bool]:
    """A kind's `shared` column_property: EXISTS a live (unrevoked) link of the `kind` job whose id
    is `job_id` (its id column), read with its row's SELECT (captures/models.py). Not expired when
    the row itself is flushed (an UPDATE of the job changes no link, and an async session cannot
    load it again lazily); the share routes re-read it (api/job_routes.py share_route, unshare)."""
    live = and_(JobShare.kind == kind, JobShare.job_id == job_id, JobShare.revoked_at.is_(None))
    return column_property(exists().where(live), expire_on_flush=False)


Shareable = TypeVar("Shareable", bound=type)


def unshared_when_made(model: Shareable) -> Shareable:
    """Class decorator for a kind whose `shared` is `live_share`: a row made in this process starts
    with `shared` False, as loaded (a new job has no link), so reading it after the commit that
    stored the row asks the database nothing (an async session cannot load it then); a row read
    from the database gets it from its SELECT. Returns `model`."""

    @event.listens_for(model, "init")
    def _unshared(target: Any, _args: Any, _kwargs: Any) -> None:
        set_committed_value(target, "shared", False)

    return model
