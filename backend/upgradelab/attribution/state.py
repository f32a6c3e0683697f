"""The one writer of an attribution's row while it executes: progress, steps, candidates tested;
each write published to the attribution's stream after its commit (streaming/publisher.py; the
events api/streaming.py lists). An attribution already final (cancelled, reaped) is left as it is."""

from typing import Any

from upgradelab.attribution.models import Attribution
from upgradelab.attribution.schemas import AttributionProgress, StepRead
from upgradelab.db import sync_session
from upgradelab.execution.kinds import write_unless_final
from upgradelab.streaming.publisher import publish, publish_status


def write(attribution_id: int, **fields: Any) -> bool:
    """Set columns of the attribution (one commit); False (nothing written, nothing published) when
    it is gone or already final (execution/kinds.py write_unless_final, every kind's rule)."""
    if write_unless_final(Attribution, attribution_id, fields) is None:
        return False
    _publish(attribution_id, fields)
    return True


def _publish(attribution_id: int, fields: dict[str, Any]) -> None:
    """step {step, run_id, phase, state} for the last step written (a step run starts: "started";
    its tests measured: "finished"), then status {progress}."""
    steps: list[StepRead] = fields.get("steps") or []
    if steps:
        last = steps[-1]
        state = "finished" if last.tests_done else "started"
        step = {"step": last.step, "run_id": last.run_id, "phase": last.phase, "state": state}
        publish("attribution", attribution_id, {"type": "step", **step})
    if "progress" in fields:
        progress: AttributionProgress | None = fields["progress"]
        shown = progress.model_dump(mode="json") if progress is not None else None
        publish_status(attribution_id, {"progress": shown}, kind="attribution")


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
