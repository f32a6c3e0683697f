"""What one concurrent trial measured, summed up to be stored and compared (issue 50 item 4): the
driver's `TrialRun` (session_driver.py) read into throughput, latency percentiles per fingerprint,
errors by code with a sample statement and session, and rows changed. Pure: no server (the
server's p95 is read apart and given).

Latency is the client's clock (StatementRun.latency_s: perf_counter around the statement and its
rows), in seconds; a fingerprint's percentiles are over its statements that ran without error
(numpy.percentile, linear interpolation: with fewer than 100 statements p99 is an interpolation
between the largest two). A failed statement is counted in its fingerprint's `errors` and in the
trial's errors by code; a statement the bound ended is error code 0 ("timed out after N s"), as a
lost connection without a code is.

The server's clock beside it (trial_server.py digest_p95, given as `server`): each fingerprint's
server p95 and the digest's statement count where the server keeps them, and the sentence saying
where they were read or why not (`TrialSummary.server_clock`).

Rows changed: the rows affected of the statements that ran without error and write
(workload.py WRITE_KINDS: INSERT, UPDATE, DELETE, REPLACE by their first word).
"""

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from upgradelab.measurement.session_driver import TrialRun
from upgradelab.measurement.session_shapes import Session
from upgradelab.measurement.trial_server import ServerP95
from upgradelab.measurement.workload import WRITE_KINDS

SAMPLE_CHARS = 300
# distinct statements of a fingerprint whose server digests are read (trial_server.py digest_p95)
SAMPLES_PER_FINGERPRINT = 32


class FingerprintLatency(BaseModel):
    """One fingerprint (pt-query-digest's class, `class_id` and its text) in a trial: `statements`
    that ran without error, `errors` that failed (timeouts included), and their client latency
    percentiles `p50_s`, `p95_s`, `p99_s` (seconds; None when none ran without error); beside them
    the server's p95 (`server_p95_s`, seconds) and its count of the fingerprint's digest
    (`server_statements`, failed ones included): None where the server's clock is not available
    (TrialSummary.server_clock says why) or its digest was not kept."""

    class_id: str
    fingerprint: str
    statements: int
    errors: int
    p50_s: float | None
    p95_s: float | None
    p99_s: float | None
    server_p95_s: float | None = None
    server_statements: int | None = None


class ErrorSample(BaseModel):
    """The failures of one error code in a trial: `code` (the server's; 0: timed out or a lost
    connection without one), `count`, and the first one's statement (`sql`, up to SAMPLE_CHARS
    characters), its `session` number and `thread_id` in the source, its `order` there and the
    server's `message`."""

    code: int
    count: int
    sql: str
    session: int
    thread_id: int
    order: int
    message: str


class TrialSummary(BaseModel):
    """A trial summed up: `sessions` run, `statements` run (failed ones included, cancelled ones
    not), `transactions` committed (TrialRun.transactions), `wall_s` (seconds), the rates per second
    of wall clock, `behind_s` (TrialRun.behind_s: how late against the recorded pace; None at speed
    0), `stopped` (None: ran to its end), `errors` by code (most first), `latencies` per fingerprint
    (by class id), `rows_changed` (module docstring), `server_clock`: where the server's p95 beside
    the client's was read, or "server clock not available: <why>" (None: not read)."""

    sessions: int
    statements: int
    transactions: int
    wall_s: float
    statements_per_s: float
    transactions_per_s: float
    behind_s: float | None
    stopped: str | None
    errors: list[ErrorSample]
    latencies: list[FingerprintLatency]
    rows_changed: int
    server_clock: str | None = None


def _percentile(values: list[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def fingerprint_samples(
    trial: TrialRun,
    sessions: Sequence[Session],
    default: str | None = None,
    per: int = SAMPLES_PER_FINGERPRINT,
) -> dict[str, list[tuple[str | None, str]]]:
    """class_id -> up to `per` distinct (default database, SQL) of that fingerprint's statements the
    trial ran, the first ones (`sessions` as summarize_trial takes them; the database the
    statement's, else its session's, else `default`): the samples whose server digests stand for the
    fingerprint (one fingerprint can be several digests: tables numbered alike, lists of other
    lengths)."""
    places = {
        (s.number, one.order): (one.database or s.database or default, one.sql)
        for s in sessions
        for one in s.statements
    }
    out: dict[str, list[tuple[str | None, str]]] = {}
    for run in trial.statements:
        sample = places.get((run.session, run.order))
        if sample is None:
            continue
        found = out.setdefault(run.class_id, [])
        if len(found) < per and sample not in found:
            found.append(sample)
    return out


def summarize_trial(
    trial: TrialRun, sessions: Sequence[Session], server: ServerP95 | None = None
) -> TrialSummary:
    """The summary of `trial`, the run of `sessions` (the same list given to run_sessions: its
    statements' text and thread ids name the samples), with the `server`'s p95 beside the client's
    where given (trial_server.py digest_p95). ValueError when a statement run names a session or
    order that `sessions` does not hold (a trial summed with another source's sessions)."""
    places = {(s.number, one.order): (s, one) for s in sessions for one in s.statements}
    latencies: dict[str, list[float]] = {}
    texts: dict[str, str] = {}
    failed: dict[str, int] = {}
    errors: dict[int, ErrorSample] = {}
    rows_changed = 0
    for run in trial.statements:
        place = places.get((run.session, run.order))
        if place is None:
            raise ValueError(f"statement {run.order} of session {run.session}: not in the trial's sessions")
        session, statement = place
        texts.setdefault(run.class_id, run.fingerprint)
        latencies.setdefault(run.class_id, [])
        if run.error is None:
            if run.latency_s is not None:
                latencies[run.class_id].append(run.latency_s)
            if run.rows and run.fingerprint.split(" ", 1)[0] in WRITE_KINDS:
                rows_changed += run.rows
            continue
        failed[run.class_id] = failed.get(run.class_id, 0) + 1
        code = run.error_code or 0
        if code in errors:
            errors[code].count += 1
        else:
            errors[code] = ErrorSample(
                code=code,
                count=1,
                sql=statement.sql[:SAMPLE_CHARS],
                session=session.number,
                thread_id=session.thread_id,
                order=statement.order,
                message=run.error,
            )
    ran = sum(1 for one in trial.statements if one.latency_s is not None or one.timed_out)
    return TrialSummary(
        sessions=trial.sessions,
        statements=ran,
        transactions=trial.transactions,
        wall_s=trial.wall_s,
        statements_per_s=trial.statements_per_s,
        transactions_per_s=trial.transactions_per_s,
        behind_s=trial.behind_s,
        stopped=trial.stopped,
        errors=sorted(errors.values(), key=lambda e: (-e.count, e.code)),
        latencies=[
            FingerprintLatency(
                class_id=class_,
                fingerprint=texts[class_],
                statements=len(values),
                errors=failed.get(class_, 0),
                p50_s=_percentile(values, 50),
                p95_s=_percentile(values, 95),
                p99_s=_percentile(values, 99),
                server_p95_s=server.p95_s.get(class_) if server else None,
                server_statements=server.statements.get(class_) if server else None,
            )
            for class_, values in sorted(latencies.items())
        ],
        rows_changed=rows_changed,
        server_clock=server.clock if server else None,
    )
