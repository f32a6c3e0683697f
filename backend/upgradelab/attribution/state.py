"""The one writer of an attribution's row while it executes: progress, steps, candidates tested."""

from typing import Any

from sqlalchemy import update

from upgradelab.attribution.models import Attribution
from upgradelab.db import sync_session


def write(attribution_id: int, **fields: Any) -> None:
    """Set columns of the attribution (one commit)."""
    with sync_session() as session:
        session.execute(update(Attribution).where(Attribution.id == attribution_id).values(**fields))
        session.commit()


def read(attribution_id: int) -> Attribution | None:
    """The row, detached (its columns loaded)."""
    with sync_session() as session:
        row = session.get(Attribution, attribution_id)
        if row is not None:
            session.expunge(row)
        return row


def cancel_requested(attribution_id: int) -> bool:
    """Whether a user asked to cancel (read between steps and while waiting for busy targets)."""
    row = read(attribution_id)
    return row is None or row.cancel_requested
