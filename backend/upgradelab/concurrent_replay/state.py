"""The one writer of a concurrent replay's state in the worker (runner.py): what one step changes
(schedule, progress, a trial's record, report) written in one commit, then published to its stream
(streaming/publisher.py); a replay already final (cancelled while queued, reaped) is left as it is."""

from typing import Any

from upgradelab.concurrent_replay.jobs import CONCURRENT_REPLAYS
from upgradelab.concurrent_replay.models import ConcurrentReplay
from upgradelab.execution.kinds import write_unless_final
from upgradelab.streaming.publisher import publish, publish_status


def write(job_id: int, **fields: Any) -> bool:
    """Write `fields` (columns of concurrent_replay) in one commit; False (nothing written) when the
    replay is gone or already final. Events after the commit: `trial` {round, variant} for each
    trial recorded (`trial` in fields: its TrialRecord JSON, appended by the caller to `trials`),
    `report` {partial}, and the status with its progress."""
    trial = fields.pop("trial", None)
    status = write_unless_final(ConcurrentReplay, job_id, fields)
    if status is None:
        return False
    kind = CONCURRENT_REPLAYS.name
    if trial is not None:
        publish(kind, job_id, {"type": "trial", "round": trial["round"], "variant": trial["variant"]})
    if "report" in fields:
        publish(kind, job_id, {"type": "report", "partial": bool((fields["report"] or {}).get("partial"))})
    if "progress" in fields:
        publish_status(job_id, {"status": status, "progress": fields["progress"]}, kind=kind)
    return True
