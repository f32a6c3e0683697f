"""The one writer of a replay's state in the worker (replay/runner.py): what one step changes
(schedule, progress, report) written in one session and one commit, then published to the replay's
stream (streaming/publisher.py; the events api/streaming.py lists), as runs/executor/state.py does for a
run; a replay already final (cancelled while queued, ended by the reaper) is left as it is."""

from typing import Any

from upgradelab.execution.kinds import write_unless_final
from upgradelab.replay.models import ReplayRun
from upgradelab.streaming.publisher import publish, publish_status


def write(replay_id: int, **fields: Any) -> bool:
    """Write `fields` (columns of replay_run) in one commit; False (nothing written) when the replay
    is gone or already final."""
    status = write_unless_final(ReplayRun, replay_id, fields)
    if status is None:
        return False
    _publish(replay_id, status, fields)
    return True


def _publish(replay_id: int, status: str, fields: dict[str, Any]) -> None:
    """The events of one written step, after its commit: schedule {rounds, max_rounds} (the rounds
    planned so far), report {partial}, status {status, progress} (the step: variant, phase, load)."""
    if "schedule" in fields:
        schedule = fields["schedule"] or {}
        rounds = {"rounds": schedule.get("rounds"), "max_rounds": schedule.get("max_rounds")}
        publish("replay", replay_id, {"type": "schedule", **rounds})
    if "report" in fields:
        partial = bool((fields["report"] or {}).get("partial"))
        publish("replay", replay_id, {"type": "report", "partial": partial})
    if "progress" in fields:
        publish_status(replay_id, {"status": status, "progress": fields["progress"]}, kind="replay")
