"""The one writer of an attribution's row while it executes: progress, steps, candidates tested;
each write published to the attribution's stream after its commit (streaming/publisher.py; the
events api/streaming.py lists)."""

from typing import Any

from sqlalchemy import update

from upgradelab.attribution.models import Attribution
from upgradelab.db import sync_session
from upgradelab.streaming.publisher import publish, publish_status


def write(attribution_id: int, **fields: Any) -> None:
    """Set columns of the attribution (one commit)."""
    with sync_session() as session:
        session.execute(update(Attribution).where(Attribution.id == attribution_id).values(**fields))
        session.commit()
    _publish(attribution_id, fields)


def _publish(attribution_id: int, fields: dict[str, Any]) -> None:
    """step {step, run_id, phase, state} for the last step written (a step run starts: "started";
    its tests measured: "finished"), then status {progress}."""
    steps = fields.get("steps") or []
    if steps:
        last = steps[-1]
        state = "finished" if last.get("tests_done") else "started"
        step = {"step": last["step"], "run_id": last["run_id"], "phase": last.get("phase"), "state": state}
        publish("attribution", attribution_id, {"type": "step", **step})
    if "progress" in fields:
        publish_status(attribution_id, {"progress": fields["progress"]}, kind="attribution")


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
