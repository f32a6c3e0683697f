"""The one writer of a replay's state in the worker (replay/runner.py): what one step changes
(schedule, progress, report) written in one session and one commit, as run_executor/state.py does for a
run; a replay already final (cancelled while queued, ended by the reaper) is left as it is."""

from typing import Any

from sqlalchemy import select

from upgradelab.db import sync_session
from upgradelab.execution.status import JobStatus
from upgradelab.replay.models import ReplayRun


def write(replay_id: int, **fields: Any) -> bool:
    """Write `fields` (columns of replay_run) in one commit; False (nothing written) when the replay
    is gone or already final."""
    with sync_session() as session:
        replay = session.get(ReplayRun, replay_id)
        if replay is None or JobStatus(replay.status).is_final:
            return False
        for key, value in fields.items():
            setattr(replay, key, value)
        session.commit()
    return True


def cancel_requested(replay_id: int) -> bool:
    """Whether the user asked to cancel the replay (replay/service.cancel)."""
    with sync_session() as session:
        return bool(session.scalar(select(ReplayRun.cancel_requested).where(ReplayRun.id == replay_id)))
