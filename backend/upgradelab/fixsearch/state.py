"""The one writer of a fix search's row while it executes (fixsearch/runner.py): candidates, trials,
progress; each write published to its stream after its commit (streaming/publisher.py). A search
already final (cancelled while queued, reaped) is left as it is."""

from typing import Any

from upgradelab.db import sync_session
from upgradelab.execution.kinds import write_unless_final
from upgradelab.fixsearch.models import FixSearch
from upgradelab.streaming.publisher import publish_status


def write(search_id: int, **fields: Any) -> bool:
    """Set columns of the search in one commit; False (nothing written) when it is gone or final."""
    if write_unless_final(FixSearch, search_id, fields) is None:
        return False
    if "progress" in fields:
        publish_status(search_id, {"progress": fields["progress"]}, kind="fixsearch")
    return True


def read(search_id: int) -> FixSearch | None:
    """The row, detached (its columns loaded)."""
    with sync_session() as session:
        row = session.get(FixSearch, search_id)
        if row is not None:
            session.expunge(row)
        return row
