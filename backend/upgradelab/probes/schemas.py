"""Probe API shapes: per variant, per iteration values, top mutex waits and unavailable probes."""

from pydantic import BaseModel

from upgradelab.execution.status import JobStatus


class ProbeIteration(BaseModel):
    """One iteration of one variant. Absent (None) values: the probe is unavailable or undefined.

    hit_rate: 1 - reads/read_requests (None with no read requests); read_requests, reads, pages_read:
    counts; bytes_read: bytes (Innodb_data_read); server_s: seconds, the workload thread's statement
    SUM_TIMER_WAIT / 1e12; client_s: seconds, sum of the iteration's client-side statement times;
    statements: statements the server counted for the workload thread.
    """

    iteration: int
    hit_rate: float | None = None
    read_requests: float | None = None
    reads: float | None = None
    pages_read: float | None = None
    bytes_read: float | None = None
    server_s: float | None = None
    statements: float | None = None
    client_s: float | None = None


class MutexWait(BaseModel):
    """An InnoDB mutex instrument summed over the variant's iterations: waits and wait_ms (ms)."""

    event_name: str
    count: float
    wait_ms: float


class UnavailableProbe(BaseModel):
    """A probe the variant's server could not give, with the reason (never reported as zero)."""

    probe: str
    reason: str


class VariantProbes(BaseModel):
    """A variant's probe values in iteration order (downsampled when the request gave a width: then
    `iterations_total` is how many the variant has) and its top mutex waits (by wait_ms)."""

    variant: str
    variant_index: int
    unavailable: list[UnavailableProbe]
    iterations: list[ProbeIteration]
    iterations_total: int = 0
    top_mutex_waits: list[MutexWait]


class RunProbes(BaseModel):
    """GET /api/runs/{id}/probes: the run's status (poll until final) and one entry per variant."""

    run_id: int
    status: JobStatus
    variants: list[VariantProbes]
