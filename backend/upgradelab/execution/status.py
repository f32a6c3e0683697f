"""The one status vocabulary of every job (a run, a replay, an attribution, the fix search to come):
`JobStatus`, its final set `FinalJobStatus` / `FINAL_STATUSES`, served to the UI through OpenAPI
(components JobStatus and FinalJobStatus, GET /api/runs/statuses) so the front end reads them from the
generated client.

    queued -> [provisioning] -> running -> succeeded | failed | cancelled

`provisioning` is a run's between its claim and its first block (its servers and datasets being
prepared); a replay and an attribution go from queued to running at their claim. A job never leaves a
final status (docs/architecture.md, "Run state machine"). The column is a string of these values
(`job_status_column`): the same 16 characters in every job table.
"""

import enum

from pydantic import BaseModel
from sqlalchemy import Enum


class JobStatus(enum.StrEnum):
    """queued -> [provisioning] -> running -> succeeded | failed | cancelled."""

    queued = "queued"
    provisioning = "provisioning"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"

    @property
    def is_final(self) -> bool:
        return self in FINAL_STATUSES


class FinalJobStatus(enum.StrEnum):
    """The statuses a job never leaves: the one definition the services, streaming router, publisher,
    CLI and UI read (the UI through the OpenAPI component `FinalJobStatus`)."""

    succeeded = JobStatus.succeeded.value
    failed = JobStatus.failed.value
    cancelled = JobStatus.cancelled.value


# JobStatus members (a StrEnum: plain strings such as a stream event's "status" or a String column's
# value match too).
FINAL_STATUSES = frozenset(JobStatus(status) for status in FinalJobStatus)


def job_status_column() -> Enum:
    """The column type of a job's status: VARCHAR(16) of JobStatus values, no native ENUM and no CHECK
    (adding a status needs no migration)."""
    return Enum(JobStatus, native_enum=False, length=16, values_callable=lambda kind: [m.value for m in kind])


class JobStatuses(BaseModel):
    """GET /api/runs/statuses: every job status in state-machine order and the final ones, which a
    job of any kind never leaves."""

    statuses: list[JobStatus] = list(JobStatus)
    final: list[FinalJobStatus] = list(FinalJobStatus)
